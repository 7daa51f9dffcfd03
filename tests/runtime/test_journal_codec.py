"""The journal's JSON codec (runtime/journal/codec.py, issue #18): orjson where it writes what the
standard encoder would, the standard encoder everywhere else, so every value reads back as it
did before, NaN, infinities and ints beyond 64 bits included."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings, strategies as st

from dwf.runtime.journal.codec import canonical, dumps, plain_copy

standard = json.JSONEncoder(ensure_ascii=False).encode

scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63 - 5, max_value=2**70)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=4)
                      | st.dictionaries(st.integers(), inner, max_size=2), max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(values)
def test_every_value_reads_back_as_the_standard_encoder_wrote_it(value):
    text = dumps(value)
    assert standard(json.loads(text)) == standard(json.loads(standard(value)))  # the same data, NaN too
    assert standard(plain_copy(value)) == standard(json.loads(json.dumps(value)))


def test_the_cases_orjson_would_change_go_to_the_standard_encoder():
    assert dumps({"x": float("nan")}) == '{"x": NaN}'  # orjson would write null: replay would differ
    assert math.isinf(json.loads(dumps([1, {"y": float("-inf")}]))[1]["y"])
    assert json.loads(dumps(2**80)) == 2**80  # orjson refuses ints beyond 64 bits
    assert dumps({1: "a"}) == '{"1": "a"}'  # non-str keys: as json does
    assert plain_copy({"big": 2**80, "nan": [float("nan")]})["big"] == 2**80
    assert dumps({"a": [1, None], "s": "é"}) == '{"a":[1,null],"s":"é"}'  # orjson: compact, UTF-8 as is


def test_values_json_cannot_encode_still_fail_the_same_way():
    class Custom:
        pass

    for value in ({"x": Custom()}, {"x": {1, 2}}):
        try:
            dumps(value)
        except TypeError as error:
            assert "not JSON serializable" in str(error)
        else:
            raise AssertionError(f"{value!r} was encoded")


lenient = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode


@settings(max_examples=400, deadline=None)
@given(values | st.dictionaries(st.text(), values, max_size=6))
def test_the_canonical_text_an_input_hash_hashes_is_the_standard_one(value):
    # journals written before store hashes of the standard encoder's text: orjson may only take
    # over where it writes exactly that text
    try:
        expected = lenient(value)
    except (TypeError, ValueError) as error:  # keys json cannot sort: it must still fail the same way
        try:
            canonical(value, lenient)
        except type(error):
            return
        raise AssertionError("canonical() encoded what json refuses")
    assert canonical(value, lenient) == expected


def test_orjson_writes_every_code_point_and_key_order_as_the_canonical_encoder():
    chars = [chr(point) for point in range(0x110000) if not 0xD800 <= point <= 0xDFFF]
    text = "".join(chars)
    assert canonical([text], lenient) == lenient([text])
    keys = {char: 0 for char in chars[:5000] + chars[-5000:]}
    assert canonical(keys, lenient) == lenient(keys)
    assert canonical({"n": 1e-05, "m": 2**64 - 1, "o": [object]}, lenient) == lenient({"n": 1e-05, "m": 2**64 - 1, "o": [object]})
