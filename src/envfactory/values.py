"""Realistic values for a JSON Schema, guided by the field name (Faker, explicitly seeded)."""

from __future__ import annotations

import math
import random
import re
import string
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import chain
from typing import Any

from faker import Faker

from envfactory.inflection import singular
from envfactory.ir.jsonschema import primary_type
from envfactory.patterns import FORMAT_SHAPES, linear_pattern, matching_string, sized_to_pattern
from envfactory.runtime.validation import accepts, taken_by_one
from envfactory.words import tokens

JSON = dict[str, Any]
EXAMPLE_SHARE = 0.5
_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}


_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def clock_stamp(value: Any) -> bool:
    """Whether ``value`` reads as a date and a time (``2026-12-04T23:23:35.168Z``, ``2026-12-04
    23:28:11``): what a system reads off its own clock, not what anyone wrote (a plain date is not)."""
    return isinstance(value, str) and _STAMP.match(value) is not None


def _fits(value: Any, typ: str | None) -> bool:
    """Can an example stand for a value of JSON type ``typ`` (booleans are not numbers)?"""
    if typ is None:
        return True
    kinds = _TYPES.get(typ)
    return kinds is not None and isinstance(value, kinds) and (typ == "boolean" or not isinstance(value, bool))


def _typed_members(enum: list[Any], declared: Any) -> list[Any]:
    """The enum members of the declared type: YNAB's ``flag_color`` lists ``null`` among its colours
    but is typed ``string``, which refuses it (all of them where none fits: the enum is all there is)."""
    if not isinstance(declared, (str, list)):
        return enum
    kinds = [declared] if isinstance(declared, str) else declared
    containers = {"array": list, "object": dict}

    def fits(member: Any) -> bool:
        if member is None:
            return "null" in kinds
        return any(_fits(member, k) if k not in containers else isinstance(member, containers[k]) for k in kinds)

    return [m for m in enum if fits(m)] or enum


def has_format(value: Any, schema: JSON) -> bool:
    """Whether ``value`` has the shape of the schema's date-time, date or uuid ``format`` (any other passes)."""
    shape = FORMAT_SHAPES.get(str(schema.get("format")))
    return shape is None or (isinstance(value, str) and shape.match(value) is not None)


_formatted = has_format


Maker = Callable[["ValueMaker", JSON, str, str], Any]


# objects and lists a made value may nest in full; deeper, only required members and minItems items (a
# Discord message holds a guild holding channels holding messages...: 48 MB of seeded state)
MAX_NESTING = 4
RECORD_LEAVES = 80  # past this many values in one record, nested parts hold only what they must


