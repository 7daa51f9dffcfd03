"""This module defines the catalogue entries for parse errors (DWF0xx) and for constructs
outside the accepted syntax subset (DWF1xx)."""

from .base import Rule


class SyntaxError_(Rule):
    """
    ## What it does
    Reports text that is not valid Python 3.11 syntax. Parsing stops at the first such error,
    so a script with a syntax error gets exactly one `DWF001` and nothing else.

    ## Why is this bad?
    Nothing else can be checked, planned or run until the script parses.

    ## Example
    ```python
    if changed
        log("changed")
    ```

    ## Use instead
    ```python
    if changed:
        log("changed")
    ```
    """

    code = "DWF001"
    name = "syntax-error"
    message = "Syntax error: {detail}"
    help = "fix the syntax at this position; nothing else is checked until the script parses"


class SourceNotUtf8(Rule):
    """
    ## What it does
    Reports a script file whose bytes are not valid UTF-8.

    ## Why is this bad?
    Scripts are journaled and hashed as UTF-8 text; any other encoding cannot be read reliably.

    ## Example
    A file saved as Latin-1 containing `"café"`.

    ## Use instead
    Save the file as UTF-8.
    """

    code = "DWF002"
    name = "source-not-utf8"
    message = "The file is not valid UTF-8 ({detail})"
    help = "re-save the script as UTF-8"


class ScriptTooLarge(Rule):
    """
    ## What it does
    Reports a script beyond the compiler's limits: larger than 1 MB, or nested too deeply.

    The limits are checked before the script is parsed into its syntax tree: at most 1 MB
    (1,048,576 bytes of UTF-8), and at most 2,000 levels of nesting, counting each `and`/`or` of
    a chain as a level (`a and b and c` is two), as the syntax tree nests them.

    ## Why is this bad?
    Past these limits the parser's memory and stack grow with the text until the process
    dies; a workflow script needs neither: the longest example is a few hundred lines.

    ## Example
    ```python
    ready = a and b and c and ...  # 10,000 terms
    ```

    ## Use instead
    ```python
    ready = all([a, b, c, ...])
    ```
    """

    code = "DWF003"
    name = "script-too-large"
    message = "The script is beyond the compiler's limits ({detail})"
    help = "split the script (saved workflows called with `await workflow(name)`), or the expression (`all([...])`, helper variables)"


class UnsupportedStatement(Rule):
    """
    ## What it does
    Reports a statement kind that DWF does not accept: `with`, `async with`, `async for`,
    `global`, `nonlocal`, `match`, `except*`, star imports (`from x import *`), relative imports,
    and any statement the compiler has not reviewed.

    ## Why is this bad?
    DWF accepts an allow-list of Python. Context managers, global state and pattern matching
    either reach outside the sandbox or make the plan harder to derive, so they are rejected
    rather than half-supported.

    ## Example
    ```python
    with open("notes.txt") as f:
        text = f.read()
    ```

    ## Use instead
    ```python
    text = await files.read("notes.txt")
    ```
    """

    code = "DWF101"
    name = "unsupported-statement"
    message = "`{construct}` is not allowed in DWF scripts"
    help = "{hint}"


class UnsupportedExpression(Rule):
    """
    ## What it does
    Reports an expression kind that DWF does not accept: `yield`, `yield from`, complex
    numbers, bytes literals, `...` outside a statement, the matrix operator `@`, and any
    expression the compiler has not reviewed.

    ## Why is this bad?
    Generators, bytes and complex numbers are not JSON data and have no place in a workflow's
    values; new syntax is rejected until it is reviewed.

    ## Example
    ```python
    def names():
        yield "a"
    ```

    ## Use instead
    ```python
    def names():
        return ["a"]
    ```
    """

    code = "DWF102"
    name = "unsupported-expression"
    message = "{construct} is not allowed in DWF scripts"
    help = "{hint}"


