"""Lists the real side answers as text, a block of lines a record: found, worded, learned."""

from __future__ import annotations

from tests.real.test_learn import _notes_spec

from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.answers import fill
from envfactory.runtime.environment import Environment
from envfactory.synth.chooser import choose
from envfactory.synth.proposers.shapes import template_of, united_lines
from envfactory.synth.textblocks import Blocks, block_of_one, blocks


def test_blocks_are_found_a_line_or_a_few_lines_a_record_between_a_head_and_a_tail() -> None:
    text = "Found 2 notes:\n- 1: Buy milk\n- 2: Call Bob\n(end)"
    assert blocks(text, [{"id": 1, "title": "Buy milk"}, {"id": 2, "title": "Call Bob"}]) == Blocks(
        "Found 2 notes:\n", ("- 1: Buy milk", "- 2: Call Bob"), "\n", "\n(end)")  # fmt: skip
    # three lines a record between blank lines, named by the id alone (the contents are alike)
    memory = "Memory:\n\n(ID: 1)\nTags: a\nSame.\n\n(ID: 4)\nTags: b\nSame.\n\n(ID: 5)\nTags: c\nSame.\n"
    found = blocks(memory, [{"id": i, "content": "Same."} for i in (1, 4, 5)])
    assert found is not None and found.text() == memory
    assert found.items[1] == "(ID: 4)\nTags: b\nSame." and found.sep == "\n\n" and found.head == "Memory:\n\n"
    # blank lines inside a block: the block runs to the next record's, never into another's words
    dash = "# Tasks\n\n### Set up\n\n**ID:** `abc-1234`\n\n\n### Write\n\n**ID:** `def-5678`\n\n\n"
    found = blocks(dash, [{"id": "abc-1234", "name": "Set up"}, {"id": "def-5678", "name": "Write"}])
    assert found is not None and found.items == ("### Set up\n\n**ID:** `abc-1234`", "### Write\n\n**ID:** `def-5678`")
    # a record's words inside another's as a longer word ("task 1" in "task 10") name no other record
    many = [{"id": i, "title": f"task {i}"} for i in range(1, 12)]
    listed = "\n".join(f"- {r['title']}" for r in many)
    assert (found := blocks(listed, many)) is not None and found.items[9] == "- task 10"
    # out of order, a record missing, one record, or no text list at all: nothing found
    two = [{"id": 1, "title": "Buy milk"}, {"id": 2, "title": "Call Bob"}]
    assert blocks("- 2: Call Bob\n- 1: Buy milk", two) is None
    assert blocks("- 1: Buy milk\n- 3: Walk", two) is None
    assert blocks("- 1: Buy milk", two[:1]) is None
    assert blocks('{"a": 1}', two) is None


def test_the_block_of_a_lists_one_record_runs_from_the_first_line_naming_it_to_the_last() -> None:
    record = {"id": 7, "title": "Buy milk", "note": "two litres"}
    assert block_of_one("Notes:\n- Buy milk (#7)\n(end)", record) == Blocks("Notes:\n", ("- Buy milk (#7)",), "\n",
                                                                                "\n(end)")  # fmt: skip
    # a few lines a record: taken to stand between blank lines, as such lists are written
    assert block_of_one("# Notes\n\n## Buy milk\nwhy: two litres\n", record) == Blocks(
        "# Notes\n\n", ("## Buy milk\nwhy: two litres",), "\n\n", "\n")  # fmt: skip
    # a blank line inside the run, or no line naming the record: no block
    assert block_of_one("Buy milk\n\ntwo litres", record) is None
    assert block_of_one("Nothing here", record) is None


def test_a_text_list_of_one_record_is_worded_as_a_list_whose_head_counts_and_totals() -> None:
    row = {"id": 7, "title": "Buy milk", "amount": 12.4}
    template = template_of("Found 1 notes, 12 in all\n\n* Buy milk (#7) 12\n--", {}, "", [row])
    assert template == {"$each": "raw", "join": "\n", "head": "Found {count} notes, {sum.amount:,.0f} in all\n\n",
                        "item": "* {item.title} (#{item.id}) {item.amount:,.0f}", "tail": "\n--"}  # fmt: skip
    rows = [row, {"id": 8, "title": "Eggs", "amount": 30}]
    assert fill(template, {}, None, rows=rows) == "Found 2 notes, 42 in all\n\n* Buy milk (#7) 12\n* Eggs (#8) 30\n--"


