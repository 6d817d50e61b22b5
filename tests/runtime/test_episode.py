import json
from pathlib import Path

import pytest
from tests.conftest import SPECS

from envfactory.errors import EnvFactoryError
from envfactory.ir.env import EnvSpec
from envfactory.ir.task import Goal, Task
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.smoke import smoke_episode

MALFORMED = [
    ("get_order", "{not json", "invalid_arguments", "not valid JSON"),
    ("get_order", "[1, 2]", "invalid_arguments", "must be a JSON object"),
    ("get_order", {}, "invalid_arguments", "missing required argument(s): order_id"),
    ("get_order", {"order_id": 5}, "invalid_arguments", "argument 'order_id' must be string"),
    ("get_order", {"order_id": "order_0001", "extra": 1}, "invalid_arguments", "unknown argument(s) extra"),
    ("get_order", {"order_id": "x" * 20_000}, "invalid_arguments", "shorter than or equal to 10000"),
    ("get_order", "x" * 200_000, "invalid_arguments", "the limit is 100000"),
    ("create_order", {"customer_id": "c", "product_id": "p", "quantity": 0}, "invalid_arguments", "quantity"),
    ("drop_tables", {}, "unknown_tool", "unknown tool 'drop_tables'"),
    (None, {}, "unknown_tool", "unknown tool"),
    ("get_order", {"order_id": "order_9999"}, "not_found", "order 'order_9999' not found"),
    (
        "create_order",
        {"customer_id": "nobody", "product_id": "product_0001", "quantity": 1},
        "not_found",
        "customer",
    ),
]


@pytest.mark.parametrize(("tool", "args", "code", "text"), MALFORMED)
def test_bad_calls_are_error_observations_never_exceptions(shop: Environment, tool, args, code, text) -> None:
    episode = shop.episode()
    result = episode.call_tool(tool, args)
    assert not result.ok and result.error == code
    assert text in result.data["error"]["message"]
    assert episode.state_hash() == shop.base.hash  # nothing changed


def test_create_read_update_action_flow(shop: Environment) -> None:
    ep = shop.episode()
    order = ep.call_tool(
        "create_order", {"customer_id": "customer_0001", "product_id": "product_0002", "quantity": 2}
    ).data
    assert order["id"] == "order_0013" and order["status"] == "pending"
    assert order["created_at"] == "2026-01-05T09:00:00Z"  # the simulated clock (fixed per episode)
    assert ep.call_tool("ship_order", {"order_id": order["id"]}).error == "precondition_failed"
    assert ep.call_tool("pay_order", {"order_id": order["id"]}).data["status"] == "paid"
    assert ep.call_tool("pay_order", {"order_id": order["id"]}).error == "conflict"
    assert ep.call_tool("ship_order", {"order_id": order["id"]}).data["status"] == "shipped"
    cancelled = ep.call_tool("cancel_order", {"order_id": order["id"], "reason": "late"})
    assert cancelled.data["status"] == "cancelled" and cancelled.data["reason"] == "late"
    page = ep.call_tool("list_orders", {"customer_id": "customer_0001", "limit": 50}).data
    assert order["id"] in [o["id"] for o in page["items"]] and page["total"] == len(page["items"])


def test_list_filters_and_paging(shop: Environment) -> None:
    ep = shop.episode()
    cheap = ep.call_tool("search_products", {"max_price": 300.0}).data
    assert cheap and all(p["price"] <= 300 for p in cheap)
    first = ep.call_tool("list_orders", {"limit": 5}).data["items"]
    second = ep.call_tool("list_orders", {"limit": 5, "cursor": "5"}).data["items"]
    assert len(first) == 5 and not {o["id"] for o in first} & {o["id"] for o in second}
    word = shop.spec.initial_state["product"][0]["name"].split()[0].lower()
    assert any(word in p["name"].lower() for p in ep.call_tool("search_products", {"query": word}).data)


def test_transfer_moves_money_and_refuses_overdrafts(bundled_envs: dict[str, Environment]) -> None:
    env = bundled_envs["banking"]
    ep = env.episode()
    active = [a for a in env.spec.initial_state["account"] if a["status"] == "active"]
    src, dst = active[0], active[1]
    tx = ep.call_tool(
        "transfer_funds",
        {"from_account_id": src["id"], "to_account_id": dst["id"], "amount": 10.5, "memo": "rent"},
    )
    assert tx.ok and tx.data["amount"] == 10.5 and tx.data["memo"] == "rent"
    assert ep.call_tool("get_account", {"account_id": src["id"]}).data["balance"] == round(src["balance"] - 10.5, 2)
    big = ep.call_tool("transfer_funds", {"from_account_id": src["id"], "to_account_id": dst["id"], "amount": 1e9})
    assert big.error == "precondition_failed" and "insufficient balance" in big.content
    ep.call_tool("freeze_account", {"account_id": dst["id"]})
    frozen = ep.call_tool("transfer_funds", {"from_account_id": src["id"], "to_account_id": dst["id"], "amount": 1})
    assert frozen.error == "precondition_failed" and "'frozen'" in frozen.content


