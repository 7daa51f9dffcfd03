"""This module defines the catalogue entry for internal compiler errors (DWF9xx)."""

from .base import Rule


class InternalError(Rule):
    """
    ## What it does
    Reports a bug in the DWF compiler: a pass raised an unexpected exception. The script may
    be fine.

    ## Why is this bad?
    The script cannot be checked completely, so it is not allowed to run.

    ## Example
    Any script that triggers a compiler bug.

    ## Use instead
    Report the bug with the script attached; meanwhile rephrase the construct at this line.
    """

    code = "DWF901"
    name = "internal-error"
    message = "Internal compiler error in {stage}: {detail}"
    help = "this is a bug in dwfc; please report it with the script"
