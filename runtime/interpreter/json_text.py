"""This module defines `json.dumps` for scripts: CPython's text for the options models use
(`indent`, `sort_keys`, `ensure_ascii`, `separators`, `default`), with dict keys that are
int, float, bool or None written as CPython writes them (`{1: "a"}` -> `{"1": "a"}`).

The value is first converted to plain data (records to objects, tuples to lists; values JSON has
no form for go to the script's `default` function, whose result is converted in turn), then
CPython's encoder writes the text. The conversion measures the text it stands for as it goes,
indentation and separators included, and stops at the string size limit; every value visited
is a step and every `default` call a call, so neither a large value nor a `default` that never
returns JSON can run unbounded. A container inside itself, or a `default` that returns what it
was given, is CPython's "Circular reference detected"."""

from __future__ import annotations

import json
import math
from typing import Any

from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.values.records import Record
from dwf.runtime.interpreter.sandbox import charge, check_string, expanded_size, int_text_work, work
from dwf.runtime.values.objects import ScriptFunction, type_name

MAX_JSON_INDENT = 64
# Deeper data cannot be written by CPython's encoder either (it recurses in C).
MAX_JSON_DEPTH = 200
_OPTIONS = ("indent", "sort_keys", "ensure_ascii", "separators", "default")
_WHAT = "value given to json.dumps"


def json_dumps(interp, args: list, kwargs: dict) -> str:
    extra = set(kwargs) - set(_OPTIONS)
    if extra:
        raise ScriptError("TypeError", f"json.dumps() got an unexpected keyword argument '{sorted(extra)[0]}'")
    if len(args) != 1:
        raise ScriptError("TypeError", f"dumps() takes 1 positional argument but {len(args)} were given" if args else
                          "dumps() missing 1 required positional argument: 'obj'")
    limits = interp.limits
    indent = kwargs.get("indent")
    if indent is not None and (not isinstance(indent, (int, str)) or isinstance(indent, bool)
                               or (indent if isinstance(indent, int) else len(indent)) > MAX_JSON_INDENT):
        # The indent repeats once per nesting level on every line: bound it like a string size.
        raise ScriptError("ValueError", f"json.dumps() indent must be an int or str of at most {MAX_JSON_INDENT}")
    separators = kwargs.get("separators")
    if separators is not None:
        if not isinstance(separators, (tuple, list)) or len(separators) != 2 or not all(isinstance(s, str) for s in separators):
            raise ScriptError("TypeError", "json.dumps() separators must be a pair of strings, e.g. (',', ':')")
        item_separator, key_separator = separators
    else:
        item_separator, key_separator = ("," if indent is not None else ", "), ": "
    indent_size = 0 if indent is None else (max(indent, 0) if isinstance(indent, int) else len(indent))
    encoder = _Converter(interp, kwargs.get("default"), limits, indent is not None, indent_size,
                         len(item_separator), len(key_separator))
    if expanded_size(args[0], limits.string_bytes) > limits.string_bytes:  # every value is a character or more
        raise encoder.too_large()
    data = encoder.convert(args[0], 0)
    options = {"indent": indent, "sort_keys": bool(kwargs.get("sort_keys", False)),
               "ensure_ascii": bool(kwargs.get("ensure_ascii", True))}
    if separators is not None:
        options["separators"] = (item_separator, key_separator)
    text = check_string(json.dumps(data, **options), limits)
    charge(limits, work(text))
    return text


class _Converter:
    """Converts one value to plain JSON data; `budget` is the text still allowed, in characters."""

    def __init__(self, interp, default: Any, limits: Limits, indented: bool, indent_size: int,
                 item_separator: int, key_separator: int):
        self.interp, self.default, self.limits = interp, default, limits
        self.indented, self.indent_size = indented, indent_size
        self.item_separator, self.key_separator = item_separator, key_separator
        self.budget = limits.string_bytes
        self.markers: set[int] = set()  # containers and `default` arguments being converted

    def too_large(self) -> FatalError:
        return FatalError("LimitExceeded", f"the {_WHAT} is larger than the {Limits.NAMES['string_bytes']} "
                          f"({self.limits.string_bytes:,}) as JSON")

    def spend(self, characters: int) -> None:
        self.budget -= characters
        if self.budget < 0:
            raise self.too_large()

    def item_cost(self, depth: int) -> int:
        """The separator, and with an indent the new line and its indentation, before an item."""
        return self.item_separator + ((1 + self.indent_size * (depth + 1)) if self.indented else 0)

    def convert(self, value: Any, depth: int) -> Any:
        charge(self.limits, 1)
        if depth > MAX_JSON_DEPTH:
            raise ScriptError("ValueError", f"the {_WHAT} is nested too deeply to be JSON")
        if isinstance(value, str):
            self.spend(len(value) + 2)
            return value
        if value is None or isinstance(value, bool):
            self.spend(5)
            return value
        if isinstance(value, int):
            self.spend(value.bit_length() // 3 + 2)
            charge(self.limits, int_text_work(value))  # decimal text of a big int: quadratic work
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ScriptError("ValueError", f"the {_WHAT} contains a non-finite float ({value}), which is not JSON")
            self.spend(24)
            return value
        if isinstance(value, (list, tuple, dict)):
            return self.container(value, depth)
        if isinstance(value, Record):
            return self.convert(value.to_json(), depth)
        return self.from_default(value, depth)

    def container(self, value: Any, depth: int) -> Any:
        marker = id(value)
        if marker in self.markers:
            raise ScriptError("ValueError", "Circular reference detected")
        self.markers.add(marker)
        closing_line = 1 + self.indent_size * depth if self.indented else 0
        self.spend(2 + len(value) * self.item_cost(depth) + closing_line)
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                out[self.key(key)] = self.convert(item, depth + 1)
        else:
            out = [self.convert(item, depth + 1) for item in value]
        self.markers.discard(marker)
        return out

    def key(self, key: Any) -> Any:
        """A key as CPython's encoder takes it: str, int, float, bool and None (it writes the
        text itself: `1` -> `"1"`, `True` -> `"true"`, `None` -> `"null"`)."""
        if isinstance(key, str):
            self.spend(len(key) + 2 + self.key_separator)
            return key
        if isinstance(key, float) and not math.isfinite(key):
            raise ScriptError("ValueError", f"the {_WHAT} has a non-finite float key ({key}), which is not JSON")
        if key is None or isinstance(key, (bool, int, float)):
            self.spend(26 + self.key_separator)
            return key
        raise ScriptError("TypeError", f"keys must be str, int, float, bool or None, not {type_name(key)}")

    def from_default(self, value: Any, depth: int) -> Any:
        if self.default is None:
            raise ScriptError("TypeError", f"Object of type {type_name(value)} is not JSON serializable")
        marker = id(value)
        if marker in self.markers:
            raise ScriptError("ValueError", "Circular reference detected")
        self.markers.add(marker)
        interp = self.interp
        if not isinstance(self.default, ScriptFunction):  # a script function counts its own call
            interp.steps += 1
            if interp.steps > interp.limits.steps:
                raise interp.step_limit()
        replacement = interp.call_sync(self.default, [value], {}, interp.caller)
        result = self.convert(replacement, depth + 1)
        self.markers.discard(marker)
        return result