class ValueMaker:
    """Produces values that respect type, format, enum and bounds; names pick the flavour."""

    def __init__(self, seed: int, clock_start: str = "2026-01-05T09:00:00Z", *, brief: bool = False) -> None:
        """``brief``: values a person would type into a request (tasks): an object's required members
        and at most two optional ones, lists of one or two items; otherwise whole records (seeds)."""
        self.brief = brief
        self.depth = 0  # how many objects and lists the value being made lies inside
        self.leaves = 0  # values made since the record began (:meth:`record`)
        self.budget = math.inf  # past it, nested objects and lists are lean: a record stays a few KB
        self.fake = Faker("en_US")
        self.fake.seed_instance(seed)
        self.rng: random.Random = self.fake.random
        self.now = datetime.fromisoformat(clock_start.replace("Z", "+00:00")).astimezone(UTC)

    def record(self, budget: float = RECORD_LEAVES) -> None:
        """Begin a new record of at most about ``budget`` values: a description of deeply nested
        objects with many optional members would otherwise make records of tens of KB each."""
        self.leaves, self.budget = 0, budget

    @property
    def lean(self) -> bool:
        """Whether nested values hold only what they must (deep inside, or past the record's budget)."""
        return self.depth >= MAX_NESTING or self.leaves >= self.budget

    def reseed(self, seed: int) -> None:
        self.fake.seed_instance(seed)
        self.rng = self.fake.random

    def value(self, schema: JSON | None, name: str = "", entity: str = "") -> Any:
        schema = schema or {}
        refused = schema.get("not")
        if not isinstance(refused, dict):
            return self._value(schema, name, entity)
        rest = {k: v for k, v in schema.items() if k != "not"}  # ``lac: 1..65535, not 65534``: drawn again
        made = self._value(rest, name, entity)
        for _ in range(8):
            if not accepts(refused, made):
                break
            made = self._value(rest, name, entity)
        return made

    def _value(self, schema: JSON, name: str, entity: str) -> Any:
        self.leaves += 1
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return self.rng.choice(_typed_members(schema["enum"], schema.get("type")))
        typ = primary_type(schema)
        examples = [v for v in schema.get("examples") or ()
                    if _fits(v, typ) and _formatted(v, schema) and _within(v, schema)]  # fmt: skip
        if examples and self.rng.random() < EXAMPLE_SHARE:  # the spec's own examples, for half the values
            return self.rng.choice(examples)
        if (schema.get("anyOf") or schema.get("oneOf")) and not schema.get("properties"):
            options = [s for s in schema.get("anyOf") or schema.get("oneOf") or () if primary_type(s) != "null"]
            if not options:
                return None
            made = self.value(_with_required(options[0], schema), name, entity)
            if schema.get("anyOf") or not isinstance(schema.get("oneOf"), list):
                return made
            # ``oneOf``: a value exactly one alternative takes — an empty text fits both ``enum: [""]`` and a
            # plain string, so the next alternative is made instead (where one fits alone)
            alternatives = [a for a in schema["oneOf"] if isinstance(a, dict)]
            for option in options[1:]:
                if taken_by_one(alternatives, made):
                    break
                made = self.value(_with_required(option, schema), name, entity)
            return made
        if typ is None and tokens(name)[-1:] and tokens(name)[-1] in _COUNTED:
            typ = "integer"  # a field an answer names without a type: ``overdue_days`` counts, it says no word
        return _BY_TYPE.get(typ or "string", _string)(self, schema, name, entity)

    def date(self, span_days: int = 365) -> datetime:
        return self.now + timedelta(
            days=self.rng.randint(-span_days, span_days // 2),
            minutes=self.rng.randrange(0, 24 * 60, 15),
        )


def _with_required(option: JSON, outer: JSON) -> JSON:
    """A branch of ``anyOf`` as the value must be made: holding the members the schema around it
    requires (``required: [Title, File]`` beside branches that declare some of them)."""
    required = [r for r in outer.get("required") or () if isinstance(r, str)]
    if not required or primary_type(option) not in (None, "object"):
        return option
    props = dict(option.get("properties") or {})
    props.update({r: {"type": "string"} for r in required if r not in props})
    return {**option, "type": "object", "properties": props,
            "required": list(dict.fromkeys([*option.get("required", ()), *required]))}  # fmt: skip


_COUNTED = frozenset({"count", "days", "hours", "minutes", "seconds", "total", "quantity", "qty", "age"})


def _integer(vm: ValueMaker, schema: JSON, name: str, entity: str) -> int:
    toks = tokens(name)
    lo, hi = 1, 1000
    if toks and toks[-1] in ("rating", "stars", "score"):
        lo, hi = 1, 5
    elif toks and toks[-1] in ("age",):
        lo, hi = 1, 90
    elif toks and toks[-1] in ("year",):
        lo, hi = 1950, 2025
    elif toks and toks[-1] in (
        "quantity",
        "qty",
        "stock",
        "count",
        "copies",
        "seats",
        "capacity",
        "pages",
    ):
        lo, hi = 1, 50
    elif toks[-1:] in (("at",), ("timestamp",), ("epoch",)) and "minimum" not in schema and "maximum" not in schema:
        return int(vm.date().timestamp())  # ``voted_at: integer``: a Unix time, not a count
    lo = int(schema.get("minimum", lo))
    hi = int(schema.get("maximum", max(hi, lo)))
    if "exclusiveMinimum" in schema and isinstance(schema["exclusiveMinimum"], (int, float)):
        lo = int(schema["exclusiveMinimum"]) + 1
    if "exclusiveMaximum" in schema and isinstance(schema["exclusiveMaximum"], (int, float)):
        hi = int(schema["exclusiveMaximum"]) - 1
    step = schema.get("multipleOf")
    if isinstance(step, (int, float)) and step > 0:
        return int(_multiple(vm, lo, hi, step))
    return vm.rng.randint(lo, max(lo, hi))


def _multiple(vm: ValueMaker, lo: float, hi: float, step: float) -> float:
    """A multiple of ``step`` in ``[lo, hi]`` (``lo``'s next multiple when the range holds none)."""
    first, last = math.ceil(lo / step), math.floor(hi / step)
    drawn = vm.rng.randint(first, max(first, last))
    for k in chain(range(drawn, max(first, last) + 1)[:64], range(drawn - 1, first - 1, -1)[:64]):  # or one near it
        value = round(k * step, 10)
        if (value / step).is_integer():  # as validators test it: 183.1 / 0.1 is 1830.9999999999998
            return value
    return round(drawn * step, 10)


def _number(vm: ValueMaker, schema: JSON, name: str, entity: str) -> float:
    toks = tokens(name)
    lo, hi = 1.0, 500.0
    if toks and toks[-1] in ("balance", "funds"):
        lo, hi = 100.0, 5000.0
    elif toks and toks[-1] in ("rating", "score"):
        lo, hi = 1.0, 5.0
    elif toks and toks[-1] in ("lat", "latitude"):
        lo, hi = -80.0, 80.0
    elif toks and toks[-1] in ("lng", "lon", "longitude"):
        lo, hi = -170.0, 170.0
    above = float(schema["exclusiveMinimum"]) if _is_number(schema.get("exclusiveMinimum")) else None
    below = float(schema["exclusiveMaximum"]) if _is_number(schema.get("exclusiveMaximum")) else None
    low_said = "minimum" in schema or above is not None
    lo = float(schema.get("minimum", above if above is not None else lo))
    hi = float(schema.get("maximum", below if below is not None else max(hi, lo)))
    if not low_said and (
        lo > hi or (below is not None and lo >= hi)
    ):  # ``decayFactor < 1``, ``ratio <= 1``: below the bound, not the usual range
        lo = min(0.0, hi - 1.0)
    step = schema.get("multipleOf")
    if isinstance(step, (int, float)) and step > 0:
        return _multiple(vm, lo, hi, step)
    made = round(vm.rng.uniform(lo, hi), 2)
    if (above is not None and made <= above) or (below is not None and made >= below):
        made = (lo + hi) / 2  # strictly between exclusive bounds
    return made


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _within(value: Any, schema: JSON) -> bool:
    """Whether a number lies within the schema's bounds (an example of 42.2 for a ratio of at most 1 does not)."""
    if not _is_number(value):
        return True
    low, high = schema.get("minimum"), schema.get("maximum")
    above, below = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    return not (
        (_is_number(low) and value < low)
        or (_is_number(high) and value > high)
        or (_is_number(above) and value <= above)
        or (_is_number(below) and value >= below)
    )


def _boolean(vm: ValueMaker, schema: JSON, name: str, entity: str) -> bool:
    return vm.rng.random() < 0.5


def _array(vm: ValueMaker, schema: JSON, name: str, entity: str) -> list[Any]:
    deep = vm.lean
    lo = int(schema.get("minItems", 0 if deep else 1))
    most = schema.get("maxItems")
    if isinstance(most, int) and not isinstance(most, bool) and most < lo:
        lo = max(0, most)  # ``maxItems: 0``: a list that must stay empty
    hi = lo if deep else max(lo, min(int(schema.get("maxItems", 3)), 2 if vm.brief else 3))
    item_name = name[:-1] if name.endswith("s") else name
    vm.depth += 1
    try:
        items = [vm.value(schema.get("items"), item_name, entity) for _ in range(vm.rng.randint(lo, hi))]
    finally:
        vm.depth -= 1
    if schema.get("uniqueItems"):
        items = [x for i, x in enumerate(items) if x not in items[:i]]
    return items


def _object(vm: ValueMaker, schema: JSON, name: str, entity: str) -> JSON:
    props = schema.get("properties") or {}
    if vm.lean:  # deep inside a record, or past its budget: what must be there, or values grow exponentially
        required = set(schema.get("required") or ())
        props = {k: v for k, v in props.items() if k in required}
    elif vm.brief:
        required = set(schema.get("required") or ())
        optional = [k for k in props if k not in required]
        kept = required | set(vm.rng.sample(optional, min(2, len(optional))))
        props = {k: v for k, v in props.items() if k in kept}
    vm.depth += 1
    try:
        made = {k: vm.value(v, k, entity) for k, v in props.items()}
        least = schema.get("minProperties")
        extra = schema.get("additionalProperties")
        if isinstance(least, int) and len(made) < least:  # a pronunciation of none of its optional members: one
            for k, v in (schema.get("properties") or {}).items():
                if len(made) >= least:
                    break
                if k not in made and isinstance(v, dict):
                    made[k] = vm.value(v, k, entity)
        if isinstance(least, int) and len(made) < least and extra is not False:  # ``Tags``: at least one tag
            members = extra if isinstance(extra, dict) else {"type": "string"}
            for n in range(least - len(made)):
                made[f"{singular(name.lower()) or 'key'}_{n + 1}"] = vm.value(members, name, entity)
        return made
    finally:
        vm.depth -= 1


def _null(vm: ValueMaker, schema: JSON, name: str, entity: str) -> None:
    return None


UNITS = ("m", "km", "cm", "mm", "in", "ft", "mi", "kg", "g", "lb", "oz", "l", "ml", "gallon", "celsius", "fahrenheit")
_ADDRESSES = {"email": "email", "mail": "email", "web": "url", "website": "url"}
_WORDS: dict[str, Callable[[Faker, str], str]] = {
    "email": lambda f, e: f.email(),
    "phone": lambda f, e: f.numerify("+1-###-###-####"),
    "first": lambda f, e: f.first_name(),
    "last": lambda f, e: f.last_name(),
    "username": lambda f, e: f.user_name(),
    "city": lambda f, e: f.city(),
    "country": lambda f, e: f.country_code(),
    "street": lambda f, e: f.street_address(),
    "address": lambda f, e: f.street_address(),
    "zip": lambda f, e: f.postcode(),
    "postcode": lambda f, e: f.postcode(),
    "company": lambda f, e: f.company(),
    "url": lambda f, e: f.url(),
    "website": lambda f, e: f.url(),
    "currency": lambda f, e: f.currency_code(),
    "unit": lambda f, e: f.random_element(UNITS),
    "iban": lambda f, e: f.iban(),
    "color": lambda f, e: f.safe_color_name(),
    "isbn": lambda f, e: f.isbn13(),
    "sku": lambda f, e: f.bothify("??-####").upper(),
    "code": lambda f, e: f.bothify("??###").upper(),
    "language": lambda f, e: f.language_code(),
    "tag": lambda f, e: f.word(),
    "category": lambda f, e: f.word(),
    "genre": lambda f, e: f.random_element(("fiction", "history", "science", "poetry", "biography")),
    "species": lambda f, e: f.random_element(("dog", "cat", "rabbit", "parrot", "hamster")),
    "author": lambda f, e: f.name(),
    "title": lambda f, e: f.catch_phrase(),
    "subject": lambda f, e: f.sentence(nb_words=5).rstrip("."),
    "description": lambda f, e: f.sentence(nb_words=10),
    "body": lambda f, e: f.paragraph(nb_sentences=2),
    "content": lambda f, e: f.paragraph(nb_sentences=2),
    "text": lambda f, e: f.sentence(nb_words=12),
    "note": lambda f, e: f.sentence(nb_words=8),
    "notes": lambda f, e: f.sentence(nb_words=8),
    "message": lambda f, e: f.sentence(nb_words=8),
    "comment": lambda f, e: f.sentence(nb_words=8),
    "reason": lambda f, e: f.sentence(nb_words=6),
    "location": lambda f, e: f.city(),
    "airline": lambda f, e: f.random_element(("Skyways", "Aerolux", "Northwind Air", "BlueJet")),
    "airport": lambda f, e: f.random_element(("JFK", "LAX", "SFO", "ORD", "SEA", "BOS", "MIA", "DEN")),
    "origin": lambda f, e: f.random_element(("JFK", "LAX", "SFO", "ORD", "SEA", "BOS")),
    "destination": lambda f, e: f.random_element(("MIA", "DEN", "ATL", "LHR", "CDG", "AUS")),
}


PEOPLE = frozenset({"user", "customer", "member", "person", "employee", "contact", "passenger", "author", "owner",
                    "patient", "student", "guest", "cardholder", "holder", "traveler", "traveller", "recipient",
                    "sender", "driver", "buyer", "seller", "client"})  # fmt: skip


def _name_value(fake: Faker, entity: str) -> str:
    if entity in ("pet", "animal", "dog", "cat"):
        return fake.first_name()
    if entity in PEOPLE:
        return fake.name()
    if entity in ("product", "item", "sku"):
        return f"{fake.color_name()} {fake.word()}".title()
    if entity in ("company", "vendor", "supplier", "organization"):
        return fake.company()
    if entity in ("hotel",):
        return f"{fake.last_name()} {fake.random_element(('Inn', 'Hotel', 'Suites', 'Lodge'))}"
    return " ".join(fake.words(nb=2)).title()


# a date-time written as long as its schema's lengths allow (Telstra's timestamps: 24 characters)
_DATE_TIMES = ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.000Z", "%Y-%m-%dT%H:%M:%S+00:00", "%Y-%m-%dT%H:%M:%S.000000Z",
               "%Y-%m-%dT%H:%M:%S.000+00:00", "%Y-%m-%dT%H:%M:%S.000000+00:00")  # fmt: skip


