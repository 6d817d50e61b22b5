"""Plumbing in real descriptions makes no tables: format extensions in paths, generated schema
names (Response6), operations after an id (top_up, clear); money moves by an amount."""

from __future__ import annotations

from tests.conftest import FIXTURES

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check


def test_no_tables_from_plumbing_and_a_top_up_moves_the_balance() -> None:
    spec = synthesize(FIXTURES / "wallet_plumbing.yaml")
    assert set(spec.state_schema.names) == {"wallet", "status"}  # not json, response6, top_up, clear
    kinds = {b.tool: b.effect.kind for b in spec.behaviours}
    assert kinds == {"listWallets": "list", "createWallet": "create", "getWallet": "read", "topUpWallet": "adjust",
                     "clearWallet": "fallback", "getStatus": "singleton"}  # fmt: skip
    assert self_check(spec).passed
    ep = Environment(spec).episode()
    wallet = next(iter(ep.store.rows("wallet")))
    topped = ep.call_tool("topUpWallet", {"walletId": wallet["id"], "amount": 25})
    assert topped.ok and ep.store.get("wallet", wallet["id"])["balance"] == round(wallet["balance"] + 25, 2)
    assert ep.call_tool("topUpWallet", {"walletId": "missing", "amount": 5}).error == "not_found"
    assert ep.call_tool("clearWallet", {"walletId": wallet["id"]}).error == "unsupported"  # flagged, never faked
