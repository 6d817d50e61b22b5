"""Many episodes' turns decoded as one batch: the model reads its weights once per token for all.

A model this size decodes one conversation at a time far below what the machine can do: each
token reads every weight (on a CPU) or launches every kernel (on a GPU) for one row.
:func:`decode` writes the next turn of several conversations at once. Each conversation keeps its
own key-value cache between turns (:class:`Turn`); for a round they are padded on the left into
one batch, each row at its own positions, and split again afterwards. Each row draws its tokens
from its own seeded generator, so what a row writes does not depend on which rows share its batch
(up to the last bits of floating-point sums).

:class:`Lockstep` runs episodes on threads, at most ``rows`` at a time, and decodes a round, on a
thread of its own, when every episode it runs is waiting for its next turn (or has ended). Which episodes share a round
follows from the episodes alone, never from which thread came first, so a seeded run gives the
same numbers every time.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from envfactory.rl.lm.model import device_of

T = TypeVar("T")
_MODEL_LOCK = threading.Lock()  # one model, one forward pass at a time, whoever asks


@dataclass
class Turn:
    """A conversation about to get its next turn: its ids so far, the cache of their first
    ``cache.get_seq_length()`` ids (``None``: none yet; ``start`` makes one), and how to draw."""

    ids: list[int]
    cache: Any = None
    seed: int = 0
    sample: bool = False
    temperature: float = 1.0
    start: Callable[[list[int]], Any] | None = None  # a fresh cache for these ids (a shared prefix's copy)


def decode(model: Any, turns: Sequence[Turn], *, max_new_tokens: int, eos: int) -> list[list[int]]:
    """The next turn of each conversation, as the ids written (up to and with ``eos``, at most
    ``max_new_tokens``). Each turn's ``cache`` is left holding every id but the last written one.
    A model whose attention is not plain (a sliding window, say) decodes its rows one by one."""
    import torch
    from transformers import DynamicCache

    with _MODEL_LOCK, torch.no_grad(), warnings.catch_warnings():
        # transformers 5 renames past_key_values (the name every 5.x release still takes)
        warnings.filterwarnings("ignore", message=".*past_key_values.*deprecated", category=FutureWarning)
        for turn in turns:
            if turn.cache is None:
                turn.cache = turn.start(turn.ids) if turn.start is not None else DynamicCache()
        if not _plain(model):
            return [_generate(model, turn, max_new_tokens=max_new_tokens, eos=eos) for turn in turns]
        return _batched(model, turns, max_new_tokens=max_new_tokens, eos=eos)


def _batched(model: Any, turns: Sequence[Turn], *, max_new_tokens: int, eos: int) -> list[list[int]]:
    import torch

    device = device_of(model)
    for turn in turns:
        _prefill(model, turn, device)
    lengths = [len(t.ids) - 1 for t in turns]  # every id but the last is in the caches now
    width = max(lengths)
    cache = _padded(model, [t.cache for t in turns], lengths, width, width + max_new_tokens)
    for turn in turns:  # copied into the batch: let the rows' own caches go before their new ones are cut out
        turn.cache = None
    generators = [_generator(t.seed, device) if t.sample else None for t in turns]
    last = torch.tensor([[t.ids[-1]] for t in turns], device=device)
    mask = torch.zeros((len(turns), width + max_new_tokens), dtype=torch.long, device=device)
    for i, n in enumerate(lengths):
        mask[i, width - n :] = 1  # the positions still to be written are masked in as they come
    written: list[list[int]] = [[] for _ in turns]
    done = [False] * len(turns)
    for step in range(max_new_tokens):
        positions = torch.tensor([[n + step] for n in lengths], device=device)
        out = model(input_ids=last, attention_mask=mask[:, : width + step + 1], position_ids=positions,
                    past_key_values=cache, use_cache=True)  # fmt: skip
        logits = out.logits[:, -1, :].float()
        picked = torch.cat([_choose(logits[i], turn, generators[i]) for i, turn in enumerate(turns)])
        chosen = picked.tolist()  # one wait for the device per step, not one per row
        for i in range(len(turns)):
            if done[i]:
                chosen[i] = eos  # an ended row is fed its end again; what it reads there is never kept
            else:
                written[i].append(chosen[i])
                done[i] = chosen[i] == eos
        if all(done):
            break
        last = torch.tensor([[c] for c in chosen], device=device)
    for i, turn in enumerate(turns):  # each row's own part: from its first id to its last fed one
        turn.cache = _row(cache, i, width - lengths[i], width + len(written[i]))
    return written


def _generate(model: Any, turn: Turn, *, max_new_tokens: int, eos: int) -> list[int]:
    """One row through ``transformers``' own ``generate``, drawing from the same seeded generator."""
    import torch

    prompt = torch.tensor([turn.ids], device=device_of(model))
    options: dict[str, Any] = {"do_sample": turn.sample, "top_p": None, "top_k": None,
                               "temperature": turn.temperature if turn.sample else None}  # fmt: skip
    state = torch.random.get_rng_state()
    torch.manual_seed(turn.seed % 2**63)
    out = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=max_new_tokens,
                         past_key_values=turn.cache, eos_token_id=eos, pad_token_id=eos, **options)  # fmt: skip
    torch.random.set_rng_state(state)
    return [int(i) for i in out[0, prompt.shape[1] :].tolist()]


