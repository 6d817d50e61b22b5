"""Admissible actions: candidate tool calls built from the tools and the values seen so far.

A compact policy does not write JSON; it picks one of these candidates (DRRN-style). Values come
from the instruction (quoted phrases after a field label, ids the user states), from the user's
answers, and from earlier tool outputs, each with its provenance, so a scorer can learn *where*
an argument should come from — knowledge that transfers to tools it never saw.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from envfactory.synth.naming import id_stem, same_field

JSON = dict[str, Any]
MAX_PER_TOOL = 12
_QUOTED = re.compile(r"([A-Za-z_ ]{2,40}?)\s+(?:to\s+)?'([^']{1,120})'")
_ID = re.compile(r"\b([a-z]+(?:_[a-z]+)*_\d{4})\b")
_LIST = re.compile(r"([A-Za-z_ ]{2,40}?)\s+((?:'[^']{1,60}'(?:,\s*)?){2,})")
_ID_NUMBER = re.compile(r"\b([a-z]+)\s+(\d+)\b")
_ANSWER = re.compile(r"\bThe ([a-z][a-z ]{0,40}?) is (.+?)\.(?:\s|$)")
_ASK = re.compile(r"ask me for the ([a-z ]+?)\)")
_NUMBER = re.compile(r"(?<![\w.])([a-z][a-z ]{1,30}?)\s+(?:to\s+)?(-?\d+(?:\.\d+)?)\b")


@dataclass(frozen=True)
class Value:
    value: Any
    label: str  # the field or phrase it came with ("name", "order id")
    source: str  # "instruction" | "user" | "output"


@dataclass(frozen=True)
class Candidate:
    kind: str  # "call" or "reply"
    tool: str = ""
    arguments: tuple[tuple[str, Any], ...] = ()
    text: str = ""
    sources: tuple[str, ...] = ()  # where each argument value came from

    @property
    def args(self) -> JSON:
        return dict(self.arguments)

    def message(self) -> JSON:
        """The OpenAI assistant message this candidate stands for."""
        if self.kind == "reply":
            return {"role": "assistant", "content": self.text}
        call = {
            "id": "c0",
            "type": "function",
            "function": {"name": self.tool, "arguments": json.dumps(self.args)},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}


@dataclass
class Memory:
    """What the agent has seen in this episode, as labelled values."""

    values: list[Value] = field(default_factory=list)
    asked: set[str] = field(default_factory=set)
    calls: list[tuple[str, JSON]] = field(default_factory=list)

    def read_instruction(self, text: str, source: str = "instruction") -> None:
        for label, value in _QUOTED.findall(text):
            words = label.strip().split()
            self.values.append(Value(value, " ".join(words[-2:]), source))
            self.values.append(Value(value, words[-1], source))
        for label, number in _NUMBER.findall(text):
            words = label.strip().split()
            self.values.append(Value(float(number) if "." in number else int(number), words[-1], source))
        for label, quoted in _LIST.findall(text):  # tags 'a', 'b' -> a list
            self.values.append(Value(re.findall(r"'([^']*)'", quoted), label.strip().split()[-1], source))
        for noun, number in _ID_NUMBER.findall(text):  # "order 7" -> an integer id of an order
            self.values.append(Value(int(number), f"{noun} id", source))
        for ident in _ID.findall(text):
            self.values.append(Value(ident, "id", source))
        if source == "user":  # "The species is dog." - a scripted user's answer
            for label, value in _ANSWER.findall(text):
                self.values.append(Value(value.strip("'"), label.split()[-1], source))
                self.values.append(Value(value.strip("'"), label, source))

    def read_output(self, content: str) -> None:
        try:
            data = json.loads(content)
        except json.JSONDecodeError:
            return
        for label, value in _scalars(data):
            self.values.append(Value(value, label, "output"))

    def hidden_labels(self, instruction: str) -> list[str]:
        return [label for label in _ASK.findall(instruction) if label not in self.asked]


def _scalars(data: Any, label: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        if "error" in data and isinstance(data["error"], dict):
            return []
        return [pair for k, v in data.items() for pair in _scalars(v, k)]
    if isinstance(data, list):
        return [pair for item in data[:100] for pair in _scalars(item, label)]
    if isinstance(data, (str, int, float)) and not isinstance(data, bool) and label:
        return [(label, data)]
    return []


def _matches(arg: str, value: Value, schema: JSON) -> bool:
    typ = schema.get("type")
    if typ == "array" and not isinstance(value.value, (list, str)):
        return False
    if typ in ("integer", "number") and not isinstance(value.value, (int, float)):
        return False
    if typ == "string" and not isinstance(value.value, str):
        return False
    if same_field(arg, value.label):
        return True
    if value.label == "id" and isinstance(value.value, str):  # order_0003 for order_id / from_order_id
        stem = id_stem(arg)
        prefix, _, number = value.value.rpartition("_")
        return stem is not None and number.isdigit() and prefix.replace("_", "") == stem.replace("_", "")
    return False


_RANK = {"user": 0, "instruction": 1, "output": 2}


def _shaped(value: Any, schema: JSON) -> Any:
    return [value] if schema.get("type") == "array" and not isinstance(value, list) else value


def candidates(tools: list[JSON], memory: Memory, instruction: str) -> list[Candidate]:
    """Every admissible action: calls whose required arguments can be filled, and replies."""
    out: list[Candidate] = []
    for entry in tools:
        fn = entry["function"]
        props = (fn.get("parameters") or {}).get("properties") or {}
        required = list((fn.get("parameters") or {}).get("required") or [])
        options: dict[str, list[Value]] = {}
        for arg, schema in props.items():
            seen: dict[str, Value] = {}
            for value in reversed(memory.values):  # the latest value of each kind first
                if _matches(arg, value, schema) and json.dumps(value.value) not in seen:
                    seen[json.dumps(value.value)] = value
            if not seen and arg in required and schema.get("type") in ("integer", "number"):  # "transfer 10"
                for value in memory.values:
                    if value.source != "output" and isinstance(value.value, (int, float)):
                        seen.setdefault(json.dumps(value.value), value)
            ranked = sorted(seen.values(), key=lambda v: _RANK[v.source])  # stable: latest first within a source
            options[arg] = ranked[:4]
        if any(not options[a] for a in required):
            continue
        optional = [a for a in props if a not in required and options[a] and options[a][0].source != "output"]
        subsets = [optional, []] + ([[a] for a in optional] if 1 < len(optional) <= 4 else [])
        seen_calls: set[str] = set()
        for subset in subsets:
            names = required + subset
            for combo in itertools.islice(itertools.product(*(options[a] for a in names)), MAX_PER_TOOL):
                arguments = tuple((a, _shaped(v.value, props[a])) for a, v in zip(names, combo, strict=True))
                signature = json.dumps(arguments)
                if signature not in seen_calls:
                    seen_calls.add(signature)
                    out.append(Candidate("call", fn["name"], arguments, sources=tuple(v.source for v in combo)))
    for label in memory.hidden_labels(instruction):
        out.append(Candidate("reply", text=f"What is the {label}?"))
    facts = [str(v.value) for v in memory.values[-3:] if v.source == "output" and isinstance(v.value, (int, float))]
    out.append(Candidate("reply", text="All done."))
    if facts:
        out.append(Candidate("reply", text="All done. " + ", ".join(facts)))
    return out
