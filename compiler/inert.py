"""This module defines how text from a script, an agent or a file is made inert before a screen
shows it: control characters (C0, DEL, C1), format characters (bidi overrides and isolates,
zero-width spaces and joiners, the soft hyphen, tag characters) and the line and paragraph
separators are written as visible escapes (`\\x1b`, `\\n`, `\\u202e`), so no string can move the
cursor, clear the screen, recolour or reorder what a person reads before approving.

- `escape(text)`: every such character escaped, newlines and tabs too (one-line fields).
- `flatten(text)`: tabs and line breaks become spaces (text a screen wraps), the rest escaped.
- `screen(text)`: a whole rendered screen: everything escaped except its newlines and tabs.
- `inert_tree(value, how)`: `how` applied to every string of a JSON-like value, keys included.
- `json_text(text)`: JSON text whose strings keep their values, with such characters as `\\uXXXX`.

The characters are Unicode's categories Cc, Cf, Zl and Zp (Unicode 14, as of Python 3.11).
"""

from __future__ import annotations

import re
from typing import Any, Callable

_BEYOND_C0 = ("\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
           "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
           "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
_UNSAFE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
_UNSAFE_BUT_LAYOUT = re.compile(f"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")  # all but tab and newline
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_LAYOUT = re.compile("[\t\n\r\x0b\x0c\u2028\u2029]+")


def _visible(match: re.Match) -> str:
    character = match.group()
    if character in _NAMED:
        return _NAMED[character]
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _json_escape(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters beyond the BMP
    return f"\\u{0xd800 + (code >> 10):04x}\\u{0xdc00 + (code & 0x3ff):04x}"


def escape(text: str) -> str:
    """`text` with every control, format and separator character written as a visible escape."""
    return _UNSAFE.sub(_visible, text)


def flatten(text: str) -> str:
    """`text` with its tabs and line breaks as spaces and every other unsafe character escaped:
    for fields a screen wraps into its own layout (a description), where a line break of the
    script must not start a line of the screen."""
    return _UNSAFE.sub(_visible, _LAYOUT.sub(" ", text))


def screen(text: str) -> str:
    """A rendered screen made inert: every unsafe character escaped except its newlines and tabs
    (which only move the cursor right or down: they cannot draw over what is shown)."""
    return _UNSAFE_BUT_LAYOUT.sub(_visible, text)


def inert_tree(value: Any, how: Callable[[str], str] = escape) -> Any:
    """`value` (dicts, lists, tuples and scalars) with `how` applied to each string, keys included."""
    if isinstance(value, str):
        return how(value)
    if isinstance(value, dict):
        return {inert_tree(key, how): inert_tree(item, how) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [inert_tree(item, how) for item in value]
    return value


def json_text(text: str) -> str:
    """JSON text (as `json.dumps(..., ensure_ascii=False)` writes it) with every unsafe character
    that it left raw written as a `\\uXXXX` escape: the values are the same, and a terminal or
    a page showing the text shows no control or bidi character. Raw newlines and tabs are
    outside strings (JSON escapes them inside) and stay."""
    return _UNSAFE_BUT_LAYOUT.sub(_json_escape, text)


__all__ = ["escape", "flatten", "inert_tree", "json_text", "screen"]
