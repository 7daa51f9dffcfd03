"""This module defines the catalogue entries for names, determinism and the sandbox (DWF2xx)."""

from .base import Rule


class ForbiddenBuiltin(Rule):
    """
    ## What it does
    Reports calls of and references to the Python builtins DWF does not offer, each with what
    to write instead: `print` (`log()`), `open` (`await files.read(path)`), `input` (a run
    argument), `exec`/`eval`/`compile`, `type`/`issubclass` (`isinstance`),
    `getattr`/`setattr`/`hasattr`/`delattr` (dicts), `globals`/`locals`/`vars`/`dir`,
    `id`/`hash`, `object`/`super`/`property`/`staticmethod`/`classmethod` (no classes),
    `bytes`/`bytearray`/`memoryview`, `complex`, `aiter`/`anext`, `exit`/`quit`, `breakpoint`,
    `help`, `copyright`/`credits`/`license`, `Ellipsis`, `NotImplemented`, `__import__`, and
    the exception types DWF does not raise (`OSError` and its family: catch `WorldError`;
    warnings: use `log()`; `SystemExit`, `KeyboardInterrupt`, `MemoryError`, ...).

    ## Why is this bad?
    Each of these either reaches outside the sandbox (files, the terminal, the interpreter's
    own objects), observes something that differs between runs (addresses, hash seeds), or
    names something that never happens in DWF, so the run would fail where it is used.

    ## Example
    ```python
    print(f"{len(changed)} files changed")
    ```

    ## Use instead
    ```python
    log(f"{len(changed)} files changed")
    ```
    """

    code = "DWF201"
    name = "forbidden-builtin"
    message = "DWF does not offer `{name}`"
    help = "{hint}"


class DunderName(Rule):
    """
    ## What it does
    Reports any name or attribute that starts with a double underscore (`__class__`,
    `__dict__`, `__builtins__`, ...).

    ## Why is this bad?
    Dunder walks are the classic way out of Python sandboxes
    (`().__class__.__base__.__subclasses__()`). DWF has no use for them.

    ## Example
    ```python
    kinds = findings.__class__.__name__
    ```

    ## Use instead
    Work with the values themselves; use `isinstance(x, list)` to test a type.
    """

    code = "DWF202"
    name = "dunder-access"
    message = "Names and attributes starting with `__` are not allowed (`{name}`)"
    help = "dunder access reaches interpreter internals; work with plain values instead"


class StrFormat(Rule):
    """
    ## What it does
    Reports calls to `str.format` and `str.format_map`.

    ## Why is this bad?
    Format strings can walk attributes and items of their arguments
    (`"{0.__class__}".format(x)`), which makes them a sandbox escape; f-strings are compiled and
    evaluated by the interpreter instead.

    ## Example
    ```python
    prompt = "Review {}".format(path)
    ```

    ## Use instead
    ```python
    prompt = f"Review {path}"
    ```
    """

    code = "DWF203"
    name = "str-format"
    message = "`.{method}()` is not allowed; use an f-string"
    help = "write f\"...{{value}}...\" instead of a format template"


class NondeterministicModule(Rule):
    """
    ## What it does
    Reports references to (and imports of) the modules `time`, `datetime`, `random`,
    `secrets`, `uuid`, `os` (and `os.path`), `sys`, `subprocess`, `socket`, `asyncio`,
    `threading`, `multiprocessing` and `concurrent`, with what to use instead.

    ## Why is this bad?
    A workflow must make the same decisions when it is resumed from its journal. Clocks,
    randomness, the environment and ambient I/O differ between the original run and the
    replay, so DWF offers journaled facade calls instead.

    ## Example
    ```python
    import random
    reviewer = random.choice(reviewers)
    ```

    ## Use instead
    ```python
    reviewer = reviewers[len(changed) % len(reviewers)]
    ```
    """

    code = "DWF204"
    name = "nondeterministic-module"
    message = "DWF does not offer `{module}`: {why}"
    help = "{hint}"