def _date_time(vm: ValueMaker, schema: JSON) -> str:
    """A date-time, in the first of :data:`_DATE_TIMES` whose length is within ``minLength`` and
    ``maxLength`` (the first where none is)."""
    when = vm.date()
    lo, hi = schema.get("minLength"), schema.get("maxLength")
    if not isinstance(lo, int) and not isinstance(hi, int):
        return when.strftime(_DATE_TIMES[0])
    lo, hi = lo if isinstance(lo, int) else 0, hi if isinstance(hi, int) else 1_000
    written = [when.strftime(form) for form in _DATE_TIMES]
    return next((w for w in written if lo <= len(w) <= hi), written[0])


def _string(vm: ValueMaker, schema: JSON, name: str, entity: str) -> str:
    if str(schema.get("format")) == "date-time" and not isinstance(schema.get("pattern"), str):
        return _date_time(vm, schema)
    formatted = _FORMATTED.get(str(schema.get("format")))
    pattern = schema.get("pattern")
    if formatted is not None and not isinstance(pattern, str):
        return formatted(vm)
    described = _described_form(schema.get("description")) if formatted is None and pattern is None else None
    if described is not None:  # "Target date YYYY-MM-DD": what a caller would send (not a check the model makes)
        return described(vm)
    # a format's value, else one its name suggests; then, where a pattern is declared, one it matches
    text = formatted(vm) if formatted is not None else _string_by_name(vm, tokens(name), entity)
    if isinstance(pattern, str):
        check = linear_pattern(pattern)
        if check is None or not check(text):
            ending = _ENDING.fullmatch(pattern)  # ``\.(md|base)$``: a name as drawn, with one of those endings
            if ending is not None:
                return f"{_slug(text)}.{vm.rng.choice(ending.group(1).split('|'))}"
            natural = next((t for t in _clock_values(vm, pattern) if check is not None and check(t)), None)
            made = natural if natural is not None else matching_string(pattern, vm.rng)
            if made is not None and str(schema.get("format")) in ("uri", "url") and "://" not in made:
                rooted = "https://example.org/" + made.lstrip("/")  # ``.+/v[0-1]/?$`` of a URI: one with its scheme
                made = rooted if check is None or check(rooted) else made
            text = made if made is not None else text
        lo, hi = int(schema.get("minLength", 0)), schema.get("maxLength")
        if not lo <= len(text) <= (int(hi) if hi is not None else len(text)):  # ``[A-z0-9]`` of 24 characters
            text = sized_to_pattern(text, pattern, vm.rng, lo, int(hi) if hi is not None else None)
        return text
    lo, hi = int(schema.get("minLength", 0)), schema.get("maxLength")
    if hi is not None:
        text = text[: int(hi)]
    if len(text) < lo:
        text += "".join(vm.rng.choice(string.ascii_lowercase) for _ in range(lo - len(text)))
    return text


