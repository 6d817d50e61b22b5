"""Arguments for replayed call sequences that hit existing things.

A ``KeyPool`` remembers the identifying values (ids, names, paths) that the real side returned or
accepted, and draws most identifying arguments from them, so that reads find what was made,
repeats collide and deletes delete. Identifying is judged by the field's name: ``id``, ``name``,
``path``, ``from``/``to``/``source``/``destination``, ``username``/``password``, ``*_id``/``*Id``,
``*_name``/``*Name``, and their plurals for arrays of strings, and the names the caller adds (an
environment's natural keys and entity names: a stock's ``symbol``, ``stock``). A value learned under
the argument's own name (an ``access_token`` a login answered) is preferred to one learned under
another; a record's own key counts as learned under the name an argument gives it too — the ``id``
of a record listed under ``todos`` (or answered under ``todo``) as a ``todo_id``/``todoId``. Of those,
none a reply showed to be the key of something else the argument does not name (:func:`owners`): a
bare ``id`` of ``timer_pause`` takes the ids a timer tool answered (:func:`tool_nouns`) and keys of
no known owner, not a note's; a ``todo_id`` never given yet a todo's. A file a reply names in prose
(``Filed: Projects/plan.md``) is drawn for arguments taking a file (:func:`stated_paths`). Other
values come from the schema (``ValueMaker``).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from envfactory.inflection import singular
from envfactory.ir.jsonschema import primary_type
from envfactory.synth.naming import VERBS
from envfactory.values import ValueMaker, clock_stamp
from envfactory.words import stands_in, tokens

if TYPE_CHECKING:
    from envfactory.ir.env import EnvSpec
    from envfactory.runtime.episode import Episode

JSON = dict[str, Any]
SHARE = 0.8  # how often an identifying argument takes a known value
SAME_FIELD = 0.75  # how often that value is one learned under the argument's own name, where there is one
OPTIONAL = 0.5  # how often an optional member is given
REDRAWS = 4  # draws of a value anew where the one drawn is shunned, at most
DEFAULTED = 0.25  # how often exploration gives one with a declared default: left out, nothing is narrowed
_EXACT = {"id", "name", "path", "from", "to", "source", "destination", "key", "title", "uri", "token", "username",
          "password"}  # fmt: skip
_SUFFIXES = ("_id", "Id", "_name", "Name", "_path", "Path", "_key", "Key", "_token", "Token")
MINTED = ("id", "Id", "token", "Token", "uuid")  # what a side makes up itself: ids and tokens
_MINTED = MINTED


def identifying(name: str, more: frozenset[str] = frozenset()) -> bool:
    base = name[:-1] if name.endswith("s") and len(name) > 2 else name
    return base in _EXACT or base.endswith(_SUFFIXES) or name in more or base in more


class KeyPool:
    def __init__(self, known: list[Any] | None = None, names: frozenset[str] = frozenset(),
                 guesses: list[Any] | None = None, defaulted: float = OPTIONAL,
                 paths: list[Any] | None = None,
                 shunned: frozenset[tuple[str, Any]] = frozenset(), aimed: bool = False) -> None:  # fmt: skip
        """``known``: values the real side holds; ``guesses``: values it may hold (see ``drop_guesses``);
        ``paths``: values only an argument taking a path takes (:func:`path_like`: where a server keeps
        its files, never an id); ``shunned``: (argument, value) pairs never drawn, values the real side
        refused every time it was given them under that name (:class:`Shunned`);
        ``defaulted``: how often an optional argument with a declared default is given (others: half
        the time) — exploration gives it less often (:data:`DEFAULTED`), drawn at random paging and
        filters (``offset: 962``) make most lists answer nothing; the instrument as any other.
        ``aimed``: drawn as learning's exploration draws (keys by what they belong to, files and
        Markdown-marked ids read off prose: :func:`owners`, :func:`stated_paths`); without, as the
        yardstick and the instrument draw, which stay put while how learning explores changes."""
        self.names = names  # identifying beyond the usual ids and names
        self.aimed = aimed
        self.defaulted = defaulted
        self.values: list[Any] = []
        self.by_field: dict[str, list[Any]] = {}  # field name -> the values learned under it
        self.by_owner: dict[tuple[str, str], list[Any]] = {}  # (noun, key word) -> values: ("timer", "id")
        self.guesses: list[Any] = []
        self.learned = 0  # values the real side showed, beyond those given
        self.paths = list(paths or ())
        self.shunned = shunned
        for value in known or ():
            self._add(value)
        for value in guesses or ():
            if value not in self.values:
                self._add(value)  # given under no field: neither confirmed nor counted as learned
                self.guesses += [value] if value in self.values else []

    def shuns(self, name: str, value: Any) -> bool:
        """Whether ``value`` is one the real side always refused under the argument ``name`` (:class:`Shunned`)."""
        return isinstance(value, (str, int)) and (name, value) in self.shunned

    def drop_guesses(self) -> None:
        """Forget the given values nothing since confirmed, once the real side has shown values of
        its own: keys the model made for the records the setup calls made (``todo_0001``) where the
        real side minted others (UUIDs) are ids it never held. Without values of its own shown
        (no read, a reply in prose) the guesses stay."""
        if self.learned:
            self.values = [v for v in self.values if v not in self.guesses]
        self.guesses = []

    def _add(self, value: Any, field: str = "", scope: tuple[str, ...] = ()) -> None:
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            return
        for owned in owners(field, scope) if field and scope and self.aimed else ():  # a reply's key is its owner's
            held = self.by_owner.setdefault(owned, [])
            held += [] if value in held else [value]
        if field and value in self.guesses:
            self.guesses.remove(value)  # confirmed
        elif field and value not in self.values:
            self.learned += 1
        if value not in self.values:
            self.values.append(value)
        if field:
            seen = self.by_field.setdefault(field, [])
            if value not in seen:
                seen.append(value)

    def learn(self, data: Any, field: str = "", scope: tuple[str, ...] = ()) -> None:
        """Remember every identifying value inside ``data`` (an output or accepted arguments) under
        the field it was answered as; a record's own key also as ``{field}_{key}``, ``field`` the
        name the record was answered under, singular. ``scope``: where ``data`` is a reply, the nouns of
        the tool that answered it (:func:`tool_nouns`): an ``id`` a ``timer_start`` answered is a
        timer's (an argument accepted is no key of anything: a lenient read takes any name)."""
        if isinstance(data, dict):
            for k, v in data.items():
                if not isinstance(k, str):
                    continue
                self.learn(v, k, scope)
                if field and k in _EXACT and not isinstance(v, (dict, list)):
                    for alias in _owned(field, k):
                        self._add(v, alias, scope)
        elif isinstance(data, list):
            for item in data:
                self.learn(item, field, scope)
        elif field and identifying(field, self.names):
            self._add(data, field, scope)
        elif isinstance(data, str):  # a reply in prose: the ids it states ("created with ID: 7", "Saved! #12")
            for stated in stated_ids(data, marked=self.aimed):
                self._add(stated, "id")
            for path in stated_paths(data) if self.aimed else ():  # and the files it names ("Filed: Projects/plan.md")
                if path not in self.paths:
                    self.paths.append(path)

    def wanting(self, schema: JSON, scope: tuple[str, ...] = ()) -> list[list[tuple[str, str]]]:
        """For each required identifying argument of ``schema`` whose owners (:func:`owners`) hold
        no key yet, those owners: what a call needs made first to name something that exists."""
        props = schema.get("properties") or {}
        wanted = []
        for name in schema.get("required") or ():
            prop: JSON = props[name] if isinstance(props.get(name), dict) else {}
            if not identifying(name, self.names) or "enum" in prop or primary_type(prop) not in ("string", "integer"):
                continue
            owned = owners(name, scope)
            if owned and not any(self.by_owner.get(o) for o in owned):
                wanted.append(owned)
        return wanted

    def named(self, name: str) -> list[Any]:
        """The keys replies gave the thing an argument is named after, whatever key word they went by
        but a path (``project`` takes a project's ``name``, ``q4``, not the folder it keeps): an
        argument whose last word is a noun, not a key word (:func:`named_thing`)."""
        noun = named_thing(name)
        return list(dict.fromkeys(v for (n, key), held in self.by_owner.items() if n == noun and key != "path"
                                  for v in held))  # fmt: skip

    def arguments(self, schema: JSON, rng: random.Random, maker: ValueMaker, scope: tuple[str, ...] = ()) -> JSON:
        """Arguments for ``schema`` (see the module docstring); ``scope``: the calling tool's nouns
        (:func:`tool_nouns`), whose own keys an argument naming no owner of its own takes first."""
        value = self._value(schema, "", rng, maker, scope)
        return value if isinstance(value, dict) else {}

    def _value(self, schema: JSON, name: str, rng: random.Random, maker: ValueMaker,
               scope: tuple[str, ...] = ()) -> Any:  # fmt: skip
        typ = primary_type(schema)
        if typ == "object" or (typ is None and "properties" in schema):
            props = schema.get("properties") or {}
            required = set(schema.get("required") or ())
            return {
                k: self._value(p if isinstance(p, dict) else {}, k, rng, maker, scope)
                for k, p in props.items()
                if k in required
                or rng.random() >= 1 - (self.defaulted if isinstance(p, dict) and "default" in p else OPTIONAL)
            }
        if typ == "array" and isinstance(schema.get("items"), dict):
            items = schema["items"]
            low = max(1, int(schema.get("minItems") or 1))
            return [self._value(items, name, rng, maker, scope) for _ in range(rng.randint(low, max(low, 3)))]
        naming = identifying(name, self.names)
        filed = typ != "integer" and path_like(name)  # ``file``, ``database_file``: the paths known, no other key
        if typ in ("string", "integer", None) and (naming or (filed and self.aimed)) and "enum" not in schema:

            def fit(v: Any) -> bool:  # of the argument's kind, and never refused under its name
                return isinstance(v, int) == (typ == "integer") and not self.shuns(name, v)

            typed = [v for v in self.values if fit(v)] if naming else []
            scoped = [v for v in self.paths if not self.shuns(name, v)] if filed else []
            if (typed or scoped) and rng.random() < SHARE:
                same = [v for v in self.by_field.get(name, ()) if fit(v)] or scoped
                if naming and self.aimed:  # of the values under its name, none another owner's (a note's ``id``)
                    mine = owners(name, scope)
                    owned = [v for o in mine for v in self.by_owner.get(o, ()) if fit(v)]
                    key = mine[0][1] if mine else None  # the key word: every owner of ``mine`` shares it
                    theirs = {v for o, held in self.by_owner.items() if o not in mine and o[1] == key for v in held}
                    theirs -= set(owned)
                    same = [v for v in same if v not in theirs] or owned
                pick = rng.choice(same if same and (not typed or rng.random() < SAME_FIELD) else typed)
                if (isinstance(pick, str) and "path" in name.lower() and pick.startswith("/")
                        and not (self.aimed and _FILE_NAME.search(pick)) and rng.random() < 0.5):  # fmt: skip
                    return f"{pick.rstrip('/')}/{maker.value({'type': 'string'}, 'word')}"  # somewhere inside a folder
                return pick
        if self.aimed and typ in ("string", "integer") and "enum" not in schema:
            # an argument named after a thing (``project``, ``vault``) takes the keys replies gave such things
            named = [
                v for v in self.named(name) if isinstance(v, int) == (typ == "integer") and not self.shuns(name, v)
            ]
            if named and rng.random() < SHARE:
                return rng.choice(named)
        drawn = maker.value(schema, name)
        for _ in range(REDRAWS):  # a value the real side always refused under this name (a schema's example)
            if not self.shuns(name, drawn):
                break
            drawn = maker.value(schema, name)
        return drawn


