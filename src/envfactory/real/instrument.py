"""Fidelity measured against a real implementation: the same calls on both sides, compared.

``measure(spec, against)`` takes a synthesized environment and the Python implementation of the
same tools (``file.py:Class``, trusted), and starts the environment from the real object's own
initial state (its records mapped onto the synthesized entities). It then replays seeded random *valid*
call sequences on both: arguments are drawn from the schemas and, for ids, from the keys the
real side holds or returned (so reads hit existing things, and repeats and deletes happen). Per
tool and overall it reports

- outcome agreement: both succeed, or both fail (and the share with the same error code);
- output agreement: normalized exact match, and the share of leaf fields equal, on the calls
  both answered;
- final-state agreement: after each sequence, the synthesized state equals the real object's
  records, entity by entity;

and beside every figure the score of a trivial stub that always succeeds and echoes the output
schema, on the same calls. A figure counts only above the stub's.
"""

from __future__ import annotations

import contextlib
import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from envfactory.core import BROKEN
from envfactory.errors import SpecError
from envfactory.ingest import load
from envfactory.ir.effect import ListEffect, ShellEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY
from envfactory.ir.tool import dump_tool
from envfactory.real.agreement import (
    Measurement,
    ToolAgreement,
    measurement,
    normalized,
    same_rows,
    same_value,
    seen_fields,
    stub_spec,
    tally_call,
)
from envfactory.real.keypool import Aliases, KeyPool, StartingRecords, holds_key, made_up, path_like
from envfactory.real.mcp import PREFIX, TMP, McpSession, McpTarget
from envfactory.real.mirror import entity_rows, mirror_object, rooted_at_tmp, served_model
from envfactory.real.trace import Final
from envfactory.runtime.behaviours import error_class
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.runtime.owner import owner_state
from envfactory.runtime.replies import reply_error
from envfactory.seeding import derive_seed
from envfactory.synth import synthesize
from envfactory.synth.arguments import reference_args
from envfactory.values import ValueMaker

JSON = dict[str, Any]


SIGN_IN = frozenset({"username", "user_name", "password"})


def natural_names(spec: EnvSpec) -> frozenset[str]:
    """Arguments that name things besides ids and names: the entities' own keys (a stock's
    ``symbol``), the entities' names (``add_to_watchlist(stock)``), and every argument the model
    reads as naming a record (``start_task(task_ref)``, ``view_tasks(task_refs)``: the key of a
    read or write, a foreign key, a list filtered by the key), whatever it is called."""
    schema = spec.state_schema
    keys = {e.key for e in schema.entities if e.key not in ("id", SINGLETON_KEY)}
    named = {e.name for e in schema.entities if e.key != SINGLETON_KEY}
    for behaviour in spec.behaviours:
        effect = behaviour.effect
        named |= set(reference_args(effect, schema))
        if isinstance(effect, ListEffect) and effect.entity in schema:
            named |= {f.arg for f in effect.filters if f.field == schema[effect.entity].key}
    return frozenset(keys | named)


