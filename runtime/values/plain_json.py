"""This module defines `to_plain`, the one conversion of what a run hands out (event payloads, run
results, snippet values, tool results) into plain JSON data, and `dumps`, JSON text through it.

Plain JSON data is what `json.loads` returns: dicts with string keys, lists, strings, numbers,
booleans and None. A value with a `to_json()` method (a record, a usage count, a run result)
becomes what that method returns; sets and tuples become lists; anything else becomes its
`str()`, so an unexpected value never makes a progress line or a tool result fail. Dict keys
are turned into strings as `json.dumps` turns them, so `to_plain(v) == json.loads(dumps(v))`.

`to_plain` is also the `default=` hook of `json.dumps`, which calls it only for values JSON has
no encoding for: `dumps` costs nothing extra on data that is already plain.
"""

from __future__ import annotations

import json
from typing import Any

_NATIVE = (str, int, float, bool, type(None))


def to_plain(value: Any) -> Any:
    """to_plain(value): `value` as plain JSON data (see the module docstring)."""
    if isinstance(value, _NATIVE):
        return value
    if isinstance(value, dict):
        return {_plain_key(key): to_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_plain(item) for item in value]
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_plain(to_json())
    return str(value)


def dumps(value: Any, **options: Any) -> str:
    """dumps(value, **options): `json.dumps` of `value` as `to_plain` sees it, non-ASCII kept as is."""
    return json.dumps(value, ensure_ascii=False, default=to_plain, **options)


def _plain_key(key: Any) -> str:
    """A dict key as `json.dumps` writes it (it accepts these key types and no others)."""
    if isinstance(key, str):
        return key
    if isinstance(key, (bool, type(None), int, float)):
        return json.dumps(key)
    return str(key)