KEPT_REFUSALS = ("conflict", "not_found")  # refusals a model must learn: their values are never shunned


class Shunned:
    """Values the real side refused every time they were given under one argument name, ``AT_LEAST``
    times and never accepted, each refusal about them — its words quote the value or name the
    argument (``Vault 'work' is not configured``, ``Path must be a portable vault-relative path`` of
    the folder ``{tmp}``): exploration draws them no more. A value accepted once under that name is
    never shunned, nor one only refused beside another argument the refusal was about (a vault that
    exists, given with a path that does not), nor one refused as a duplicate or as naming nothing
    (``conflict``, ``not_found``: a name already taken, an example's ``nope`` or ``C-9999`` that
    names no one — what a model must learn to refuse, drawn again on purpose)."""

    AT_LEAST = 3

    def __init__(self) -> None:
        self.refused: Counter[tuple[str, Any]] = Counter()
        self.accepted: set[tuple[str, Any]] = set()

    def saw(self, args: JSON, ok: bool, message: str = "", code: str | None = None) -> None:
        """One call's scalar arguments, accepted, or refused in ``message``'s words with ``code``."""
        if not ok and code in KEPT_REFUSALS:
            return
        lowered = message.lower()
        for pair in ((k, v) for k, v in args.items() if isinstance(v, (str, int)) and not isinstance(v, bool)):
            if ok:
                self.accepted.add(pair)
            elif stands_in(str(pair[1]), message) or stands_in(pair[0].lower(), lowered):
                self.refused[pair] += 1

    def pairs(self) -> frozenset[tuple[str, Any]]:
        return frozenset(p for p, n in self.refused.items() if n >= self.AT_LEAST and p not in self.accepted)