_ENDING = re.compile(r"\\\.\(?(\w+(?:\|\w+)*)\)?\$")  # a pattern stating an ending only: ``\.(md|base)$``


def _slug(text: str) -> str:
    """A text as a file name's stem: its words in small letters joined by ``-`` (``note`` where none)."""
    return "-".join(tokens(text)[:4]) or "note"


_FORMATTED: dict[str, Callable[[ValueMaker], str]] = {
    "date-time": lambda vm: vm.date().strftime(_DATE_TIMES[0]),
    "date": lambda vm: vm.date().strftime("%Y-%m-%d"),
    "time": lambda vm: _time_of_day(vm),
    "email": lambda vm: vm.fake.email(),
    "uri": lambda vm: vm.fake.url(),
    "url": lambda vm: vm.fake.url(),
    "uuid": lambda vm: str(uuid.UUID(int=vm.rng.getrandbits(128), version=4)),
    "ipv4": lambda vm: vm.fake.ipv4(),
    "ipv6": lambda vm: vm.fake.ipv6(),
    "hostname": lambda vm: vm.fake.hostname(),
    "idn-hostname": lambda vm: vm.fake.hostname(),
}


# the form a description writes a value in ("Target date YYYY-MM-DD", "month as YYYY-MM", "at HH:MM"), most
# specific first
_DESCRIBED_FORMS: tuple[tuple[re.Pattern[str], Callable[[ValueMaker], str]], ...] = (
    (re.compile(r"\bYYYY-MM-DD[T ]HH:MM:SS\b"), lambda vm: vm.date().strftime("%Y-%m-%dT%H:%M:%S")),
    (re.compile(r"\bYYYY-MM-DD[T ]HH:MM\b"), lambda vm: vm.date().strftime("%Y-%m-%dT%H:%M")),
    (re.compile(r"\bYYYY-MM-DD\b"), _FORMATTED["date"]),
    (re.compile(r"\bYYYY-MM\b"), lambda vm: vm.date().strftime("%Y-%m")),
    (re.compile(r"\bHH:MM\b"), _FORMATTED["time"]),
)


