"""This module defines the catalogue entries for the meta block and run arguments (DWF5xx)."""

from .base import Rule


class MissingMeta(Rule):
    """
    ## What it does
    Reports a script without a top-level `meta = {...}` assignment.

    ## Why is this bad?
    The meta block names the workflow and describes it on the approval screen, in saved
    workflow lists and in run history; its `args` declare what the workflow accepts.

    ## Example
    A script that starts directly with `phase("Review")`.

    ## Use instead
    ```python
    meta = {"name": "review-changes", "description": "Review every changed file."}
    ```
    """

    code = "DWF501"
    name = "missing-meta"
    message = "The script has no `meta = {{...}}` block"
    help = "add `meta = {{\"name\": \"my-workflow\", \"description\": \"What it does.\"}}` near the top"


class MetaNotLiteral(Rule):
    """
    ## What it does
    Reports a meta block that is not a pure literal: names, calls, f-strings with fields,
    `**` spreads or comprehensions in it, or a value that is not a dict.

    ## Why is this bad?
    The meta block is extracted without running the script, so every part of it must be
    readable as data.

    ## Example
    ```python
    meta = {"name": NAME, "description": f"Review {TARGET}"}
    ```

    ## Use instead
    ```python
    meta = {"name": "review", "description": "Review the target."}
    ```
    """

    code = "DWF502"
    name = "meta-not-literal"
    message = "The meta block must be a literal: {detail}"
    help = "use only dicts, lists, strings, numbers, booleans and None in `meta`"


class MetaSchemaViolation(Rule):
    """
    ## What it does
    Validates the meta block against its JSON Schema (shipped with DWF) and reports each
    violation at the offending key or value: a missing `name` or `description`, a name that
    is not kebab-case, an unknown key, a wrong type.

    ## Why is this bad?
    Hosts list, save and launch workflows by their meta block; an invalid one would break
    them or mislead the person approving the run.

    ## Example
    ```python
    meta = {"name": "Review Changes", "descripton": "..."}
    ```

    ## Use instead
    ```python
    meta = {"name": "review-changes", "description": "..."}
    ```
    """

    code = "DWF503"
    name = "meta-schema-violation"
    message = "Invalid meta block at `{path}`: {detail}"
    help = "{hint}"


class DuplicateMeta(Rule):
    """
    ## What it does
    Reports a second assignment to `meta` (at any level), or `meta` bound by anything other
    than the one top-level assignment.

    ## Why is this bad?
    The meta block is read statically; a second binding makes it ambiguous which one the
    plan shows.

    ## Example
    ```python
    meta = {"name": "a", "description": "x"}
    meta = {"name": "b", "description": "y"}
    ```

    ## Use instead
    Keep a single `meta = {...}`.
    """

    code = "DWF504"
    name = "duplicate-meta"
    message = "`meta` is bound more than once (first on line {first_line})"
    help = "keep a single top-level `meta = {{...}}` assignment"


class ArgDefaultMismatch(Rule):
    """
    ## What it does
    Reports a default in `meta["args"]` that does not match the argument's declared `type`.

    ## Why is this bad?
    Defaults fill in for missing arguments at run start; a default of the wrong type would
    reach the script as a value it does not expect.

    ## Example
    ```python
    "args": {"count": {"type": "integer", "default": "3"}}
    ```

    ## Use instead
    ```python
    "args": {"count": {"type": "integer", "default": 3}}
    ```
    """

    code = "DWF505"
    name = "arg-default-mismatch"
    message = "The default of argument `{arg}` is {actual}, but its type is `{expected}`"
    help = "make the default a {expected} value or change the type"


class UnknownArgument(Rule):
    """
    ## What it does
    Reports `args["name"]` where the meta block declares no argument of that name.

    ## Why is this bad?
    Run arguments are validated against `meta["args"]`; an undeclared one can never be given,
    so the lookup would fail with `KeyError`.

    ## Example
    ```python
    meta = {"name": "x", "description": "y", "args": {"base": {"type": "string"}}}
    ref = args["bsae"]
    ```

    ## Use instead
    ```python
    ref = args["base"]
    ```
    """

    code = "DWF506"
    name = "unknown-argument"
    message = "The meta block declares no argument `{name}`"
    help = "{hint}"
