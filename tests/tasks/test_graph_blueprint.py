from pathlib import Path

from envfactory.ir.blueprint import Blueprint, Edge, Node
from envfactory.ir.env import EnvSpec
from envfactory.tasks.graph import NAME_ONLY, describe, tool_graph
from envfactory.tasks.graph_picture import (
    MIN_CONFIDENCE,
    EntityFlow,
    columns,
    draw,
    entity_flows,
    footer_lines,
    split_by_confidence,
)


def test_tool_graph_links_outputs_to_inputs(bundled_specs: dict[str, EnvSpec], tmp_path: Path) -> None:
    g = tool_graph(bundled_specs["shop"])
    assert g.nodes["cancel_order"]["write"] and not g.nodes["list_orders"]["write"]
    assert ("id", "order_id", 1.0) in g.edges["list_orders", "cancel_order"]["flows"]
    assert ("id", "customer_id", 0.9) in g.edges["list_customers", "create_order"]["flows"]
    assert ("customer_id", "customer_id", 0.8) in g.edges["list_orders", "get_customer"]["flows"]  # lookup
    assert ("id", "customer_id", 0.8) in g.edges["get_customer", "list_orders"]["flows"]  # a list filter
    assert not g.has_edge("get_customer", "ship_order")
    bank = tool_graph(bundled_specs["banking"])
    assert {a for _, a, _ in bank.edges["list_accounts", "transfer_funds"]["flows"]} == {
        "from_account_id",
        "to_account_id",
    }
    assert any(line.startswith("[write] cancel_order") for line in describe(g))
    assert draw(g, tmp_path / "g.png").stat().st_size > 10_000


def test_a_name_match_across_entities_is_a_weak_flow(bundled_specs: dict[str, EnvSpec]) -> None:
    g = tool_graph(bundled_specs["shop"])  # a product's name is no customer's name
    assert g.edges["search_products", "list_customers"]["flows"] == [("name", "name", NAME_ONLY)]
    assert NAME_ONLY < MIN_CONFIDENCE
    pets = tool_graph(bundled_specs["petstore"])  # nor is a pet's status an order's
    assert pets.edges["listPets", "listOrders"]["flows"] == [("id", "petId", 0.8), ("status", "status", NAME_ONLY)]


def test_the_picture_groups_by_entity_and_lists_weak_flows(bundled_specs: dict[str, EnvSpec]) -> None:
    g = tool_graph(bundled_specs["shop"])
    assert g.number_of_edges() == 66
    assert columns(g) == {
        "customer": ["list_customers", "get_customer"],
        "product": ["search_products", "get_product", "update_product"],
        "order": ["list_orders", "get_order", "create_order", "pay_order", "ship_order", "cancel_order",
                  "refund_order"],
    }  # fmt: skip
    flows = entity_flows(g)  # 66 tool-to-tool edges are 15 entity-to-tool flows
    assert len(flows) == 15
    assert EntityFlow("order", "get_customer", (("customer_id", "customer_id", 0.8),)) in flows
    drawn, listed = split_by_confidence(flows)
    assert len(drawn) == 14 and listed == [EntityFlow("product", "list_customers", (("name", "name", 0.3),))]
    assert listed[0].describe() == "product.name -> list_customers(name) 0.3"
    assert footer_lines(listed) == ["product.name -> list_customers(name) 0.3"]
    raw = [EntityFlow(e, t, (("raw", "raw", 0.3),)) for e, t in (("a", "listB"), ("b", "listA"), ("a", "listC"))]
    assert footer_lines(raw) == ["raw -> raw 0.3, 3 flows: from a, b into listB, listA, listC"]
    mixed = EntityFlow("e", "t", (("a", "x", 0.9), ("b", "y", 0.2)))
    assert split_by_confidence([mixed], 0.5) == ([mixed._replace(flows=(("a", "x", 0.9),))],
                                                 [mixed._replace(flows=(("b", "y", 0.2),))])  # fmt: skip


def hand_blueprint() -> Blueprint:
    return Blueprint(
        nodes=(
            Node(id="n0", kind="call", tool="list_orders", entity="order"),
            Node(id="n1", kind="filter", entity="order", field="status", op="eq", value="paid", inputs=("n0",)),
            Node(id="n2", kind="argmax", entity="order", field="quantity", inputs=("n1",)),
            Node(id="n3", kind="call", tool="ship_order", entity="order", write=True),
            Node(id="n4", kind="count", entity="order", inputs=("n1",)),
        ),
        edges=(Edge(src="n2", dst="n3", src_field="id", dst_arg="order_id"),),
        answers=("n4",),
    )


def test_blueprint_structure_and_difficulty_by_hand() -> None:
    bp = hand_blueprint()
    assert [n.id for n in bp.calls] == ["n0", "n3"] and [n.id for n in bp.writes] == ["n3"]
    assert len(bp.reasoning) == 3 and bp.depth == 4 and bp.branches == 0
    # 0.5*2 calls + 0.75*1 write + 0.75*3 reasoning + 0.25*(4-1) depth = 4.75
    assert bp.difficulty == 4.75 and bp.level == 4
    single = Blueprint(nodes=(Node(id="n0", kind="call", tool="ship_order", write=True),))
    assert single.difficulty == 1.25 and single.level == 1


def test_shape_ignores_bound_values() -> None:
    bp = hand_blueprint()
    other = bp.model_copy(update={"nodes": tuple(n.model_copy(update={"value": "shipped"}) for n in bp.nodes)})
    assert other.shape() == bp.shape()
    fewer = bp.model_copy(update={"answers": ()})
    assert fewer.shape() != bp.shape()
