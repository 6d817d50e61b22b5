import json

from envfactory.ir.state import Entity, StateSchema
from envfactory.runtime.store import BaseState, Store, row_digest

SCHEMA = StateSchema(entities=(Entity(name="item", key="id", key_type="integer"),))
ROWS = {"item": [{"id": i, "v": i * 10} for i in range(1, 6)]}


def full_hash(state: dict[str, list[dict]]) -> str:
    total = sum(row_digest(e, r["id"], r) for e, rows in state.items() for r in rows)
    return f"{total % (1 << 128):032x}"


def test_writes_go_to_the_overlay_and_never_touch_the_shared_base() -> None:
    base = BaseState(SCHEMA, ROWS)
    a, b = Store(base), Store(base)
    a.put("item", 1, {"id": 1, "v": 99})
    a.delete("item", 2)
    a.put("item", 6, {"id": 6, "v": 60})
    assert [r["id"] for r in a.rows("item")] == [1, 3, 4, 5, 6]
    assert a.get("item", 1)["v"] == 99 and a.get("item", 2) is None
    assert b.get("item", 1)["v"] == 10 and b.count("item") == 5
    assert base.tables["item"][1]["v"] == 10


def test_incremental_hash_equals_hashing_everything() -> None:
    base = BaseState(SCHEMA, ROWS)
    store = Store(base)
    assert store.hash() == base.hash == full_hash(ROWS)
    store.put("item", 3, {"id": 3, "v": -1})
    store.delete("item", 4)
    store.put("item", 7, {"id": 7, "v": 70})
    assert store.hash() == full_hash(store.materialize())
    store.put("item", 3, {"id": 3, "v": 30})  # back to the original row
    store.delete("item", 7)
    store.put("item", 4, {"id": 4, "v": 40})
    assert store.hash() == base.hash


def test_hash_ignores_key_order_within_rows() -> None:
    assert row_digest("e", 1, {"a": 1, "b": 2}) == row_digest("e", 1, {"b": 2, "a": 1})
    assert row_digest("e", 1, {"a": 1}) != row_digest("e", 2, {"a": 1})


def test_snapshot_is_json_and_restores_exactly() -> None:
    base = BaseState(SCHEMA, ROWS)
    store = Store(base)
    store.put("item", 1, {"id": 1, "v": 5})
    store.delete("item", 5)
    store.next_key("item", lambda n: n)
    snap = json.loads(json.dumps(store.snapshot()))
    other = Store(base)
    other.restore(snap)
    assert other.hash() == store.hash() and other.materialize() == store.materialize()
    assert other.next_key("item", lambda n: n) == 7


def test_new_keys_continue_after_the_largest_existing_one() -> None:
    base = BaseState(
        StateSchema(entities=(Entity(name="o", key="id", key_prefix="order"),)),
        {"o": [{"id": "order_0009"}, {"id": "order_0002"}]},
    )
    store = Store(base)
    assert store.next_key("o", lambda n: f"order_{n:04d}") == "order_0010"


def test_the_row_list_is_the_rows_in_their_order() -> None:
    schema = StateSchema(entities=(Entity(name="t", key="id", key_type="integer"),))
    store = Store(BaseState(schema, {"t": [{"id": i, "v": i} for i in range(1, 6)]}))
    assert store.row_list("t") == list(store.rows("t"))
    store.put("t", 2, {"id": 2, "v": 20})
    store.delete("t", 4)
    store.put("t", 9, {"id": 9, "v": 9})
    store.delete("t", 9)
    store.put("t", 7, {"id": 7, "v": 7})
    assert store.row_list("t") == list(store.rows("t")) == [{"id": 1, "v": 1}, {"id": 2, "v": 20}, {"id": 3, "v": 3},
                                                             {"id": 5, "v": 5}, {"id": 7, "v": 7}]  # fmt: skip


def test_the_kept_row_list_follows_every_write() -> None:
    schema = StateSchema(entities=(Entity(name="t", key="id", key_type="integer"), Entity(name="u", key="id")))
    store = Store(BaseState(schema, {"t": [{"id": 1}, {"id": 2}], "u": [{"id": "a"}]}))
    first = store.row_list("u")
    for step in range(6):
        if step % 3 == 0:
            store.put("t", 10 + step, {"id": 10 + step})
        elif step % 3 == 1:
            store.delete("t", 1 + step % 2)
        else:
            store.put("t", 2, {"id": 2, "again": step})
        assert store.row_list("t") == list(store.rows("t"))
        assert store.row_list("t") is store.row_list("t")  # kept until the next write
    assert store.row_list("u") is first == [{"id": "a"}]  # another entity's writes leave its list alone