class ImportNotAllowed(Rule):
    """
    ## What it does
    Reports imports outside the allow-list (`json`, `re`, `math`, the pure standard modules
    `collections`, `itertools`, `functools`, `statistics`, `string`, `textwrap` and `difflib` as
    `import m`, `import m as n` or `from m import name`; `from typing import ...`; `from dwf
    import ...`; star and relative imports are `DWF101`, members of the offered modules refused
    on purpose are `DWF211`), and uses of a module DWF does not offer. Each common module gets
    its replacement: `pathlib`, `glob` and `os.path` (`files.glob`, paths as strings), `logging`
    (`log()`), `argparse` (run arguments), `copy` (`list(xs)`, `d.copy()`), `dataclasses` and
    `pydantic` (`TypedDict`), `requests` and `urllib` (ask an agent), `csv`, `yaml`, `pickle`,
    `hashlib`, and more.

    ## Why is this bad?
    Every other module can reach the network, the file system or the clock, and the compiler
    cannot prove what it does; determinism and the sandbox both depend on the allow-list.

    ## Example
    ```python
    from pathlib import Path
    sources = [p for p in Path("src").glob("**/*.py")]
    ```

    ## Use instead
    ```python
    sources = await files.glob("src/**/*.py")
    ```
    """

    code = "DWF205"
    name = "import-not-allowed"
    message = "{detail}"
    help = "{hint}"


class UndefinedName(Rule):
    """
    ## What it does
    Reports a name that is bound nowhere: not a local, not a top-level variable, not a facade
    name, not an allowed builtin, not an imported module.

    ## Why is this bad?
    The run would fail with a `NameError` when it reaches this line, possibly after paying for
    many agent calls.

    ## Example
    ```python
    reviews = await parallel(reviewr.ask(p) for p in changed)
    ```

    ## Use instead
    ```python
    reviews = await parallel(reviewer.ask(p) for p in changed)
    ```
    """

    code = "DWF206"
    name = "undefined-name"
    message = "Undefined name `{name}`"
    help = "{hint}"


class AttributeNotAllowed(Rule):
    """
    ## What it does
    Reports attribute access that DWF's sandbox does not allow when the receiver's type is
    known at compile time: an unknown method of a literal or of a builtin type (`str.lowr`), a
    member that a module does not offer (`json`, `re`, `math`), a field a record does not have.
    A method referenced through its type (`key=str.lower`, `list.sort(xs)`) is allowed.

    ## Why is this bad?
    Only documented methods of plain values and records are reachable from scripts; anything
    else would fail at run time after earlier effects were paid for.

    ## Example
    ```python
    data = json.load(text)
    ```

    ## Use instead
    ```python
    data = json.loads(text)
    ```
    """

    code = "DWF207"
    name = "attribute-not-allowed"
    message = "`{receiver}` has no allowed attribute `{attr}`"
    help = "{hint}"


class TypingOutsideAnnotation(Rule):
    """
    ## What it does
    Reports typing names (`Literal`, `Optional`, `List`, a TypedDict class, ...) used as
    runtime values, for example passed to `isinstance` or stored in a list, instead of in a
    `returns=` type or an annotation. Calling a TypedDict (`Finding(path="a.py")`) is fine: it
    builds a plain dict, as in Python.

    ## Why is this bad?
    Types exist only at compile time to synthesize result schemas; they have no run-time value
    (Python itself refuses `isinstance(x, Finding)` for a TypedDict).

    ## Example
    ```python
    if isinstance(finding, Finding):
        ...
    ```

    ## Use instead
    ```python
    if isinstance(finding, dict):
        ...
    ```
    """

    code = "DWF208"
    name = "type-as-value"
    message = "`{name}` is a type and can only be used in `returns=` or an annotation"
    help = "build plain dicts and lists; types only describe result schemas"


class ReadOnlyArgs(Rule):
    """
    ## What it does
    Reports item assignment to and deletion from the facade `args` mapping (a script that binds
    its own `args` variable shadows the facade and is not affected).

    ## Why is this bad?
    `args` holds the run's validated arguments, journaled when the run started; a resumed run
    must see the same values.

    ## Example
    ```python
    args["base"] = "main"
    ```

    ## Use instead
    ```python
    base = args["base"] or "main"
    ```
    """

    code = "DWF209"
    name = "args-read-only"
    message = "`args` is read-only"
    help = "copy the value into a variable of your own"


