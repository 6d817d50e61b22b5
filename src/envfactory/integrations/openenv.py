"""envfactory environments in the OpenEnv protocol (``openenv-core``, pinned in the ``openenv`` extra).

The server side is OpenEnv's own FastAPI app (``create_fastapi_app``: ``/reset``, ``/step``,
``/state``, ``/schema``, ``/health``, ``/metadata``) with the ``/ws`` session protocol answered
by :class:`~envfactory.serve.sessions.SessionSocket` (the same replies, without a
pydantic model per message); each WebSocket session holds its own :class:`EpisodeEnv`. An action is one
assistant turn in OpenAI form (tool calls, or words to the user); an observation is what came
back (tool results, the user's answer, or the opening request with the tools on offer); the
reward is the task's verdict when the episode ends. OpenEnv clients — and the trainers that use
them — drive envfactory environments unchanged::

    envfactory serve ENV_DIR --tasks tasks.jsonl --port 8000
    with EnvfactoryClient(base_url="http://127.0.0.1:8000").sync() as env:
        first = env.reset(task_id="shop-0-1")
        result = env.step(ToolCallAction(tool_calls=[...]))

:class:`RemoteEpisode` wraps that client in the ``EpisodeLike`` contract, so every policy, the
rollout loop and the evaluator run against a remote environment as against a local one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi.exceptions import RequestValidationError
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server import Environment as OpenEnvEnvironment
from openenv.core.env_server import create_fastapi_app
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from openenv.core.utils import convert_to_ws_url
from pydantic import Field
from starlette.responses import JSONResponse

from envfactory.core import from_json_text, to_json_text
from envfactory.ir.task import Task, Verdict
from envfactory.rl.rollout import recorded
from envfactory.runtime.environment import Environment
from envfactory.runtime.result import ToolResult
from envfactory.serve.batch import BatchError, EpisodeBatch
from envfactory.serve.guard import IDLE_S, MAX_BODY, Guard
from envfactory.serve.recorder import Recorder
from envfactory.serve.sessions import SessionSocket
from envfactory.users.scripted import ScriptedUser

JSON = dict[str, Any]


class BadRequest(ValueError):
    """A request the server understood but cannot serve (an unknown task): HTTP 400, a WebSocket
    error message."""


async def _bad_request(request: Any, err: Exception) -> JSONResponse:
    return JSONResponse({"error": {"code": "bad_request", "message": str(err)}}, status_code=400)


async def _invalid(request: Any, err: Exception) -> JSONResponse:
    """FastAPI's 422, without echoing the input (NaN or 1e400 there made its own answer a 500)."""
    errors: list[Any] = getattr(err, "errors", list)()
    said = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in errors[:10])
    return JSONResponse({"error": {"code": "invalid_request", "message": said[:2000] or "invalid request"}},
                        status_code=422)  # fmt: skip


class NoMcp:
    """OpenEnv's app without its ``/mcp`` (anonymous sessions that never expire, for tools these
    environments do not have there): MCP clients use ``serve --mcp-http``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket") and scope.get("path", "").rstrip("/") == "/mcp":
            await _no_mcp(scope, receive, send)
        else:
            await self.app(scope, receive, send)


async def _no_mcp(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.close", "code": 1008})
        return
    said = b'{"error":{"code":"not_found","message":"no /mcp here: use envfactory serve --mcp-http"}}'
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(said)).encode())]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": said})


def check_reset(seed: Any, episode_id: Any, task_id: Any) -> None:
    """A reset's fields, typed: a :class:`BadRequest` (400) naming the field, never a 500."""
    if task_id is not None and not isinstance(task_id, str):
        raise BadRequest(f"task_id must be a string, not {type(task_id).__name__}")
    if episode_id is not None and not isinstance(episode_id, str):
        raise BadRequest(f"episode_id must be a string, not {type(episode_id).__name__}")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or abs(seed) >= 2**63):
        raise BadRequest(f"seed must be an integer within 64 bits, not {json.dumps(seed, default=repr)[:40]}")


class ToolCallAction(Action):
    """One assistant turn: ``tool_calls`` in OpenAI form, or ``content`` for the user."""

    tool_calls: list[JSON] = Field(default_factory=list)
    content: str | None = None


class ToolObservation(Observation):
    """What the environment answered: tool results, the user's reply, or (after a reset) the
    opening messages with ``tools``; ``verdict`` once the episode is over."""

    messages: list[JSON] = Field(default_factory=list)
    tools: list[JSON] = Field(default_factory=list)
    verdict: JSON | None = None