_STATED = re.compile(r"(?:\bid\b\s*(?:[:=#]\s*|is\s+)?#?|#)([A-Za-z0-9][\w-]{0,63})", re.IGNORECASE)
_MARKED = re.compile(r"(?:\bid\b[*_]*\s*(?:[:=#][*_`\s]*|is\s+`?)?#?|#)([A-Za-z0-9][\w-]{0,63})", re.IGNORECASE)


def stated_ids(text: str, marked: bool = False) -> list[str | int]:
    """The ids a text states: after the word "id" (``ID: 7``, ``id=abc-12``, ``with id 3``; where
    ``marked``, in Markdown too, ``**ID:** `a1b2` ``) or a ``#`` (``#12``), holding a digit; a number
    as a number."""
    found: list[str | int] = []
    for m in (_MARKED if marked else _STATED).finditer(text[:4000]):
        word = m.group(1).rstrip("-")
        if any(c.isdigit() for c in word):
            value: str | int = int(word) if word.isdigit() and len(word) < 16 else word
            found += [] if value in found else [value]
    return found


# a file a text names: ``notes.md``, ``Projects/plan.md``, ``{tmp}/book.xlsx``, ``/exports/a.json``
# (a stem of two characters at least where no folder is named: not ``e.g``; no web address)
_FILE_NAME = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_NAME = r"[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7}"
_STATED_PATH = re.compile(
    rf"(?<![\w/.:@{{}}~-])((?:\{{tmp\}}|~)?/(?:[\w.-]+/)*{_NAME}|(?:[\w.-]+/)+{_NAME}|[\w-]{_NAME})(?![\w/@-])"
)
_QUOTED_PATH = re.compile(r"['\"`]((?:[^'\"`\n/]*/)*[^'\"`\n/]*\.[A-Za-z][A-Za-z0-9]{0,7})['\"`]")
_WEB = frozenset({"com", "org", "net", "io", "dev", "ai", "co", "gov", "edu", "html", "htm", "php"})


