"""Tool calls for models that only write text: the prompt that asks for them, and a parser that
repairs near-misses.

Small models rarely produce valid calls from a chat template's ``tools=`` alone; with the format
spelled out and two worked examples they mostly do. What they write is then read leniently:
``<tool_call>{...}</tool_call>`` blocks, or any JSON object with a ``name``; single quotes,
trailing commas, Python literals and missing closing braces are repaired; ``arguments`` may be an
object or a JSON string (or be called ``parameters``/``args``); a tool name off by a little is
matched to the closest offered one. Every repair is reported.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

JSON = dict[str, Any]
OPEN, CLOSE = "<tool_call>", "</tool_call>"
_BLOCK = re.compile(re.escape(OPEN) + r"(.*?)(?:" + re.escape(CLOSE) + r"|$)", re.DOTALL)

FORMAT = f"""To call a tool, write one line per call, exactly like this:
{OPEN}{{"name": "TOOL_NAME", "arguments": {{"ARGUMENT": "VALUE"}}}}{CLOSE}
After the tool results arrive, call more tools or answer the user in plain words (no tool call).
If you need something only the user knows, ask the user a question."""

EXAMPLES: tuple[JSON, ...] = (
    {"role": "user", "content": "(example) What's the weather in Paris?"},
    {"role": "assistant", "content": f'{OPEN}{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}{CLOSE}'},
    {"role": "user", "content": 'Tool result (get_weather): {"city": "Paris", "sky": "sunny", "celsius": 21}'},
    {"role": "assistant", "content": "It is sunny in Paris, 21 degrees."},
    {"role": "user", "content": "(example) Cancel booking 42 and tell me the refund."},
    {"role": "assistant", "content": f'{OPEN}{{"name": "cancel_booking", "arguments": {{"booking_id": 42}}}}{CLOSE}'},
    {"role": "user", "content": 'Tool result (cancel_booking): {"id": 42, "status": "cancelled", "refund": 120}'},
    {"role": "assistant", "content": "Booking 42 is cancelled; the refund is 120."},
)


def describe_tools(tools: list[JSON] | tuple[JSON, ...]) -> str:
    """One line per tool: ``name(arg: type, ...)`` and its description (OpenAI ``tools`` in)."""
    lines = []
    for entry in tools:
        fn = entry.get("function", entry)
        params = fn.get("parameters") or {}
        required = set(params.get("required") or ())
        args = ", ".join(
            f"{name}{'' if name in required else '?'}: {(schema or {}).get('type', 'any')}"
            for name, schema in (params.get("properties") or {}).items()
        )
        description = " ".join(str(fn.get("description") or "").split())[:160]
        lines.append(f"- {fn.get('name')}({args}): {description}")
    return "\n".join(lines)


def prompt_messages(messages: list[JSON] | tuple[JSON, ...], tools: list[JSON] | tuple[JSON, ...]) -> list[JSON]:
    """OpenAI messages (with tool calls and tool results) as plain system/user/assistant turns."""
    system = [m.get("content") or "" for m in messages if m.get("role") == "system"]
    head = (
        "\n\n".join([*system, "Tools you can call:\n" + describe_tools(tools), FORMAT])
        if tools
        else "\n\n".join(system)
    )
    out: list[JSON] = [{"role": "system", "content": head.strip() or "You are a helpful assistant."}]
    if tools:
        out += [dict(m) for m in EXAMPLES]
    names: dict[str, str] = {}
    for m in messages:
        role = m.get("role")
        if role == "system":
            continue
        if role == "assistant":
            calls = m.get("tool_calls") or []
            text = [m.get("content") or ""]
            for call in calls:
                fn = call.get("function") or {}
                names[call.get("id", "")] = fn.get("name", "")
                arguments = fn.get("arguments") or "{}"
                text.append(f'{OPEN}{{"name": {json.dumps(fn.get("name"))}, "arguments": {arguments}}}{CLOSE}')
            out.append({"role": "assistant", "content": "\n".join(t for t in text if t)})
        elif role == "tool":
            name = names.get(m.get("tool_call_id", ""), "tool")
            out.append({"role": "user", "content": f"Tool result ({name}): {m.get('content')}"})
        else:
            out.append({"role": "user", "content": str(m.get("content") or "")})
    return _merge_turns(out)


def _merge_turns(messages: list[JSON]) -> list[JSON]:
    """Consecutive turns of one role joined (several tool results in a row)."""
    merged: list[JSON] = []
    for m in messages:
        if merged and merged[-1]["role"] == m["role"] and m["role"] != "system":
            merged[-1] = {"role": m["role"], "content": merged[-1]["content"] + "\n" + m["content"]}
        else:
            merged.append(m)
    return merged


def parse_tool_calls(text: str, tool_names: list[str] | tuple[str, ...]) -> tuple[JSON, tuple[str, ...]]:
    """The assistant message (OpenAI form) a model's text means, and the repairs made."""
    repairs: list[str] = []
    blocks = [m.group(1) for m in _BLOCK.finditer(text)]
    if blocks and not text.rstrip().endswith(CLOSE) and CLOSE not in text[text.rfind(OPEN) :]:
        repairs.append("unterminated <tool_call>")
    candidates = blocks or _json_objects(text)
    calls: list[JSON] = []
    for raw in candidates:
        obj = _load(raw, repairs)
        call = _as_call(obj, tool_names, repairs) if isinstance(obj, dict) else None
        if call is not None:
            call["id"] = f"call_{len(calls)}"
            calls.append(call)
    content = _BLOCK.sub("", text).strip() if blocks else text.strip()
    if calls and not blocks:
        content = ""  # the text was the call
    message: JSON = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = calls
    return message, tuple(repairs)


