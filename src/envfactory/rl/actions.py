"""Admissible actions: candidate tool calls built from the tools and the values seen so far.

A compact policy does not write JSON; it picks one of these candidates (DRRN-style). Values come
from the instruction (quoted phrases after a field label, ids the user states), from the user's
answers, and from earlier tool outputs, each with its provenance, so a scorer can learn *where*
an argument should come from — knowledge that transfers to tools it never saw.

Rows read from outputs also yield *derived* ids: the row whose field equals a phrase of the
request (``match``), and the rows holding the largest or smallest value of a field the request
mentions (``max`` / ``min``). A ``next_page`` in an output becomes a ``cursor`` value for a
``page`` argument. Which of these a request wants is left to the scorer to learn.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from envfactory.synth.naming import id_stem, same_field, singular, tokens

JSON = dict[str, Any]
MAX_PER_TOOL = 12
_QUOTED = re.compile(r"([A-Za-z_ ]{2,40}?)\s+(?:to\s+)?'([^']{1,120})'")
_ID = re.compile(r"\b([a-z]+(?:_[a-z]+)*_\d{4})\b")
_LIST = re.compile(r"([A-Za-z_ ]{2,40}?)\s+((?:'[^']{1,60}'(?:,\s*)?){2,})")
_ID_NUMBER = re.compile(r"\b([a-z]+)\s+(\d+)\b")
_ANSWER = re.compile(r"\bThe ([a-z][a-z ]{0,40}?) is (.+?)\.(?:\s|$)")
# what the user holds back: "a parent you should ask me for", "its title to one you should ask me for" (a
# change), and the older "(ask me for the parent)"
_ASK = re.compile(
    r"\b(?:an?|the) ([a-z ]+?) you should ask me for|\bits ([a-z ]+?) to one you should ask me for"
    r"|ask me for the ([a-z ]+?)\)"
)
_NUMBER = re.compile(r"(?<![\w.])([a-z][a-z ]{1,30}?)\s+(?:to\s+)?(-?\d+(?:\.\d+)?)\b")


@dataclass(frozen=True)
class Value:
    value: Any
    label: str  # the field or phrase it came with ("name", "order id")
    source: str  # "instruction" | "user" | "output" | "cursor" | derived: "match" | "max" | "min"
    hint: str = ""  # max/min: the request's word before the field ("latest" in "latest created at"); cursor: its tool


@dataclass(frozen=True)
class Candidate:
    kind: str  # "call" or "reply"
    tool: str = ""
    arguments: tuple[tuple[str, Any], ...] = ()
    text: str = ""
    sources: tuple[str, ...] = ()  # where each argument value came from
    hints: tuple[str, ...] = ()  # the word that singled each value out, if any (see Value.hint)

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
    """What the agent has seen in this episode, as labelled values and rows."""

    values: list[Value] = field(default_factory=list)
    asked: set[str] = field(default_factory=set)
    calls: list[tuple[str, JSON]] = field(default_factory=list)
    rows: dict[tuple[str, str], JSON] = field(default_factory=dict)  # (entity, id) -> latest row

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

    def read_output(self, content: str, tool: str = "") -> None:
        try:
            data = json.loads(content)
        except json.JSONDecodeError:
            return
        for label, value in _scalars(data):
            if tokens(label)[:1] == ("next",) and len(tokens(label)) > 1:  # next_page -> this tool's page cursor
                self.values.append(Value(value, "_".join(tokens(label)[1:]), "cursor", hint=tool))
            else:
                self.values.append(Value(value, label, "output"))
        for row in _records(data):
            entity = _entity(row, tool)
            if entity:
                self.rows[(entity, json.dumps(_row_id(row)))] = row

    def derived(self, stem: str, instruction: tuple[str, ...]) -> list[Value]:
        """Ids of rows of entity ``stem`` that the request (its word tokens) singles out."""
        instruction_words = set(instruction)
        rows = [row for (entity, _), row in self.rows.items() if entity == stem.replace("_", "")]
        if not rows:
            return []
        phrases = {v.value for v in self.values if v.source != "output" and isinstance(v.value, str)}
        matched = [r for r in rows if any(v in phrases for k, v in r.items() if not _is_id(k))]
        out = [Value(_row_id(r), "id", "match") for r in matched[:4]]
        pool = matched if len(matched) >= 2 else rows
        for key in pool[0]:
            if _is_id(key) or not set(tokens(key)) <= instruction_words:
                continue
            hint = _word_before(instruction, tokens(key))
            values = [(_comparable(r.get(key)), i) for i, r in enumerate(pool)]
            values = [(v, i) for v, i in values if v is not None]
            if len(values) < 2 or len({type(v) for v, _ in values}) > 1:
                continue
            values.sort()
            for source, (best, i), (runner_up, _) in (("min", values[0], values[1]), ("max", values[-1], values[-2])):
                if best != runner_up:
                    out.append(Value(_row_id(pool[i]), "id", source, hint))
        return out

    def hidden_labels(self, instruction: str) -> list[str]:
        labels = [said or changed or old for said, changed, old in _ASK.findall(instruction)]
        return [label for label in labels if label not in self.asked]


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


def _word_before(text: tuple[str, ...], phrase: tuple[str, ...]) -> str:
    """The token before the first occurrence of ``phrase`` in ``text`` ("" when absent or first)."""
    n = len(phrase)
    return next((text[i - 1] for i in range(1, len(text) - n + 1) if text[i : i + n] == phrase), "")


def _is_id(key: str) -> bool:
    return tokens(key) == ("id",)


def _row_id(row: JSON) -> Any:
    return next((v for k, v in row.items() if _is_id(k)), None)


def _records(data: Any) -> list[JSON]:
    """Objects with an ``id`` and other scalar fields, wherever they sit in an output."""
    if isinstance(data, list):
        return [r for item in data[:100] for r in _records(item)]
    if not isinstance(data, dict):
        return []
    scalars = {k: v for k, v in data.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
    nested = [r for v in data.values() if isinstance(v, (dict, list)) for r in _records(v)]
    return ([scalars] if len(scalars) >= 2 and _row_id(scalars) is not None else []) + nested


def _entity(row: JSON, tool: str) -> str:
    """``account_0012`` -> ``account``; an integer id takes the entity from the tool's last word."""
    ident = _row_id(row)
    prefix, _, number = str(ident).rpartition("_")
    if isinstance(ident, str) and prefix and number.isdigit():
        return prefix.replace("_", "")
    words = tokens(tool)
    return singular(words[-1]) if words else ""


