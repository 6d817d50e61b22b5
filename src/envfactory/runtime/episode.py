"""Episode: one agent's run in an environment (DESIGN.md §3).

``reset`` / ``call_tool`` / ``respond`` / ``verify`` / ``snapshot`` / ``restore`` /
``state_hash``. Bad input from the agent is an observation, never an exception; the same
environment, task and seed give the same observations byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from envfactory.errors import SnapshotError
from envfactory.ir.snapshot import EpisodeSnapshot
from envfactory.ir.task import Task, Verdict
from envfactory.ir.tool import unwrapped
from envfactory.runtime.behaviours import CallContext, key_caster
from envfactory.runtime.canonical import NotCanonical, canonical_value, json_safe, parse_json, safe_repr, safe_text
from envfactory.runtime.environment import Environment
from envfactory.runtime.facts import spray, states_fact
from envfactory.runtime.owner import owner_digest, owner_state
from envfactory.runtime.result import ERROR_CODES, ErrorCode, ToolError, ToolResult, to_json_text, tool_result
from envfactory.runtime.store import Store, clone
from envfactory.users.base import ClosingUser, UserSimulator

JSON = dict[str, Any]
MAX_ARGUMENT_CHARS = 100_000
MAX_REPLY_CHARS = 4_000  # longer replies are cut: a reply is an answer, not a dump of candidates


class Episode:
    """Mutable per-episode state over a shared :class:`Environment`."""

    __slots__ = (
        "_ctx",
        "_tracker",
        "env",
        "last_raw",
        "last_shaped",
        "log",
        "max_steps",
        "replies",
        "seed",
        "steps",
        "store",
        "task",
        "terminated",
        "truncated",
        "user",
    )

    def __init__(self, env: Environment, *, max_steps: int | None = None, user: UserSimulator | None = None) -> None:
        self.env = env
        self.last_raw: Any = None  # what the last call's behaviour produced before shaping (for learning)
        self.last_shaped: Any = None  # and shaped, before a learned answer worded it (``None``: not worded)
        self.user: UserSimulator = user or ClosingUser()
        self.max_steps = max_steps or env.spec.config.max_steps
        self.reset()

    # -- lifecycle ---------------------------------------------------------------------------
    def reset(self, task: Task | None = None, seed: int | None = None) -> list[JSON]:
        """Start over from the initial state; returns the opening messages."""
        self.task = task
        self.seed = seed if seed is not None else (task.seed if task is not None else 0)
        self.store = Store(self.env.base)
        self.steps = 0
        self.terminated = self.truncated = False
        self.log: list[tuple[Any, ...]] = []
        self.replies: list[str] = []
        owner, self._tracker = self.env.new_owner(self.seed, reuse=getattr(self, "_tracker", None))
        self._ctx = CallContext(self.store, self._now, self.seed, owner, self._fallback)
        return self.opening()

    def opening(self) -> list[JSON]:
        spec = self.env.spec
        system = (
            f"You are a helpful agent working with the {spec.name} tools. "
            "Use the tools to do what the user asks, then reply to the user with the outcome."
        )
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": self.user.opening(self.task)},
        ]

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    @property
    def budget(self) -> int:
        return self.task.max_steps if self.task is not None and self.task.max_steps else self.max_steps

    # -- acting ------------------------------------------------------------------------------
    def call_tool(self, name: str, arguments: JSON | str | None = None) -> ToolResult:
        """Run one tool call; every failure comes back as an error result."""
        if self.terminated or self.truncated:
            return ToolResult.failure("episode_over", "the episode is over; call reset()")
        self.steps += 1  # _spend_step, inline
        task = self.task
        if self.steps >= (task.max_steps if task is not None and task.max_steps else self.max_steps):
            self.truncated = True
        result, logged = self._run(name, arguments, self._ctx)
        # a known tool's name as the log shows it was worked out with the environment
        shown = self.env.shown_names.get(name) if type(name) is str else None
        if shown is None:
            shown = safe_text(name, 200) if isinstance(name, str) else safe_repr(name)
        self.log.append((shown, logged, result))
        return result

    def reject(self, message: str, code: ErrorCode = "invalid_arguments") -> ToolResult:
        """An action answered with an error without running anything (a malformed action, an
        injected fault): it costs a step, so loops end."""
        if self.done:
            return ToolResult.failure("episode_over", "the episode is over; call reset()")
        self._spend_step()
        message = safe_text(message, 1000)
        result = ToolResult.failure(code, message)
        self.log.append(("__invalid__", message, result))
        return result

    def _spend_step(self) -> None:
        self.steps += 1
        task = self.task
        if self.steps >= (task.max_steps if task is not None and task.max_steps else self.max_steps):  # ``budget``
            self.truncated = True

    def _run(self, name: str, arguments: JSON | str | None, ctx: CallContext) -> tuple[ToolResult, Any]:
        """The call's result, and its arguments as the log keeps them (JSON text as sent, a
        canonical copy of an object, or a description of what is not JSON)."""
        args = _parse_arguments(arguments)
        logged = json_safe(arguments) if isinstance(arguments, str) or isinstance(args, ToolResult) else args
        tool = self.env.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            known = ", ".join(self.env.tools)
            return ToolResult.failure("unknown_tool", f"unknown tool {safe_repr(name)}; available: {known}"), logged
        if isinstance(args, ToolResult):
            return args, logged
        if tool.wrapped is not None:  # read as the tool reads them; logged as its callers send them
            args = unwrapped(args, tool.wrapped)
            logged = logged if isinstance(arguments, str) else {tool.wrapped: args}
        problem = tool.validate(args)
        if problem is not None:
            return ToolResult.failure("invalid_arguments", f"{name}: {problem}"), logged
        ctx.raw = ctx.shaped = None
        try:
            value = tool.execute(ctx, args)
        except ToolError as err:
            return ToolResult.failure(err.code, err.message), logged
        except Exception as err:  # a behaviour bug must not crash the agent's loop, nor pass for a refusal
            failure = f"{name} failed: {type(err).__name__}: {_error_text(err)}"
            return ToolResult.failure("internal_error", failure), logged
        self.last_raw = value if ctx.raw is None else ctx.raw
        self.last_shaped = ctx.shaped
        render = tool.render
        return tool_result(True, render(value) if render is not None else to_json_text(tool.shape(value))), logged

    def act(self, message: JSON) -> list[JSON]:
        """Take an OpenAI assistant message; return the tool (or user) messages it produced."""
        return act_on(self, message)

    @property
    def tools(self) -> list[JSON]:
        """The tools the agent is offered, in OpenAI ``tools=[...]`` form."""
        return self.env.openai_tools

    def respond(self, text: str) -> list[JSON]:
        """Send a message to the user; returns the user's answer, or [] when the episode ends."""
        if self.done:
            return []
        text = safe_text(text, MAX_REPLY_CHARS)
        self.steps += 1
        self.replies.append(text)
        self.log.append(("__reply__", text, None))
        answer = self.user.reply(text)
        if answer is None:
            self.terminated = True
            return []
        self.log.append(("__user__", answer, None))
        if self.steps >= self.budget:
            self.truncated = True
        return [{"role": "user", "content": answer}]

    # -- checking ----------------------------------------------------------------------------
    def state_hash(self) -> str:
        """The state's hash; with a bound implementation, its object's state is part of it."""
        if self._ctx.owner is None:
            return self.store.hash()
        owner = self._tracker.digest() if self._tracker is not None else owner_digest(self._ctx.owner)
        combined = (int(self.store.hash(), 16) + owner) % (1 << 128)
        return f"{combined:032x}"

    def state(self) -> dict[str, list[JSON]]:
        """A copy of the whole current state (for people and tests; not the hot path).

        A copy, because the rows inside the store are shared by every episode of the environment."""
        return clone(self.store.materialize())

    def verify(self) -> Verdict:
        """Compare the final state and replies with the task's goal."""
        current = self.state_hash()
        if self.task is None:
            return Verdict(
                reward=0.0,
                success=False,
                reasons=("no task: nothing to verify",),
                state_hash=current,
            )
        goal = self.task.goal
        reasons: list[str] = []
        if goal.state_hash and goal.state_hash != current:
            reasons.append(f"final state differs from the goal state (hash {current[:12]} != {goal.state_hash[:12]})")
        schema = self.env.spec.state_schema
        for entity_name, rows in goal.rows.items():
            if entity_name not in schema:
                reasons.append(f"the goal names entity {entity_name[:80]!r}, which this environment does not have")
                continue
            cast = key_caster(schema[entity_name])
            for key, expected in rows.items():
                actual = self.store.get(entity_name, cast(key))
                if actual != expected:
                    reasons.append(f"{entity_name} {key}: {row_difference(expected, actual)}")
        if goal.answer:
            said = " ".join(self.replies)
            reasons += [f"the reply does not state {fact!r}" for fact in goal.answer if not states_fact(said, fact)]
            sprayed = spray(said, goal.answer, context=self._told(), rows=self._all_rows())
            if sprayed is not None:
                reasons.append(sprayed)
        success = not reasons
        return Verdict(
            reward=1.0 if success else 0.0,
            success=success,
            reasons=tuple(reasons),
            state_hash=current,
        )

    def _told(self) -> str:
        """Everything the agent was told in words: the request and the user's answers."""
        said_to_agent = [self.task.instruction if self.task is not None else ""]
        said_to_agent += [str(args) for name, args, _ in self.log if name == "__user__"]
        return " ".join(said_to_agent)

    def _all_rows(self) -> Iterator[JSON]:
        for entity in self.env.base.tables:
            yield from self.store.rows(entity)

    # -- moving episodes around --------------------------------------------------------------
    def snapshot(self) -> JSON:
        """Everything needed to continue this episode elsewhere, as plain JSON. A tracked bound
        object is also copied into the environment's memory, so that a restore in this process
        copies it back instead of replaying every call."""
        snap = {
            "env": self.env.name,
            "store": self.store.snapshot(),
            "steps": self.steps,
            "seed": self.seed,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "replies": list(self.replies),
            "task": self.task.model_dump(mode="json") if self.task is not None else None,
            "owner": json_safe(owner_state(self._ctx.owner)) if self._ctx.owner is not None else None,
            "log": [
                [n, a, r.content, r.error] if isinstance(r, ToolResult) else [n, a, None, None] for n, a, r in self.log
            ],
        }
        if self._tracker is not None:
            self.env.remember_owner(snap, self._tracker)
        return snap

    def restore(self, snap: JSON) -> None:
        """Continue from a :meth:`snapshot`; all or nothing: a bad snapshot raises
        :class:`SnapshotError` and leaves the episode exactly as it was."""
        try:
            parsed = EpisodeSnapshot.model_validate(snap)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "snapshot"
            raise SnapshotError(f"invalid snapshot: {where}: {first['msg']}") from None
        if parsed.env != self.env.name or parsed.store.base != self.env.base.hash:
            raise SnapshotError(
                f"snapshot is from environment {parsed.env!r} with another initial state; cannot restore"
            )
        store = Store(self.env.base)
        store.restore(parsed.store.model_dump())  # raises SnapshotError on unknown entities or keys
        log: list[tuple[Any, ...]] = []
        for name, args, content, error in parsed.log:
            if error is not None and error not in ERROR_CODES:
                raise SnapshotError(f"invalid snapshot: log: unknown error code {safe_repr(error)}")
            result = ToolResult(error is None, content, error) if content is not None else None  # type: ignore[arg-type]
            log.append((name, json_safe(args), result))
        tracker = self.env.recall_owner(snap)
        if tracker is not None and json_safe(owner_state(tracker.owner)) == snap.get("owner"):
            owner = tracker.owner
        else:
            owner, tracker = self.env.new_owner(parsed.seed)
            if owner is not None:
                owner = self._replayed(owner, log, snap.get("owner"))
        self._tracker = tracker
        self.task = parsed.task
        self.seed = parsed.seed
        self.store = store
        self.steps, self.terminated, self.truncated = parsed.steps, parsed.terminated, parsed.truncated
        self.replies = list(parsed.replies)
        self.log = log
        self._ctx = CallContext(self.store, self._now, self.seed, owner, self._fallback)

    def _replayed(self, owner: Any, log: list[tuple[Any, ...]], recorded: Any) -> Any:
        """A fresh implementation object brought to the snapshot's state by replaying its calls. An
        owner that can pair answers (a live server minting ids: ``replayed``) sees each recorded
        answer beside the new one, and says why it cannot be restored (``restore_problem``)."""
        ctx = CallContext(Store(self.env.base), self._now, self.seed, owner, self._fallback)
        pair = getattr(owner, "replayed", None)
        for name, args, result in log:
            if result is not None and isinstance(args, (dict, str)):  # a tool call, not a reply
                now, _ = self._run(name, args, ctx)
                if callable(pair):
                    pair(result.content, now.content)
        problem = getattr(owner, "restore_problem", None)
        why = problem() if callable(problem) else None
        if why is not None:
            raise SnapshotError(f"invalid snapshot: {why}")
        if recorded is not None and json_safe(owner_state(owner)) != recorded:
            raise SnapshotError(
                "invalid snapshot: replaying its calls on a fresh implementation does not reach the recorded "
                "state (is the implementation deterministic?)"
            )
        return owner

    @property
    def messages(self) -> list[JSON]:
        """The transcript as OpenAI chat messages."""
        out = self.opening()
        for i, (name, args, result) in enumerate(self.log):
            if name == "__reply__":
                out.append({"role": "assistant", "content": args})
            elif name == "__invalid__":
                out.append({"role": "assistant", "content": f"(malformed action: {args})"})
            elif name == "__user__":
                out.append({"role": "user", "content": args})
            else:
                text = args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=True)
                call = {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": str(name), "arguments": text},
                }
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
                out.append({"role": "tool", "tool_call_id": f"call_{i}", "content": result.content})
        return out

    # -- internals ---------------------------------------------------------------------------
    def _now(self) -> str:
        # The clock does not tick within an episode: timestamps written by the agent must not
        # depend on how many steps it took, or exact state verification would punish detours.
        return self.env.now

    def _fallback(self, tool: str, args: JSON) -> Any:
        return self.env.fallback_value(tool, args, self.seed)


