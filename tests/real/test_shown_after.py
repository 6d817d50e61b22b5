"""A write the descriptions could not model, whose reply holds no record, read as a create from the
later lists that show what it was given; a number glued to a unit's letters (``Rp587``) worded."""

from __future__ import annotations

from tests.synth.function_lists import synthesize_tools

from envfactory.ir.effect import CreateEffect, FallbackEffect
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.environment import Environment
from envfactory.synth.chooser import choose
from envfactory.synth.proposers.shapes import template_of

TOOLS = [
    {"name": "tambah_barang", "description": "Tambah barang.",
     "inputSchema": {"type": "object", "required": ["nama", "harga"], "properties": {
         "nama": {"type": "string"}, "harga": {"type": "integer"}, "jenis": {"type": "string", "default": ""}}}},
    {"name": "list_barang", "description": "List barang.",
     "inputSchema": {"type": "object", "properties": {"jenis": {"type": "string"}}}},
]  # fmt: skip
EMPTY = "Tidak ada barang."


def _listed(held: list[tuple[str, int, str]], kind: str | None) -> str:
    rows = [f"{n} | Rp{h} | {j}" for n, h, j in held if kind is None or j == kind]
    return "--- Barang ---\n" + "\n".join(rows) if rows else EMPTY


def _trace() -> Trace:
    words = ["gula", "kopi", "teh", "beras", "sabun", "garam", "susu"]
    sequences = []
    for s in range(6):
        held: list[tuple[str, int, str]] = []
        calls = [TraceCall(tool="list_barang", arguments={}, ok=True, output=EMPTY, sequence=s)]
        for n in range(3):
            name, price, kind = words[(s + n) % len(words)], 100 + 37 * s + 11 * n, ["dapur", "mandi"][(s + n) % 2]
            held.append((name, price, kind))
            calls.append(TraceCall(tool="tambah_barang", arguments={"nama": name, "harga": price, "jenis": kind},
                                   ok=True, output=f"Barang '{name}' ditambahkan.", sequence=s))  # fmt: skip
            kinds = [None, "dapur"] if n == 1 else [None]  # a list narrowed to one kind leaves the others out
            for kind_asked in kinds:
                args = {"jenis": kind_asked} if kind_asked else {}
                calls.append(TraceCall(tool="list_barang", arguments=args, ok=True, output=_listed(held, kind_asked),
                                       sequence=s))  # fmt: skip
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    return Trace(source="t", sequences=tuple(sequences))


def test_a_write_whose_values_later_lists_show_is_learned_as_the_create_they_show(tmp_path) -> None:
    spec = synthesize_tools(tmp_path, "toko", TOOLS)
    assert isinstance(spec.behaviour("tambah_barang").effect, FallbackEffect)  # "tambah": no verb it knows
    learned = choose(spec, _trace())
    effect = learned.behaviour("tambah_barang").effect
    assert isinstance(effect, CreateEffect) and effect.entity == "barang"
    assert effect.args == {"nama": "nama", "harga": "harga", "jenis": "jenis"}
    episode = Environment(learned).episode()
    assert episode.call_tool("list_barang", {}).data == EMPTY
    assert episode.call_tool("tambah_barang", {"nama": "roti", "harga": 950, "jenis": "dapur"}).data == (
        "Barang 'roti' ditambahkan."
    )
    assert episode.call_tool("list_barang", {}).data == "--- Barang ---\nroti | Rp950 | dapur"


def test_without_lists_showing_its_values_a_write_stays_as_the_descriptions_gave_it(tmp_path) -> None:
    spec = synthesize_tools(tmp_path, "toko", TOOLS)
    blind = _trace()
    blind = blind.model_copy(update={"sequences": tuple(
        seq.model_copy(update={"calls": tuple(c.model_copy(update={"output": EMPTY}) if c.tool == "list_barang" else c
                                              for c in seq.calls)})
        for seq in blind.sequences)})  # fmt: skip
    assert isinstance(choose(spec, blind).behaviour("tambah_barang").effect, FallbackEffect)


def test_a_number_glued_to_a_units_letters_is_its_slot_but_not_inside_a_word_or_an_id() -> None:
    assert template_of("Harga: Rp587", {"harga": 587}, None) == "Harga: Rp{arg.harga}"
    assert template_of("Total USD1,250", {"total": 1250}, None) == "Total USD{arg.total:,.0f}"
    assert template_of("id todo_0587, x587y, Rp5870", {"harga": 587}, None) == "id todo_0587, x587y, Rp5870"
