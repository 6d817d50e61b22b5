from envfactory.tasks.render import show


def test_structured_values_read_as_a_person_would_write_them() -> None:
    assert show({"balance": 751, "currency": "USD"}) == "balance 751 and currency 'USD'"
    assert show({"due_date": "2026-01-05", "tags": ["a", "b"]}) == "due date '2026-01-05' and tags 'a' and 'b'"
    assert show([1, 2, 3]) == "1, 2 and 3" and show([]) == "nothing" and show(None) == "none"
    assert "{" not in show({"nested": {"x": 1}})