def stated_paths(text: str) -> list[str]:
    """The files a text names (a reply in prose: ``Filed: Projects/plan.md``, ``saved 'My note.md'``),
    each with its ending; a web address is none."""
    found: list[str] = []
    head = text[:4000]
    quoted = list(_QUOTED_PATH.finditer(head))
    inside = [m for m in _STATED_PATH.finditer(head) if not any(q.start() < m.start() < q.end() for q in quoted)]
    for match in [*quoted, *inside]:
        path = match.group(1).strip()
        ending = path.rsplit(".", 1)[-1].lower()
        if path and ending not in _WEB and "://" not in head[max(0, match.start() - 12) : match.start() + 3]:
            found += [] if path in found else [path]
    return found


_PATH_WORDS = frozenset({"path", "file", "filename", "filepath", "dir", "directory", "folder"})


_KEY_WORDS = frozenset({"id", "ids", "name", "names", "key", "keys", "uuid", "slug", "path", "title"})
_LINKS = frozenset({"by", "of", "for", "to", "from", "in", "on", "with", "and", "or", "all", "a", "the", "my"})


def tool_nouns(tool: str) -> tuple[str, ...]:
    """The nouns of a tool's name, singular (the verbs :data:`~envfactory.synth.naming.VERBS` knows and
    key words aside): ``timer_delete`` -> ``("timer",)``, ``todo_comment_add`` -> ``("todo", "comment")``,
    ``getTaskById`` -> ``("task",)``; a verb it does not know stays, naming nothing (``timer_pause``
    -> ``("timer", "pause")``)."""
    words = [w for w in tokens(tool) if w not in VERBS and w not in _KEY_WORDS and w not in _LINKS]
    return tuple(dict.fromkeys(singular(w) for w in words))


