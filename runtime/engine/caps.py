"""This module defines the caps of a run and where they come from: `Ceilings`, the host's
deployment ceilings (an operator's `--max-agents` and `--max-concurrency-ceiling`), `Caps`, the
caps a run executes under, and `resolve_caps`, the one resolution the engine starts a run with
and the approval screen shows.

Each cap is the caller's (a command-line option or a tool argument), else what a resumed run
stored, else the script's `meta`, else the default (16 asks in flight, 1,000 actors: asks wait
on agents, not on local CPUs); then it is clamped to the host's ceiling. A script may lower a cap
but never raise it above the ceiling; the clamped values are named in `Caps.clamped` so that a
person sees them before approving.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from dwf.runtime.interpreter.limits import MAX_AGENTS

DEFAULT_MAX_CONCURRENCY = 16


@dataclass(frozen=True)
class Ceilings:
    """Ceilings: the most actors and asks in flight any run of this host may have (default
    1,000 and 16); a script's meta or a caller may ask for less, never for more."""

    max_agents: int = MAX_AGENTS
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY

    def problems(self) -> list[str]:
        """Why these ceilings are unusable (each must be an integer of at least 1); empty when fine."""
        return [f"the {name} ceiling must be an integer of at least 1, got {value!r}"
                for name, value in (("max_agents", self.max_agents), ("max_concurrency", self.max_concurrency))
                if not _positive_int(value)]


@dataclass(frozen=True)
class Caps:
    """Caps: what one run executes under. `clamped` maps each cap the host's ceiling lowered to
    the value that was asked for (`{"max_agents": 1500}`)."""

    max_concurrency: int
    max_agents: int
    budget: int | None
    clamped: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The caps as the journal stores them and `run-started` reports them."""
        return {"max_concurrency": self.max_concurrency, "max_agents": self.max_agents, "budget": self.budget}


def resolve_caps(*, max_concurrency: int | None, max_agents: int | None, budget: int | None,
                 stored: Mapping[str, Any] | None, meta: Mapping[str, Any], ceilings: Ceilings,
                 default_agents: int = MAX_AGENTS) -> tuple[Caps | None, list[str]]:
    """(the caps, []) or (None, every problem): the caller's values, else `stored` (a resume's),
    else `meta`'s, else the defaults, each clamped to `ceilings` (module docstring)."""
    stored = stored or {}
    problems = ceilings.problems()
    wanted = {"max_concurrency": max_concurrency or stored.get("max_concurrency") or meta.get("max_concurrency")
              or DEFAULT_MAX_CONCURRENCY,
              "max_agents": max_agents or stored.get("max_agents") or meta.get("max_agents") or default_agents}
    if budget is None:
        budget = stored.get("budget")
    for name, value in wanted.items():
        if not _positive_int(value):
            problems.append(f"{name} must be an integer of at least 1, got {value!r}")
    if budget is not None and (not isinstance(budget, int) or budget < 0):
        problems.append(f"the budget must be a non-negative number of tokens, got {budget!r}")
    if problems:
        return None, problems
    ceiling = {"max_concurrency": ceilings.max_concurrency, "max_agents": ceilings.max_agents}
    clamped = {name: value for name, value in wanted.items() if value > ceiling[name]}
    effective = {name: min(value, ceiling[name]) for name, value in wanted.items()}
    return Caps(effective["max_concurrency"], effective["max_agents"], budget, clamped), []


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and value >= 1