class Decorator(Rule):
    """
    ## What it does
    Reports decorators on functions and classes.

    ## Why is this bad?
    A decorator runs arbitrary code at definition time and can hide what a function does from
    the planner.

    ## Example
    ```python
    @cache
    async def review(path):
        ...
    ```

    ## Use instead
    Call helpers explicitly inside the function body.
    """

    code = "DWF103"
    name = "decorator"
    message = "Decorators are not allowed in DWF scripts"
    help = "remove the decorator and call the helper explicitly"


class NonTypedDictClass(Rule):
    """
    ## What it does
    Reports a `class` statement that is neither a `TypedDict` nor an exception class
    declaration, TypedDict bodies that contain anything other than annotated fields, docstrings
    and `pass`, and exception class bodies with methods or assignments.

    ## Why is this bad?
    Classes exist in DWF only to describe the JSON shape of typed results and to name
    exceptions. Methods, default values and other bases would bring objects into a language
    whose values are plain data.

    ## Example
    ```python
    class Finding:
        def __init__(self, path):
            self.path = path

    class RetryError(Exception):
        def __init__(self, attempts):
            self.attempts = attempts
    ```

    ## Use instead
    ```python
    class Finding(TypedDict):
        path: str

    class RetryError(Exception):
        "An attempt failed; the arguments say which."

    raise RetryError("tests still fail", 3)  # e.args == ("tests still fail", 3)
    ```
    """

    code = "DWF104"
    name = "non-typeddict-class"
    message = "{detail}"
    help = "declare result shapes as `class Name(TypedDict):` with annotated fields only"


class UnsupportedParameter(Rule):
    """
    ## What it does
    Reports a parameter name declared twice in one `def` or `lambda`. Every other parameter
    form of Python is accepted: positional-only (`/`), keyword-only (after `*` or `*args`),
    `*args`, `**kwargs` and defaults that are any expression (evaluated once, when the `def`
    runs, as in Python).

    ## Why is this bad?
    Python refuses a duplicate parameter (`SyntaxError: duplicate argument`); one of the two
    values would be lost.

    ## Example
    ```python
    def review(path, strict, path):
        ...
    ```

    ## Use instead
    ```python
    def review(path, strict, other_path):
        ...
    ```
    """

    code = "DWF105"
    name = "unsupported-parameter"
    message = "{detail}"
    help = "give each parameter its own name"


class NotTopLevel(Rule):
    """
    ## What it does
    Reports imports, the `meta` assignment, TypedDict and exception class declarations that are
    not at the top level of the script (inside a function, loop, branch or `try`).

    ## Why is this bad?
    These are read by the compiler without running the script; a conditional or nested one
    has no single static meaning.

    ## Example
    ```python
    if args["fast"]:
        import json
    ```

    ## Use instead
    ```python
    import json
    ```
    """

    code = "DWF106"
    name = "not-top-level"
    message = "{what} must be at the top level of the script"
    help = "move it out of the enclosing block"


class AwaitOutsideAsync(Rule):
    """
    ## What it does
    Reports `await` inside a plain `def` or a `lambda`.

    ## Why is this bad?
    Only the script body and `async def` functions may wait for an effect; Python rejects the
    same code at run time.

    ## Example
    ```python
    def review(path):
        return await reviewer.ask(f"Review {path}")
    ```

    ## Use instead
    ```python
    async def review(path):
        return await reviewer.ask(f"Review {path}")
    ```
    """

    code = "DWF107"
    name = "await-outside-async"
    message = "`await` is only allowed at the top level of the script or inside `async def`"
    help = "make the enclosing function `async def` and await its calls"


class InvalidDeleteTarget(Rule):
    """
    ## What it does
    Reports `del` of anything other than names and subscripts (for example an attribute).

    ## Why is this bad?
    Records and facade objects are read-only; only variables and container items can be
    deleted.

    ## Example
    ```python
    del result.stdout
    ```

    ## Use instead
    ```python
    del findings[0]
    ```
    """

    code = "DWF108"
    name = "invalid-delete-target"
    message = "`del` can only remove names and subscripts"
    help = "records and facade objects cannot be changed"


