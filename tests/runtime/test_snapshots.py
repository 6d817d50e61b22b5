"""Snapshots are validated whole and restored byte for byte (issue #25: a snapshot without
``store.overlay`` restored the initial state silently; ``balance 0.0`` came back as ``0``)."""

from __future__ import annotations

import json
import math

import pytest

from envfactory.errors import SnapshotError
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.testing.hostile import snapshot_tampers, tampered


def _moved(env: Environment) -> tuple[Episode, str]:
    """An episode whose account balance became a whole number held as a float (14150.0)."""
    episode = env.episode()
    episode.reset(seed=0)
    source, target = [r for r in episode.store.rows("account") if r["status"] == "active"][:2]
    amount = round(source["balance"] - math.floor(source["balance"]) + 1, 2)
    moved = episode.call_tool("transfer_funds", {"from_account_id": source["id"], "to_account_id": target["id"],
                                                 "amount": amount})  # fmt: skip
    assert moved.ok, moved.content
    assert isinstance(episode.store.get("account", source["id"])["balance"], float)
    return episode, source["id"]


@pytest.mark.parametrize("member", ["overlay", "counters"])
def test_a_snapshot_missing_a_store_member_is_refused(bundled_envs: dict[str, Environment], member: str) -> None:
    episode, _ = _moved(bundled_envs["banking"])
    snap = episode.snapshot()
    del snap["store"][member]
    victim = bundled_envs["banking"].episode()
    before = victim.snapshot()
    with pytest.raises(SnapshotError, match=rf"invalid snapshot: store\.{member}: Field required"):
        victim.restore(snap)
    assert victim.snapshot() == before


@pytest.mark.parametrize("label", ["replies missing", "log missing", "task missing", "steps missing"])
def test_a_snapshot_missing_its_transcript_is_refused(bundled_envs: dict[str, Environment], label: str) -> None:
    episode, _ = _moved(bundled_envs["banking"])
    tamper = dict(snapshot_tampers("account", "x"))[label]
    with pytest.raises(SnapshotError, match=rf"invalid snapshot: {label.split()[0]}: Field required"):
        bundled_envs["banking"].episode().restore(tampered(episode.snapshot(), tamper))


def test_restore_is_byte_exact(bundled_envs: dict[str, Environment]) -> None:
    env = bundled_envs["banking"]
    episode, account = _moved(env)
    text = json.dumps(episode.snapshot())
    again = env.episode()
    again.restore(json.loads(text))
    assert json.dumps(again.snapshot()) == text
    asked = {"account_id": account}
    assert again.call_tool("get_account", asked).content == episode.call_tool("get_account", asked).content
    assert isinstance(json.loads(again.call_tool("get_account", asked).content)["balance"], float)  # 0.0, not 0
    assert again.state_hash() == episode.state_hash()
