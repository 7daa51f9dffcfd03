"""This module defines the exit codes of every `dwfc` command, once, and `UsageError`, the
exception a command raises for exit code 2. Every command module imports them from here (not
from `main.py`, which imports the command modules).

0 success (warnings allowed), 1 the script has errors (or a run errored), 2 usage or I/O error
(or a plan that was not approved: nothing ran), 3 a run stopped. A run's settled status maps to
its exit code through `RUN_EXIT`.
"""

from __future__ import annotations

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_STOPPED = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # Ctrl-C outside a run, as a shell reports SIGINT
RUN_EXIT = {"completed": EXIT_OK, "errored": EXIT_ERRORS, "stopped": EXIT_STOPPED}


class UsageError(Exception):
    """UsageError: a bad argument or unreadable input, reported as one sentence, exit code 2."""