def measure(
    spec: EnvSpec,
    against: str,
    *,
    sequences: int = 40,
    length: int = 10,
    seed: int = 0,
    env: dict[str, str] | None = None,
    log: Path | None = None,
    final_tool: str | None = None,
    progress: Callable[[int], None] | None = None,
    scenario: str | None = None,
    scenario_loader: str | None = None,
    trust_code: bool = False,
) -> Measurement:
    """Replay seeded call sequences on the environment ``spec`` and on ``against``: a trusted
    ``file.py:Class`` implementing the same tools, or a live server ``mcp+stdio:CMD`` (started fresh
    for every sequence, with ``env`` and its stderr appended to ``log``); see the module docstring.
    A Python class is made fresh per sequence and given the JSON ``scenario`` through its loader; a
    server gets ``scenario``'s setup calls (``[{"tool", "arguments"}]``) first, and the environment
    starts where they leave it.

    Final states are compared through the object's records (Python) or through ``final_tool``, a
    read-everything tool called on both sides at the end (by default the read-only tool without
    required arguments whose name says it reads everything, if there is one)."""
    real_side = real_source(spec, against, env=env, log=log, final_tool=final_tool, scenario=scenario,
                            scenario_loader=scenario_loader)  # fmt: skip
    synth_spec = real_side.synth_spec
    synth_env, stub = Environment(synth_spec, trust_code=trust_code), Environment(stub_spec(synth_spec))
    tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    crashes: dict[str, int] = defaultdict(int)
    finals: list[float] = []
    started = StartingRecords(synth_env.base.tables)
    for n in range(sequences):
        rng = random.Random(derive_seed(seed, "fidelity", n))
        maker = ValueMaker(derive_seed(seed, "values", n), synth_spec.config.clock_start)
        synth, fake = synth_env.episode(max_steps=10**6), stub.episode(max_steps=10**6)
        with real_side.sequence() as real:
            keys = KeyPool(real.known_keys(), names=natural_names(synth_spec), guesses=real.guessed_keys(),
                           paths=real.known_paths())  # fmt: skip
            aliases = Aliases()
            keys.learn(real.known_fields())  # a user knows their own sign-in
            for _ in range(length):
                tool = rng.choice(synth_spec.tools.tools)
                args = keys.arguments(tool.input_schema, rng, maker)
                ours = aliases.translate(args)  # the environment is called with the ids it made itself
                r, s, f = real.call(tool.name, args), synth.call_tool(tool.name, ours), fake.call_tool(tool.name, ours)
                if r.error_code in BROKEN:  # the real code crashed: no behaviour to agree with, counted apart
                    crashes[tool.name] += 1
                    continue
                if r.ok:
                    keys.learn(args)
                    keys.learn(r.data)
                    if s.ok and not made_up(synth_spec, tool.name):
                        aliases.pair(r.data, s.data, given=args, holds=partial(holds_key, synth_spec, synth))
                    aliases.pair_started(r.data, started)  # records made before the sequence
                t = tally[tool.name]
                # ids and tokens either side minted are compared as the pairs they are (real 3426812 is booking_0011)
                tally_call(t, r.ok, aliases.translate(r.data) if r.ok else None, s, f)
                if not r.ok and not s.ok and r.error_code is not None:
                    t["same_error"].append(float(r.error_code == s.error))
            final = real.same_final_state(synth)
        if final is not None:
            finals.append(float(final))
        if progress is not None:
            progress(n + 1)
    return measurement(against, sequences, tally, finals, crashes)


def real_source(spec: EnvSpec, against: str, *, env: dict[str, str] | None = None, log: Path | None = None,
                final_tool: str | None = None, scenario: str | None = None,
                scenario_loader: str | None = None) -> RealSide:  # fmt: skip
    """The real side ``against`` names: a live server ``mcp+stdio:CMD`` or a trusted ``file.py:Class``."""
    if against.startswith(PREFIX):
        return McpSide(spec, McpTarget.parse(against, env), log, final_tool, scenario)
    return PythonSide(spec, against, final_tool, scenario, scenario_loader)


class RealCall(BaseModel):
    """What the real side answered: ok or not, its data, and an error code where it has ours."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    data: Any = None
    error_code: str | None = None
    message: str | None = None  # a refusal's words as the real side gave them


def real_call(ok: bool, data: Any, error: str | None = None, args: JSON | None = None) -> RealCall:
    """A server's answer as a ``RealCall``: a refusal dressed as a reply (``"Error: ..."``,
    ``{"success": false}``: :func:`~envfactory.runtime.replies.reply_error`) is a refusal."""
    if ok:
        message = reply_error(data, args)
        if message is None:
            return RealCall(ok=True, data=data)
        error = message
    return RealCall(ok=False, error_code=error_class(error) if error else None, message=error)


class RealSequence(Protocol):
    def known_keys(self) -> list[Any]: ...
    def guessed_keys(self) -> list[Any]: ...
    def known_fields(self) -> JSON: ...
    def known_paths(self) -> list[Any]: ...
    def call(self, tool: str, args: JSON) -> RealCall: ...
    def same_final_state(self, synth: Episode) -> bool | None: ...
    def final(self) -> Final | None: ...


class RealSide(Protocol):
    synth_spec: EnvSpec

    def sequence(self) -> contextlib.AbstractContextManager[RealSequence]: ...


class PythonSide:
    """A trusted ``file.py:Class``: a fresh bound object per sequence; the synthesized environment
    starts from the object's own initial records (mapped onto its entities)."""

    def __init__(self, spec: EnvSpec, against: str, final_tool: str | None, scenario: str | None = None,
                 scenario_loader: str | None = None) -> None:  # fmt: skip
        loaded = load(against, trust_code=True)
        bound = synthesize(loaded, bind=True, state="empty", scenario=scenario, scenario_loader=scenario_loader)
        self.env = Environment(bound, trust_code=True)
        missing = sorted(set(spec.tools.names) - {t.name for t in loaded.toolset.tools})
        if missing:
            raise SpecError(f"the implementation lacks tools of {spec.name!r}: {', '.join(missing)}", file=against)
        self.synth_spec, self.start = mirror_object(spec, self.env)
        self.final_tool = final_tool

    @contextlib.contextmanager
    def sequence(self) -> Iterator[RealSequence]:
        yield _PythonSequence(self, self.env.episode(max_steps=10**6))