STEP_TIMEOUT_S = 60.0


def _refused(calls: list[JSON], code: str, message: str) -> ToolObservation:
    """Every tool call answered with the same error, and the episode over (reward 0)."""
    content = json.dumps({"error": {"code": code, "message": message}})
    answers = [{"role": "tool", "tool_call_id": c.get("id") if isinstance(c, dict) else None, "content": content}
               for c in calls] or [{"role": "user", "content": content}]  # fmt: skip
    return ToolObservation(messages=answers, done=True, reward=0.0, verdict=None)


def _verdict(v: Verdict, reasons: bool = True) -> JSON:
    """The verdict as JSON; its reasons (which state the goal) only once the episode is over."""
    return {"success": v.success, "reward": v.reward, **({"reasons": list(v.reasons)} if reasons else {})}


class EpisodeEnv(OpenEnvEnvironment[ToolCallAction, ToolObservation, State]):
    """One OpenEnv session: an episode of ``env`` (with the scripted user) on one of ``tasks``."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # episodes share the read-only base state only

    def __init__(self, env: Environment, tasks: dict[str, Task], recorder: Recorder | None = None,
                 step_timeout_s: float = STEP_TIMEOUT_S) -> None:  # fmt: skip
        super().__init__()
        self.env, self.tasks, self.step_timeout_s = env, tasks, step_timeout_s
        self.episode = env.episode(user=ScriptedUser())
        self.episode_id: str | None = None
        self.recorder = recorder if recorder is not None else Recorder(None)
        self.recorder.opened()
        self.transcript: list[JSON] = []
        self.seed, self.saved, self.closed, self.stalled = 0, False, False, False

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          **kwargs: Any) -> ToolObservation:  # fmt: skip
        return await self._bounded(lambda: self.reset(seed=seed, episode_id=episode_id, **kwargs), [])

    async def step_async(self, action: ToolCallAction, timeout_s: float | None = None,
                         **kwargs: Any) -> ToolObservation:  # fmt: skip
        if self.stalled:
            return _refused(action.tool_calls, "episode_over", "a call of this episode ran out of time: reset first")
        return await self._bounded(lambda: self.step(action), action.tool_calls, timeout_s)

    async def _bounded(self, run: Any, calls: list[JSON], timeout_s: float | None = None) -> ToolObservation:
        """``run`` in a worker thread, answered within the step timeout; past it the episode is
        given up (its thread finishes on a discarded episode) and the session must reset."""
        limit = timeout_s or self.step_timeout_s
        try:
            return await asyncio.wait_for(asyncio.to_thread(run), limit)
        except TimeoutError:
            self.stalled = True
            self.episode = self.env.episode(user=ScriptedUser())
            return _refused(calls, "internal_error", f"no answer within {limit:g} s; the episode was given up")

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> ToolObservation:
        task_id = kwargs.get("task_id")
        check_reset(seed, episode_id, task_id)
        if task_id is not None and task_id not in self.tasks:
            raise BadRequest(f"no task {task_id!r} on this server")
        self.episode_id = episode_id
        messages = self.episode.reset(task=self.tasks.get(task_id) if task_id else None, seed=seed)
        self.transcript, self.seed, self.saved, self.stalled = list(messages), seed or 0, False, False
        return ToolObservation(messages=messages, tools=self.episode.tools, done=False, reward=None)

    def step(self, action: ToolCallAction, timeout_s: float | None = None, **kwargs: Any) -> ToolObservation:
        message: JSON = {"role": "assistant", "content": action.content}
        if action.tool_calls:
            message["tool_calls"] = action.tool_calls
        new = self.episode.act(message)
        self.transcript += [message, *new]
        done = self.episode.done
        verdict = self.episode.verify() if done else None
        task = self.episode.task
        if verdict is not None and task is not None and not self.saved:  # on disk before this step answers
            self.recorder.save(recorded(self.episode, task, self.transcript, policy="remote", seed=self.seed,
                                        verdict=verdict), messages=self.transcript)  # fmt: skip
            self.saved = True
        return ToolObservation(messages=new, done=done, reward=verdict.reward if verdict else 0.0,
                               verdict=_verdict(verdict) if verdict else None)  # fmt: skip

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.recorder.closed(unfinished=self.episode.task is not None and not self.episode.done
                                 and self.episode.steps > 0)  # fmt: skip
        super().close()

    @property
    def state(self) -> State:
        task = self.episode.task
        return State(episode_id=self.episode_id, step_count=self.episode.steps, task_id=task.id if task else None,
                     state_hash=self.episode.state_hash(), done=self.episode.done,
                     verdict=_verdict(self.episode.verify(), reasons=self.episode.done))  # fmt: skip

    def get_metadata(self) -> EnvironmentMetadata:
        spec = self.env.spec
        about = spec.description or f"envfactory environment {spec.name}"
        return EnvironmentMetadata(name=spec.name, description=about, version="1.0.0")


class InlineEpisodeEnv(EpisodeEnv):
    """An :class:`EpisodeEnv` whose tools run in microseconds (state transitions only): its calls
    run on the server's event loop instead of hopping to a worker thread, which is most of a
    step's cost there. Environments whose tools run user code, a language model or a subprocess
    keep the thread hop, so that a slow call never stalls the other sessions."""

    async def reset_async(self, seed: int | None = None, episode_id: str | None = None,
                          **kwargs: Any) -> ToolObservation:  # fmt: skip
        return self.reset(seed=seed, episode_id=episode_id, **kwargs)

    async def step_async(self, action: ToolCallAction, timeout_s: float | None = None,
                         **kwargs: Any) -> ToolObservation:  # fmt: skip
        return self.step(action)


SLOW_KINDS = frozenset({"bound", "served", "code", "simulated"})  # user code, a server, sandboxed code, a model


def episode_batch(env: Environment, tasks: dict[str, Task] | list[Task],
                  recorder: Recorder | None = None) -> EpisodeBatch:  # fmt: skip
    """The batched step in process: an :class:`~envfactory.serve.batch.EpisodeBatch` whose slots
    are sessions of ``env`` (as a server's), stepped with ``reset_now``/``step_now`` and answering
    :class:`ToolObservation` s, the same as the served batch."""
    by_id = tasks if isinstance(tasks, dict) else {t.id: t for t in tasks}
    return EpisodeBatch(lambda: EpisodeEnv(env, by_id, recorder), ToolCallAction)


def make_app(env_dir: Path, tasks: dict[str, Task], *, max_sessions: int = 64, trust_code: bool = False,
             token: str | None = None, max_body: int = MAX_BODY, idle_s: float = IDLE_S,
             trajectories: Path | None = None, step_timeout_s: float = STEP_TIMEOUT_S) -> Any:  # fmt: skip
    """OpenEnv's FastAPI app serving ``env_dir``: each session gets a fresh :class:`EpisodeEnv`;
    behind a :class:`~envfactory.serve.guard.Guard` (``token``, ``max_body``, ``idle_s``, ``/metrics``).
    Every finished episode's trajectory is appended to ``trajectories`` (JSON lines) as it ends. A
    reset or step of a slow environment (user code, a language model) that takes longer than
    ``step_timeout_s`` is answered with an error, and its session must reset."""
    env = Environment.load(env_dir, trust_code=trust_code)
    recorder = Recorder(trajectories)
    slow = bool({b.effect.kind for b in env.spec.behaviours} & SLOW_KINDS)
    session = EpisodeEnv if slow else InlineEpisodeEnv

    def factory() -> EpisodeEnv:
        return session(env, tasks, recorder, step_timeout_s)

    app = create_fastapi_app(factory, ToolCallAction, ToolObservation, max_concurrent_envs=max_sessions)
    app.router.on_shutdown.append(recorder.close)  # a graceful shutdown closes the file
    app.add_exception_handler(BadRequest, _bad_request)
    app.add_exception_handler(RequestValidationError, _invalid)
    sockets = SessionSocket(NoMcp(app), factory, ToolCallAction, max_sessions=max_sessions, factory_in_thread=slow)
    return Guard(sockets, token=token, max_body=max_body, idle_s=idle_s, extra=recorder.metrics)


class EnvfactoryClient(EnvClient[ToolCallAction, ToolObservation, State]):
    """The OpenEnv client for an envfactory server (async; ``.sync()`` for plain calls). ``token``:
    the server's bearer token, sent as ``?token=`` on the session's WebSocket (OpenEnv's client
    sends no headers there)."""

    def __init__(self, base_url: str, *, token: str | None = None, **kwargs: Any) -> None:
        super().__init__(base_url=base_url, **kwargs)
        if token:
            self._ws_url = f"{convert_to_ws_url(base_url)}/ws?token={quote(token)}"

    def _step_payload(self, action: ToolCallAction) -> JSON:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: JSON) -> StepResult[ToolObservation]:
        observation = ToolObservation.model_validate(
            {**payload.get("observation", {}), "done": payload.get("done", False), "reward": payload.get("reward")}
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=bool(payload.get("done")))

    def _parse_state(self, payload: JSON) -> State:
        return State.model_validate(payload)

    async def _send(self, message: JSON) -> None:
        """A message as orjson writes it (``json`` for what orjson refuses)."""
        await self._ensure_connected()
        assert self._ws is not None
        await self._ws.send(to_json_text(message))

    async def _receive(self) -> JSON:
        """The next message, parsed by orjson (``json`` where it reads differently), within the
        message timeout (``asyncio.timeout``: no task per message, unlike ``wait_for``)."""
        assert self._ws is not None
        async with asyncio.timeout(self._message_timeout):
            raw = await self._ws.recv()
        return from_json_text(raw if isinstance(raw, str) else raw.decode())  # type: ignore[no-any-return]

    async def reset_batch(self, resets: Sequence[JSON]) -> list[StepResult[ToolObservation] | BatchError]:
        """Reset many episodes of this session in one message (the batched step,
        :mod:`envfactory.serve.batch`): item ``i`` (``{task_id, seed, episode_id}``, optionally
        ``slot``, else ``i``) resets (or opens) that slot. One result per item, in order; an item
        the server could not do is a :class:`BatchError`."""
        return await self._batch("reset_batch", {"resets": list(resets)})

    async def step_batch(
        self, steps: Sequence[tuple[int, ToolCallAction]]
    ) -> list[StepResult[ToolObservation] | BatchError]:
        """Step many slots in one message: ``(slot, action)`` pairs; one result per pair, in order,
        each what a single step of that slot's episode answers."""
        items = [{"slot": slot, "action": self._step_payload(action)} for slot, action in steps]
        return await self._batch("step_batch", {"steps": items})

    async def _batch(self, kind: str, data: JSON) -> list[StepResult[ToolObservation] | BatchError]:
        response = await self._send_and_receive({"type": kind, "data": data})
        results = response.get("data", {}).get("results", [])
        return [BatchError.model_validate(r["error"]) if "error" in r else self._parse_result(r) for r in results]


class RemoteEpisode:
    """The ``EpisodeLike`` contract over an OpenEnv session: policies, ``rollout`` and the
    evaluator run against a served environment unchanged. ``close()`` ends the session."""

    def __init__(self, base_url: str, *, token: str | None = None) -> None:
        self._client = EnvfactoryClient(base_url=base_url, token=token).sync()
        self._client.connect()
        self.tools: list[JSON] = []
        self.done, self.steps = False, 0
        self.task: Task | None = None
        self._opening: list[JSON] = []

    def reset(self, task: Task | None = None, seed: int | None = None) -> list[JSON]:
        kwargs: JSON = {"seed": seed} if seed is not None else {}
        if task is not None:
            kwargs["task_id"] = task.id
        result = self._client.reset(**kwargs)
        self.task, self.done, self.steps = task, False, 0
        self.tools, self._opening = result.observation.tools, result.observation.messages
        return self._opening

    def opening(self) -> list[JSON]:
        return self._opening

    def act(self, message: JSON) -> list[JSON]:
        result = self._client.step(ToolCallAction(tool_calls=message.get("tool_calls") or [],
                                                  content=message.get("content")))  # fmt: skip
        self.steps += 1
        self.done = result.done
        return result.observation.messages

    def call_tool(self, name: str, arguments: JSON | str | None = None) -> ToolResult:
        text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        call = {"id": "call_0", "type": "function", "function": {"name": name, "arguments": text}}
        content = self.act({"role": "assistant", "content": None, "tool_calls": [call]})[0]["content"]
        try:
            error = json.loads(content).get("error") if content.startswith('{"error"') else None
        except ValueError:
            error = None
        code = error.get("code") if isinstance(error, dict) else None
        return ToolResult(ok=error is None, content=content, error=code)

    def respond(self, text: str) -> list[JSON]:
        return self.act({"role": "assistant", "content": text})

    def verify(self) -> Verdict:
        data = self._client.state().model_dump().get("verdict") or {}
        return Verdict(reward=float(data.get("reward", 0.0)), success=bool(data.get("success")),
                       reasons=tuple(data.get("reasons") or ()))  # fmt: skip

    def state_hash(self) -> str:
        return str(self._client.state().model_dump().get("state_hash"))

    def close(self) -> None:
        self._client.close()


__all__ = ["EnvfactoryClient", "EpisodeEnv", "RemoteEpisode", "ToolCallAction", "ToolObservation", "episode_batch",
           "make_app"]  # fmt: skip