_PLAIN: dict[int, tuple[Any, bool]] = {}  # by the config's id, the config kept beside (ids are reused)


def share_cache(model: Any, plain: bool) -> None:
    """Say whether ``model``'s rows share one padded cache, whatever :func:`_plain` would find (a
    bench comparing batched decoding with ``generate`` row by row)."""
    _PLAIN[id(model.config)] = (model.config, plain)


def _plain(model: Any) -> bool:
    """Whether rows can share one padded cache: every layer attends to all before it (no sliding
    window), and ``transformers`` keeps a preallocated cache as its 5.x releases do."""
    config = model.config
    entry = _PLAIN.get(id(config))
    if entry is None or entry[0] is not config:
        try:
            from transformers import StaticCache
            from transformers.cache_utils import StaticLayer

            layers = StaticCache(config=config, max_cache_len=1).layers
            plain = all(type(layer) is StaticLayer and hasattr(layer, "cumulative_length") for layer in layers)
        except (ImportError, TypeError, AttributeError):  # an older transformers: one row at a time
            plain = False
        _PLAIN[id(config)] = entry = (config, plain)
    return bool(entry[1])


def _prefill(model: Any, turn: Turn, device: Any) -> None:
    """Read the ids the cache lacks, but the last (the first one fed when decoding)."""
    import torch

    have = turn.cache.get_seq_length()
    todo = turn.ids[have:-1]
    if not todo:
        return
    ids = torch.tensor([todo], device=device)
    mask = torch.ones((1, have + len(todo)), dtype=torch.long, device=device)
    positions = torch.arange(have, have + len(todo), device=device).unsqueeze(0)
    model(input_ids=ids, attention_mask=mask, position_ids=positions, past_key_values=turn.cache, use_cache=True,
          logits_to_keep=1)  # fmt: skip


def _padded(model: Any, caches: Sequence[Any], lengths: Sequence[int], width: int, room: int) -> Any:
    """One preallocated cache of ``room`` places for the batch, each row's keys and values written
    to end at ``width`` (the places before are padding, masked out)."""
    from transformers import StaticCache

    out: Any = StaticCache(config=model.config, max_cache_len=room)
    for layer, entry in enumerate(out.layers):
        first = caches[0].layers[layer]
        shape = (len(caches), first.keys.shape[1], 1, first.keys.shape[3])
        entry.lazy_initialization(first.keys.new_zeros(shape), first.values.new_zeros(shape))
        for i, (cache, n) in enumerate(zip(caches, lengths, strict=True)):
            entry.keys[i, :, width - n : width] = cache.layers[layer].keys[0, :, :n]
            entry.values[i, :, width - n : width] = cache.layers[layer].values[0, :, :n]
        entry.cumulative_length.fill_(width)
    return out


def _row(cache: Any, i: int, begin: int, end: int) -> Any:
    from transformers import DynamicCache

    out = DynamicCache()
    for layer, entry in enumerate(cache.layers):
        out.update(entry.keys[i : i + 1, :, begin:end].clone(), entry.values[i : i + 1, :, begin:end].clone(), layer)
    return out


def _generator(seed: int, device: Any) -> Any:
    import torch

    generator = torch.Generator(device=device)
    generator.manual_seed(seed % 2**63)
    return generator


def _choose(logits: Any, turn: Turn, generator: Any) -> Any:
    """The next id of one row, as a one-element tensor: the likeliest, or drawn with its generator."""
    import torch

    if generator is None:
        return torch.argmax(logits).reshape(1)
    probs = torch.softmax(logits / max(turn.temperature, 1e-6), dim=-1)
    return torch.multinomial(probs, 1, generator=generator)


