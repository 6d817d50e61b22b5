"""The state schema: entities (tables) with a primary key, typed fields and references."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from envfactory.ir.derived import Derivation
from envfactory.ir.rollup import Rollup

JSON = dict[str, Any]
# A one-record entity (settings, a device, a session, a shell's current folder) keeps its record
# under this hidden key field and key value; it is answered without them.
SINGLETON_KEY, SINGLETON_ROW = "_id", "self"


def names_key(member: str, entity: str, key: str) -> bool:
    """``order_id`` (or ``orderId``) for an order keyed by ``id``: its key, under the name other
    answers give it."""
    return key == "id" and member.replace("_", "").lower() == f"{entity}id".replace("_", "").lower()


class Entity(BaseModel):
    """One kind of record the tools read and write (a table of rows keyed by ``key``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    key: str = "id"
    key_type: Literal["integer", "string"] = "string"
    key_prefix: str = ""
    key_schema: JSON = Field(default_factory=dict)  # format / pattern / length the API's ids must have
    fields: dict[str, JSON] = Field(default_factory=dict)  # field name -> JSON Schema
    required: tuple[str, ...] = ()
    refs: dict[str, str] = Field(default_factory=dict)  # field name -> referenced entity
    sources: tuple[str, ...] = ()  # the tools this entity was inferred from
    derived: dict[str, Derivation] = Field(default_factory=dict)  # field name -> how a record composes it
    sorted: tuple[str, ...] = ()  # list fields a record keeps in sorted order, whatever order they were given in
    hidden: tuple[str, ...] = ()  # fields a record holds that no reply shows (a key kept apart from its number)
    # a field whose value names a record as its key does, where a key argument says it takes either ("The ID
    # or name of the container", ``id_or_name``): a value no key matches names the latest record holding it
    named_by: str | None = None
    # integer keys minted one past the highest key held (SQLite's rowid, ``max(ids) + 1``): the key of a
    # deleted last record is minted again, where a counter never gives one key twice
    keys_after_highest: bool = False
    # a field a record takes from the records under it (a parent task's status from its subtasks'), kept
    # so by the store whenever a record under it is written or deleted
    rollup: Rollup | None = None

    @classmethod
    def singleton(cls, name: str, fields: dict[str, JSON], *, required: tuple[str, ...] = (SINGLETON_KEY,),
                  sources: tuple[str, ...] = ()) -> Entity:  # fmt: skip
        """A one-record entity: its record lives under ``SINGLETON_KEY`` = ``SINGLETON_ROW``."""
        return cls(name=name, key=SINGLETON_KEY, key_prefix=name, fields={SINGLETON_KEY: {"type": "string"}, **fields},
                   required=required, sources=sources)  # fmt: skip

    def format_key(self, n: int) -> int | str:
        """The n-th generated key (1-based): ``7``, ``"ord_0007"``, or — when the API's ids have a
        format or pattern — a value of that shape derived from the entity and ``n``."""
        if self.key_type == "integer":
            return n
        plain = f"{self.key_prefix}_{n:04d}"
        if not self.key_schema:
            return plain
        from envfactory.keys import shaped_key

        return shaped_key(self.name, n, self.key_schema, plain)


class Relation(BaseModel):
    model_config = ConfigDict(frozen=True)

    entity: str
    field: str
    target: str


class StateSchema(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    entities: tuple[Entity, ...] = ()

    def __getitem__(self, name: str) -> Entity:
        for entity in self.entities:
            if entity.name == name:
                return entity
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return any(e.name == name for e in self.entities)

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entities]

    @property
    def relations(self) -> list[Relation]:
        return [Relation(entity=e.name, field=f, target=t) for e in self.entities for f, t in e.refs.items()]
