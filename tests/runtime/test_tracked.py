"""A bound object's tracked state: its digest follows every write, costs the path a write touched,
and equals the digest of the same state hashed from scratch; random generators follow the seed."""

from __future__ import annotations

import copy
import random
from pathlib import Path

from envfactory.runtime.environment import Environment
from envfactory.runtime.owner import owner_state
from envfactory.runtime.tracked import TrackedDict, Tracker
from envfactory.synth import synthesize


class Folder:
    def __init__(self, name: str, parent: Folder | None = None) -> None:
        self.name, self.parent = name, parent
        self.children: dict[str, Folder] = {}
        self.files: list[dict] = []


class Shop:
    def __init__(self, rows: int = 2000) -> None:
        self.orders = {f"o{i}": {"id": f"o{i}", "status": "open", "items": [{"sku": i, "qty": 1}]} for i in range(rows)}
        self.log: list[str] = []
        self.root = Folder("/")
        self.root.children["a"] = Folder("a", self.root)
        self.cwd = self.root
        self.rng = random.Random(7)
        self.tags = {"new", "sale"}  # a set: hashed again on every digest, put back by a roll back


def scratch(tracker: Tracker) -> int:
    """The digest of the same state adopted anew (no cache)."""
    return Tracker(copy.deepcopy(tracker.owner)).digest()


def test_every_write_changes_the_digest_and_matches_a_digest_from_scratch() -> None:
    shop = Tracker(Shop())
    seen = {shop.digest()}
    owner = shop.owner

    def wrote() -> None:
        now = shop.digest()
        assert now not in seen and now == scratch(shop)
        seen.add(now)

    owner.orders["o5"]["status"] = "shipped"
    wrote()
    owner.orders["o5"]["items"].append({"sku": 9, "qty": 2})
    wrote()
    fresh = {"id": "n1", "status": "open", "items": []}
    owner.orders["n1"] = fresh
    fresh["items"].append({"sku": 1, "qty": 1})  # still filling what it stored, within the call
    wrote()
    owner.orders["n1"]["status"] = "paid"  # after the call: the stored dict was adopted
    wrote()
    del owner.orders["o7"]
    wrote()
    owner.log.insert(0, "first")
    wrote()
    owner.root.children["a"].files.append({"name": "x.txt"})
    wrote()
    owner.cwd = owner.root.children["a"]
    wrote()
    owner.rng.random()  # a generator's state is state
    wrote()
    owner.orders["o5"]["status"] = "open"
    owner.orders["o5"]["items"].pop()
    owner.orders["n1"] = {"other": 1}
    wrote()


def test_one_write_hashes_only_its_path() -> None:
    shop = Tracker(Shop(rows=5000))
    shop.digest()
    shop.hashed = 0
    shop.owner.orders["o4321"]["items"][0]["qty"] = 3
    shop.digest()
    assert shop.hashed == 5  # the item, its list, its order, the orders, the owner: not 5,000 orders


def test_clones_keep_the_caches_and_are_independent() -> None:
    template = Tracker(Shop())
    start = template.digest()
    one, two = template.clone(), template.clone()
    assert one.digest() == two.digest() == start and one.hashed == 0  # nothing hashed again
    one.owner.orders["o1"]["status"] = "gone"
    assert one.digest() != start and two.digest() == start and template.digest() == start
    assert one.owner.cwd is one.owner.root and one.owner.root.children["a"].parent is one.owner.root
    assert isinstance(one.owner.orders, TrackedDict) and one.owner.orders is not template.owner.orders


def test_reseeding_makes_the_generators_follow_the_seed() -> None:
    template = Tracker(Shop())
    a, b, c = template.clone(), template.clone(), template.clone()
    a.reseed(1)
    b.reseed(1)
    c.reseed(2)
    assert a.owner.rng.random() == b.owner.rng.random() != c.owner.rng.random()
    assert a.digest() == b.digest() != c.digest()


def test_the_state_as_json_shows_no_memory_addresses() -> None:
    state = owner_state(Shop(rows=1))
    assert state["rng"].startswith("<random generator ") and " at 0x" not in str(state)
    assert owner_state(Shop(rows=1)) == state


RANDOM_CLASS = '''
import random


class Raffle:
    """Tickets with ids drawn from the object's own generator."""

    def __init__(self) -> None:
        self._random = random.Random()
        self.tickets: dict[int, dict] = {}

    def buy_ticket(self, holder: str) -> dict:
        """Buy a ticket.

        Args:
            holder: Who holds it.
        """
        ticket = {"id": self._random.randint(10000, 99999), "holder": holder}
        self.tickets[ticket["id"]] = ticket
        return ticket

    def list_tickets(self) -> list:
        """Every ticket."""
        return list(self.tickets.values())
'''


