"""Each reasoning-node kind, bound on real seeded data: decisive, and the gold call follows it."""

import random

import pytest

from envfactory.runtime.environment import Environment
from envfactory.tasks.instantiate import Binder, Rejected
from envfactory.tasks.render import Renderer
from envfactory.tasks.walks import Sketch
from envfactory.values import ValueMaker


def bind(env: Environment, sk: Sketch, seed: int = 0):
    return Binder(env, random.Random(seed), ValueMaker(seed), hide=0.0).bind(sk)


def orders(env: Environment) -> list[dict]:
    return env.spec.initial_state["order"]


def selection(kind: str, op: str | None = None) -> Sketch:
    sk = Sketch()
    rows = sk.add("call", tool="list_orders", entity="order")
    pick = sk.add(kind, entity="order", op=op, inputs=[rows.id])
    act = sk.add("call", tool="cancel_order", entity="order", write=True)
    sk.edges.append((pick.id, act.id, "id", "order_id"))
    return sk


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
def test_extremes_pick_a_unique_row_the_write_can_act_on(shop: Environment, kind: str) -> None:
    bound = bind(shop, selection(kind))
    node = bound.blueprint.node("n1")
    values = [o[node.field] for o in orders(shop)]
    best = max(values) if kind == "argmax" else min(values)
    assert values.count(best) == 1
    target = next(o for o in orders(shop) if o[node.field] == best)
    assert bound.gold[-1].args == {"order_id": target["id"]}
    assert target["status"] not in ("cancelled", "delivered", "refunded")  # rows cancel can act on


def test_unique_filter_singles_out_one_row(shop: Environment) -> None:
    bound = bind(shop, selection("filter", op="is"))
    node = bound.blueprint.node("n1")
    matches = [o for o in orders(shop) if o.get(node.field) == node.value]
    assert len(matches) == 1 and bound.gold[-1].args["order_id"] == matches[0]["id"]
    assert "whose" in Renderer(shop.spec, bound.blueprint, random.Random(0)).describe("n1")


def test_splitting_filter_then_count_and_sum(shop: Environment) -> None:
    sk = Sketch()
    rows = sk.add("call", tool="search_products", entity="product")
    flt = sk.add("filter", entity="product", inputs=[rows.id])
    count = sk.add("count", entity="product", inputs=[flt.id])
    total = sk.add("sum", entity="product", inputs=[flt.id])
    sk.answers += [count.id, total.id]
    sk.add("call", tool="cancel_order", entity="order", write=True, direct={"order_id": "order"})
    bound = bind(shop, sk)
    f = bound.blueprint.node(flt.id)
    subset = [p for p in shop.spec.initial_state["product"] if p[f.field] == f.value]
    assert 2 <= len(subset) < len(shop.spec.initial_state["product"])  # the filter really splits the data
    field = bound.blueprint.node(total.id).field
    assert bound.facts == [
        str(len(subset)),
        f"{round(sum(p[field] for p in subset), 2)}".rstrip("0").rstrip("."),
    ]


def test_compare_picks_the_larger_of_two(shop: Environment) -> None:
    sk = Sketch()
    rows = sk.add("call", tool="list_orders", entity="order")
    a = sk.add("filter", entity="order", op="is", inputs=[rows.id])
    b = sk.add("filter", entity="order", op="is", inputs=[rows.id])
    cmp = sk.add("compare", entity="order", inputs=[a.id, b.id])
    act = sk.add("call", tool="cancel_order", entity="order", write=True)
    sk.edges.append((cmp.id, act.id, "id", "order_id"))
    bound = bind(shop, sk)
    bp = bound.blueprint
    by_value = {o[bp.node(a.id).field]: o for o in orders(shop)}
    row_a, row_b = (
        by_value[bp.node(a.id).value],
        {o[bp.node(b.id).field]: o for o in orders(shop)}[bp.node(b.id).value],
    )
    assert row_a["id"] != row_b["id"]
    node = bp.node(cmp.id)
    winner = row_a if (row_a[node.field] > row_b[node.field]) == (node.op == "gt") else row_b
    assert bound.gold[-1].args == {"order_id": winner["id"]}


def test_lookup_follows_a_reference_to_another_entity(shop: Environment) -> None:
    sk = Sketch()
    rows = sk.add("call", tool="list_orders", entity="order")
    pick = sk.add("argmax", entity="order", inputs=[rows.id])
    look = sk.add("lookup", entity="product", field="product_id", inputs=[pick.id])
    act = sk.add("call", tool="update_product", entity="product", write=True)
    sk.edges.append((look.id, act.id, None, "product_id"))
    bound = bind(shop, sk)
    bp = bound.blueprint
    field = bp.node(pick.id).field
    top = max(orders(shop), key=lambda o: o[field])
    assert bound.gold[-1].args["product_id"] == top["product_id"]
    text = Renderer(shop.spec, bp, random.Random(1)).instruction()
    assert "the product of the order with the" in text and "product_0" not in text  # no looked-up id


def test_choose_by_rule_takes_the_branch_the_data_allows(shop: Environment) -> None:
    for seed in range(6):
        sk = Sketch()
        rows = sk.add("call", tool="list_orders", entity="order")
        pick = sk.add("argmax", entity="order", inputs=[rows.id])
        rule = sk.add("choose", entity="order", op="gt", inputs=[pick.id])
        for tool, branch in (("cancel_order", True), ("refund_order", False)):
            call = sk.add("call", tool=tool, entity="order", write=True, guard=(rule.id, branch))
            sk.edges.append((pick.id, call.id, "id", "order_id"))
        try:
            bound = bind(shop, sk, seed)
        except Rejected:
            continue
        node = bound.blueprint.node(rule.id)
        row = next(o for o in orders(shop) if o["id"] == bound.gold[-1].args["order_id"])
        taken = row[node.field] > node.value
        assert row[node.field] != node.value  # decisive
        assert bound.gold[-1].tool == ("cancel_order" if taken else "refund_order")
        text = Renderer(shop.spec, bound.blueprint, random.Random(seed)).instruction()
        assert f"is above {node.value}" in text and "otherwise" in text
        return
    pytest.fail("no seed could bind the rule")


def test_undecidable_choices_are_rejected(bundled_envs: dict[str, Environment]) -> None:
    env = bundled_envs["travel"]
    sk = Sketch()
    rows = sk.add("call", tool="list_bookings", entity="booking")
    sk.add("argmax", entity="booking", inputs=[rows.id])  # bookings have nothing ordered to compare
    with pytest.raises(Rejected, match="no field has a unique extreme"):
        bind(env, sk)
