"""The kinds of entry in the sandbox escape corpus (`test_sandbox.py`), shared by the corpus
modules under `escapes/`: a script must end as a compile error with a code, a run error whose
message contains a text (for limits, naming a line), or a completed run with a safe value."""

from __future__ import annotations

from dataclasses import dataclass

from dwf.runtime.interpreter.limits import Limits

SMALL = Limits(steps=200_000)
TINY = Limits(steps=20_000)
FAST_REGEX = Limits(regex_timeout_s=0.2)
DEFAULT = Limits()


@dataclass(frozen=True)
class Escape:
    name: str
    script: str
    expect: str  # "compile:DWFnnn", "error:<message part>", or "value:<python literal of the safe value>"
    limits: Limits = DEFAULT
    line: int | None = None  # the script line a limit error must name


def compile_error(name, script, code):
    return Escape(name, script, f"compile:{code}")


def error(name, script, message, limits=DEFAULT, line=None):
    return Escape(name, script, f"error:{message}", limits, line)


def safe_value(name, script, value, limits=DEFAULT):
    return Escape(name, script, f"value:{value!r}", limits)


MISUSE = "Misuse: "
LIMIT = "LimitExceeded: "
