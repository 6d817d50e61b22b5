"""core.from_json_text reads every text as json.loads does, with orjson where the two agree."""

from __future__ import annotations

import json

import pytest

from envfactory.core import from_json_text, to_json_text

TEXTS = [
    '{"a": 1, "b": [1.5, "x", null, true]}',
    "18446744073709551616",  # past 64 bits: orjson would read a float
    "-9223372036854775809",
    '{"id": 123456789012345678901234567890}',
    '{"note": "order 1234567890123456789 shipped"}',  # a long run inside a string: same value either way
    "9223372036854775807",  # 19 digits within 64 bits
    '"\\ud800"',  # a lone surrogate, which orjson refuses
    '"é \\u00e9 ١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧٨٩٠"',  # non-ASCII digits are no JSON number
    "[1.0, 2e3, -0.0]",
]


@pytest.mark.parametrize("text", TEXTS)
def test_reads_as_json_does(text: str) -> None:
    got, want = from_json_text(text), json.loads(text)
    assert got == want and type(got) is type(want)
    assert json.dumps(got) == json.dumps(want)  # the same integers, not floats of the same value


def test_big_integers_stay_integers() -> None:
    assert from_json_text('{"n": 18446744073709551616}')["n"] == 2**64
    assert isinstance(from_json_text("[123456789012345678901]")[0], int)


@pytest.mark.parametrize("text", ["NaN", "{", '{"a": 1,}', "[1e400]"])
def test_errors_and_oddities_are_json_s(text: str) -> None:
    try:
        want: object = json.loads(text)
    except ValueError as err:
        with pytest.raises(ValueError, match=str(err).split(":")[0]):
            from_json_text(text)
        return
    got = from_json_text(text)
    assert repr(got) == repr(want)


def test_round_trip_of_a_lone_surrogate_string() -> None:
    value = {"s": "a\ud800b", "n": 2**70}
    assert from_json_text(to_json_text(value)) == value