_SAME_KEY = {"ref": "id", "uuid": "id", "identifier": "id"}  # a ``task_ref`` is a task's id


def named_thing(field: str) -> str | None:
    """What a field or argument whose last word is no key word names, singular (``vault``, ``projects``
    -> ``project``); ``None`` for a key word (``id``, ``task_ref``, ``project_name``)."""
    words = tokens(field)
    last = singular(words[-1]) if words else None
    return None if last is None or _SAME_KEY.get(last, last) in _KEY_WORDS else last


def owners(field: str, scope: tuple[str, ...]) -> list[tuple[str, str]]:
    """Whose key a field or argument holds, as (noun, key word) pairs: ``todo_id`` a todo's id
    wherever it stands, ``id`` or ``name`` the calling tool's (``scope``'s nouns) — the key word the
    field's last word, singular (``ref``, ``uuid`` an ``id``); a field whose last word is no key word
    names what it refers to, whatever tool it stands in: ``vault`` a vault's, ``stock`` a stock's."""
    words = tokens(field)
    if not words:
        return []
    thing = named_thing(field)
    if thing is not None:
        return [(thing, "id")]
    last = _SAME_KEY.get(singular(words[-1]), singular(words[-1]))
    named = [w for w in words[:-1] if w not in _KEY_WORDS and w not in _LINKS]
    nouns = (singular(named[-1]),) if named else scope
    return [(noun, last) for noun in nouns]


def path_like(name: str) -> bool:
    """Whether an argument takes a path by its name (``path``, ``fileAbsolutePath``, ``output_dir``)."""
    return bool(_PATH_WORDS & set(tokens(name)))


def _owned(holder: str, key: str) -> tuple[str, str]:
    """The argument names a record's ``key`` goes by, the record answered under ``holder``:
    ``todos``/``id`` -> ``todo_id``, ``todoId``."""
    owner = singular(holder)
    return f"{owner}_{key}", f"{owner}{key[:1].upper()}{key[1:]}"


