"""Restoring a live server that mints ids: the replayed server's ids mapped onto those the agent
saw, or a plain refusal when its answers differ beyond ids."""

from __future__ import annotations

import sys

import pytest
from tests.conftest import FIXTURES

from envfactory.errors import SnapshotError
from envfactory.real.idmap import IdMap, looks_minted
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize

PANTRY = f"mcp+stdio:{sys.executable} {FIXTURES / 'uuid_server.py'}"
A, B = "3f2a9c1e-0d4b-4c5e-9f61-1a2b3c4d5e6f", "9c41aa07-77e2-4b1d-8e0c-aabbccddeeff"


def test_ids_are_paired_leaf_by_leaf_and_translated_both_ways() -> None:
    ids = IdMap()
    ids.learn({"item_id": A, "name": "milk", "n": 1}, {"item_id": B, "name": "milk", "n": 1})
    ids.learn(f"Removed item {A}", f"Removed item {B}")  # the same pair, in text
    assert ids.to_server == {A: B} and ids.to_agent == {B: A} and not ids.unpaired
    assert ids.server_side({"item_id": A, "path": f"/items/{A}.json"}) == {"item_id": B, "path": f"/items/{B}.json"}
    assert ids.agent_side([{"item_id": B}]) == [{"item_id": A}]
    ids.learn({"value": 0.25}, {"value": 0.75})
    ids.learn("Created 3 notes", "Created 4 notes")  # a short word that differs: not an id
    ids.learn({"id": 7}, {"id": 8})  # an integer id: paired, since its member says so
    assert ids.unpaired == ["answer.value: '0.25' against '0.75'", "answer: '3' against '4'"]
    assert ids.to_server[7] == 8
    assert looks_minted(A) and looks_minted("tok_9f8e7d") and not looks_minted("milk") and not looks_minted("12")


@pytest.fixture(scope="module")
def pantry() -> Environment:
    return Environment(synthesize(PANTRY, bind=True), trust_code=True)


def test_a_server_minting_uuids_is_restored_with_the_ids_the_agent_saw(pantry: Environment) -> None:
    episode = pantry.episode()
    milk = episode.call_tool("add_item", {"name": "milk"}).data["item_id"]
    episode.call_tool("add_item", {"name": "eggs"})
    snap, state = episode.snapshot(), episode.state_hash()
    twin = pantry.episode()
    twin.restore(snap)  # a fresh server: it minted other uuids for milk and eggs
    assert twin.state_hash() == state
    got = twin.call_tool("get_item", {"item_id": milk}).data  # the SDK answers a dict | str as {"result": ...}
    assert got["result"] == {"item_id": milk, "name": "milk"}
    assert twin.call_tool("remove_item", {"item_id": milk}).ok
    assert [i["name"] for i in twin.call_tool("list_items", {}).data["result"]] == ["eggs"]
    assert episode.call_tool("get_item", {"item_id": milk}).data["result"]["name"] == "milk"  # its own server


def test_a_server_whose_answers_differ_beyond_ids_is_plainly_not_restored(pantry: Environment) -> None:
    episode = pantry.episode()
    episode.call_tool("add_item", {"name": "tea"})
    episode.call_tool("draw_number", {})
    twin = pantry.episode()
    before = twin.state_hash()
    with pytest.raises(SnapshotError, match=r"cannot be restored: .*its answers differ beyond the ids it mints"):
        twin.restore(episode.snapshot())
    assert twin.state_hash() == before  # all or nothing
