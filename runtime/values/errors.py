"""This module defines the runtime's error tree.

Two families, kept apart on purpose:

- `ScriptError` is an exception *value* of the script (`ValueError`, `AskFailed`, `WorldError`,
  ...): `try/except` in the script can catch it, `parallel` turns a failed item into `None`.
- `FatalError` ends the run: misuse detected at run time, resource limits, step limits, replay
  mismatches. `except` clauses never catch it and `parallel` never swallows it.

Both carry a DWF-level traceback (site IDs and source spans of the script frames), never
interpreter frames.
"""

from __future__ import annotations

from dataclasses import dataclass

# The script-visible exception hierarchy, as CPython's: name -> base name. `OSError` is there
# only as `TimeoutError`'s base (scripts make no OS calls and cannot name it), `JSONDecodeError`
# is `json.JSONDecodeError`; the rest are builtins (`grammar/builtins.py` EXCEPTION_TYPES).
SCRIPT_EXCEPTION_PARENTS: dict[str, str | None] = {
    "BaseException": None,
    "Exception": "BaseException",
    "ArithmeticError": "Exception",
    "ZeroDivisionError": "ArithmeticError",
    "OverflowError": "ArithmeticError",
    "AssertionError": "Exception",
    "AttributeError": "Exception",
    "LookupError": "Exception",
    "KeyError": "LookupError",
    "IndexError": "LookupError",
    "NameError": "Exception",
    "UnboundLocalError": "NameError",
    "OSError": "Exception",
    "TimeoutError": "OSError",
    "RuntimeError": "Exception",
    "NotImplementedError": "RuntimeError",
    "RecursionError": "RuntimeError",
    "StopIteration": "Exception",
    "TypeError": "Exception",
    "ValueError": "Exception",
    "JSONDecodeError": "ValueError",
    "WorkflowError": "Exception",
    "AskFailed": "WorkflowError",
    "WorldError": "WorkflowError",
    "ArtifactError": "WorkflowError",
    "BudgetExceeded": "WorkflowError",
    "re.error": "Exception",  # a bad pattern or template; scripts name it `re.error`
    "StatisticsError": "ValueError",  # raised by `statistics` on bad data
}


def builtin_lineage(name: str) -> tuple[str, ...]:
    """A builtin exception type's name and its bases' names, nearest first (its MRO)."""
    lineage: list[str] = []
    current: str | None = name
    while current is not None:
        lineage.append(current)
        current = SCRIPT_EXCEPTION_PARENTS.get(current, "Exception")  # an unknown name: an Exception
    return tuple(lineage)


def is_subclass(name: str, parent: str) -> bool:
    return parent in builtin_lineage(name)


MAX_FRAMES = 1000  # traceback lines kept per error


@dataclass
class TraceFrame:
    """One line of a DWF traceback: where in the script, and in which helper or site."""

    line: int
    column: int
    where: str  # "<script>", "review()", or a site such as "ask#3"

    def render(self, source_lines: list[str] | None = None) -> str:
        text = f'  line {self.line}, col {self.column}, in {self.where}'
        if source_lines and 0 < self.line <= len(source_lines):
            text += "\n    " + source_lines[self.line - 1].strip()
        return text


class DwfError(Exception):
    """Base of everything the runtime raises on purpose."""

    def __init__(self, message: str, *, frames: list[TraceFrame] | None = None):
        super().__init__(message)
        self.message = message
        self.frames: list[TraceFrame] = frames or []

    def add_frame(self, frame: TraceFrame) -> None:
        # At most MAX_FRAMES, innermost first: an exception re-raised in a loop cannot grow
        # a traceback without bound.
        if (not self.frames or self.frames[-1] != frame) and len(self.frames) < MAX_FRAMES:
            self.frames.append(frame)

    def traceback(self, source_lines: list[str] | None = None) -> str:
        lines = ["Traceback (most recent call last):"]
        lines += [frame.render(source_lines) for frame in reversed(self.frames)]
        lines.append(self.summary())
        return "\n".join(lines)

    def summary(self) -> str:
        return f"{type(self).__name__}: {self.message}"


class ScriptError(DwfError):
    """An exception value of the script. `type_name` is its class's name and `lineage` the
    names of the class and its bases, nearest first (a user class `RetryError(ValueError)` has
    `("RetryError", "ValueError", "Exception", "BaseException")`); `except` and `isinstance`
    match against it. `attributes` are the extra read-only attributes a class has in CPython
    (`msg`, `pos`, `lineno`, `colno` of `json.JSONDecodeError`)."""

    def __init__(self, type_name: str, message: str, *, args: tuple = (), frames: list[TraceFrame] | None = None,
                 details: dict | None = None, lineage: tuple[str, ...] | None = None, attributes: dict | None = None):
        super().__init__(message, frames=frames)
        self.type_name = type_name
        self.args_value = args if args else ((message,) if message else ())
        self.details = details or {}
        self.lineage = lineage or builtin_lineage(type_name)
        self.attributes = attributes or {}

    def is_a(self, class_name: str) -> bool:
        return class_name in self.lineage

    def summary(self) -> str:
        return f"{self.type_name}: {self.message}" if self.message else self.type_name

    def to_json(self) -> dict:
        data = {"type": self.type_name, "message": self.message}
        if self.details:
            data["details"] = self.details
        return data


class FatalError(DwfError):
    """Ends the run; never caught by the script. `code` names the kind (e.g. `StepLimit`)."""

    def __init__(self, code: str, message: str, *, frames: list[TraceFrame] | None = None):
        super().__init__(message, frames=frames)
        self.code = code

    def summary(self) -> str:
        return f"{self.code}: {self.message}"


def world_error(message: str) -> ScriptError:
    return ScriptError("WorldError", message)


def artifact_error(message: str) -> ScriptError:
    return ScriptError("ArtifactError", message)
