"""This module implements changing a run's caps without a new script (`dwfc set`, AmendWorkflow
without `script`/`path`): `configure_run` applies `max_concurrency` and `model` to a live run at
once (in this engine directly; in another process by a caps request its owner polls, see
`journal/control.py`), or records them on a run that is not running, for its resume or amend.

Raising a live run's concurrency admits the asks waiting for a slot at once (the engine's
`Run.set_max_concurrency`); a live model change applies to asks started afterwards on ports
that have a default model (the Anthropic port).
"""

from __future__ import annotations

from pathlib import Path

import anyio

from dwf.runtime.engine import Engine
from dwf.runtime.journal import control
from dwf.runtime.journal.store import JournalStore, RunRow

CONFIGURE_WAIT_S = 5.0
LIVE_CAPS = ("max_concurrency", "model")


class ConfigureError(Exception):
    """The change cannot be made (one sentence)."""


def configure_problems(changes: dict) -> list[str]:
    """Why `changes` ({max_concurrency?, model?}; None clears one) is not a valid change."""
    problems = [f"{name} cannot be changed here (only {', '.join(LIVE_CAPS)})" for name in changes
                if name not in LIVE_CAPS]
    value = changes.get("max_concurrency")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        problems.append(f"max_concurrency must be an integer of at least 1, got {value!r}")
    if changes.get("model") is not None and not (isinstance(changes["model"], str) and changes["model"]):
        problems.append(f"model must be a model id, got {changes['model']!r}")
    if not changes:
        problems.append("nothing to change: give max_concurrency or model")
    return problems


async def configure_run(journal: JournalStore, row: RunRow, changes: dict, *, engine: Engine | None = None,
                        control_dir: Path | None = None, wait_s: float = CONFIGURE_WAIT_S) -> RunRow:
    """Apply `changes` to run `row` (module docstring) and return its row afterwards. A live run
    cannot have a cap cleared (None); `ConfigureError` says so, or that its owner is gone."""
    problems = configure_problems(changes)
    if problems:
        raise ConfigureError("; ".join(problems))
    current = journal.get_run(row.id) or row
    if current.status != "running":
        return record_caps(journal, current, changes)
    if any(value is None for value in changes.values()):
        raise ConfigureError(f"run {row.id} is running: a cap can be changed but not cleared while it runs")
    live = engine.runs.get(row.id) if engine is not None else None
    if live is not None and not live.settled.is_set():
        live.change_caps(changes)
        return journal.get_run(row.id) or current
    if control_dir is None or not control.owner_alive(control.read_owner(control_dir, row.id)):
        raise ConfigureError(f"run {row.id} is running in a process that cannot be reached")
    control.request_caps(control_dir, row.id, changes)
    with anyio.move_on_after(wait_s):
        while not _applied(current, changes):
            await anyio.sleep(0.05)
            current = journal.get_run(row.id) or current
    return current


def record_caps(journal: JournalStore, row: RunRow, changes: dict) -> RunRow:
    """Record `changes` on the run `row` that is not running: its resume and amend use them (a
    cleared max_concurrency falls back to the script's or the default)."""
    caps = dict(row.caps or {})
    given = set(caps.get("given", ("max_concurrency", "budget")))
    for name, value in changes.items():
        if value is None:
            caps.pop(name, None)
            given.discard(name)
        else:
            caps[name] = value
            given.add(name)
    caps["given"] = sorted(given & {"max_concurrency", "budget"})
    journal.update_run(row.id, caps=caps)
    return journal.get_run(row.id) or row


def _applied(row: RunRow, changes: dict) -> bool:
    caps = row.caps or {}
    return row.status != "running" or all(caps.get(name) == value for name, value in changes.items())
