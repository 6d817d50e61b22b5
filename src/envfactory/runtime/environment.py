"""Environment: a compiled EnvSpec (validators, executors, shared base state) that makes Episodes.

Compiling is done once; each :class:`Episode` then costs a few small objects, so thousands
of live episodes share one copy of the initial state.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envfactory.core import UserSimulator
from envfactory.errors import EnvSpecError, SpecError
from envfactory.ir.effect import BoundEffect, CodeEffect, DumpEffect, ServedEffect, SimulatedEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import keyed_map_record, outcome_flags
from envfactory.ir.state import Entity
from envfactory.runtime import batch as _batch  # noqa: F401  (registers the collection executors)
from envfactory.runtime import code as _code  # noqa: F401  (registers the code executor)
from envfactory.runtime import compute as _compute  # noqa: F401  (registers the computation executor)
from envfactory.runtime import count as _count  # noqa: F401  (registers the statistics executor)
from envfactory.runtime import shell as _shell  # noqa: F401  (registers the shell executor)
from envfactory.runtime import simulated as _simulated  # noqa: F401  (registers the simulated executor)
from envfactory.runtime import singleton as _singleton  # noqa: F401  (registers the singleton executor)
from envfactory.runtime import tree as _tree  # noqa: F401  (registers the tree executor)
from envfactory.runtime.answers import answered, checked, missing_accepted
from envfactory.runtime.behaviours import Executor, compile_executor, to_jsonable
from envfactory.runtime.canonical import safe_text
from envfactory.runtime.shape import (
    Shaper,
    compile_keyed_map_shaper,
    compile_members_shaper,
    compile_renderer,
    compile_shaper,
    identity,
    key_aliases,
    with_outcome_flags,
)
from envfactory.runtime.singleton import gated
from envfactory.runtime.spelling import SPELLINGS, spelling, unknown
from envfactory.runtime.store import BaseState
from envfactory.runtime.tracked import Tracker
from envfactory.runtime.validation import Validator, compile_validator
from envfactory.seeding import derive_seed

JSON = dict[str, Any]

if TYPE_CHECKING:
    from envfactory.runtime.episode import Episode


@dataclass(frozen=True, slots=True)
class CompiledTool:
    name: str
    validate: Validator
    execute: Executor
    shape: Shaper
    read_only: bool
    render: Callable[[Any], str] | None = None  # the answer as JSON text at once; else to_json_text(shape(value))
    wrapped: str | None = None  # the object its callers wrap the arguments in (``ToolSpec.wrapped``)


# effects answering the store's rows (the starting state's are shared and never mutated) or rows made for that answer
STORE_ROWS = frozenset({"create", "read", "list", "update", "delete", "action", "adjust", "transfer", "create_many",
                        "delete_many", "edit_list"})  # fmt: skip
# effects whose answer is final: what they produce is the declared output already, or what a real
# implementation (a bound class, a live server) answered, which shaping by its declared types could only cut
SHAPED_BY_EFFECT = frozenset({"fallback", "code", "tree", "shell", "simulated", "compute", "count", "served", "bound"})


class Environment:
    """Everything shared by the episodes of one environment."""

    def __init__(
        self,
        spec: EnvSpec,
        *,
        owner_factory: Callable[[], Any] | None = None,
        trust_code: bool = False,
        spare_servers: int = 1,
    ) -> None:
        """Compile ``spec``. An environment whose behaviours are bound to Python code imports and
        runs that code in its episodes, and one served by a live server starts that server (one per
        episode, ``spare_servers`` kept started ahead); it does either only with ``trust_code=True``
        (or when the caller passes the ``owner_factory`` itself)."""
        self.spec = spec
        self.name = spec.name
        eager = ("code", "simulated")  # bound and served code is imported or started with the first episode
        consent = [f"{tool} ({what})" for tool, what in executes(spec) if spec.behaviour(tool).effect.kind in eager]
        if consent and not trust_code:  # checked before compiling: these behaviours run as soon as a tool is called
            raise EnvSpecError(
                f"env {spec.name!r} runs code or contacts a model: {', '.join(consent)}; "
                "pass --trust-code (API: trust_code=True) only if you trust it"
            )
        self.base = BaseState(spec.state_schema, spec.initial_state, spec.counters)
        self.tools: dict[str, CompiledTool] = {}
        shared = frozenset(id(row) for table in self.base.tables.values() for row in table.values())
        for tool in spec.tools.tools:
            behaviour = spec.behaviour(tool.name)
            effect = behaviour.effect
            execute = compile_executor(effect, tool, spec)
            entity = _entity(spec, effect)
            if entity is not None and entity.hidden:  # what the records hold and no reply shows
                execute = _without(entity.hidden, execute)
            aliases = key_aliases(tool.output_schema, entity)
            flags = outcome_flags(tool.output_schema)
            if effect.kind in SHAPED_BY_EFFECT:  # these produce the declared output: shaping would wrap it twice
                shape: Shaper = identity
            elif isinstance(effect, DumpEffect):  # its members each a list of records, as declared
                shape = with_outcome_flags(compile_members_shaper(tool.output_schema, effect.members), flags)
            elif effect.kind == "list" and entity is not None and keyed_map_record(tool.output_schema) is not None:
                shape = compile_keyed_map_shaper(tool.output_schema or {}, entity.key, aliases)  # records by key
            else:
                shaper = compile_shaper(
                    tool.output_schema, aliases, shared=shared if effect.kind in STORE_ROWS else None
                )
                shape = with_outcome_flags(shaper, flags)
            render = None
            if behaviour.accepts_missing:  # a record nobody holds: accepted, nothing changes
                execute = missing_accepted(execute)
            if behaviour.answer is not None:  # worded as the real implementation words it
                execute, shape = answered(behaviour.answer, execute, shape), identity
            elif effect.kind in STORE_ROWS and not flags and keyed_map_record(tool.output_schema) is None:
                # (``shape`` is then the plain shaper it falls back to)
                render = compile_renderer(tool.output_schema, aliases, shared, plain=shape)
            if behaviour.checks:  # checks the real implementation was seen making
                execute = checked(behaviour.checks, execute)
            if behaviour.gate:
                execute = gated(behaviour.gate, execute)
            if behaviour.spellings:  # everything above runs on the arguments as the real thing spells them
                if bad := unknown(behaviour.spellings):
                    raise EnvSpecError(f"env {spec.name!r}, tool {tool.name!r}: spellings not known: {', '.join(bad)}"
                                       f" (known: {', '.join(SPELLINGS)})")  # fmt: skip
                execute = spelling(behaviour.spellings, execute)
            self.tools[tool.name] = CompiledTool(
                name=tool.name,
                validate=compile_validator(tool.input_schema),
                execute=execute,
                shape=shape,
                render=render,
                read_only=effect.kind in ("read", "list", "count") or bool(tool.annotations.read_only),
                wrapped=tool.wrapped,
            )
        self.shown_names = {name: safe_text(name, 200) for name in self.tools}  # as a call's log entry names it
        self.openai_tools = spec.tools.to_openai()
        self.code = bound_targets(spec)
        self.trust_code = trust_code
        self.spare_servers = spare_servers
        self._owner_factory = owner_factory
        self._owner_loaded = owner_factory is not None or not self.code
        start = datetime.fromisoformat(spec.config.clock_start.replace("Z", "+00:00"))
        self.now = start.strftime("%Y-%m-%dT%H:%M:%SZ")  # the simulated time of every episode
        self._template: Tracker | None = None  # the bound object fresh ones are copied from
        self._template_lock = threading.Lock()
        self._owner_lock = threading.Lock()
        self._owner_copies: OrderedDict[bytes, Tracker] = OrderedDict()  # snapshots' objects, newest last
        self._values: Any = None  # a ValueMaker, made on first fallback call (Faker is slow to start)
        self._values_lock = threading.Lock()

    @classmethod
    def load(cls, directory: str | Path, *, trust_code: bool = False) -> Environment:
        return cls(EnvSpec.load(directory), trust_code=trust_code)

    @property
    def owner_factory(self) -> Callable[[], Any] | None:
        """What makes a fresh instance of the bound implementation per episode (imported on first use)."""
        if not self._owner_loaded:
            if not self.trust_code:
                raise EnvSpecError(
                    f"env {self.name!r} runs code: {', '.join(sorted(self.code))} (bound behaviours or a server); "
                    "episodes execute it: pass --trust-code (API: trust_code=True) only if you trust it"
                )
            with self._owner_lock:  # episodes played side by side: one import, one server pool
                if not self._owner_loaded:
                    self._owner_factory = self._server_pool() or bound_owner_factory(self.spec)
                    self._owner_loaded = True
        return self._owner_factory

    def new_owner(self, seed: int, reuse: Tracker | None = None) -> tuple[Any, Tracker | None]:
        """A fresh implementation object for an episode of ``seed`` and its tracker. A bound object
        whose state is its attributes is made once by the user's code and copied after that, its
        caches kept (:mod:`envfactory.runtime.tracked`); its random generators are reseeded from ``seed``.
        ``reuse``: the last episode's copy, rolled back when it can be (in time proportional to what
        that episode changed)."""
        if reuse is not None and reuse.source is self._template and reuse.can_roll_back():
            reuse.roll_back()
            reuse.reseed(seed)
            return reuse.owner, reuse
        factory = self.owner_factory
        if factory is None:
            return None, None
        with self._template_lock:
            if self._template is None:
                owner = factory()
                template = Tracker.of(owner)
                if template is None:
                    return owner, None
                template.digest()  # copies start with every cache filled
                self._template = template
        tracker = self._template.clone()
        tracker.reseed(seed)
        return tracker.owner, tracker

    def remember_owner(self, snapshot: dict[str, Any], tracker: Tracker) -> None:
        """Keep a copy of a snapshot's bound object (the last few), for :meth:`recall_owner`."""
        key = _owner_key(snapshot)
        if key is not None:
            with self._template_lock:
                self._owner_copies[key] = tracker.clone()
                self._owner_copies.move_to_end(key)
                while len(self._owner_copies) > OWNER_COPIES:
                    self._owner_copies.popitem(last=False)

    def recall_owner(self, snapshot: dict[str, Any]) -> Tracker | None:
        """A copy of the bound object a snapshot taken in this process recorded, if it is kept: the
        same seed, calls and answers (so a deterministic implementation's replay would reach it)."""
        key = _owner_key(snapshot)
        with self._template_lock:
            kept = self._owner_copies.get(key) if key is not None else None
        return kept.clone() if kept is not None else None

    def _server_pool(self) -> Callable[[], Any] | None:
        from envfactory.real.served import ServerPool, served_target

        target = served_target(self.spec)
        return ServerPool(self.spec, target, spare=self.spare_servers).take if target is not None else None

    def episode(self, *, max_steps: int | None = None, user: UserSimulator | None = None) -> Episode:
        from envfactory.runtime.episode import Episode

        return Episode(self, max_steps=max_steps, user=user)

    def fallback_value(self, tool: str, args: JSON, seed: int) -> Any:
        """Deterministic, schema-faithful output for a tool without inferred semantics."""
        from envfactory.values import ValueMaker

        with self._values_lock:
            if self._values is None:
                self._values = ValueMaker(0, self.spec.config.clock_start)
        canonical = json.dumps(args, sort_keys=True, ensure_ascii=True)
        schema = self.spec.tools[tool].output_schema
        if not schema:
            return {"status": "ok"}
        with self._values_lock:  # one generator, reseeded per call: episodes on several threads share it
            self._values.reseed(derive_seed(seed, tool, canonical))
            return to_jsonable(self._values.value(schema, tool))