class _PythonSequence:
    def __init__(self, side: PythonSide, episode: Episode) -> None:
        self.side, self.episode = side, episode

    def known_keys(self) -> list[Any]:
        spec = self.side.synth_spec
        shells = {b.effect.entity for b in spec.behaviours if isinstance(b.effect, ShellEffect)}
        keys = [
            (e, r.get(spec.state_schema[e].key))
            for e, rows in (self.side.start or {}).items()
            for r in rows
            if spec.state_schema[e].key != SINGLETON_KEY
        ]  # a singleton's hidden key names nothing real
        # a shell's tools name things relative to the current folder: their names, not their paths
        return [str(k).rstrip("/").rsplit("/", 1)[-1] if e in shells else k for e, k in keys if k is not None]

    def guessed_keys(self) -> list[Any]:
        return []  # the object's own records are known

    def known_paths(self) -> list[Any]:
        return []  # an object's files are its records

    def known_fields(self) -> JSON:
        """The sign-in a user of the object knows: its singletons' stored ``username`` and ``password``."""
        spec = self.side.synth_spec
        return {field: value for e, rows in (self.side.start or {}).items()
                if spec.state_schema[e].key == SINGLETON_KEY for row in rows for field, value in row.items()
                if field in SIGN_IN and isinstance(value, str) and value}  # fmt: skip

    def call(self, tool: str, args: JSON) -> RealCall:
        r = self.episode.call_tool(tool, args)
        return RealCall(ok=r.ok, data=r.data if r.ok else None, error_code=r.error, message=r.message)

    def final(self) -> Final | None:
        """What the object holds now: its read-everything tool's answer, else its records."""
        if self.side.final_tool:
            return _dump(self.side.final_tool, self.call, self.side.synth_spec)
        if self.side.start is None:
            return None
        rows = entity_rows(owner_state(self.episode._ctx.owner), self.side.synth_spec.state_schema)
        return None if rows is None else Final(rows=rows)

    def same_final_state(self, synth: Episode) -> bool | None:
        if self.side.final_tool:
            return _same_dump(self.side.final_tool, self.call, synth)
        if self.side.start is None:
            return None
        real_rows = entity_rows(owner_state(self.episode._ctx.owner), self.side.synth_spec.state_schema)
        if real_rows is None:  # the object's records cannot be read (a tree of its own classes): unknown
            return None
        schema = self.side.synth_spec.state_schema
        for entity, rows in real_rows.items():
            mine = list(synth.store.rows(entity))
            if schema[entity].key == SINGLETON_KEY:  # only the fields the object holds
                mine = seen_fields(mine, rows)
            if not same_rows(rows, mine, schema[entity].key):
                return False
        return True


class McpSide:
    """A live MCP server, started fresh (with a fresh ``{tmp}`` folder) for every sequence; both
    sides start empty. When the command names ``{tmp}`` (a file server's root), it is a known key,
    so path arguments point inside it."""

    def __init__(
        self, spec: EnvSpec, target: McpTarget, log: Path | None, final_tool: str | None, setup: str | None = None
    ) -> None:
        from envfactory.real.served import agreed, read_setup, set_up

        self.target, self.log = target, log
        self.setup = read_setup(setup, spec.tools.names, spec.name) if setup else []
        with McpSession(target, log=log) as probe:  # fail early, and check the tools are the server's
            listed = set(probe.tool_names())
            missing = sorted(set(spec.tools.names) - listed)
            if missing:
                raise SpecError(f"the server lacks tools of {spec.name!r}: {', '.join(missing)}", file=target.label)
            answers = set_up(probe, self.setup, target.label)  # where a fresh server starts, under its ids
        if self.setup:  # only what every fresh server answers alike (ids it counts, not random ones)
            with McpSession(target, log=log) as again:
                answers = [agreed(a, b) for a, b in zip(answers, set_up(again, self.setup, target.label), strict=True)]
        self.synth_spec = served_model(spec, target, self.setup, answers)
        self.final_tool = final_tool or dump_tool(spec.tools)

    @contextlib.contextmanager
    def sequence(self) -> Iterator[RealSequence]:
        from envfactory.real.served import set_up

        with McpSession(self.target, log=self.log) as session:
            set_up(session, self.setup, self.target.label)
            yield _McpSequence(self, session)