def _described_form(text: Any) -> Callable[[ValueMaker], str] | None:
    """How to make a value in the form ``text`` (a field's description) writes it in, if it writes one."""
    if not isinstance(text, str):
        return None
    return next((make for form, make in _DESCRIBED_FORMS if form.search(text)), None)


def _time_of_day(vm: ValueMaker) -> str:
    """A working hour's quarter: ``07:45``."""
    return f"{vm.rng.randint(7, 19):02d}:{vm.rng.choice((0, 15, 30, 45)):02d}"


_YEAR = re.compile(r"(?:\\d|\[0-9\])\{4\}-")


def _clock_values(vm: ValueMaker, pattern: str) -> list[str]:
    """A time of day or a date, for a pattern shaped like one (``^\\d{2}:\\d{2}$``, ``\\d{4}-...``):
    ``07:45`` rather than the ``77:87`` the pattern alone admits."""
    found: list[str] = []
    if ":" in pattern:
        hour_minute = _time_of_day(vm)
        found += [hour_minute, f"{hour_minute}:00"]
    if _YEAR.search(pattern):
        stamp = vm.date()
        found += [stamp.strftime(f) for f in ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m")]
    return found


def _string_by_name(vm: ValueMaker, toks: tuple[str, ...], entity: str) -> str:
    if not toks:
        return vm.fake.word()
    last = toks[-1]
    dated = last in ("date", "day", "deadline") or toks == ("due",)  # a task's ``due``, not an ``amount_due``
    if dated or toks[-1:] == ("at",) or last in ("time", "timestamp", "start", "end"):
        stamp = vm.date()
        return stamp.strftime("%Y-%m-%d") if dated else stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    if last == "name" and len(toks) > 1 and toks[-2] in ("first", "last", "user"):
        last = {"first": "first", "last": "last", "user": "username"}[toks[-2]]
    elif last == "name" or (toks == (entity,) and entity in PEOPLE):  # a user's ``user`` field is its name
        return _name_value(vm.fake, toks[0] if len(toks) > 1 else entity)
    if last == "token" or toks[-2:] == ("api", "key"):  # a credential looks like one
        return vm.fake.hexify("^" * 16)
    if toks[-2:] == ("card", "number"):  # a payment card's number, not a code
        return vm.fake.credit_card_number()
    if toks[0] == "id" and len(toks) > 1:  # Trello's ``idModel``: the id of a model, not a word
        return vm.fake.bothify("??-#####").upper()
    if "unit" in toks[:-1] and last in ("in", "out", "from", "to"):  # a converter's ``unit_in``
        last = "unit"
    if last == "address" and len(toks) > 1 and toks[-2] in _ADDRESSES:  # an e-mail or web address, not a street
        last = _ADDRESSES[toks[-2]]
    maker = _WORDS.get(last)
    if maker is not None:
        return maker(vm.fake, entity)
    if last in ("id", "key", "ref", "reference", "number", "no"):
        return vm.fake.bothify("??-#####").upper()
    return vm.fake.word()


_BY_TYPE: dict[str, Maker] = {
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "array": _array,
    "object": _object,
    "null": _null,
    "string": _string,
}