class Lockstep:
    """Runs jobs (episodes) on threads, at most ``rows`` at once; :meth:`generate`, called from
    inside a job, returns when the round holding every running job's turn has been decoded."""

    def __init__(self, model: Any, *, max_new_tokens: int, eos: int, rows: int = 16) -> None:
        if rows < 1:
            raise ValueError(f"Lockstep rows must be at least 1, not {rows}")
        self.model, self.max_new_tokens, self.eos, self.rows = model, max_new_tokens, eos, rows
        self._lock = threading.Condition()
        self._local = threading.local()
        self._members = 0
        self._waiting: dict[int, Turn] = {}
        self._written: dict[int, list[int] | BaseException] = {}
        self._running = False
        self._round: tuple[list[int], list[Turn]] | None = None  # handed to the decoding thread
        self.sizes: list[int] = []  # how many rows each decoded round held

    def run(self, jobs: Sequence[Callable[[], T]], progress: Callable[[int], None] | None = None) -> list[T]:
        """Each job's result, in order; the first job's error, if one failed, after all ended.
        ``progress`` hears how many jobs have ended, as each ends."""
        results: list[Any] = [None] * len(jobs)
        errors: list[tuple[int, BaseException]] = []
        queue = iter(range(len(jobs)))
        ended = [0]

        def take() -> int | None:  # under the lock: the next job, a member from now on
            index = next(queue, None)
            if index is not None:
                self._members += 1
            return index

        def worker(first: int) -> None:
            index: int | None = first
            while index is not None:
                self._local.index = index
                try:
                    results[index] = jobs[index]()
                except BaseException as err:  # handed to run()'s caller below
                    errors.append((index, err))
                with self._lock:
                    self._members -= 1
                    ended[0] += 1
                    if progress is not None:
                        progress(ended[0])
                    index = take()
                    if index is None:
                        self._local.index = None
                        self._maybe_decode()
            self._local.index = None

        with self._lock:  # every first job is a member before any of them can ask for a turn
            if self._running:
                raise RuntimeError("a Lockstep runs one set of jobs at a time; make another for more")
            self._running = True
            firsts = [take() for _ in range(min(self.rows, len(jobs)))]
        threads = [threading.Thread(target=worker, args=(first,), daemon=True) for first in firsts]
        decoder = threading.Thread(target=self._decoder, daemon=True)
        decoder.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with self._lock:
            self._running = False
            self._lock.notify_all()
        decoder.join()
        if errors:
            raise min(errors, key=lambda e: e[0])[1]
        return results

    def generate(self, turn: Turn) -> list[int]:
        """The next turn's ids: decoded with the others' in this round (alone outside :meth:`run`)."""
        index = getattr(self._local, "index", None)
        if index is None:
            return decode(self.model, [turn], max_new_tokens=self.max_new_tokens, eos=self.eos)[0]
        with self._lock:
            self._waiting[index] = turn
            self._maybe_decode()
            while index not in self._written:
                self._lock.wait()
            written = self._written.pop(index)
        if isinstance(written, BaseException):
            raise written
        return written

    def _maybe_decode(self) -> None:
        """Under the lock: when every running job waits, hand their turns (in job order) to the
        decoding thread."""
        if not self._waiting or len(self._waiting) < self._members:
            return
        order = sorted(self._waiting)
        self._round = (order, [self._waiting.pop(i) for i in order])
        self._lock.notify_all()

    def _decoder(self) -> None:
        """The one thread the model runs on while :meth:`run` lasts: every round is decoded here,
        so the large buffers of the caches are made and freed by one thread (one allocator arena)."""
        while True:
            with self._lock:
                while self._round is None and self._running:
                    self._lock.wait()
                if self._round is None:
                    return
                (order, turns), self._round = self._round, None
            self.sizes.append(len(turns))
            try:
                written: Sequence[list[int] | BaseException] = decode(
                    self.model, turns, max_new_tokens=self.max_new_tokens, eos=self.eos
                )
            except BaseException as err:  # every waiting job gets it
                written = [err] * len(turns)
            with self._lock:
                self._written.update(zip(order, written, strict=True))
                self._lock.notify_all()


__all__ = ["Lockstep", "Turn", "decode", "share_cache"]
