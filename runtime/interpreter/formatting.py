"""This module defines how values become text outside f-strings: printf-style `%` formatting of
strings (`"%d files" % n`, `"%(name)s" % row`), and the builtins `format`, `ascii`, `hex`, `oct`
and `bin`, all with CPython 3.11's results and messages.

`%` formatting follows CPython's own parser (`PyUnicode_Format`) step by step, so the order of
its errors is CPython's too: the argument is fetched before the conversion character is judged,
a key is looked up before the flags are read. Each conversion is then rendered by CPython's `%`
on one plain value: `%s`, `%r` and `%a` render DWF's own `str()`/`repr()` of the argument (never
Python's repr of an interpreter object), and numeric conversions only ever see int, float and
bool. Widths and precisions larger than the string size limit are refused before anything is
built, the text is measured as it grows, and every conversion is a step."""

from __future__ import annotations

from typing import Any

from dwf.runtime.values.errors import ScriptError
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.interpreter.sandbox import charge, int_text_work, check_int, check_string, display, dwf_repr, format_value, limit_error, work
from dwf.runtime.values.objects import ReadOnlyMapping, type_name

# What CPython's `PyMapping_Check` accepts among DWF values, minus tuples and strings: with one
# of these on the right of `%`, `%(key)s` looks keys up in it and leftover arguments are fine.
_MAPPINGS = (dict, ReadOnlyMapping, list, range)
_FLAGS = "-+ #0"
_NUMBER_CONVERSIONS = "diu"
_INTEGER_CONVERSIONS = "oxX"
_FLOAT_CONVERSIONS = "eEfFgG"


def ascii_text(value: Any, limits: Limits) -> str:
    """`ascii(value)`: DWF's repr with every non-ASCII character escaped, as CPython does it."""
    return dwf_repr(value, limits).encode("ascii", "backslashreplace").decode("ascii")


def percent_format(template: str, values: Any, limits: Limits) -> str:
    """`template % values` for a str template."""
    return _PercentFormatter(template, values, limits).run()