class InvalidRegex(Rule):
    """
    ## What it does
    Reports a regular expression written as a string literal that `re` cannot compile (an
    unbalanced parenthesis, a bad escape, a repeat of nothing, a look-behind of variable width,
    ...), with the flags the call gives, and a replacement template literal of `re.sub`/`re.subn`
    that refers to a group the pattern does not have or uses an unknown escape. The message is
    CPython's own `re.error` message.

    ## Why is this bad?
    The call would raise `re.error` when the run reaches it, possibly after paid asks.

    ## Example
    ```python
    failed = re.findall(r"^FAILED (\\S+", output, re.M)
    names = re.sub(r"(\\w+)@(\\w+)", r"\\3", emails)
    ```

    ## Use instead
    ```python
    failed = re.findall(r"^FAILED (\\S+)", output, re.M)
    names = re.sub(r"(\\w+)@(\\w+)", r"\\2", emails)
    ```
    """

    code = "DWF223"
    name = "invalid-regex"
    message = "This {what} does not compile: {error}"
    help = "{hint}"


class RegexFlagAsCount(Rule):
    """
    ## What it does
    Reports a flag (`re.I`, `re.M | re.S`, ...) passed positionally where CPython takes a number:
    the `count` of `re.sub`/`re.subn` (4th argument), the `maxsplit` of `re.split` (3rd), and
    the `pos`/`endpos`/`count`/`maxsplit` of a compiled pattern's methods, which take no flags.

    ## Why is this bad?
    A flag is a small integer, so CPython runs the call without a word and gives a wrong
    result: `re.sub(p, r, s, re.I)` replaces at most 2 matches, case-sensitively.

    ## Example
    ```python
    clean = re.sub(r"todo", "", text, re.IGNORECASE)
    first = pattern.search(text, re.M)
    ```

    ## Use instead
    ```python
    clean = re.sub(r"todo", "", text, flags=re.IGNORECASE)
    first = re.compile(r"^TODO", re.M).search(text)
    ```
    """

    code = "DWF224"
    name = "regex-flag-as-count"
    message = "`{flag}` is passed as `{param}`, not as flags"
    help = "{hint}"


class NamedTupleClass(Rule):
    """
    ## What it does
    Reports a class that derives from `typing.NamedTuple` (`class Point(NamedTuple): ...`).

    ## Why is this bad?
    DWF classes exist only as TypedDict declarations: a class body cannot hold fields with
    defaults, methods and the generated dunders a named tuple class has. The functional form
    `collections.namedtuple("Point", ["x", "y"])` makes the same values (fields by name and by
    position, unpacking, `_asdict`, `_replace`) without a class body.

    ## Example
    ```python
    class Span(NamedTuple):
        start: int
        end: int
    ```

    ## Use instead
    ```python
    from collections import namedtuple

    Span = namedtuple("Span", ["start", "end"])
    ```
    or, for a typed result of an ask, `class Span(TypedDict): ...` and plain dicts.
    """

    code = "DWF210"
    name = "namedtuple-class"
    message = "`{name}` cannot derive from `NamedTuple`: DWF has no class bodies besides TypedDict"
    help = "write `{name} = namedtuple(\"{name}\", [{fields}])` (from collections), or declare a TypedDict and build dicts"


class ModuleMemberRefused(Rule):
    """
    ## What it does
    Reports a member of an importable standard module that DWF does not offer on purpose
    (`functools.partial`, `itertools.tee`, `collections.abc`, `string.Template`, ...), with what
    to write instead.

    ## Why is this bad?
    These members hand out objects that walk attributes (`string.Template`, `string.Formatter`),
    share hidden state between values (`itertools.tee`), or exist to build classes and decorators
    (`functools.partial`, `lru_cache`, `collections.abc`), none of which a DWF script can hold.

    ## Example
    ```python
    from functools import partial

    review_strict = partial(review, strict=True)
    ```

    ## Use instead
    ```python
    review_strict = lambda path: review(path, strict=True)
    ```
    """

    code = "DWF211"
    name = "module-member-refused"
    message = "DWF does not offer `{name}`"
    help = "{hint}"


