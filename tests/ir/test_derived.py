"""Derived fields: a text a record composes from its other fields, inferred from records and rendered."""

from __future__ import annotations

from envfactory.ir.derived import Derivation, Piece, derive, infer, sort_lists

TODOS = [
    {"id": "u1", "text": "Buy milk", "priority": "A", "created": "2026-12-02", "projects": ["home"],
     "contexts": ["shop"], "line": "(A) 2026-12-02 Buy milk +home @shop"},
    {"id": "u2", "text": "Email the landlord", "priority": "B", "created": "2026-12-02", "projects": ["home", "x"],
     "contexts": [], "line": "(B) 2026-12-02 Email the landlord +home +x"},
    {"id": "u3", "text": "Review the budget", "priority": None, "created": "2026-12-01", "projects": [],
     "contexts": ["desk"], "line": "2026-12-01 Review the budget @desk"},
]  # fmt: skip


def test_a_line_of_fields_is_inferred_with_the_words_around_each_and_empty_pieces_left_out() -> None:
    made = infer(TODOS, "line")
    assert made == Derivation(pieces=(
        Piece(field="priority", before="(", after=")"), Piece(field="created"), Piece(field="text"),
        Piece(field="projects", before="+"), Piece(field="contexts", before="@")), separator=" ")  # fmt: skip
    # rendered for a record none of the evidence held: no priority, two contexts
    row = {"text": "Call mum", "priority": None, "created": "2026-12-03", "projects": [], "contexts": ["a", "b"]}
    assert made.render(row) == "2026-12-03 Call mum @a @b"


def test_other_separators_and_words_inside_a_gap() -> None:
    people = [
        {"name": "Ada Lovelace", "email": "ada@x.org", "org": "Analytical",
         "label": "Ada Lovelace <ada@x.org>, of Analytical"},
        {"name": "Alan Turing", "email": "alan@y.org", "org": "NPL", "label": "Alan Turing <alan@y.org>, of NPL"},
    ]  # fmt: skip
    made = infer(people, "label")
    assert made is not None
    assert made.render({"name": "Grace", "email": "g@z.org", "org": "Navy"}) == "Grace <g@z.org>, of Navy"
    rows = [{"name": "Ada Lovelace", "org": "Analytical", "csv": "Ada Lovelace,Analytical"},
            {"name": "Alan Turing", "org": "NPL", "csv": "Alan Turing,NPL"}]  # fmt: skip
    made = infer(rows, "csv")
    assert made is not None and made.separator == "," and made.render({"name": "Grace", "org": ""}) == "Grace"


def test_nothing_is_inferred_where_a_record_disagrees_or_the_values_never_differ() -> None:
    odd = [*TODOS[:2], {**TODOS[2], "line": "Review the budget (due 2026-12-01)"}]
    assert infer(odd, "line") is None
    same = [{"a": "x", "b": "x y", "c": "y"}, {"a": "z", "b": "x y", "c": "w"}]
    assert infer(same, "b") is None  # one value throughout: a constant, not a composition
    assert infer(TODOS[:1], "line") is None  # one record shows nothing


def test_derive_renders_into_a_fresh_row_and_copies_a_held_one() -> None:
    made = infer(TODOS, "line")
    assert made is not None
    held = {**TODOS[0], "priority": "C"}
    copied = derive(held, {"line": made})
    assert copied is not held and copied["line"].startswith("(C) ") and held["line"].startswith("(A) ")
    fresh = dict(held)
    assert derive(fresh, {"line": made}, in_place=True) is fresh and fresh["line"].startswith("(C) ")
    assert derive(TODOS[0], {"line": made}) is TODOS[0]  # already so: the same object


def test_lists_kept_sorted_are_sorted_into_a_copy_or_in_place() -> None:
    row = {"id": "u4", "projects": ["raise", "every"], "contexts": ["b", "a"], "n": 3}
    made = sort_lists(row, ("projects", "n", "missing"))
    assert made == {**row, "projects": ["every", "raise"]} and row["projects"] == ["raise", "every"]
    assert sort_lists(made, ("projects",)) is made  # already sorted: the same object
    assert sort_lists(row, ("projects",), in_place=True) is row and row["projects"] == ["every", "raise"]