def test_a_text_list_is_worded_record_by_record_with_marks_by_a_field_and_its_count() -> None:
    rows = [{"id": 1, "title": "Buy milk", "done": True}, {"id": 2, "title": "Call Bob", "done": False},
            {"id": 3, "title": "Walk", "done": False}]  # fmt: skip
    real = "Found 3 notes:\n[x] 1: Buy milk\n[ ] 2: Call Bob\n[ ] 3: Walk\n(end)"
    template = template_of(real, {}, "", rows)
    assert template == {"$each": "raw", "join": "\n", "head": "Found {count} notes:\n", "tail": "\n(end)",
                        "item": {"$case": "{item.done}", "cases": {"true": "[x] {item.id}: {item.title}",
                                                                   "false": "[ ] {item.id}: {item.title}"},
                                 "value": "[ ] {item.id}: {item.title}"}}  # fmt: skip
    assert fill(template, {}, None, rows=rows[1:]) == "Found 2 notes:\n[ ] 2: Call Bob\n[ ] 3: Walk\n(end)"
    # a mark no shared value tells apart is a record's own wording: memorized, not a template
    assert isinstance(template_of("[x] 1: Buy milk\n[ ] 2: Call Bob", {}, "", rows[:2]), str)


def _listed(notes: list[tuple[int, str]]) -> str:
    return f"{len(notes)} notes\n" + "\n".join(f"* {title} (#{i})" for i, title in notes) + "\n--"


def test_a_list_answered_as_text_is_learned_and_words_records_it_never_saw() -> None:
    spec = _notes_spec()
    sequences = []
    for s in range(6):
        calls, notes = [], []
        for i in range(1, 3 + s % 3):
            title = f"note {s}-{i}"
            notes.append((i, title))
            calls.append(TraceCall(tool="add_note", arguments={"title": title}, ok=True,
                                   output=f"Created note {i}: {title}", sequence=s))  # fmt: skip
            calls.append(TraceCall(tool="list_notes", arguments={}, ok=True, output=_listed(notes), sequence=s))
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    learned = choose(spec, Trace(source="notes", sequences=tuple(sequences)))
    episode = Environment(learned).episode()
    for title in ("milk", "bread", "eggs", "tea"):
        episode.call_tool("add_note", {"title": title})
    assert episode.call_tool("list_notes", {}).data == _listed([(1, "milk"), (2, "bread"), (3, "eggs"), (4, "tea")])


def test_marks_of_a_text_list_hold_the_words_a_real_reply_held_there() -> None:
    from envfactory.real.volatile import VOLATILE
    from envfactory.synth.proposers.shapes import unmasked

    template = {"$each": "raw", "join": "\n", "head": f"Session {VOLATILE}\n", "tail": f"\nat {VOLATILE}",
                "item": f"- {{item.title}} {VOLATILE}"}  # fmt: skip
    real = "Session 9f2c11\n- milk (12:01)\n- tea (12:02)\nat 12:03"  # a word holding a digit is marked whole
    restored = unmasked(template, real)
    assert (restored["head"], restored["item"], restored["tail"]) == ("Session 9f2c11\n", "- {item.title} (12:01)",
                                                                      "\nat 12:03")  # fmt: skip


def test_lines_some_replies_hold_join_one_wording_and_fill_where_the_record_holds_them() -> None:
    wordings = ["# {out.id}: {out.title}\nstatus: {out.status}",
                "# {out.id}: {out.title}\nstatus: {out.status}\nparent: {out.parent}",
                "# {out.id}: {out.title}\nDue: {out.due}\nstatus: {out.status}"]  # fmt: skip
    united = united_lines(wordings)
    assert united == "# {out.id}: {out.title}\nDue: {out.due}\nstatus: {out.status}\nparent: {out.parent}"
    assert fill(united, {}, {"id": "s01t01", "title": "Docs", "status": "open", "parent": "s01"}) == (
        "# s01t01: Docs\nstatus: open\nparent: s01")  # fmt: skip
    # a line holding no slot could not be left out: not added; one wording, or JSON, or nothing added: None
    assert united_lines(["a {out.x}\nb", "a {out.x}\nsee also\nb"]) is None
    assert united_lines([wordings[0]]) is None and united_lines([{"a": 1}, {"a": 2}]) is None
    assert united_lines([wordings[0], wordings[0].replace("status", "state")]) is None


TREE = [{"id": "s01", "status": "in-progress", "title": "Ship v2", "description": "the release"},
        {"id": "s01t01", "status": "in-progress", "title": "Write docs", "parent": "s01"},
        {"id": "s02", "status": "pending", "title": "Fix login"},
        {"id": "s03", "status": "done", "title": "Plan", "description": "why"}]  # fmt: skip