class CallArguments(Rule):
    """
    ## What it does
    Reports a call of a script function (a `def`, `async def` or `lambda` bound once to a name)
    whose arguments do not fit its parameters: a keyword no parameter has, too many positional
    arguments, two values for one parameter, or a required parameter left out.

    ## Why is this bad?
    The call raises `TypeError` when the run reaches it, possibly after many paid asks; the
    parameter names are known before the run starts.

    ## Example
    ```python
    async def review(path, strict=False):
        return await reviewer.ask(f"Review {path}.")

    notes = await review(pth="src/app.py")
    ```

    ## Use instead
    ```python
    notes = await review(path="src/app.py")
    ```
    """

    code = "DWF212"
    name = "call-arguments"
    message = "`{name}()` {problem}"
    help = "the signature is `{signature}`"


class AttributeOnData(Rule):
    """
    ## What it does
    Reports attribute access on a dict or other JSON data whose kind the compiler knows, with
    a name that is not a method: a typed ask result (`returns=Verdict`), the result of
    `json.loads`, a value of `args`, a dict literal.

    ## Why is this bad?
    Ask results are plain JSON data, not objects: a `TypedDict` describes the keys of a dict,
    and `result.verdict` raises `AttributeError` at run time, after the ask was paid for.

    ## Example
    ```python
    verdict = await reviewer.ask(f"Review {path}.", returns=Verdict)
    if verdict.approved:
        log("approved")
    ```

    ## Use instead
    ```python
    verdict = await reviewer.ask(f"Review {path}.", returns=Verdict)
    if verdict["approved"]:
        log("approved")
    ```
    """

    code = "DWF213"
    name = "attribute-on-data"
    message = "`{text}` is {what}: it has no attribute `{attr}`"
    help = "{hint}"


class RecordSubscript(Rule):
    """
    ## What it does
    Reports a subscript of a record that a facade call returned (`RunResult`, `GrepMatch`,
    `GitStatus`, `GitCommit`, `ArtifactRef`) or of an actor.

    ## Why is this bad?
    Records are read-only values with fields, not dicts: `result["stdout"]` raises `TypeError`
    at run time, after the command ran.

    ## Example
    ```python
    result = await world.run("pytest", ["-q"])
    failed = result["exit_code"] != 0
    ```

    ## Use instead
    ```python
    result = await world.run("pytest", ["-q"])
    failed = result.exit_code != 0
    ```
    """

    code = "DWF214"
    name = "record-subscript"
    message = "`{text}` is {what}, which cannot be subscripted"
    help = "{hint}"


class UnknownResultKey(Rule):
    """
    ## What it does
    Reports a read of a literal key that the TypedDict of a typed ask result does not declare.
    That is `r["score"]` or `r.get("score")` where `r = await a.ask(..., returns=Verdict)` and
    `Verdict` has no field `score`. It follows the result's fields (`r["meta"]["x"]`) and the
    elements of its lists (`for f in r["findings"]: f["sevrity"]`). `NotRequired` fields are
    declared; writing a new key (`r["note"] = ...`), `"score" in r` and results of a dict
    schema or of unknown kind are not reported.

    ## Why is this bad?
    A TypedDict result is validated against a closed schema (`additionalProperties: false`):
    it never holds a key its TypedDict does not declare, so `r["score"]` always raises
    `KeyError`, after the ask was paid for, and `r.get("score")` always gives its default.

    ## Example
    ```python
    class Verdict(TypedDict):
        verdict: str
        reasons: list[str]

    r = await reviewer.ask(f"Review {path}.", returns=Verdict)
    if r["verdit"] == "reject":
        log(r["reasons"])
    ```

    ## Use instead
    ```python
    r = await reviewer.ask(f"Review {path}.", returns=Verdict)
    if r["verdict"] == "reject":
        log(r["reasons"])
    ```
    """

    code = "DWF215"
    name = "unknown-result-key"
    message = "`{text}` is {what}, which has no key `{key}`"
    help = "{hint}"