class Aliases:
    """Real value -> the environment's value, for ids and tokens both sides minted in one call."""

    def __init__(self) -> None:
        self.mapping: dict[Any, Any] = {}

    def pair(self, real: Any, synth: Any, field: str = "", *, given: Any = None,
             holds: Callable[[Any], bool] | None = None) -> None:  # fmt: skip
        """Walk two answers to the same call side by side and pair their differing minted leaves.
        ``given``: the call's arguments on the real side — an id the call was given names a record
        it did not mint, so it is paired only with a value naming a record the other side holds
        (``holds``: the key the model stored a made record under where it keys by its own ids), never
        with one made up in its place (a parent answered beside the subtasks made)."""
        if given is not None:
            named = _given_ids(given)
            before = {v: self.mapping[v] for v in named if v in self.mapping}
            self.pair(real, synth, field)
            for v in named:
                if v in before:
                    self.mapping[v] = before[v]
                elif v in self.mapping and not (holds is not None and holds(self.mapping[v])):
                    del self.mapping[v]
            return
        if isinstance(real, dict) and isinstance(synth, dict):
            if not real.keys() & synth.keys():  # one side wraps: {"success": true, "todo": {...}}, {"todos": [...]}
                inner = [(v, synth) for v in real.values() if isinstance(v, (dict, list))] + [
                    (real, v) for v in synth.values() if isinstance(v, (dict, list))
                ]
                for a, b in inner:
                    a, b = (a if isinstance(a, list) else [a]), (b if isinstance(b, list) else [b])
                    if any(isinstance(x, dict) and isinstance(y, dict) and x.keys() & y.keys() for x in a for y in b):
                        self.pair(a, b, field)
                self._pair_lone_ids(real, synth)
                return
            for k, v in real.items():
                if k in synth:
                    self.pair(v, synth[k], k if isinstance(k, str) else "")
            self._pair_lone_ids(real, synth)
        elif isinstance(real, list) and isinstance(synth, list) and len(real) == len(synth) == 1:
            self.pair(real[0], synth[0], field)
        elif isinstance(real, list) and isinstance(synth, list):
            for a, b in matched_records(real, synth):  # records of two lists, matched by what neither side minted
                self.pair(a, b, field)
        elif (field.endswith(_MINTED) and isinstance(real, (str, int)) and isinstance(synth, (str, int))
              and not isinstance(real, bool) and not isinstance(synth, bool)):  # fmt: skip
            self.mapping[real] = synth  # the same value both sides minted is paired too: it is known

    def _pair_lone_ids(self, real: JSON, synth: JSON) -> None:
        """One minted id each side answers under its own name (``{"success": true, "task_id":
        "task-9f2c"}`` facing the model's ``{"id": "task_0003", "story_id": ...}``): the same thing
        made: the model record's own ``id`` (its other ids refer to other things); or, where the real
        side answers ``id``, the model's one id."""
        mine = [k for k, v in real.items() if _minted_leaf(k, v) and k not in synth]
        theirs = [k for k, v in synth.items() if _minted_leaf(k, v) and k not in real]
        own = theirs if mine == ["id"] and len(theirs) == 1 else [k for k in theirs if k == "id"]
        if len(mine) == 1 and len(own) == 1 and real[mine[0]] != synth[own[0]]:
            self.mapping.setdefault(real[mine[0]], synth[own[0]])

    def pair_started(self, real: Any, started: StartingRecords) -> None:
        """Pair the records a real reply holds with records the model started with (a setup call's
        record, made before the sequence under ids each side minted its own way): a record whose
        minted ids are not paired yet, matching exactly one starting record (:meth:`StartingRecords.named`)."""
        if not started.by_text:
            return
        named: dict[int, list[tuple[JSON, JSON]]] = {}
        for record in _records(real):
            if any(_minted_leaf(k, v) and v not in self.mapping for k, v in record.items()):
                row = started.named(record)
                if row is not None:
                    named.setdefault(id(row), []).append((record, row))
        images = set(self.mapping.values())
        for found in named.values():
            # a starting record named by several (a new record made with the same title): only the one
            # holding its very ids is it; and a model id already paired with another real one is not free
            if len(found) > 1:
                found = [(r, row) for r, row in found
                         if all(row.get(k) == v for k, v in r.items() if _minted_leaf(k, v))]  # fmt: skip
            for record, row in found:
                if not any(_minted_leaf(k, v) and row.get(k) in images and self.mapping.get(v) != row.get(k)
                           for k, v in record.items()):  # fmt: skip
                    self.pair(record, row)

    def translate(self, data: Any, field: str | None = None) -> Any:
        """``data`` with every paired real value replaced by the environment's: a text anywhere, a
        number only as a whole reply or under a member named as an id or a reference is (``id``,
        ``task_id``, ``insertedId``, ``ids``, ``from``) — elsewhere ``1`` is a count, a position or a
        flag (``pk: 1``, ``cid: 1``, ``tableCount: 2``), not record 1."""
        if isinstance(data, dict):
            return {k: self.translate(v, k if isinstance(k, str) else "") for k, v in data.items()}
        if isinstance(data, list):
            return [self.translate(v, field) for v in data]
        if isinstance(data, bool) or not isinstance(data, (str, int)):
            return data
        if isinstance(data, int) and field is not None and not (_names_id(field) or identifying(field)):
            return data
        return self.mapping.get(data, data)


