"""The model being trained: the embedded SmolLM2 (or any local Hugging Face causal LM) with LoRA
adapters (``peft``), saved and loaded as a folder that holds the adapter and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envfactory.errors import EnvFactoryError

ADAPTER = "adapter"
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def base_model(name: str = "local") -> tuple[Any, Any]:
    """A fresh trainable copy of a model and its tokenizer: ``local`` is the embedded SmolLM2;
    anything else is a local Hugging Face model folder (no hub: nothing is downloaded). On a GPU
    when one is there."""
    import torch

    if name == "local":
        from envfactory.llm.local import trainable

        tokenizer, model = trainable()
    else:
        folder = Path(name)
        if not folder.is_dir():
            raise EnvFactoryError(f"--model {name!r}: give `local` (the embedded model) or a local model folder")
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModelForCausalLM.from_pretrained(folder)
    return tokenizer, model.to("cuda" if torch.cuda.is_available() else "cpu")


def device_of(model: Any) -> Any:
    """Where the model's weights are: the tensors it is given go there too."""
    return next(model.parameters()).device


def with_lora(model: Any, *, rank: int = 16, alpha: int = 32, seed: int = 0) -> Any:
    """``model`` wrapped with fresh LoRA adapters (seeded) on its attention and MLP projections."""
    import torch

    try:
        from peft import LoraConfig, get_peft_model
    except ImportError as err:
        raise EnvFactoryError("training a language model needs `pip install envfactory[lm]` (peft)") from err
    names = {n.rsplit(".", 1)[-1] for n, _ in model.named_modules()}
    targets = [t for t in LORA_TARGETS if t in names] or ["all-linear"]
    torch.manual_seed(seed)
    config = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=0.0, target_modules=targets, task_type="CAUSAL_LM")
    return get_peft_model(model, config)


def save_adapter(model: Any, folder: Path) -> Path:
    path = folder / ADAPTER
    model.save_pretrained(str(path))
    return path


def load_trained(folder: str | Path, name: str = "local") -> tuple[Any, Any]:
    """A trained run (its folder, or the adapter folder inside it) on its base model, for
    evaluation; the base model alone when ``folder`` holds no adapter is an error, not a silent
    fallback."""
    from peft import PeftModel

    root = Path(folder)
    adapter = root / ADAPTER if (root / ADAPTER).is_dir() else root
    if not (adapter / "adapter_config.json").is_file():
        raise EnvFactoryError(f"{folder}: no trained adapter here (expected {ADAPTER}/adapter_config.json)")
    tokenizer, model = base_model(name)
    trained = PeftModel.from_pretrained(model, str(adapter), is_trainable=True)
    trained.eval()
    return tokenizer, trained


__all__ = ["ADAPTER", "base_model", "device_of", "load_trained", "save_adapter", "with_lora"]
