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

# The script-visible exception hierarchy: name -> parent name.
SCRIPT_EXCEPTION_PARENTS: dict[str, str | None] = {
    "Exception": None,
    "ValueError": "Exception",
    "TypeError": "Exception",
    "KeyError": "Exception",
    "IndexError": "Exception",
    "ZeroDivisionError": "Exception",
    "RuntimeError": "Exception",  # e.g. a dict or set changed size while it was iterated
    "WorkflowError": "Exception",
    "AskFailed": "WorkflowError",
    "WorldError": "WorkflowError",
    "ArtifactError": "WorkflowError",
    "BudgetExceeded": "WorkflowError",
    # Raised by a failing `assert`; scripts cannot name it, `except Exception` catches it.
    "AssertionError": "Exception",
}


def is_subclass(name: str, parent: str) -> bool:
    current: str | None = name
    while current is not None:
        if current == parent:
            return True
        current = SCRIPT_EXCEPTION_PARENTS.get(current)
    return False


@dataclass
class Frame:
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

    def __init__(self, message: str, *, frames: list[Frame] | None = None):
        super().__init__(message)
        self.message = message
        self.frames: list[Frame] = frames or []

    def add_frame(self, frame: Frame) -> None:
        if not self.frames or self.frames[-1] != frame:
            self.frames.append(frame)

    def traceback(self, source_lines: list[str] | None = None) -> str:
        lines = ["Traceback (most recent call last):"]
        lines += [frame.render(source_lines) for frame in reversed(self.frames)]
        lines.append(self.summary())
        return "\n".join(lines)

    def summary(self) -> str:
        return f"{type(self).__name__}: {self.message}"


class ScriptError(DwfError):
    """An exception value of the script; `type_name` is its DWF exception type."""

    def __init__(self, type_name: str, message: str, *, args: tuple = (), frames: list[Frame] | None = None,
                 details: dict | None = None):
        super().__init__(message, frames=frames)
        self.type_name = type_name
        self.args_value = args if args else ((message,) if message else ())
        self.details = details or {}

    def summary(self) -> str:
        return f"{self.type_name}: {self.message}" if self.message else self.type_name

    def to_json(self) -> dict:
        data = {"type": self.type_name, "message": self.message}
        if self.details:
            data["details"] = self.details
        return data


class FatalError(DwfError):
    """Ends the run; never caught by the script. `code` names the kind (e.g. `StepLimit`)."""

    def __init__(self, code: str, message: str, *, frames: list[Frame] | None = None):
        super().__init__(message, frames=frames)
        self.code = code

    def summary(self) -> str:
        return f"{self.code}: {self.message}"


def world_error(message: str) -> ScriptError:
    return ScriptError("WorldError", message)


def artifact_error(message: str) -> ScriptError:
    return ScriptError("ArtifactError", message)