def holds_key(spec: EnvSpec, episode: Episode, key: Any) -> bool:
    """Whether ``episode`` holds a record of one of ``spec``'s entities under ``key``."""
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        return False
    return any(episode.store.get(e.name, key) is not None for e in spec.state_schema.entities)


def made_up(spec: EnvSpec, tool: str) -> bool:
    """Whether the model's reply to ``tool`` is made up — a fallback's schema-faithful values, no
    learned wording —: ids it holds were minted by nobody, so nothing in it pairs with the real side's
    (a made-up ``session_id`` paired with the real ``legacy`` would turn every later ``legacy`` into it)."""
    if tool not in spec.tools.names:
        return False
    behaviour = spec.behaviour(tool)
    return behaviour.effect.kind == "fallback" and behaviour.answer is None


def _given_ids(args: Any, field: str = "") -> set[Any]:
    """The values ``args`` gives under identifying members — ids, references, names (:func:`identifying`)
    — at any depth."""
    if isinstance(args, dict):
        return {v for k, inner in args.items() for v in _given_ids(inner, k if isinstance(k, str) else "")}
    if isinstance(args, list):
        return {v for inner in args for v in _given_ids(inner, field)}
    if isinstance(args, (str, int)) and not isinstance(args, bool) and (_names_id(field) or identifying(field)):
        return {args}
    return set()


def _names_id(field: str) -> bool:
    """Whether a member's name ends in the word id, ids, uuid or token (``insertedId``, ``task_ids``;
    not ``cid``)."""
    last = tokens(field)[-1:]
    return bool(last) and last[0] in ("id", "ids", "uuid", "token", "tokens")


def _minted_leaf(key: Any, value: Any) -> bool:
    named = isinstance(key, str) and key.endswith(_MINTED)
    return named and isinstance(value, (str, int)) and not isinstance(value, bool)


def _records(value: Any, depth: int = 4) -> list[JSON]:
    """The objects in a reply (itself, and inside its lists and objects to ``depth`` levels)."""
    if depth < 0:
        return []
    if isinstance(value, list):
        return [r for v in value for r in _records(v, depth - 1)]
    if isinstance(value, dict):
        return [value, *(r for v in value.values() if isinstance(v, (dict, list)) for r in _records(v, depth - 1))]
    return []