def json_in(text: str, openers: str = "{[") -> Any:
    """The JSON value a model's answer holds: the span from the first ``{`` (or ``[``) to the last
    matching closer, parsed; None when there is none or it does not parse."""
    for opener in openers:
        closer = "}" if opener == "{" else "]"
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1])
            except ValueError:
                continue
    return None


def _json_objects(text: str) -> list[str]:
    """Balanced ``{...}`` spans of ``text`` that mention a name (unclosed ones run to the end)."""
    spans, depth, start, quote, escaped = [], 0, -1, "", False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "\"'" and depth:
            quote = ch
        elif ch == "{":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    if depth and start >= 0:
        spans.append(text[start:])
    return [s for s in spans if "name" in s or "function" in s]


def _load(raw: str, repairs: list[str]) -> Any:
    raw = raw.strip()
    try:
        return json.loads(raw)
    except ValueError:
        pass
    fixed = raw
    if "'" in fixed and '"' not in fixed:
        fixed = fixed.replace("'", '"')
    fixed = re.sub(r",\s*([}\]])", r"\1", fixed)
    fixed = re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", re.sub(r"\bNone\b", "null", fixed)))
    fixed += "}" * max(0, fixed.count("{") - fixed.count("}"))
    try:
        value = json.loads(fixed)
    except ValueError:
        repairs.append(f"unreadable call {raw[:60]!r}")
        return None
    repairs.append("repaired JSON")
    return value


def _as_call(obj: JSON, tool_names: list[str] | tuple[str, ...], repairs: list[str]) -> JSON | None:
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name") or obj.get("tool")
    if not isinstance(name, str):
        return None
    args: Any = next((obj[k] for k in ("arguments", "parameters", "args", "input") if k in obj), {})
    if isinstance(args, str):
        try:
            args = json.loads(args or "{}")
        except ValueError:
            repairs.append("arguments were not JSON")
            args = {}
    if not isinstance(args, dict):
        repairs.append("arguments were not an object")
        args = {}
    if name not in tool_names:
        lowered = {n.lower(): n for n in tool_names}
        close = lowered.get(name.lower()) or next(iter(difflib.get_close_matches(name, tool_names, 1, 0.75)), None)
        if close is not None:
            repairs.append(f"tool name {name!r} read as {close!r}")
            name = close
    return {"type": "function", "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}


__all__ = ["EXAMPLES", "FORMAT", "describe_tools", "json_in", "parse_tool_calls", "prompt_messages"]
