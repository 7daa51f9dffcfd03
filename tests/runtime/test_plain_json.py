"""`values.plain_json`: `to_plain` gives what the JSON round trip of `dumps` gives, for the values a
run hands out (records, sets, tuples, non-string keys) and for values JSON has no form for."""

import json
import math
from pathlib import Path

from dwf.runtime.values.plain_json import dumps, to_plain
from dwf.runtime.values.records import Record


def test_to_plain_is_the_json_round_trip_of_dumps():
    value = {"record": Record("GrepMatch", path="a.py", line=3, text="x"), "set": {1}, "tuple": (1, (2, "é")),
             1: "int key", 2.5: "float key", None: "null key", "nested": [{"path": Path("p")}, {False: 0}]}
    plain = to_plain(value)
    assert plain == json.loads(dumps(value))
    assert plain["record"] == {"path": "a.py", "line": 3, "text": "x"}
    assert plain["tuple"] == [1, [2, "é"]] and plain["nested"] == [{"path": "p"}, {"false": 0}]
    assert {"1", "2.5", "null"} <= set(plain)


def test_dumps_keeps_non_ascii_and_passes_options():
    assert dumps({"b": "é", "a": (1,)}, sort_keys=True) == '{"a": [1], "b": "é"}'
    assert math.isnan(to_plain(float("nan")))