def test_a_class_holding_a_random_generator_binds_deterministically(tmp_path: Path) -> None:
    path = tmp_path / "raffle.py"
    path.write_text(RANDOM_CLASS)
    env = Environment(synthesize(path, bind=True, trust_code=True), trust_code=True)
    one, two = env.episode(), env.episode()
    assert one.state_hash() == two.state_hash()  # fresh episodes of one seed
    bought = one.call_tool("buy_ticket", {"holder": "Ann"}).content
    assert bought == two.call_tool("buy_ticket", {"holder": "Ann"}).content
    assert one.state_hash() == two.state_hash()
    other = env.episode()
    other.reset(seed=5)
    assert other.call_tool("buy_ticket", {"holder": "Ann"}).content != one.log[0][2].content
    three = env.episode()
    three.restore(env.episode().snapshot())  # at step 0
    three.restore(one.snapshot())  # after a call: replayed on a fresh, reseeded object
    assert three.state_hash() == one.state_hash()


def test_a_copy_rolls_back_to_its_source_touching_only_what_changed() -> None:
    template = Tracker(Shop())
    start = template.digest()
    state = owner_state(template.owner)
    one = template.clone()
    owner = one.owner
    owner.orders["o3"]["items"].append({"sku": 5, "qty": 1})
    owner.orders["new"] = {"id": "new", "items": []}
    owner.orders.pop("o9")
    owner.root.children["a"].files.append({"name": "y"})
    owner.cwd = owner.root.children["a"]
    owner.rng.random()
    owner.tags.add("gone")
    assert one.digest() != start and one.can_roll_back()
    changed = len(one.touched)
    one.roll_back()
    one.reseed(0)
    again = template.clone()
    again.reseed(0)
    assert changed < 12 and one.digest() == again.digest() and one.digest() == scratch(one)
    assert owner_state(one.owner) == owner_state(again.owner)
    assert one.owner.cwd is one.owner.root and "o9" in one.owner.orders and "new" not in one.owner.orders
    assert one.owner.tags == {"new", "sale"}
    assert owner_state(template.owner) == state  # the source never changed


def test_rolled_back_twice_a_copy_is_still_its_source() -> None:
    template = Tracker(Shop())
    copy_ = template.clone()
    for status in ("first", "second"):
        copy_.owner.orders["o1"]["status"] = status
        copy_.owner.orders[f"extra-{status}"] = {"id": status}
        copy_.owner.log.append(status)
        copy_.digest()
        copy_.roll_back()
        assert copy_.digest() == template.digest() == scratch(copy_)
        assert owner_state(copy_.owner) == owner_state(template.owner)


COUNTING_CLASS = '''
class Counter:
    """Counts, and remembers (on the class, outside its state) how often a call ran."""

    runs = 0

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def bump(self, name: str) -> dict:
        """Add one to a count.

        Args:
            name: Which count.
        """
        type(self).runs += 1
        self.counts[name] = self.counts.get(name, 0) + 1
        return {"name": name, "count": self.counts[name]}
'''


def test_restore_in_the_same_process_copies_the_object_instead_of_replaying(tmp_path: Path) -> None:
    path = tmp_path / "counter.py"
    path.write_text(COUNTING_CLASS)
    env = Environment(synthesize(path, bind=True, trust_code=True), trust_code=True)
    episode = env.episode()
    for name in ("a", "b", "a"):
        assert episode.call_tool("bump", {"name": name}).ok
    snap = episode.snapshot()
    cls = type(episode._ctx.owner)  # the class that counts: the tracked subclass, as type(self) says
    runs = cls.runs
    twin = env.episode()
    twin.restore(snap)
    assert cls.runs == runs  # nothing replayed
    assert twin.state_hash() == episode.state_hash()
    assert twin.call_tool("bump", {"name": "a"}).data == {"name": "a", "count": 3}
    assert episode.call_tool("bump", {"name": "b"}).data == {"name": "b", "count": 2}  # the two are apart
    other = Environment(synthesize(path, bind=True, trust_code=True), trust_code=True).episode()
    before = type(other._ctx.owner).runs
    other.restore(snap)  # another environment (as in another process) replays the calls
    assert type(other._ctx.owner).runs == before + 3
    assert other.call_tool("bump", {"name": "a"}).data == {"name": "a", "count": 3}


def test_a_set_digests_alike_whatever_order_it_was_filled_in() -> None:
    """A set's iteration order follows the process's hash seed and its insertion history; its
    digest must not (seeds 10 and 11 filled these two sets in different orders)."""
    import subprocess
    import sys

    code = (
        "import copy\nfrom envfactory.runtime.tracked import Tracker\n"
        "class Shop:\n    def __init__(self):\n        self.tags = {'new', 'sale'}\n"
        "shop = Tracker(Shop())\nassert shop.digest() == Tracker(copy.deepcopy(shop.owner)).digest()\n"
    )
    for seed in ("10", "11"):
        subprocess.run([sys.executable, "-c", code], check=True, env={**__import__("os").environ,
                                                                         "PYTHONHASHSEED": seed})  # fmt: skip
    from envfactory.runtime.behaviours import to_jsonable

    assert to_jsonable({"sale", "new"}) == to_jsonable({"new", "sale"}) == ["new", "sale"]
