"""A tool the synthesizer cannot model still refuses a key that names nothing: BFCL's travel API
answers ``contact_customer_support(booking_id)`` only for a booking that exists (written here from
scratch)."""

from __future__ import annotations

from pathlib import Path

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import FallbackEffect
from envfactory.ir.state import Entity, StateSchema
from envfactory.runtime.environment import Environment
from envfactory.synth.effects import fallback, fallbacks_name_rows

TOOLS = [
    function("book_flight", "Book a flight.", {"travel_from": STR, "travel_to": STR}, ["travel_from", "travel_to"],
             {"booking_id": STR, "transaction_id": STR}),
    function("get_booking", "Get a booking.", {"booking_id": STR}, ["booking_id"],
             {"booking_id": STR, "travel_from": STR, "travel_to": STR}),
    function("cancel_booking", "Cancel a booking.", {"booking_id": STR}, ["booking_id"], {"cancel_status": STR}),
    function("contact_customer_support", "Contact customer support about a booking.",
             {"booking_id": STR, "message": STR}, ["booking_id", "message"], {"customer_support_message": STR}),
]  # fmt: skip


def test_a_fallback_refuses_a_key_that_names_no_row(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "trips", TOOLS)
    behaviour = spec.behaviour("contact_customer_support")
    assert isinstance(behaviour.effect, FallbackEffect) and behaviour.prior == "guess"
    assert behaviour.effect.needs == {"booking_id": "booking"}
    ep = Environment(spec).episode()
    booking = spec.initial_state["booking"][0]["booking_id"]
    assert ep.call_tool("contact_customer_support", {"booking_id": booking, "message": "hello"}).ok
    refused = ep.call_tool("contact_customer_support", {"booking_id": "BK-404", "message": "hello"})
    assert refused.error == "not_found" and "BK-404" in refused.content
    checked_tasks(spec, 5)  # the self-check passes: its probe names a booking that exists


def test_one_of_a_few_declared_words_names_no_row_though_a_key_is_named_alike(tmp_path: Path) -> None:
    """TfL: a travel-time overlay takes ``direction`` (``Average``, ``From`` or ``To``) where a line's
    route sequences are keyed by their direction; the overlay's direction qualifies it, names no route."""
    words = {"type": "string", "enum": ["Average", "From", "To"]}
    tools = [function("render_overlay", "Render a travel time overlay.", {"direction": words, "route": STR},
                      ["direction", "route"], {"overlay": STR})]  # fmt: skip
    toolset = synthesize_functions(tmp_path, "lines", tools).tools
    keyed = {"type": "string"}
    schema = StateSchema(entities=(
        Entity(name="sequence", key="direction", key_type="string", fields={"direction": keyed, "stations": keyed}),
        Entity(name="route", key="route", key_type="string", fields={"route": keyed}),
    ))  # fmt: skip
    (named,) = fallbacks_name_rows(schema, [fallback("render_overlay", "computes an overlay")], toolset)
    assert isinstance(named.effect, FallbackEffect) and named.effect.needs == {"route": "route"}


def test_an_id_names_no_row_of_an_entity_keyed_by_an_invented_id(tmp_path: Path) -> None:
    """Rudder: ``POST /campaigns/{id}/schedule`` falls back; a status record keyed by the ``_id`` the
    synthesizer invented for it is not what its ``id`` names."""
    tools = [function("schedule_campaign", "Schedule a campaign event.", {"id": STR}, ["id"], {"result": STR})]
    toolset = synthesize_functions(tmp_path, "campaigns", tools).tools
    keyed = {"type": "string"}
    schema = StateSchema(entities=(Entity(name="status", key="_id", key_type="string", fields={"_id": keyed}),))
    (named,) = fallbacks_name_rows(schema, [fallback("schedule_campaign", "no status field")], toolset)
    assert isinstance(named.effect, FallbackEffect) and named.effect.needs == {}