def test_a_text_list_of_top_level_records_words_each_by_its_mark_and_the_pieces_it_has() -> None:
    """``~ s01  Ship v2 (...)`` beside ``. s02  Fix login``: the mark is the status's (a value the
    state's records share), `` (...)`` is there where a task has a description, and the list holds
    the tasks without a parent."""
    real = "~ s01  Ship v2 (...)\n. s02  Fix login\nx s03  Plan (...)"
    template = template_of({"result": real}, {}, TREE, state={"task": TREE})["result"]
    assert template["$each"] == "state.task" and template["where"] == {"parent": None}
    assert template["item"]["$parts"][0] == {"$case": "{item.status}", "value": "~",
                                             "cases": {"in-progress": "~", "pending": ".", "done": "x"}}  # fmt: skip
    grown = [*TREE, {"id": "s04", "status": "done", "title": "Ship", "description": "now"}]
    assert fill(template, {}, None, state=lambda e: grown) == real + "\nx s04  Ship (...)"
    # blocks alike but in a place no field tells (the marks of two records, nothing shared): no wording
    assert "$each" not in str(template_of({"result": "~ s01  Ship v2\n. s02  Fix login"}, {}, TREE[:1] + TREE[2:3]))


def test_the_marks_of_several_replies_are_united_in_one_wording() -> None:
    from envfactory.synth.proposers.shapes import united_cases

    one = {"$each": "state.task", "item": {"$parts": [{"$case": "{item.status}", "cases": {"pending": ".",
           "in-progress": "~"}, "value": "~"}, " {item.title}"]}}  # fmt: skip
    other = {"$each": "state.task", "item": {"$parts": [{"$case": "{item.status}", "cases": {"pending": ".",
             "cancelled": "-"}, "value": "."}, " {item.title}"]}}  # fmt: skip
    united = united_cases([one, one, other])
    assert united["item"]["$parts"][0] == {"$case": "{item.status}", "value": "~",
                                           "cases": {"pending": ".", "in-progress": "~", "cancelled": "-"}}  # fmt: skip
    assert united_cases([one, one]) is None and united_cases([one, {"other": 1}]) is None


def test_a_text_about_one_record_says_its_fields_on_labelled_lines() -> None:
    from envfactory.ir.state import Entity
    from envfactory.synth.proposers.starts import labelled_record

    task = Entity(name="task", key="id", fields={"id": {"type": "string"}, "title": {"type": "string"},
                  "status": {"type": "string", "enum": ["pending", "in-progress"]}, "points": {"type": "integer"},
                  "parent": {"type": ["string", "null"]}})  # fmt: skip
    text = "# s01t01: Write docs\nstatus: in-progress\n- Points: 3\nparent: s01\nid: s01t01\nNote: a: b"
    assert labelled_record({"result": text}, task) == {"status": "in-progress", "points": 3, "parent": "s01"}
    assert labelled_record("status: blocked\nPoints: many", task) is None  # no value its field takes
    assert labelled_record("status: pending", task) is None  # one line: no text about a record


def test_the_final_states_reads_add_the_marks_the_lists_in_between_never_showed(tmp_path) -> None:
    """The lists in between showed pending and in-progress tasks only; the final state's reads, kept
    apart (``Evidence.at_end``), showed a done one too: the wording marks it as they did."""
    from tests.real.test_candidates import _spec

    from envfactory.synth.candidates import Evidence, Pair
    from envfactory.synth.proposers.replies import reply_templates

    spec, _ = _spec(tmp_path)
    rows = [
        {"id": "s01", "status": "in-progress", "title": "Ship v2"},
        {"id": "s02", "status": "pending", "title": "Fix"},
        {"id": "s03", "status": "pending", "title": "Plan"},
    ]
    done = [rows[0], *({**r, "status": "done"} for r in rows[1:])]
    mark = {"in-progress": "~", "pending": ".", "done": "x"}

    def listed(held: list[dict[str, str]], index: int = 1) -> Pair:
        text = "\n".join(f"{mark[r['status']]} {r['id']}  {r['title']}" for r in held)
        return Pair({}, True, {"result": text}, True, held, raw=held, index=index, state={"task": held})

    between = [listed(rows), listed(rows[1:]), listed(rows)]
    plain = [c for c in reply_templates(spec, Evidence({"list_tasks": between})) if c.tool == "list_tasks"]
    late = Evidence({"list_tasks": between}, at_end={"list_tasks": [listed(done, 10_000)]})
    told = [c for c in reply_templates(spec, late) if c.tool == "list_tasks"]

    def cases(candidates: list) -> dict[str, str]:  # each status's line
        return candidates[0].behaviour.answer.template["result"]["item"]["cases"]

    assert "done" not in cases(plain) and cases(told)["done"] == "x {item.id}  {item.title}"
    worded = fill(told[0].behaviour.answer.template, {}, done, None, done)["result"]
    assert worded == "~ s01  Ship v2\nx s02  Fix\nx s03  Plan"