def _without(hidden: tuple[str, ...], execute: Any) -> Any:
    """``execute`` answering its record, or each record of its list, without the ``hidden`` fields."""

    def strip(value: Any) -> Any:
        return {k: v for k, v in value.items() if k not in hidden} if isinstance(value, dict) else value

    def run(ctx: Any, args: Any) -> Any:
        value = execute(ctx, args)
        return [strip(v) for v in value] if isinstance(value, list) else strip(value)

    return run


def _entity(spec: EnvSpec, effect: Any) -> Entity | None:
    """The entity an effect acts on, if it names one the schema holds."""
    name = getattr(effect, "entity", None)
    return spec.state_schema[name] if isinstance(name, str) and name in spec.state_schema else None


def executes(spec: EnvSpec) -> list[tuple[str, str]]:
    """Each behaviour that runs code or contacts a model, with what it does: every one needs consent
    (``trust_code``). A folder never chooses where a model is reached (``ENVFACTORY_BASE_URL`` does)."""
    found = []
    for b in spec.behaviours:
        effect = b.effect
        if isinstance(effect, CodeEffect):
            found.append((b.tool, f"generated code by {effect.author or 'a model'}, run in the sandbox"))
        elif isinstance(effect, SimulatedEffect):
            ignored = f"; the folder's address {effect.base_url} is ignored" if effect.base_url else ""
            found.append((b.tool, f"asks the model {effect.model} at {simulated_endpoint(effect.model)}{ignored}"))
        elif isinstance(effect, BoundEffect):
            found.append((b.tool, f"imports and runs {effect.target}"))
        elif isinstance(effect, ServedEffect):
            found.append((b.tool, f"starts the server {effect.target}"))
    return found