def act_on(target: Any, message: JSON) -> list[JSON]:
    """An assistant message, acted out on anything with ``call_tool``, ``respond`` and ``reject``
    (an Episode or a wrapper around one)."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not calls:
        content = message.get("content") if isinstance(message, dict) else None
        return target.respond(content if isinstance(content, str) else "")
    if not isinstance(calls, list):
        result = target.reject("'tool_calls' must be a list")
        return [{"role": "tool", "tool_call_id": "invalid", "content": result.content}]
    out = []
    for i, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        call_id = call.get("id") if isinstance(call, dict) and call.get("id") else f"call_{i}"
        if not isinstance(fn, dict):
            result = target.reject("a tool call needs a 'function' with 'name' and 'arguments'")
        else:
            result = target.call_tool(fn.get("name"), fn.get("arguments"))
        out.append({"role": "tool", "tool_call_id": call_id, "content": result.content})
    return out


def _parse_arguments(arguments: JSON | str | None) -> JSON | ToolResult:
    if type(arguments) is dict:  # the usual call: straight to its canonical copy
        try:
            return canonical_value(arguments)
        except NotCanonical as err:
            return ToolResult.failure("invalid_arguments", str(err))
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENT_CHARS:
            return ToolResult.failure(
                "invalid_arguments",
                f"arguments are {len(arguments)} characters; the limit is {MAX_ARGUMENT_CHARS}",
            )
        try:
            arguments = parse_json(arguments)
        except NotCanonical as err:
            return ToolResult.failure("invalid_arguments", f"arguments: {err}")
    if not isinstance(arguments, dict):
        return ToolResult.failure("invalid_arguments", "arguments must be a JSON object")
    try:
        return canonical_value(arguments)
    except NotCanonical as err:
        return ToolResult.failure("invalid_arguments", str(err))


def _error_text(err: BaseException) -> str:
    try:
        return str(err)[:200]
    except Exception:  # an exception whose message itself fails to print
        return "(no message)"


def row_difference(expected: JSON | None, actual: JSON | None) -> str:
    """What differs between two versions of a row, field by field."""
    if expected is None:
        return "should have been deleted"
    if actual is None:
        return "is missing"
    fields = [f for f in {**expected, **actual} if expected.get(f) != actual.get(f)]
    parts = [f"{f} is {_short(actual.get(f))}, expected {_short(expected.get(f))}" for f in fields[:4]]
    more = f" (+{len(fields) - 4} more fields)" if len(fields) > 4 else ""
    return "; ".join(parts) + more


def _short(row: Any) -> str:
    text = json.dumps(row, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["MAX_ARGUMENT_CHARS", "Episode"]