class InvalidAssignmentTarget(Rule):
    """
    ## What it does
    Reports assignment to an attribute (`x.y = ...`) and to other read-only targets.

    ## Why is this bad?
    DWF values are plain data: dicts are updated by subscript, records and facade objects are
    read-only.

    ## Example
    ```python
    plan.steps = []
    ```

    ## Use instead
    ```python
    plan["steps"] = []
    ```
    """

    code = "DWF109"
    name = "invalid-assignment-target"
    message = "Cannot assign to {target}"
    help = "assign to a name or a subscript; records and facade objects are read-only"


class RepeatedKeyword(Rule):
    """
    ## What it does
    Reports a call that passes the same keyword argument twice.

    ## Why is this bad?
    Python rejects the call as a syntax error (`keyword argument repeated`); only one of the
    values could ever be used.

    ## Example
    ```python
    await reviewer.ask("Review it", label="first", label="second")
    ```

    ## Use instead
    ```python
    await reviewer.ask("Review it", label="first")
    ```
    """

    code = "DWF110"
    name = "repeated-keyword"
    message = "The keyword argument `{name}` is given twice"
    help = "pass each keyword argument once"


class ExceptionClassShape(Rule):
    """
    ## What it does
    Reports an exception class declaration (`class Name(Base)` whose base is an exception
    class) that holds annotated fields, has more than one base or a keyword, shadows a builtin
    name, is declared twice, or derives from `json.JSONDecodeError`. Like TypedDicts, exception
    classes are declared at the top level (`DWF106` otherwise).

    ## Why is this bad?
    An exception class in DWF is a name and a base, nothing more: what failed travels in its
    arguments (`raise RetryError(f"{path}: {reason}")`, read back with `str(e)` or `e.args`).
    Fields, methods and metaclasses would bring objects with behaviour into a language whose
    values are plain data.

    ## Example
    ```python
    class RetryError(Exception):
        attempts: int
    ```

    ## Use instead
    ```python
    class RetryError(Exception):
        "An attempt failed; the arguments say which and why."

    raise RetryError("tests still fail", attempts)
    ```
    """

    code = "DWF111"
    name = "exception-class-shape"
    message = "{detail}"
    help = "{hint}"


class BaseExceptionOutsideExcept(Rule):
    """
    ## What it does
    Reports `BaseException` named anywhere but in the type of an `except` clause.

    ## Why is this bad?
    `except BaseException:` catches every exception a script can raise, and is allowed. But the
    run's fatal errors (limits, misuse, cancellation) are never script exceptions, so a script
    has no use for `BaseException` as a value, a base class or in `isinstance`: `Exception` is
    what it means.

    ## Example
    ```python
    class Stop(BaseException):
        pass
    ```

    ## Use instead
    ```python
    class Stop(Exception):
        pass
    ```
    """

    code = "DWF112"
    name = "base-exception-outside"
    message = "`BaseException` can only be named in an `except` clause"
    help = "use `Exception` (or a more specific exception type) here"


class LoneSurrogate(Rule):
    """
    ## What it does
    Reports a string literal holding a lone UTF-16 surrogate (U+D800 to U+DFFF), such as
    `"\\ud83d"`, or a character beyond U+FFFF written as its two halves, `"\\ud83d\\ude00"`
    (Python keeps them as two characters).

    ## Why is this bad?
    Such a string has no UTF-8 form, so it can be neither hashed into the plan, journaled, nor
    sent to an agent.

    ## Example
    ```python
    smile = "\\ud83d\\ude00"
    ```

    ## Use instead
    ```python
    smile = "\\U0001F600"
    ```
    """

    code = "DWF113"
    name = "lone-surrogate"
    message = "This string holds a lone surrogate (\\u{code}), which has no UTF-8 form"
    help = "write the character itself, or escape a character beyond U+FFFF as `\\U0001xxxx`, not as two `\\u` halves"
