"""This module defines the resource limits of LANGUAGE §4 as named constants, and `Limits`, the
per-run set of them that travels in the execution context (tests and runs override fields; no
module global is ever changed)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_STEPS = 10_000_000
MAX_RECURSION = 200
MAX_ITEMS = 1_000_000  # items in one list, dict, set, tuple
MAX_STRING_BYTES = 16 * 1024 * 1024  # one str, UTF-8
MAX_RANGE = 10_000_000
MAX_POW_BITS = 10_000
REGEX_TIMEOUT_S = 1.0
MAX_FANOUT = 4_096
MAX_AGENTS = 1_000
MAX_REPORTS = 256
MAX_REPORT_BYTES = 32 * 1024
# Resident memory of the process a run is in (checked ten times a second while it runs; one step
# allocates at most one value at the size limits, so the overshoot is small): see docs/security.md.
MAX_MEMORY_BYTES = 4 * 1024 ** 3
MEMORY_POLL_S = 0.1


@dataclass(frozen=True)
class Limits:
    """Limits: one run's resource limits (LANGUAGE §4); every field defaults to the constant above."""

    steps: int = MAX_STEPS
    recursion: int = MAX_RECURSION
    items: int = MAX_ITEMS
    string_bytes: int = MAX_STRING_BYTES
    range_items: int = MAX_RANGE
    pow_bits: int = MAX_POW_BITS
    regex_timeout_s: float = REGEX_TIMEOUT_S
    fanout: int = MAX_FANOUT
    agents: int = MAX_AGENTS
    reports: int = MAX_REPORTS
    report_bytes: int = MAX_REPORT_BYTES
    memory_bytes: int = MAX_MEMORY_BYTES

    # Human names used in error messages ("the step limit (10,000,000) was exceeded").
    NAMES = {
        "steps": "step limit", "recursion": "recursion limit", "items": "container size limit",
        "string_bytes": "string size limit", "range_items": "range size limit", "pow_bits": "power size limit",
        "regex_timeout_s": "regular expression time limit", "fanout": "fan-out limit", "agents": "actor limit",
        "reports": "report count limit", "report_bytes": "report size limit", "memory_bytes": "memory limit",
    }
