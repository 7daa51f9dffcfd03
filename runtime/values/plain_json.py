"""This module defines how DWF values become plain JSON data for events, results and listeners:
`json_default` (for `json.dumps(default=...)`) and `to_plain`. Records become their fields,
sets and tuples become lists, anything else becomes its `str`."""

from __future__ import annotations

import json
from typing import Any


def json_default(value: Any) -> Any:
    """JSON for the few non-JSON values that can appear in a payload (records, sets, tuples)."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def to_plain(value: Any) -> Any:
    """`value` as plain JSON data (what a JSON round trip of it gives)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=json_default))
