"""Effects: what a tool does to the state, as data a user can read and edit.

Each effect kind has an executor in ``runtime.behaviours`` (a registry keyed by ``kind``).
A :class:`Behaviour` pairs a tool with its effect and says how far to trust it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from envfactory.ir.choice import Answer, ArgCheck

FilterOp = Literal["eq", "in", "any", "contains", "search", "gte", "lte", "unless", "members"]
# synthesis's own confidence in a behaviour, before anything is measured (no grade: grades come from
# measuring against the real implementation, ``fidelity.json``): the real implementation itself, a
# behaviour the descriptions spell out, one they suggest, a guess (a fallback), a language model's
Prior = Literal["real", "confident", "plausible", "guess", "simulated"]
_LEGACY_PRIOR = {"high": "confident", "medium": "plausible", "low": "guess"}  # folders before the rename


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# the values an argument's enum may offer beside real ones to mean "whichever": no filter at all
WILDCARDS = frozenset({"all", "any", "every", "*"})


class Filter(_Frozen):
    """Keep rows whose ``field`` matches argument ``arg`` under ``op``.

    ``search`` matches the argument as a case-insensitive substring of any text field.
    ``in`` keeps rows whose field is one of the argument's values; ``any`` keeps rows whose
    list-valued field shares a value with the argument. ``unless`` reads a boolean argument as
    "include these too" (``list_todos(include_completed)``): rows whose ``field`` is set are kept
    only when it is true, and an omitted argument is its declared default, else false.
    ``default``: an omitted argument filters as this value (where the real side was seen applying
    the argument's declared default); ``None`` leaves rows unfiltered when it is omitted — unless
    the argument declares a default the field's values hold (``status`` defaulting to ``open``).
    An equality filter given one of :data:`WILDCARDS` its enum offers (``all`` beside ``open``
    and ``resolved``) keeps every row. ``members`` reads an object argument as conditions, column
    by column (``conditions: {"city": "London"}``): rows holding every member as a field of equal
    value (``field`` is ``None``: the row's own fields, whatever the schema declares).
    """

    arg: str
    field: str | None = None
    op: FilterOp = "eq"
    default: str | int | float | None = None


class Paging(_Frozen):
    limit_arg: str | None = None
    offset_arg: str | None = None
    page_arg: str | None = None
    cursor_arg: str | None = None
    default_limit: int | None = None

    @property
    def args(self) -> set[str]:
        """The arguments the list pages by: its page size, offset, page and cursor."""
        return {a for a in (self.limit_arg, self.offset_arg, self.page_arg, self.cursor_arg) if a}


Split = Literal["given", "sorted"]  # the order a text's comma-separated parts are kept in


class KeyFormat(_Frozen):
    """How the real side words a key it mints: ``head`` then a number, zero-padded to ``width``
    digits (``s03``, ``T-0007``), 1 + the largest number a key of that head holds. With ``scope``, a
    record holding a value in that field is keyed by the value, ``within`` and its number among the
    records sharing it (``s01t02``: the second of ``s01``'s); one holding none, by ``head`` and its
    number among those holding none."""

    head: str = ""
    width: int = 1
    scope: str | None = None
    within: str = ""


class KeySlug(_Frozen):
    """A key the real side makes of an argument's text (``"Team Present"`` -> ``team-present``): the
    text in lower case, each run of characters other than letters and digits one ``joiner``, between
    ``head`` and ``tail`` (``Projects/`` and ``.md`` of a note filed as a file)."""

    arg: str
    joiner: str = "-"
    head: str = ""
    tail: str = ""


class CreateEffect(_Frozen):
    kind: Literal["create"] = "create"
    entity: str
    args: dict[str, str] = Field(default_factory=dict)  # input argument -> entity field
    key_arg: str | None = None  # when the caller chooses the key
    defaults: dict[str, Any] = Field(default_factory=dict)  # field -> value when not given
    timestamps: tuple[str, ...] = ()  # fields set to the simulated clock
    # reference field -> counter on the row it references: creating takes one (a seat, a unit of
    # stock) and is refused when none is left
    consumes: dict[str, str] = Field(default_factory=dict)
    # the record wrapped in one object argument (AWS's ``Budget``, Rails' ``user``): member -> field
    body_arg: str | None = None
    body: dict[str, str] = Field(default_factory=dict)
    # field -> ``entity.field`` of a singleton the create copies it from: the signed-in user stamped
    # as a ticket's ``created_by``
    signed: dict[str, str] = Field(default_factory=dict)
    # reference fields whose row is not looked up: the real implementation accepts a reference to nothing
    unchecked: tuple[str, ...] = ()
    # an object argument of free members that are the record's own fields, whatever they are
    # (``create_record(table, data)``, ``insert_one(document)``): the row holds them beside its declared ones
    spread: str | None = None
    # a field no two records share (``context_save(key, value)``: "Unique key for the context item"):
    # a create given a value a record holds saves over that record, under its key, as a put by name does
    replaces: str | None = None
    # fields no two records share where the real side refuses a second (``template_create(name)``
    # answering "already exists"): a create given a value a record holds is refused ``conflict``
    unique: tuple[str, ...] = ()
    # argument -> how a comma-separated text given it is stored: as the list of its parts, in the order
    # given or sorted (``tags: "work,urgent"`` held as ``["urgent", "work"]``)
    splits: dict[str, Split] = Field(default_factory=dict)
    # field -> the field whose value scopes its numbers: the field holds 1 + the largest number it holds
    # among the records sharing the new one's value there (a row's ``id`` counted per ``table``, as SQL
    # numbers each table's rows); the record's own key is another field
    numbered: dict[str, str] = Field(default_factory=dict)
    # the key the create mints, worded as the real side words it (``s03``; ``s01t02`` under ``s01``)
    key_format: KeyFormat | None = None
    # the key made of an argument's text (``team-present``), a second record of the same text refused
    key_slug: KeySlug | None = None


class ReadEffect(_Frozen):
    kind: Literal["read"] = "read"
    entity: str
    key_arg: str


class Order(_Frozen):
    """One key rows are listed by: a field's values ascending (descending), nulls last; or, with
    ``ranks``, in that order of its values (``high``, ``med``, ``low``), others after."""

    field: str
    descending: bool = False
    ranks: tuple[str | int | float | bool | None, ...] = ()


class ListEffect(_Frozen):
    """The rows the filters keep (paged); with ``keys_as``, only their keys, under that member
    (``filter_stocks_by_price`` -> ``{filtered_stocks: [symbols]}``), or the field ``listed`` names
    (``list_users`` -> ``{user_list: [names]}``); with ``listed`` alone, that field's values as the
    whole answer (a list of digests, ``["sha256:..."]``)."""

    kind: Literal["list"] = "list"
    entity: str
    filters: tuple[Filter, ...] = ()
    paging: Paging = Paging()
    keys_as: str | None = None
    listed: str | None = None  # the field a ``keys_as`` list (or a bare list of values) holds
    # argument -> entity whose row it names (the parent of ``get_tweet_comments(tweet_id)``): a key that
    # names no row is refused ``not_found`` rather than answered with an empty list
    needs: dict[str, str] = Field(default_factory=dict)
    # every matching row, even where the output schema declares one record (learned from the real
    # thing answering its rows inside an envelope); none found is an empty list
    every: bool = False
    # a look-up by what a person knows (``find_user_id_by_email``): the first row the filters keep, or
    # its key alone; none is ``not_found`` (:mod:`envfactory.synth.lookups`)
    finds: Literal["row", "key"] | None = None
    # every matching row, as a list answers them, but none matching is ``not_found`` (learned: the real
    # thing refused each call on which the model found nothing and answered the others)
    none_refused: bool = False
    # the keys its rows are listed by, in turn, where the real thing lists them in an order of their
    # values (learned: ``list-order``); ties, and none given, in the order the rows were written
    order: tuple[Order, ...] = ()


class UpdateEffect(_Frozen):
    kind: Literal["update"] = "update"
    entity: str
    key_arg: str
    args: dict[str, str] = Field(default_factory=dict)
    timestamps: tuple[str, ...] = ()
    # a patch object (`updates`, `changes`, ...) applied member by member: member -> field
    patch_arg: str | None = None
    patch: dict[str, str] = Field(default_factory=dict)
    unchecked: tuple[str, ...] = ()  # reference fields whose row is not looked up (as ``CreateEffect``)
    # field -> the values the row must hold ("modify a *pending* order"): any other is precondition_failed
    when: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    splits: dict[str, Split] = Field(default_factory=dict)  # as ``CreateEffect.splits``


class DeleteEffect(_Frozen):
    """Delete the row ``key_arg`` names; with ``by``, the latest row whose ``by`` field equals it
    (``delete_message(receiver_id)``: "Delete the latest message sent to a receiver")."""

    kind: Literal["delete"] = "delete"
    entity: str
    key_arg: str
    by: str | None = None


class WhereEffect(_Frozen):
    """Change or remove together every row the filters keep (``update_records(table, data,
    conditions)``, ``delete_records(table, conditions)``: SQL's ``UPDATE ... WHERE``, a document
    store's ``update_many``); the answer counts them. An update writes the members of ``set_arg``
    (an object) onto each row. A call whose conditions are empty is refused: it would reach every row."""

    kind: Literal["where"] = "where"
    entity: str
    filters: tuple[Filter, ...]
    delete: bool = False
    set_arg: str | None = None


class Children(_Frozen):
    """Records of the same entity under the one an action changes (their ``parent`` field holds its
    key): while any of them has a ``blocking`` value of the action's field, the action is refused;
    ``force_arg``, given true, sets those records to the action's value as well ("Use force=True to
    close all open subtasks"); ``reported_as``: the reply member listing the keys it so changed
    (left out when it changed none)."""

    parent: str
    blocking: tuple[str, ...]
    force_arg: str | None = None
    reported_as: str | None = None


class ActionEffect(_Frozen):
    """A state transition: set ``field`` to ``to`` when the current value allows it (and, with
    ``children``, when no record under it is still open)."""

    kind: Literal["action"] = "action"
    entity: str
    key_arg: str
    field: str
    to: str | bool  # a status value, or a flag (``completed``) set true or false
    allowed_from: tuple[str, ...] | None = None  # None: any state not forbidden
    forbidden_from: tuple[str, ...] = ()
    args: dict[str, str] = Field(default_factory=dict)  # extra arguments stored on the row
    timestamps: tuple[str, ...] = ()
    releases: dict[str, str] = Field(default_factory=dict)  # reference field -> counter given back
    again: bool = False  # setting the value a row already holds is accepted (else refused as a conflict)
    children: Children | None = None

    def may_leave(self, value: Any) -> bool:
        """Whether a record whose field holds ``value`` may be set (:func:`may_leave`)."""
        allowed = frozenset(self.allowed_from) if self.allowed_from is not None else None
        return may_leave(value, allowed, folded(self.forbidden_from))


def folded(values: Any) -> frozenset[str]:
    """Values as a state is compared with them, case aside (``"Completed"`` is completed)."""
    return frozenset(str(v).casefold() for v in values)


def may_leave(value: Any, allowed: frozenset[Any] | None, forbidden: frozenset[str]) -> bool:
    """Whether an action may set a record whose field holds ``value``: one of ``allowed`` (``None``:
    any) and none of ``forbidden`` (:func:`folded`)."""
    return (allowed is None or value in allowed) and str(value).casefold() not in forbidden


class AdjustEffect(_Frozen):
    """Add ``amount_arg`` to a numeric ``field`` of one row (``sign`` +1: top up, deposit, credit) or
    take it away (-1: withdraw, charge, debit; refused when too little is left)."""

    kind: Literal["adjust"] = "adjust"
    entity: str
    key_arg: str
    field: str
    amount_arg: str
    sign: Literal[1, -1] = 1


class TransferEffect(_Frozen):
    """Move ``amount_arg`` of ``field`` from one row of ``entity`` to another."""

    kind: Literal["transfer"] = "transfer"
    entity: str
    from_arg: str
    to_arg: str
    amount_arg: str
    field: str
    record: CreateEffect | None = None  # e.g. a Transaction row written alongside
    status_field: str | None = None  # both rows must have one of ``usable`` here (not frozen, closed)
    usable: tuple[str, ...] = ()


class CreateManyEffect(_Frozen):
    """A batch create: one row per item of the array argument ``items_arg``. An item whose key
    (or, for an entity without a natural key, every given field) matches an existing row or an
    earlier item is skipped; the answer lists the rows made."""

    kind: Literal["create_many"] = "create_many"
    entity: str
    items_arg: str
    fields: dict[str, str] = Field(default_factory=dict)  # item field -> entity field
    defaults: dict[str, Any] = Field(default_factory=dict)
    # other arguments every row made takes (argument -> entity field): the realm a route names
    args: dict[str, str] = Field(default_factory=dict)
    # the answer is one object listing the keys of the rows made under this member, not the rows
    # (YNAB's ``{transaction_ids: [...]}``)
    keys_as: str | None = None
    # the items are plain values, each the value of this field (Gitea's ``emails: [text]``)
    value_field: str | None = None
    # the items arrive as JSON text (``tasksRaw: "[{\"name\": ...}]"``): a text that is not a JSON
    # list makes nothing
    items_text: bool = False
    # every item makes a row under a key the environment mints and answers, as a create does, repeats
    # included (learned from the real thing: ``decompose_task(id, into)`` answering the subtasks made)
    minted: bool = False
    timestamps: tuple[str, ...] = ()  # fields each row made holds the simulated clock in


class DeleteManyEffect(_Frozen):
    """A batch delete: ``items_arg`` holds keys (``by="key"``) or whole items matched field by field
    (``by="fields"``). Missing things are ignored; rows of other entities that refer to a deleted
    row, or to a key named for deletion that no row holds (a dangling reference), go with it
    (``cascade``: entity -> its referring fields)."""

    kind: Literal["delete_many"] = "delete_many"
    entity: str
    items_arg: str
    by: Literal["key", "fields"] = "key"
    fields: dict[str, str] = Field(default_factory=dict)  # item field -> entity field (by="fields")
    cascade: dict[str, tuple[str, ...]] = Field(default_factory=dict)


class EditListEffect(_Frozen):
    """Add values to, or remove them from, a list field of rows (tags, members, notes), in a batch:
    each item of ``items_arg`` names its row (``owner_arg``) and its values (``values_arg``); without
    ``items_arg`` the call itself is the one item (``mention(tweet_id, mentioned_usernames)``).
    Adding skips values already there and needs every named row to exist; removing ignores what
    is not there. ``result_field`` is the answer's field for the values actually added; a single
    value (``add_blocker(id, blocker_id)``) is a list of one. ``answers_row``: a call naming one row
    answers that row as it is afterwards, not what was added."""

    kind: Literal["edit_list"] = "edit_list"
    entity: str
    field: str
    items_arg: str | None = None
    owner_arg: str
    values_arg: str
    op: Literal["add", "remove"] = "add"
    result_field: str | None = None
    answers_row: bool = False

    def arguments(self, key: Any, values: list[Any]) -> dict[str, Any]:
        """The call's arguments that put ``values`` on the row ``key`` names."""
        item = {self.owner_arg: key, self.values_arg: values}
        return item if self.items_arg is None else {self.items_arg: [item]}


class DumpEffect(_Frozen):
    """Several collections in one answer (``members``: output member -> entity): everything, or the
    rows of ``primary`` a search (``search_arg``) or a list of keys (``keys_arg``) selects, with the
    rows of other entities whose every referring field (``links``) points at a selected row."""

    kind: Literal["dump"] = "dump"
    members: dict[str, str]
    primary: str | None = None
    search_arg: str | None = None
    keys_arg: str | None = None
    links: dict[str, tuple[str, ...]] = Field(default_factory=dict)


class SingletonEffect(_Frozen):
    """The one record of a singleton resource (the signed-in user, settings, a balance): ``get``
    answers it; ``set`` writes the arguments it maps (``args``: argument -> field) and answers it."""

    kind: Literal["singleton"] = "singleton"
    entity: str
    op: Literal["get", "set"] = "get"
    args: dict[str, str] = Field(default_factory=dict)
    sets: dict[str, Any] = Field(default_factory=dict)  # fields a set writes whatever the arguments (login: on)
    # argument -> {its value as text -> the field's value}: ``{"mode": {"engage": "engaged"}}``,
    # ``{"unlock": {"true": "unlocked", "false": "locked"}}``; an unlisted value leaves the field as is
    values: dict[str, dict[str, Any]] = Field(default_factory=dict)
    # argument -> numeric field it adds to (within its maximum), or list field it adds the value(s) to
    # (those already there skipped: ``add_to_watchlist(stock)``)
    adds: dict[str, str] = Field(default_factory=dict)
    # argument -> numeric field it takes from (not below 0), or list field it removes the value(s) from
    # (each must be there, else ``not_found``)
    takes: dict[str, str] = Field(default_factory=dict)
    answers: dict[str, str] = Field(default_factory=dict)  # output member (dotted path) -> field; {} answers the record
    # credentials: argument -> field it must equal when the record holds every one of these fields (a stored
    # username and password); a mismatch turns the ``sets`` booleans off (a declared status says so) or refuses
    checks: dict[str, str] = Field(default_factory=dict)
    # fields a ``set`` fills with a fresh token and answers (a login's ``access_token``); the token
    # follows from the episode's seed and the one it replaces, so that runs repeat
    issues: tuple[str, ...] = ()
    # an output member answering whether a list edit changed anything (``follow_status``: "True if
    # followed, False if already following"); with it, removing a value that is not there is answered
    # ``false``, not refused
    reports: str | None = None
    # a read's argument -> {its value -> the fields it answers}: ``displayCarStatus(option="fuel")``
    # answers ``fuelLevel`` only; a value not listed answers the whole record
    selects: dict[str, dict[str, tuple[str, ...]]] = Field(default_factory=dict)


TreeOp = Literal[
    "write", "mkdir", "read", "read_many", "list", "tree", "move", "remove", "info", "search", "edit", "roots", "media"
]


class TreeEffect(_Frozen):
    """Path-addressed state: a tree of directories and files (rows of ``entity`` keyed by their
    absolute path, with ``type`` and ``content``) under root directories. Every op checks that its
    paths lie under a root (``precondition_failed``), that what it reads exists (``not_found``),
    that what it creates does not (``conflict``) and that parents are directories."""

    kind: Literal["tree"] = "tree"
    entity: str
    op: TreeOp
    path_arg: str | None = None  # source for move
    to_arg: str | None = None  # destination for move; content for write; pattern for search; edits for edit
    extra_arg: str | None = None  # paths for read_many


ShellOp = Literal[
    "pwd", "ls", "cd", "mkdir", "touch", "echo", "cat", "rm", "rmdir", "mv", "cp", "find", "grep", "wc", "tail",
    "head", "sort", "diff", "du",
]  # fmt: skip
SHELL_WRITES = frozenset({"cd", "mkdir", "touch", "echo", "rm", "rmdir", "mv", "cp"})


class ShellEffect(_Frozen):
    """Shell-style file tools (``cd``, ``ls``, ``touch``, ``mv``...): names resolved against a
    current directory, the one row of ``cwd_entity``, over the tree of ``entity`` (as
    :class:`TreeEffect`'s). See ``runtime/shell.py``."""

    kind: Literal["shell"] = "shell"
    entity: str
    cwd_entity: str
    op: ShellOp
    name_arg: str | None = None  # the file or folder named (source for mv/cp, first file for diff)
    to_arg: str | None = None  # destination; second file; pattern; the text echo writes; find's name
    extra_arg: str | None = None  # a flag or count: ls -a, wc mode, tail lines, du -h


class ComputeEffect(_Frozen):
    """A tool whose answer is a function of its arguments alone (``add(a, b)``, ``mean(numbers)``,
    ``gallon_to_liter(gallon)``): ``function`` names one of ``runtime.compute.FUNCTIONS``, applied to
    the ``operands`` (argument names, in the function's order) and answered under ``output`` (the
    bare number when ``None``). A value outside the function's domain is refused."""

    kind: Literal["compute"] = "compute"
    function: str
    operands: tuple[str, ...]
    output: str | None = None
    # role -> argument: ``precision`` (significant digits), ``places`` (round's decimals),
    # ``unit_in``/``unit_out`` (a converter's units)
    options: dict[str, str] = Field(default_factory=dict)
    units: tuple[str, str] | None = None  # a converter of fixed units: gallon_to_liter -> (gallon, liter)


class Count(_Frozen):
    """One count of a statistics answer: ``field`` holds how many rows of ``entity`` there are whose
    fields (``filters``: argument -> field) equal the arguments, or, with ``list_field``, how many
    items the singleton ``entity`` holds in that list; with no ``entity``, 0 (held nowhere)."""

    field: str
    entity: str | None = None
    list_field: str | None = None
    filters: dict[str, str] = Field(default_factory=dict)
    # whose list it is: (argument, entity, field) — the signed-in user's ``following_list`` counts for
    # ``username`` only when it is the session's ``username``; anyone else's is held nowhere (0)
    owner: tuple[str, str, str] | None = None
    # a tally: the answer maps each value of this field of the counted rows to how many hold it
    # (``GET /store/inventory`` -> ``{"available": 7, "sold": 2}``: pets by status)
    by: str | None = None


class CountEffect(_Frozen):
    """A statistics tool (``get_user_stats(username) -> {tweet_count, following_count}``): every
    field of its answer (inside ``envelope`` when it has one) is a count computed from the state."""

    kind: Literal["count"] = "count"
    counts: tuple[Count, ...]
    envelope: str | None = None
    # the answer is the one count itself (``GET /users/count`` -> ``42``, or the tally of a count ``by``
    # a field), not an object of counts
    bare: bool = False


class SimulatedEffect(_Frozen):
    """A read the templates could not express, answered by a language model (``model``: ``local`` or
    ``openai:NAME`` at the user's ``ENVFACTORY_BASE_URL``; ``base_url``, read from old folders, is
    ignored: a folder never chooses where the user's key is sent) from the tool's description, the
    arguments and the rows of ``entities``. Answers are validated against the output schema (one
    retry; then the schema-faithful fallback) and cached by the whole request, so replays are
    deterministic. It never writes."""

    kind: Literal["simulated"] = "simulated"
    model: str
    base_url: str | None = None
    entities: tuple[str, ...] = ()
    max_rows: int = 20


class CodeEffect(_Frozen):
    """A behaviour written as code (by a language model, on request): ``run(state, args)`` over the
    rows of ``entities``, run in the sandbox (``envfactory.sandbox``) on every call. It returns
    ``{"result": ..., "put": {entity: [rows]}, "delete": {entity: [keys]}}`` or
    ``{"error": {"code": ..., "message": ...}}``; changes are checked before any is applied."""

    kind: Literal["code"] = "code"
    code: str
    entities: tuple[str, ...] = ()
    author: str = ""  # the model that wrote it


class FallbackEffect(_Frozen):
    """Schema-faithful, deterministic output; no state change. Always ``low`` fidelity.

    A tool whose name says it writes (``writes``) answers ``unsupported`` instead: it must not
    report success for a write it did not perform."""

    kind: Literal["fallback"] = "fallback"
    reason: str
    writes: bool = False
    # argument -> entity whose row it names (``contact_customer_support(booking_id)``): a key that
    # names no row is refused ``not_found``, as the real tool would, before anything is answered
    needs: dict[str, str] = Field(default_factory=dict)


class BoundEffect(_Frozen):
    """The user's own implementation: ``target`` is ``module:Class.method`` or ``module:func``."""

    kind: Literal["bound"] = "bound"
    target: str


class ServedEffect(_Frozen):
    """A live server answers the tool: ``target`` is ``mcp+stdio:COMMAND``, ``env`` the variables it
    is started with (``{tmp}`` in either is a fresh folder per server; one server per episode)."""

    kind: Literal["served"] = "served"
    target: str
    env: tuple[tuple[str, str], ...] = ()


Effect = Annotated[
    CreateEffect
    | ReadEffect
    | ListEffect
    | UpdateEffect
    | DeleteEffect
    | WhereEffect
    | ActionEffect
    | TransferEffect
    | AdjustEffect
    | CreateManyEffect
    | DeleteManyEffect
    | EditListEffect
    | DumpEffect
    | SingletonEffect
    | TreeEffect
    | ShellEffect
    | ComputeEffect
    | CountEffect
    | SimulatedEffect
    | CodeEffect
    | FallbackEffect
    | BoundEffect
    | ServedEffect,
    Field(discriminator="kind"),
]


STATE_CHANGING = frozenset(
    {"create", "update", "delete", "where", "action", "transfer", "adjust", "create_many", "delete_many", "edit_list"}
)
TREE_WRITES = frozenset({"write", "mkdir", "move", "remove", "edit"})


def changes_state(effect: Any) -> bool:
    """Whether an effect writes (the self-test's read-only agent leaves such calls out)."""
    return (
        effect.kind in STATE_CHANGING
        or (isinstance(effect, TreeEffect) and effect.op in TREE_WRITES)
        or (isinstance(effect, ShellEffect) and effect.op in SHELL_WRITES)
        or (isinstance(effect, SingletonEffect) and effect.op == "set")
    )


class Gate(_Frozen):
    """A precondition on a tool: the singleton row of ``entity`` must hold a true ``field`` (a
    session's ``logged_in``); with ``arg``, the call's argument must equal that field (the
    ``access_token`` the login issued). Otherwise the call is refused with ``message`` and changes
    nothing."""

    entity: str
    field: str
    message: str
    arg: str | None = None


class Behaviour(_Frozen):
    tool: str
    effect: Effect
    prior: Prior
    notes: tuple[str, ...] = ()
    gate: Gate | None = None
    answer: Answer | None = None  # a wording of the reply learned from the real implementation
    checks: tuple[ArgCheck, ...] = ()  # argument checks the real implementation was seen making
    # argument -> the spelling the real implementation reads it in (:mod:`envfactory.runtime.spelling`)
    spellings: dict[str, str] = {}
    # a call naming a record nobody holds is accepted, changing nothing (the real one does not look it up)
    accepts_missing: bool = False

    @model_validator(mode="before")
    @classmethod
    def _legacy_fidelity(cls, data: Any) -> Any:
        """A folder written before the rename holds ``fidelity: high|medium|low``: read as the prior."""
        if isinstance(data, dict) and "fidelity" in data and "prior" not in data:
            old = data["fidelity"]
            data = {k: v for k, v in data.items() if k != "fidelity"}
            data["prior"] = _LEGACY_PRIOR.get(old, old) if isinstance(old, str) else old
        return data

    @property
    def low_fidelity(self) -> bool:
        return self.prior == "guess"