class _McpSequence:
    """Calls on one fresh server. Its ``{tmp}`` folder is random, so both sides see the literal
    ``{tmp}``: it is put in for the server and taken out of its answers (runs stay reproducible)."""

    def __init__(self, side: McpSide, session: McpSession) -> None:
        self.side, self.session = side, session

    def known_keys(self) -> list[Any]:
        """``{tmp}`` for a file server rooted there, and the keys of the records its setup calls
        made that the calls themselves named (a sheet's name, a person's)."""
        named = _values(self.side.setup)
        rooted = rooted_at_tmp(self.side.synth_spec, self.side.target)
        return ([TMP] if rooted else []) + [k for k in self._setup_keys() if k in named]

    def guessed_keys(self) -> list[Any]:
        """The keys the model minted for the records the setup calls made (``todo_0001``): the
        server's own where it counts alike, ids it never held where it mints others (UUIDs)."""
        named = _values(self.side.setup)
        return [k for k in self._setup_keys() if k not in named]

    def _setup_keys(self) -> list[Any]:
        spec, keys = self.side.synth_spec, []
        if self.side.setup:
            for name, rows in spec.initial_state.items():
                key = spec.state_schema[name].key
                keys += [row[key] for row in rows if key != SINGLETON_KEY and row.get(key) is not None]
        return keys

    def known_fields(self) -> JSON:
        return {}

    def known_paths(self) -> list[Any]:
        """Where the server keeps what its tools address by path, for arguments that take a path and
        only those (a workbook's ``fileAbsolutePath``): the paths its setup calls named, and its
        ``{tmp}`` folder where its command names it — a server keeping its own store there
        (``--storage-path {tmp}/tasks``) never gets the folder as a title or an id."""
        if rooted_at_tmp(self.side.synth_spec, self.side.target):
            return []  # a file server's root is a key like any other
        named = [v for _, args in self.side.setup for k, v in args.items() if path_like(k) and isinstance(v, str)]
        folder = [TMP] if any(TMP in a for a in self.side.target.argv) else []
        return list(dict.fromkeys([*named, *folder]))

    def call(self, tool: str, args: JSON) -> RealCall:
        tools = self.side.synth_spec.tools  # the server takes them as its callers send them (wrapped, where so)
        sent = tools[tool].wrap(args) if tool in tools.names else args
        r = self.session.call(tool, sent)  # ``{tmp}`` is put in for the server and taken out of its answers
        return real_call(r.ok, r.data, r.error, args)

    def same_final_state(self, synth: Episode) -> bool | None:
        return _same_dump(self.side.final_tool, self.call, synth) if self.side.final_tool else None

    def final(self) -> Final | None:
        return _dump(self.side.final_tool, self.call, self.side.synth_spec) if self.side.final_tool else None


def _values(calls: list[tuple[str, JSON]]) -> set[Any]:
    """Every scalar value inside the calls' arguments."""
    out: set[Any] = set()
    stack: list[Any] = [args for _, args in calls]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, (str, int)) and not isinstance(value, bool):
            out.add(value)
    return out


def _dump(tool: str, real_call: Callable[[str, JSON], RealCall], spec: EnvSpec) -> Final | None:
    """The read-everything tool's answer on the real side, as a recorded final state."""
    args = {"path": TMP} if spec.tools[tool].required == ["path"] else {}
    r = real_call(tool, args)
    return Final(tool=tool, arguments=args, output=r.data) if r.ok else None


def _same_dump(tool: str, real_call: Callable[[str, JSON], RealCall], synth: Episode) -> bool:
    """The read-everything tool on both sides (a required ``path`` is the ``{tmp}`` root)."""
    required = synth.env.spec.tools[tool].required
    args = {"path": TMP} if required == ["path"] else {}
    r, s = real_call(tool, args), synth.call_tool(tool, args)
    return r.ok and s.ok and same_value(normalized(r.data), normalized(s.data))


__all__ = [
    "Measurement",
    "RealSide",
    "ToolAgreement",
    "entity_rows",
    "measure",
    "natural_names",
    "real_call",
    "real_source",
]
