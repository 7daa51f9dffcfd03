"""This module defines the JSON text the journal stores and the copies events hand to listeners:
`dumps(value)`, what `json.JSONEncoder(ensure_ascii=False).encode` gives, for less (#18), and
`plain_copy(value)`, what `json.loads(json.dumps(value))` gives.

`orjson` encodes most values (str, int, float, bool, None, lists and dicts with str keys) about
five times faster than the standard encoder. Where the two would differ, the standard encoder
decides: a value orjson refuses (ints beyond 64 bits, non-str keys, subclasses, dataclasses,
anything unsupported) and a value holding a non-finite float (orjson writes `null` for NaN,
where the journal must give NaN back on replay) are encoded by `json`, exactly as before. The
texts differ only in whitespace (orjson writes none), which every reader ignores. Reading stays
`json.loads`: orjson reads an int beyond 64 bits as a float.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

import orjson

_standard = json.JSONEncoder(ensure_ascii=False).encode
# Subclasses, dataclasses and datetimes go to the standard encoder, which treats them as before.
_OPTIONS = orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


_SCALARS = (str, int, bool, type(None))


def _nonfinite(value: Any) -> bool:
    """Whether a NaN or an infinity is anywhere in `value` (only asked when orjson wrote `null`)."""
    kind = type(value)
    if kind is float:
        return not math.isfinite(value)
    if kind is dict:
        value = value.values()
    elif kind is not list and kind is not tuple:
        return False
    for item in value:  # most items are scalars: skip them without a call
        if type(item) not in _SCALARS and _nonfinite(item):
            return True
    return False


def _encoded(value: Any) -> bytes | None:
    """orjson's UTF-8 text of `value`, or None where the standard encoder must decide."""
    try:
        data = orjson.dumps(value, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: refused (a big int, a non-str key, a subclass, ...)
        return None
    if b"null" in data and _nonfinite(value):
        return None
    return data


def plain_copy(value: Any) -> Any:
    """A copy of `value` as plain JSON data (what a listener of events gets): the value encoded
    and read back. orjson's own text holds no int beyond 64 bits and no NaN, so orjson may read
    it back exactly; anything else goes through `json` both ways."""
    data = _encoded(value)
    return orjson.loads(data) if data is not None else json.loads(json.dumps(value))


def dumps(value: Any) -> str:
    """The JSON text of `value` as the journal stores it (module docstring)."""
    if value is None:  # most errors and results of rows and events: no call
        return "null"
    data = _encoded(value)
    return data.decode("utf-8") if data is not None else _standard(value)


def dumps_flat(payload: dict) -> str:
    """`dumps` of a dict whose values are str, int (within 64 bits), bool or None: orjson's text
    as is, since such a dict holds no float to check (a lone surrogate in a string falls back)."""
    try:
        return orjson.dumps(payload).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError
        return dumps(payload)


def encoded_copies(value: Any) -> tuple[str, Callable[[], Any]]:
    """`(dumps(value), copy)` for one encoding of `value`: `copy()` gives `plain_copy(value)`
    from that text, each call a new copy (an event is encoded once for the journal and for
    every listener)."""
    data = _encoded(value)
    if data is not None:
        return data.decode("utf-8"), lambda: orjson.loads(data)
    text = _standard(value)
    return text, lambda: json.loads(json.dumps(value))


_SORTED = _OPTIONS | orjson.OPT_SORT_KEYS


def _floatless(value: Any) -> bool:
    """Whether `value` is plain JSON data without a float (orjson and `json` format floats
    differently: `1e-05` and `1e-5`), as far as it has to look."""
    kind = type(value)
    if kind is dict:
        value = value.values()
    elif kind is not list and kind is not tuple:
        return kind is not float
    for item in value:  # most items are scalars: skip them without a call
        kind = type(item)
        if kind is float or (kind not in _SCALARS and not _floatless(item)):
            return False
    return True


def canonical(value: Any, standard: Callable[[Any], str]) -> str:
    """`standard(value)` for the canonical encoder `json.JSONEncoder(sort_keys=True,
    separators=(",", ":"), ensure_ascii=False, ...)`, from orjson where the two agree (#18):
    data without floats that orjson takes (str keys, ints within 64 bits, no subclasses).
    Their strings, keys, key order and ints are the same text (tests/runtime/test_journal_codec.py
    checks every code point); anything else is `standard`'s to encode."""
    if _floatless(value):
        try:
            return orjson.dumps(value, option=_SORTED).decode("utf-8")
        except TypeError:  # orjson.JSONEncodeError: a big int, a non-str key, a subclass, ...
            pass
    return standard(value)


__all__ = ["canonical", "dumps", "dumps_flat", "encoded_copies", "plain_copy"]