class StartingRecords:
    """The records a model starts with, indexed by the texts only one record of its kind holds
    (built once per replay: a reply's records are looked up, not compared with every record)."""

    def __init__(self, tables: dict[str, dict[Any, JSON]]) -> None:
        self.by_text: dict[tuple[str, str], list[JSON]] = {}
        for table in tables.values():
            held = Counter(pair for row in table.values() for pair in _texts(row))
            for row in table.values():
                for pair in _texts(row):
                    if held[pair] == 1:
                        self.by_text.setdefault(pair, []).append(row)

    def named(self, real: JSON) -> JSON | None:
        """The one starting record ``real`` is: every text field both hold and neither side mints
        agrees, one of them a text no other record of its kind holds; ``None`` where not exactly one."""
        found = {id(row): row for pair in _texts(real) for row in self.by_text.get(pair, ())}
        agreeing = [row for row in found.values() if all(real[k] == v for k, v in _texts(row) if k in real
                                                         and isinstance(real[k], str))]  # fmt: skip
        return agreeing[0] if len(agreeing) == 1 else None


def _texts(record: JSON) -> list[tuple[str, str]]:
    """A record's text fields neither side mints (a title, a name), as (field, text)."""
    return [(k, v) for k, v in record.items() if isinstance(k, str) and _natural(k, v)]


def _natural(key: str, value: Any) -> bool:
    """A text no side makes up itself: not an id or a token (by its field's name), nor a date and
    time, which each side reads off its own clock (a record made before the sequence holds its
    server's start-up time)."""
    return isinstance(value, str) and not key.endswith(_MINTED) and not clock_stamp(value)


def matched_records(real: list[Any], synth: list[Any]) -> list[tuple[JSON, JSON]]:
    """Records of two lists that are one record, each matched once, in the real list's order: under
    the very ids the real one holds and naming it alike (a name both hold), else agreeing on every
    text field both hold and neither side mints (the ``name``, ``title`` or ``text`` of a record
    made in a setup call)."""
    out: list[tuple[JSON, JSON]] = []
    taken: set[int] = set()
    records = [a for a in real if isinstance(a, dict)]
    # first the record under the very ids the real one holds, naming it alike in a text at least (both
    # sides counted from one; its status may be what the model got wrong), then by every text
    for a in records:
        minted = [(k, v) for k, v in a.items() if _minted_leaf(k, v)]
        same = next((i for i, b in enumerate(synth) if i not in taken and isinstance(b, dict) and minted
                     and all(b.get(k) == v for k, v in minted) and _names_alike(a, b)), None)  # fmt: skip
        if same is not None:
            out.append((a, synth[same]))
            taken.add(same)
    paired = {id(a) for a, _ in out}
    for a in records:
        if id(a) in paired:
            continue
        agreeing = next(
            (i for i, b in enumerate(synth) if i not in taken and isinstance(b, dict) and _agree(a, b)), None
        )
        if agreeing is not None:
            out.append((a, synth[agreeing]))
            taken.add(agreeing)
    order = {id(a): i for i, a in enumerate(records)}
    return sorted(out, key=lambda pair: order[id(pair[0])])


def _names_alike(a: JSON, b: JSON) -> bool:
    """Whether two records hold one text that names a record alike (a title, a name)."""
    return any(a[k] == b[k] for k in _texts_both(a, b))


def _texts_both(a: JSON, b: JSON) -> list[str]:
    """The members both records hold as texts that name a record (flags and dates aside)."""
    return [k for k in a.keys() & b.keys() if isinstance(k, str) and _natural(k, a[k]) and _natural(k, b[k])]


def _agree(a: JSON, b: JSON) -> bool:
    """Whether two records agree on every text both hold that names a record (a title, a name;
    flags and dates may be what the model got wrong), holding one at least."""
    shared = _texts_both(a, b)
    return bool(shared) and all(a[k] == b[k] for k in shared)


__all__ = ["MINTED", "Aliases", "KeyPool", "StartingRecords", "identifying", "matched_records", "path_like"]