class _PercentFormatter:
    """One `%` operation. `position` and `remaining` mirror CPython's `fmtpos` and `fmtcnt`;
    `argument_index`/`argument_count` its `argidx`/`arglen` (-2/-1: one argument that is not a
    tuple, used at most once)."""

    def __init__(self, template: str, values: Any, limits: Limits):
        self.template, self.limits = template, limits
        self.position, self.remaining = 0, len(template)
        self.arguments = values
        if type(values) is tuple:
            self.argument_index, self.argument_count = 0, len(values)
        else:
            self.argument_index, self.argument_count = -2, -1
        self.mapping = values if isinstance(values, _MAPPINGS) else None
        self.pieces: list[str] = []
        self.size = 0

    def run(self) -> str:
        template = self.template
        while True:
            self.remaining -= 1
            if self.remaining < 0:
                break
            if template[self.position] != "%":
                start = self.position
                end = template.find("%", start)
                end = len(template) if end < 0 else end
                self.emit(template[start:end])
                self.remaining -= end - start - 1
                self.position = end
                continue
            self.position += 1
            self.conversion()
        if self.argument_index < self.argument_count and self.mapping is None:
            raise ScriptError("TypeError", "not all arguments converted during string formatting")
        text = check_string("".join(self.pieces), self.limits)
        charge(self.limits, work(text))
        return text

    # ------------------------------------------------------------ parsing

    def read(self) -> str:
        return self.template[self.position] if self.position < len(self.template) else "\0"

    def advance(self) -> str | None:
        """The next character, or None (and nothing consumed) at the end of the template."""
        self.remaining -= 1
        if self.remaining < 0:
            return None
        char = self.read()
        self.position += 1
        return char

    def next_argument(self) -> Any:
        if self.argument_index < self.argument_count:
            index = self.argument_index
            self.argument_index += 1
            return self.arguments if self.argument_count < 0 else self.arguments[index]
        raise ScriptError("TypeError", "not enough arguments for format string")

    def conversion(self) -> None:
        char = self.read()
        if char == "%":
            self.position += 1
            self.remaining -= 1
            self.emit("%")
            return
        charge(self.limits, 1)
        if char == "(":
            self.look_up_key()
            char = ")"
        flags = ""
        while True:
            following = self.advance()
            if following is None:
                break
            char = following
            if char not in _FLAGS:
                break
            flags += char
        width, char, flags = self.number(char, flags, is_width=True)
        precision = -1
        if char == ".":
            precision = 0
            following = self.advance()
            char = following if following is not None else char
            precision, char, flags = self.number(char, flags, is_width=False, default=0)
        if self.remaining >= 0 and char in "hlL":
            following = self.advance()
            char = following if following is not None else char
        if self.remaining < 0:
            raise ScriptError("ValueError", "incomplete format")
        self.emit(self.render(char, flags, width, precision))
        if self.mapping is not None and self.argument_index < self.argument_count:
            raise ScriptError("TypeError", "not all arguments converted during string formatting")

    def look_up_key(self) -> None:
        if self.mapping is None:
            raise ScriptError("TypeError", "format requires a mapping")
        self.position += 1
        self.remaining -= 1
        start, depth = self.position, 1
        while depth > 0:
            self.remaining -= 1
            if self.remaining < 0:
                break
            char = self.read()
            depth += 1 if char == "(" else -1 if char == ")" else 0
            self.position += 1
        if self.remaining < 0 or depth > 0:
            raise ScriptError("ValueError", "incomplete format key")
        key = self.template[start:self.position - 1]
        self.arguments = self.mapping[key]  # a dict's KeyError or a list's TypeError, as in CPython
        self.argument_index, self.argument_count = -2, -1

    def number(self, char: str, flags: str, *, is_width: bool, default: int = -1) -> tuple[int, str, str]:
        """A width or precision: `*` (taken from the arguments) or digits; returns it, the
        character after it and the flags (a negative `*` width left-justifies)."""
        value = default
        if char == "*":
            argument = self.next_argument()
            if not isinstance(argument, int):
                raise ScriptError("TypeError", "* wants int")
            value = int(argument)  # a bool counts as 0 or 1
            if value < 0:
                if is_width:
                    flags, value = flags + "-", -value
                else:
                    value = 0
            following = self.advance()
            char = following if following is not None else char
        elif "0" <= char <= "9":
            value = ord(char) - ord("0")
            while True:
                following = self.advance()
                if following is None:
                    break
                char = following
                if not "0" <= char <= "9":
                    break
                value = value * 10 + ord(char) - ord("0")
                if value > self.limits.string_bytes:
                    break
        if value > self.limits.string_bytes:  # the text could not be kept: refuse before building it
            raise limit_error("string_bytes", self.limits)
        return value, char, flags

    # ------------------------------------------------------------ rendering

    def render(self, char: str, flags: str, width: int, precision: int) -> str:
        value = self.next_argument()
        spec = "%" + flags + (str(width) if width >= 0 else "") + (f".{precision}" if precision >= 0 else "")
        if char in "sra":
            text = display(value, self.limits) if char == "s" else dwf_repr(value, self.limits)
            if char == "a":
                text = text.encode("ascii", "backslashreplace").decode("ascii")
            return (spec + "s") % (text,)
        if char in _NUMBER_CONVERSIONS or char in _INTEGER_CONVERSIONS or char in _FLOAT_CONVERSIONS:
            kinds = (int,) if char in _INTEGER_CONVERSIONS else (int, float)
            if not isinstance(value, kinds):
                raise ScriptError("TypeError", _number_required(char, value))
            charge(self.limits, int_text_work(value))  # `%d` of a big int: quadratic work
            return (spec + char) % (value,)
        if char == "c":
            if (isinstance(value, str) and len(value) == 1) or isinstance(value, int):
                return (spec + "c") % (value,)
            raise ScriptError("TypeError", "%c requires int or char")
        shown = char if 31 <= ord(char) <= 126 else "?"
        raise ScriptError("ValueError", f"unsupported format character '{shown}' ({hex(ord(char))}) at index {self.position - 1}")

    def emit(self, text: str) -> None:
        self.size += len(text)
        if self.size > self.limits.string_bytes:  # a character is at least a byte
            raise limit_error("string_bytes", self.limits)
        self.pieces.append(text)


def _number_required(char: str, value: Any) -> str:
    name = type_name(value)
    if char in _INTEGER_CONVERSIONS:
        return f"%{char} format: an integer is required, not {name}"
    if char in _FLOAT_CONVERSIONS:
        return f"must be real number, not {name}"
    return f"%{char} format: a real number is required, not {name}"


# ---------------------------------------------------------------- builtins


def _exactly_one(name: str, args: list, kwargs: dict) -> Any:
    if kwargs:
        raise ScriptError("TypeError", f"{name}() takes no keyword arguments")
    if len(args) != 1:
        raise ScriptError("TypeError", f"{name}() takes exactly one argument ({len(args)} given)")
    return args[0]


def b_format(interp, args, kwargs):
    if kwargs:
        raise ScriptError("TypeError", "format() takes no keyword arguments")
    if not args:
        raise ScriptError("TypeError", "format expected at least 1 argument, got 0")
    if len(args) > 2:
        raise ScriptError("TypeError", f"format expected at most 2 arguments, got {len(args)}")
    spec = args[1] if len(args) == 2 else ""
    if not isinstance(spec, str):
        raise ScriptError("TypeError", f"format() argument 2 must be str, not {type_name(spec)}")
    return format_value(args[0], spec, interp.limits)


def b_ascii(interp, args, kwargs):
    return check_string(ascii_text(_exactly_one("ascii", args, kwargs), interp.limits), interp.limits)


def _integer_text(name: str, python):
    def impl(interp, args, kwargs):
        value = _exactly_one(name, args, kwargs)
        if not isinstance(value, int):
            raise ScriptError("TypeError", f"'{type_name(value)}' object cannot be interpreted as an integer")
        return python(check_int(value, interp.limits))  # ints stay within the bit limit: short text
    return impl


FORMATTING_BUILTINS = {
    "format": b_format, "ascii": b_ascii,
    "hex": _integer_text("hex", hex), "oct": _integer_text("oct", oct), "bin": _integer_text("bin", bin),
}