def simulated_endpoint(model: str) -> str:
    """Where a simulated tool's model is reached: the user's configuration, never the folder's."""
    import os

    if model == "local" or model.startswith("local:"):
        return "the embedded model (in this process)"
    return os.environ.get("ENVFACTORY_BASE_URL") or "the backend's default address"


OWNER_COPIES = 8  # bound objects of recent snapshots kept for a restore without replay


def _owner_key(snapshot: dict[str, Any]) -> bytes | None:
    """What determines a bound object's state in a snapshot: its seed, its calls and their answers."""
    import hashlib

    import orjson

    try:
        parts = [snapshot.get("seed"), snapshot.get("log"), snapshot.get("owner")]
        data = orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None
    return hashlib.blake2b(data, digest_size=16).digest()


def bound_targets(spec: EnvSpec) -> set[str]:
    """The Python files an environment's bound behaviours import and the server it starts (empty
    when it runs no code)."""
    files = {b.effect.target.rsplit(":", 1)[0] for b in spec.behaviours if isinstance(b.effect, BoundEffect)}
    return files | {b.effect.target for b in spec.behaviours if isinstance(b.effect, ServedEffect)}


def bound_owner_factory(spec: EnvSpec) -> Callable[[], Any] | None:
    """Import the user's implementation named by bound behaviours; a fresh owner per episode."""
    targets = {b.effect.target for b in spec.behaviours if isinstance(b.effect, BoundEffect)}
    if not targets:
        return None
    from envfactory.ingest.python import import_module_ref

    refs = {t.rsplit(":", 1)[0] for t in targets}
    owners = {t.rsplit(":", 1)[1].split(".")[0] for t in targets if "." in t.rsplit(":", 1)[1]}
    if len(refs) != 1 or len(owners) > 1:
        raise EnvSpecError(
            f"env {spec.name!r}: bound behaviours must come from one module and class, got {sorted(targets)}"
        )
    try:
        module = import_module_ref(refs.pop())
    except SpecError as err:
        raise EnvSpecError(f"env {spec.name!r}: cannot import the bound implementation: {err}") from None
    if not owners:
        return lambda: module
    cls = getattr(module, owners.pop())
    if spec.config.scenario is None:
        return cls
    return scenario_factory(cls, spec.config.scenario, spec.config.scenario_loader, env=spec.name)


# methods a class loads its scenario with (BFCL's ``_load_scenario``, ...), tried in this order
SCENARIO_LOADERS = ("_load_scenario", "load_scenario", "load_state", "set_state", "load")


def scenario_factory(cls: Any, scenario: str, loader: str | None = None, *, env: str = "") -> Callable[[], Any]:
    """``cls()`` with the JSON ``scenario`` file given to its loader method: a fresh, loaded object
    per episode (each gets its own copy of the data)."""
    import copy
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(scenario).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise EnvSpecError(f"env {env!r}: cannot read the scenario {scenario}: {err}") from None
    name = loader or next((m for m in SCENARIO_LOADERS if callable(getattr(cls, m, None))), None)
    if name is None or not callable(getattr(cls, name, None)):
        raise EnvSpecError(
            f"env {env!r}: {cls.__name__} has no scenario loader "
            f"{name or ' or '.join(SCENARIO_LOADERS)}; name one with --scenario-loader"
        )

    def make() -> Any:
        owner = cls()
        getattr(owner, name)(copy.deepcopy(data))
        return owner

    return make