def test_step_budget_ends_the_episode(shop: Environment) -> None:
    ep = shop.episode(max_steps=3)
    for _ in range(3):
        assert ep.call_tool("get_order", {"order_id": "order_0001"}).ok
    assert ep.truncated and ep.done
    assert ep.call_tool("get_order", {"order_id": "order_0001"}).error == "episode_over"


def test_verify_compares_state_and_answer(shop: Environment) -> None:
    ep = shop.episode()
    row = dict(shop.spec.initial_state["product"][0])
    goal_row = {**row, "price": 9.99}
    task = Task(
        env="shop",
        id="t1",
        instruction="Set the price to 9.99 and tell me the product name.",
        goal=Goal(rows={"product": {row["id"]: goal_row}}, answer=(row["name"],)),
    )
    ep.reset(task=task)
    assert ep.opening()[1]["content"] == task.instruction
    assert not ep.verify().success
    ep.call_tool("update_product", {"product_id": row["id"], "price": 9.99})
    verdict = ep.verify()
    assert not verdict.success and verdict.reasons == (f"the reply does not state {row['name']!r}",)
    ep.respond(f"Done: {row['name']} now costs 9.99.")
    assert ep.terminated and ep.verify().reward == 1.0
    hashed = Task(env="shop", id="t2", instruction="x", goal=Goal(state_hash=ep.state_hash()))
    ep.reset(task=hashed)
    assert "final state differs" in ep.verify().reasons[0]


def test_snapshot_restore_moves_an_episode_between_environments(shop: Environment, tmp_path: Path) -> None:
    ep = shop.episode()
    ep.call_tool("pay_order", {"order_id": "order_0001"})
    ep.call_tool("create_order", {"customer_id": "customer_0002", "product_id": "product_0003", "quantity": 1})
    snap = json.loads(json.dumps(ep.snapshot()))
    other_env = Environment(EnvSpec.load(shop.spec.save(tmp_path / "shop")))  # as in another process
    other = other_env.episode()
    other.restore(snap)
    assert other.state_hash() == ep.state_hash() and other.messages == ep.messages
    nxt = {"customer_id": "customer_0002", "product_id": "product_0003", "quantity": 1}
    assert other.call_tool("create_order", nxt).content == ep.call_tool("create_order", nxt).content
    foreign = Environment(synthesize(SPECS / "shop.yaml", seed=5)).episode()
    with pytest.raises(EnvFactoryError, match="cannot restore"):
        foreign.restore(snap)


def test_act_takes_openai_messages(shop: Environment) -> None:
    ep = shop.episode()
    calls = [
        {
            "id": "a",
            "type": "function",
            "function": {"name": "get_order", "arguments": '{"order_id": "order_0002"}'},
        },
        {"id": "b", "type": "function", "function": {"name": "get_order", "arguments": "{bad"}},
        {"id": "c", "type": "function"},
    ]
    out = ep.act({"role": "assistant", "content": None, "tool_calls": calls})
    assert [m["tool_call_id"] for m in out] == ["a", "b", "c"]
    assert '"order_0002"' in out[0]["content"] and "invalid_arguments" in out[1]["content"]
    assert "invalid_arguments" in out[2]["content"]
    assert ep.act({"role": "assistant", "content": "All set."}) == [] and ep.terminated
    roles = [m["role"] for m in ep.messages]
    assert roles[:2] == ["system", "user"] and roles[-1] == "assistant"


def test_synthesizing_twice_and_replaying_gives_identical_bytes(bundled_envs: dict[str, Environment]) -> None:
    for name, env in bundled_envs.items():
        twin = Environment(
            synthesize(SPECS / Path(env.spec.tools.tools[0].source.file or "").name, name=name, trust_code=True)
        )
        first, second = smoke_episode(env, seed=3), smoke_episode(twin, seed=3)
        assert [c[2] for c in first.calls] == [c[2] for c in second.calls], name
        assert first.state_hash == second.state_hash and first.ok >= len(first.calls) - 1, name
