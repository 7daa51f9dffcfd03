"""This module defines the catalogue entries for result-type schemas (DWF4xx)."""

from .base import Rule


class UnsupportedType(Rule):
    """
    ## What it does
    Reports a type in `returns=` (or in a TypedDict field) that has no JSON Schema: `Any`,
    `datetime`, `bytes`, `set`, callables, bare type variables, or a class that is not a
    TypedDict. The message names the JSON path of the offending part (`$.items[].when`).

    ## Why is this bad?
    An actor's typed result is validated against a JSON Schema synthesized at compile time;
    a type with no JSON form cannot be validated, and `Any` would let anything through.

    ## Example
    ```python
    class Finding(TypedDict):
        when: datetime
    ```

    ## Use instead
    ```python
    class Finding(TypedDict):
        when: str
        "ISO 8601 timestamp"
    ```
    """

    code = "DWF401"
    name = "unsupported-type"
    message = "Unsupported result type at `{path}`: {detail}"
    help = "{hint}"


class UnknownTypeName(Rule):
    """
    ## What it does
    Reports a name in a result type that is neither a builtin JSON type, an imported typing
    construct nor a TypedDict declared in the script.

    ## Why is this bad?
    The schema cannot be synthesized, so the ask could not be validated.

    ## Example
    ```python
    plan = await planner.ask("Plan it", returns=Plan)   # Plan is not declared
    ```

    ## Use instead
    Declare `class Plan(TypedDict): ...` at the top level.
    """

    code = "DWF402"
    name = "unknown-type-name"
    message = "Unknown type `{name}` at `{path}`"
    help = "{hint}"


class TooManyUnionMembers(Rule):
    """
    ## What it does
    Reports a union or `Literal[...]` with more than 100 members.

    ## Why is this bad?
    Schemas that large are rejected or truncated by model APIs and are unreadable on the plan.

    ## Example
    `Literal["a1", "a2", ..., "a150"]`

    ## Use instead
    Use `str` with a description of the allowed values, and check them in the script.
    """

    code = "DWF403"
    name = "too-many-union-members"
    message = "The type at `{path}` has {count} members; the limit is 100"
    help = "use a wider type such as `str` and describe the allowed values"


class InvalidSchemaLiteral(Rule):
    """
    ## What it does
    Reports a literal JSON Schema given as `returns={...}` that is not a valid JSON Schema
    (draft 2020-12 meta-schema), reported at the offending key.

    ## Why is this bad?
    The engine validates results with this schema; an invalid schema would fail every ask.

    ## Example
    ```python
    await a.ask("List files", returns={"type": "array", "items": {"type": "strng"}})
    ```

    ## Use instead
    ```python
    await a.ask("List files", returns={"type": "array", "items": {"type": "string"}})
    ```
    """

    code = "DWF404"
    name = "invalid-schema-literal"
    message = "Invalid JSON Schema at `{path}`: {detail}"
    help = "the literal must be a valid JSON Schema (draft 2020-12)"


class ReturnsNotConstant(Rule):
    """
    ## What it does
    Reports a `returns=` argument that is neither a type expression nor a compile-time
    constant dict (built from literals and top-level names bound once to constants and never
    reassigned or mutated).

    ## Why is this bad?
    The schema must be known before the run to validate results and to show the plan.

    ## Example
    ```python
    schema = {"type": "object"}
    schema["required"] = ["path"]
    await a.ask("...", returns=schema)
    ```

    ## Use instead
    ```python
    SCHEMA = {"type": "object", "required": ["path"]}
    await a.ask("...", returns=SCHEMA)
    ```
    """

    code = "DWF405"
    name = "returns-not-constant"
    message = "`returns=` must be a type or a compile-time constant JSON Schema dict"
    help = "{hint}"


class InvalidTypedDict(Rule):
    """
    ## What it does
    Reports a TypedDict declaration the schema synthesizer cannot use: an unknown base or
    keyword, `total=` that is not `True`/`False`, a field without an annotation, a field with a
    default value, or a field declared twice.

    ## Why is this bad?
    The declaration would produce a wrong or ambiguous schema.

    ## Example
    ```python
    class Finding(TypedDict, total="no"):
        path: str = ""
    ```

    ## Use instead
    ```python
    class Finding(TypedDict, total=False):
        path: str
    ```
    """

    code = "DWF406"
    name = "invalid-typeddict"
    message = "{detail}"
    help = "{hint}"


class DictKeyNotStr(Rule):
    """
    ## What it does
    Reports `dict[K, V]` in a result type where `K` is not `str`.

    ## Why is this bad?
    JSON object keys are always strings.

    ## Example
    `returns=dict[int, str]`

    ## Use instead
    `returns=dict[str, str]` (and convert keys with `int(k)` if needed).
    """

    code = "DWF407"
    name = "dict-key-not-str"
    message = "JSON object keys are strings, but the type at `{path}` uses `{key}` keys"
    help = "use `dict[str, ...]`"
