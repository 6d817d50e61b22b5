from envfactory.tasks.render import show


def test_structured_values_read_as_a_person_would_write_them() -> None:
    assert show({"balance": 751, "currency": "USD"}) == "balance 751 and currency 'USD'"
    assert show({"due_date": "2026-01-05", "tags": ["a", "b"]}) == "due date '2026-01-05' and tags 'a' and 'b'"
    assert show([1, 2, 3]) == "1, 2 and 3" and show([]) == "nothing" and show(None) == "none"
    assert "{" not in show({"nested": {"x": 1}})


def test_only_things_people_own_are_called_mine(bundled_envs: dict) -> None:
    import random

    from envfactory.ir.blueprint import Blueprint
    from envfactory.tasks.render import Renderer

    shop, petstore = bundled_envs["shop"].spec, bundled_envs["petstore"].spec
    assert Renderer(shop, Blueprint(nodes=(), edges=()), random.Random(0))._personal("order")  # one's own order
    pets = Renderer(petstore, Blueprint(nodes=(), edges=()), random.Random(0))
    assert not pets._personal("pet")  # a shop's pet is nobody's until it is sold
    assert not pets._personal("no_such_entity")