def _comparable(value: Any) -> float | str | None:
    """Numbers (also written as strings) and ISO dates compare; anything else does not."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value if len(value) >= 10 and value[:4].isdigit() and value[4] == "-" else None
    return None


def _coerced(value: Value, schema: JSON) -> Value | None:
    """An output's ``"7"`` read as the integer an integer argument needs (APIs send numbers as text)."""
    if schema.get("type") in ("integer", "number") and isinstance(value.value, str):
        try:
            number = float(value.value)
        except ValueError:
            return None
        if schema["type"] == "integer" and not number.is_integer():
            return None
        return Value(int(number) if schema["type"] == "integer" else number, value.label, value.source)
    return value


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


_RANK = {"match": 0, "max": 0, "min": 0, "user": 1, "instruction": 2, "cursor": 3, "output": 4}


def _shaped(value: Any, schema: JSON) -> Any:
    return [value] if schema.get("type") == "array" and not isinstance(value, list) else value


def candidates(tools: list[JSON], memory: Memory, instruction: str) -> list[Candidate]:
    """Every admissible action: calls whose required arguments can be filled, and replies."""
    out: list[Candidate] = []
    said = tokens(instruction)
    derived: dict[str, list[Value]] = {}  # per entity: many tools take the same kind of id
    for entry in tools:
        fn = entry["function"]
        props = (fn.get("parameters") or {}).get("properties") or {}
        required = list((fn.get("parameters") or {}).get("required") or [])
        options: dict[str, list[Value]] = {}
        for arg, schema in props.items():
            seen: dict[str, Value] = {}
            stem = id_stem(arg)
            if stem and memory.rows and stem not in derived:
                derived[stem] = memory.derived(stem, said)
            for raw in derived.get(stem, ()) if stem else ():
                value = _coerced(raw, schema)
                if value is not None:
                    seen.setdefault(json.dumps(value.value), value)
            for raw in reversed(memory.values):  # the latest value of each kind first
                if raw.source == "cursor" and raw.hint != fn["name"]:
                    continue  # a page cursor belongs to the list it came from
                value = _coerced(raw, schema) if raw.source in ("output", "cursor") else raw
                if value is not None and _matches(arg, value, schema) and json.dumps(value.value) not in seen:
                    seen[json.dumps(value.value)] = value
            if not seen and arg in required and schema.get("type") in ("integer", "number"):  # "transfer 10"
                for value in memory.values:
                    if value.source != "output" and isinstance(value.value, (int, float)):
                        seen.setdefault(json.dumps(value.value), value)
            ranked = sorted(seen.values(), key=lambda v: _RANK[v.source])  # stable: latest first within a source
            options[arg] = ranked[:5]
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
                    sources, hints = tuple(v.source for v in combo), tuple(v.hint for v in combo)
                    out.append(Candidate("call", fn["name"], arguments, sources=sources, hints=hints))
    for label in memory.hidden_labels(instruction):
        out.append(Candidate("reply", text=f"What is the {label}?"))
    facts = [str(v.value) for v in memory.values[-3:] if v.source == "output" and isinstance(v.value, (int, float))]
    out.append(Candidate("reply", text="All done."))
    if facts:
        out.append(Candidate("reply", text="All done. " + ", ".join(facts)))
    return out
