"""This module defines the allow-lists of names and attributes scripts may use: builtins,
exception types, forbidden names and modules (with the hint to give instead), importable
modules and their members, and the methods of each plain value type."""

from __future__ import annotations

BUILTIN_FUNCTIONS: tuple[str, ...] = (
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "int",
    "isinstance", "len", "list", "map", "max", "min", "pow", "range", "repr", "reversed",
    "round", "set", "sorted", "str", "sum", "tuple", "zip", "chr", "ord",
    "format", "next", "iter", "frozenset", "hex", "oct", "bin", "callable", "slice", "ascii",
)
EXCEPTION_TYPES: tuple[str, ...] = (
    "BaseException", "Exception", "ValueError", "TypeError", "KeyError", "IndexError", "LookupError",
    "RuntimeError", "NotImplementedError", "AssertionError", "AttributeError", "NameError",
    "UnboundLocalError", "ZeroDivisionError", "ArithmeticError", "OverflowError", "RecursionError",
    "StopIteration", "TimeoutError",
    "WorkflowError", "AskFailed", "WorldError", "ArtifactError", "BudgetExceeded",
)
# `BaseException` may be named only in an `except` clause (DWF112): it is the root of the
# script's exceptions, which never include the run's fatal errors.
EXCEPT_ONLY_TYPES: frozenset[str] = frozenset({"BaseException"})
# Exception types that are module members: `json.JSONDecodeError`, a `ValueError`.
MODULE_EXCEPTION_TYPES: dict[tuple[str, str], str] = {("json", "JSONDecodeError"): "JSONDecodeError"}
BUILTIN_CONSTANTS: tuple[str, ...] = ("None", "True", "False")
BUILTINS: frozenset[str] = frozenset(BUILTIN_FUNCTIONS + EXCEPTION_TYPES)

# Every CPython 3.11 builtin DWF does not offer, with what to write instead ("DWF does not offer
# `X`" is the message; this is the help). A test keeps it complete against `dir(builtins)`.
_WORLD_ERROR = "workspace reads and commands raise `WorldError`: catch `except WorldError`"
_NO_WARNINGS = "DWF has no warnings: note the problem with `log(message)`"
_FATAL = "resource limits end the run and cannot be caught; catch `Exception` for ordinary errors"
_NO_CLASSES = "DWF has no classes with methods: use functions, and dicts for data"
_NOT_TEXT = "DWF works with text: use `str` (`files.read` returns text)"
_UNICODE = "DWF text is always `str`, so encoding errors do not arise; bad data raises `ValueError`"
_NO_ASYNC_ITERATORS = "DWF has no async iterators: `await` each awaitable, or use `parallel`/`gather`"
_NO_GENERATED_CODE = "DWF scripts cannot run generated code"
_FINISH = "use `return` to finish the workflow, or `raise` to fail it"
_VARIABLES = "use variables directly, or keep named values in a dict"
_SHELL_ONLY = "an interactive-shell helper, not available in scripts"
FORBIDDEN_BUILTINS: dict[str, str] = {
    "print": "use `log(message)` to show progress",
    "open": "read workspace files with `await files.read(path)`; scripts cannot write files",
    "input": "a run has no terminal: declare a run argument in `meta[\"args\"]`, or ask an agent",
    "exec": _NO_GENERATED_CODE,
    "eval": f"{_NO_GENERATED_CODE}; parse data with `json.loads`, numbers with `int(...)`/`float(...)`",
    "compile": _NO_GENERATED_CODE,
    "__import__": "imports are written at the top of the script (`import json`)",
    "globals": _VARIABLES,
    "locals": _VARIABLES,
    "vars": _VARIABLES,
    "dir": "the attributes a value offers are documented; use them directly",
    "getattr": "access attributes directly (`value.name`), or keep the values in a dict: `d[key]`",
    "setattr": "keep the values in a dict and assign by subscript: `d[key] = value`",
    "delattr": "keep the values in a dict and `del d[key]`",
    "hasattr": "keep the values in a dict and test `key in d`",
    "id": "object identity differs between runs; compare values instead",
    "hash": "string hashes differ between runs; compare values, or build keys from the data",
    "type": "test a type with `isinstance(value, list)`; `type(value).__name__` names it (for log lines)",
    "issubclass": "test a value with `isinstance(value, T)`",
    "object": _NO_CLASSES,
    "super": _NO_CLASSES,
    "property": _NO_CLASSES,
    "staticmethod": _NO_CLASSES,
    "classmethod": _NO_CLASSES,
    "__build_class__": _NO_CLASSES,
    "memoryview": _NOT_TEXT,
    "bytes": _NOT_TEXT,
    "bytearray": _NOT_TEXT,
    "complex": "JSON has no complex numbers; use two floats",
    "aiter": _NO_ASYNC_ITERATORS,
    "anext": _NO_ASYNC_ITERATORS,
    "breakpoint": "use `log()` to trace a run",
    "exit": _FINISH,
    "quit": _FINISH,
    "help": "the language is described by `dwfc guide`; rules by `dwfc explain DWFnnn`",
    "copyright": _SHELL_ONLY,
    "credits": _SHELL_ONLY,
    "license": _SHELL_ONLY,
    "Ellipsis": "use `None` as a placeholder",
    "NotImplemented": "return a value, or raise an error saying what is missing",
    "__debug__": "DWF has no debug mode; use a run argument to switch behaviour",
    "__name__": "a DWF script runs top to bottom: drop the `if __name__ == \"__main__\":` guard",
    "__file__": "the workspace is the folder the run works in: use workspace-relative paths with `files.*`",
}
# The CPython 3.11 exception types DWF never raises, with what to catch or write instead.
NOT_OFFERED_EXCEPTIONS: dict[str, str] = {
    "OSError": _WORLD_ERROR,
    "IOError": _WORLD_ERROR,
    "EnvironmentError": _WORLD_ERROR,
    "FileNotFoundError": "a missing file makes `files.read` raise `WorldError`: catch `except WorldError`, "
                         "or test first with `await files.glob(path)`",
    "FileExistsError": _WORLD_ERROR,
    "PermissionError": _WORLD_ERROR,
    "IsADirectoryError": _WORLD_ERROR,
    "NotADirectoryError": _WORLD_ERROR,
    "BlockingIOError": _WORLD_ERROR,
    "ChildProcessError": "a failing command is a normal result: test `result.exit_code`; a command that "
                         "cannot start raises `WorldError`",
    "ProcessLookupError": _WORLD_ERROR,
    "InterruptedError": _WORLD_ERROR,
    "ConnectionError": "scripts have no network access; ask an agent to fetch what you need",
    "ConnectionAbortedError": "scripts have no network access; ask an agent to fetch what you need",
    "ConnectionRefusedError": "scripts have no network access; ask an agent to fetch what you need",
    "ConnectionResetError": "scripts have no network access; ask an agent to fetch what you need",
    "BrokenPipeError": "scripts have no pipes; commands run through `world.run`",
    "EOFError": "a run has no terminal input: declare run arguments in `meta[\"args\"]`",
    "ImportError": "imports are checked before the run starts, so there is nothing to catch",
    "ModuleNotFoundError": "imports are checked before the run starts, so there is nothing to catch",
    "SyntaxError": f"{_NO_GENERATED_CODE}; `json.loads` raises `ValueError` on bad JSON",
    "IndentationError": _NO_GENERATED_CODE,
    "TabError": _NO_GENERATED_CODE,
    "UnicodeError": _UNICODE,
    "UnicodeDecodeError": _UNICODE,
    "UnicodeEncodeError": _UNICODE,
    "UnicodeTranslateError": _UNICODE,
    "SystemExit": _FINISH,
    "KeyboardInterrupt": "a run is stopped by cancelling it, which scripts cannot catch",
    "GeneratorExit": "DWF has no generators; build and return a list",
    "StopAsyncIteration": _NO_ASYNC_ITERATORS,
    "MemoryError": _FATAL,
    "BufferError": _FATAL,
    "ReferenceError": _FATAL,
    "SystemError": _FATAL,
    "FloatingPointError": "float errors raise `ZeroDivisionError` or `OverflowError`, or give `inf`/`nan`",
    "ExceptionGroup": "`gather` raises the first failure, and `parallel` turns failures into `None`",
    "BaseExceptionGroup": "`gather` raises the first failure, and `parallel` turns failures into `None`",
    **{warning: _NO_WARNINGS for warning in (
        "Warning", "UserWarning", "DeprecationWarning", "PendingDeprecationWarning", "SyntaxWarning",
        "RuntimeWarning", "FutureWarning", "ImportWarning", "UnicodeWarning", "BytesWarning",
        "ResourceWarning", "EncodingWarning")},
}

# Modules that observe time, randomness or the environment, with the reason and what to do.
NONDETERMINISTIC_MODULES: dict[str, tuple[str, str]] = {
    "time": ("clocks differ between a run and its replay", "pass times in as run arguments, or ask a sub-agent"),
    "datetime": ("clocks differ between a run and its replay", "pass dates in as run arguments (`args`), or ask a sub-agent"),
    "random": ("random choices differ between a run and its replay", "derive choices from the data (e.g. sort, or index by position)"),
    "secrets": ("random values differ between a run and its replay", "derive values from the data, e.g. f\"{name}-{index}\""),
    "uuid": ("generated ids differ between a run and its replay", "build ids from the data, e.g. f\"{name}-{index}\""),
    "os": ("it reaches the environment and the file system directly",
           "use `files.*`, `git.*` and `world.run(...)`, which are journaled; paths are plain strings"),
    "sys": ("it reaches the interpreter and the environment", "use `args` for inputs and `log()` for output"),
    "subprocess": ("commands must be approved and journaled", "use `await world.run(\"cmd\", [args])`"),
    "socket": ("network access is not journaled", "ask a sub-agent to fetch what you need"),
    "asyncio": ("scheduling belongs to the DWF engine", "use `parallel`, `gather` or `pipeline`"),
    "threading": ("scheduling belongs to the DWF engine", "use `parallel`, `gather` or `pipeline`"),
    "multiprocessing": ("scheduling belongs to the DWF engine", "use `parallel`, `gather` or `pipeline`"),
    "concurrent": ("scheduling belongs to the DWF engine", "use `parallel`, `gather` or `pipeline`"),
}

# Other modules a script might import that DWF does not offer, with what to write instead. A
# dotted name (`os.path`) is looked up before its parent.
_ASK_TO_CONVERT = "ask an agent to convert it to JSON, then parse it with `json.loads`"
_NETWORK = "scripts have no network access (it is not journaled): ask an agent to fetch what you need"
_INTERNALS = "it reaches interpreter internals; work with plain values"
_ARCHIVES = "scripts work with text; ask an agent to pack or unpack archives"
_ENCODED = "DWF works with text; ask an agent if you need encoded data"
_NUMBERS = "use `int` and `float` with `round(x, 2)` and `math`"
_RUN_TESTS = "run the tests with `await world.run(\"pytest\", [...])`"
NOT_OFFERED_MODULES: dict[str, str] = {
    "pathlib": "list workspace files with `await files.glob(\"src/**/*.py\")` and read them with "
               "`await files.read(path)`; paths are plain strings",
    "os.path": "paths are plain strings: `path.rsplit(\"/\", 1)[-1]` is the file name, f\"{folder}/{name}\" "
               "joins; `await files.glob(pattern)` finds files",
    "glob": "list workspace files with `await files.glob(\"**/*.py\")`",
    "fnmatch": "list matching files with `await files.glob(pattern)`, or test names with `str.endswith` or `re`",
    "shutil": "scripts cannot change the workspace; ask an agent to move, copy or delete files",
    "tempfile": "scripts cannot write files; publish results with `artifact.markdown(...)`, or ask an agent",
    "io": "work with `str` values; `files.read` returns text",
    "logging": "use `log(message)` to show progress",
    "warnings": "use `log(message)` to note a problem",
    "argparse": "declare run arguments in `meta[\"args\"]` and read them as `args[\"name\"]`",
    "optparse": "declare run arguments in `meta[\"args\"]` and read them as `args[\"name\"]`",
    "getopt": "declare run arguments in `meta[\"args\"]` and read them as `args[\"name\"]`",
    "shlex": "there is no shell: pass the command's arguments as a list, `world.run(\"git\", [\"log\", \"-1\"])`",
    "copy": "copy a list with `list(xs)` or `xs.copy()`, a dict with `d.copy()`; deep-copy JSON data with "
            "`json.loads(json.dumps(x))` or a comprehension",
    "dataclasses": "describe a record shape as a `TypedDict` (`class Finding(TypedDict): ...`) and build plain dicts",
    "attrs": "describe a record shape as a `TypedDict` (`class Finding(TypedDict): ...`) and build plain dicts",
    "pydantic": "describe the result shape as a `TypedDict`: `returns=` validates ask results against it",
    "enum": "use string constants, or a `Literal[\"low\", \"high\"]` type in result shapes",
    "typing_extensions": "import the names from `typing` (`from typing import TypedDict, Literal`)",
    "abc": _NO_CLASSES,
    "types": _INTERNALS,
    "inspect": _INTERNALS,
    "importlib": _INTERNALS,
    "builtins": _INTERNALS,
    "gc": _INTERNALS,
    "weakref": _INTERNALS,
    "ctypes": _INTERNALS,
    "dis": _INTERNALS,
    "ast": _INTERNALS,
    "traceback": "an uncaught error is reported with its script line; in `except Exception as e:` log `str(e)`",
    "pprint": "format with `json.dumps(value, indent=2)` and show it with `log()`",
    "hashlib": "compare values directly, or build keys from the data (f\"{path}:{line}\")",
    "hmac": "compare values directly, or build keys from the data (f\"{path}:{line}\")",
    "base64": _ENCODED,
    "binascii": _ENCODED,
    "codecs": _ENCODED,
    "struct": _ENCODED,
    "zlib": _ARCHIVES,
    "gzip": _ARCHIVES,
    "bz2": _ARCHIVES,
    "lzma": _ARCHIVES,
    "zipfile": _ARCHIVES,
    "tarfile": _ARCHIVES,
    "csv": "split the lines yourself (`[line.split(\",\") for line in text.splitlines()]`), or " + _ASK_TO_CONVERT,
    "yaml": _ASK_TO_CONVERT,
    "toml": _ASK_TO_CONVERT,
    "tomllib": _ASK_TO_CONVERT,
    "configparser": _ASK_TO_CONVERT,
    "xml": _ASK_TO_CONVERT,
    "html": "escape text with `str.replace`, or ask an agent to read HTML",
    "pickle": "DWF values are JSON data: use `json.dumps` and `json.loads`",
    "shelve": "DWF values are JSON data: use `json.dumps` and `json.loads`",
    "marshal": "DWF values are JSON data: use `json.dumps` and `json.loads`",
    "sqlite3": "keep data in lists and dicts, or ask an agent to query the database",
    "operator": "use a `lambda`, e.g. `sorted(xs, key=lambda x: x[\"score\"])`",
    "heapq": "sort instead: `sorted(xs)[:k]`, or `min`/`max` with `key=`",
    "bisect": "use `sorted`, a loop, or `min`/`max` with `key=`",
    "array": "use a list",
    "fractions": _NUMBERS,
    "decimal": _NUMBERS,
    "numbers": "test numbers with `isinstance(x, (int, float))`",
    "numpy": "use lists with `sum`, `min`, `max` and `math`, or ask an agent to analyse large data",
    "pandas": "use lists of dicts with comprehensions and `sorted`, or ask an agent to analyse large data",
    "requests": _NETWORK,
    "httpx": _NETWORK,
    "aiohttp": _NETWORK,
    "urllib": _NETWORK,
    "http": _NETWORK,
    "ftplib": _NETWORK,
    "smtplib": _NETWORK,
    "email": "ask an agent to read or write email",
    "webbrowser": _NETWORK,
    "contextlib": "DWF has no `with` blocks: use `try`/`finally`",
    "signal": "a run is stopped by cancelling it; scripts cannot handle signals",
    "platform": "it reads the machine the run happens on; pass what you need as a run argument",
    "getpass": "a run has no terminal: declare a run argument in `meta[\"args\"]`",
    "locale": "it reads the machine the run happens on; pass what you need as a run argument",
    "calendar": "pass dates in as run arguments, or ask an agent",
    "zoneinfo": "pass dates in as run arguments, or ask an agent",
    "unittest": _RUN_TESTS,
    "pytest": _RUN_TESTS,
    "doctest": _RUN_TESTS,
    "unicodedata": "work with `str` methods such as `str.isalpha()` and `str.casefold()`",
}

# Names a script uses bare that come from a module DWF does not offer: (module, what to write).
NOT_OFFERED_NAMES: dict[str, tuple[str, str]] = {
    "Path": ("pathlib", NOT_OFFERED_MODULES["pathlib"]),
    "PurePath": ("pathlib", NOT_OFFERED_MODULES["pathlib"]),
    "dataclass": ("dataclasses", NOT_OFFERED_MODULES["dataclasses"]),
    "deepcopy": ("copy", NOT_OFFERED_MODULES["copy"]),
    "Enum": ("enum", NOT_OFFERED_MODULES["enum"]),
    "sleep": ("time", "the engine schedules the work: there is nothing to wait for"),
    "randint": ("random", NONDETERMINISTIC_MODULES["random"][1]),
    "choice": ("random", NONDETERMINISTIC_MODULES["random"][1]),
    "shuffle": ("random", NONDETERMINISTIC_MODULES["random"][1]),
    "uuid4": ("uuid", NONDETERMINISTIC_MODULES["uuid"][1]),
    "timedelta": ("datetime", NONDETERMINISTIC_MODULES["datetime"][1]),
    "getenv": ("os", "declare a run argument in `meta[\"args\"]` and read it as `args[\"name\"]`"),
    "environ": ("os", "declare a run argument in `meta[\"args\"]` and read it as `args[\"name\"]`"),
    "run": ("subprocess", NONDETERMINISTIC_MODULES["subprocess"][1]),
    "partial": ("functools", "use a `lambda`: `lambda x: f(x, 2)`"),
    "lru_cache": ("functools", "keep computed results in a dict"),
    "wraps": ("functools", "DWF has no decorators: call the helper explicitly"),
    "itemgetter": ("operator", NOT_OFFERED_MODULES["operator"]),
    "attrgetter": ("operator", NOT_OFFERED_MODULES["operator"]),
    "pprint": ("pprint", NOT_OFFERED_MODULES["pprint"]),
}

# What `from typing import ...` may name. The first seven build result types; the rest are for
# annotations as models write them (`List[X]`, `Dict[str, X]`, `Tuple[X, ...]` also build
# result types, exactly as `list[X]` and so on; `Any`, `Callable`, `Set`, `FrozenSet`,
# `Iterable`, `Sequence` and `Mapping` are refused inside result types with a hint).
# `from __future__ import annotations` is accepted and changes nothing: DWF never evaluates
# annotations at run time anyway.
FUTURE_FEATURES: tuple[str, ...] = ("annotations",)
TYPING_NAMES: tuple[str, ...] = (
    "TypedDict", "Literal", "NotRequired", "Required", "Optional", "Union", "Annotated",
    "List", "Dict", "Tuple", "Set", "FrozenSet", "Any", "Callable", "Iterable", "Sequence", "Mapping",
)

# Importable modules and the members a script may use.
MODULES: dict[str, tuple[str, ...]] = {
    "json": ("dumps", "loads", "JSONDecodeError"),
    "re": ("compile", "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split", "escape",
           "error", "IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII", "UNICODE", "NOFLAG",
           "I", "M", "S", "X", "A", "U"),
    "math": (
        "ceil", "floor", "trunc", "sqrt", "isqrt", "exp", "log", "log2", "log10", "pow",
        "fabs", "fsum", "gcd", "lcm", "isfinite", "isinf", "isnan", "isclose", "copysign",
        "fmod", "modf", "comb", "perm", "factorial", "prod", "dist", "hypot",
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
        "degrees", "radians", "pi", "e", "tau", "inf", "nan",
    ),
    # The pure standard modules (runtime/interpreter/collections_module.py, itertools_module.py,
    # stdlib_modules.py): lazy where CPython is lazy, bounded by the run's limits.
    "collections": ("Counter", "defaultdict", "OrderedDict", "deque", "namedtuple"),
    "itertools": (
        "chain", "islice", "groupby", "product", "combinations", "combinations_with_replacement",
        "permutations", "zip_longest", "accumulate", "pairwise", "batched", "count", "cycle", "repeat",
        "starmap", "takewhile", "dropwhile", "filterfalse", "compress",
    ),
    "functools": ("reduce",),
    "statistics": ("mean", "fmean", "median", "median_low", "median_high", "mode", "multimode",
                   "stdev", "pstdev", "variance", "pvariance", "quantiles", "StatisticsError"),
    "string": ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits", "octdigits",
               "punctuation", "whitespace", "printable", "capwords"),
    "textwrap": ("dedent", "indent", "shorten", "wrap", "fill"),
    "difflib": ("unified_diff", "get_close_matches"),
}
# Members of the allowed modules that DWF refuses on purpose, with what to write instead
# (DWF211): they hand out live interpreter objects, walk attributes, or share hidden state.
REFUSED_MODULE_MEMBERS: dict[str, str] = {
    "collections.abc": "test the value itself: `isinstance(value, (list, tuple))`, `isinstance(value, dict)`",
    "collections.ChainMap": "merge the dicts: `{**defaults, **overrides}`",
    "collections.UserDict": "use a plain dict",
    "collections.UserList": "use a plain list",
    "collections.UserString": "use a plain str",
    "functools.partial": "write a lambda: `lambda x: f(x, 2)`",
    "functools.partialmethod": "write a lambda",
    "functools.lru_cache": "keep a dict of computed results: `cache.setdefault(key, compute(key))`",
    "functools.cache": "keep a dict of computed results: `cache.setdefault(key, compute(key))`",
    "functools.cached_property": "DWF has no classes with methods; use a dict",
    "functools.wraps": "DWF has no decorators",
    "functools.total_ordering": "DWF has no classes with methods; sort with `key=`",
    "functools.cmp_to_key": "sort with `key=` returning a tuple, e.g. `key=lambda f: (f[\"severity\"], f[\"path\"])`",
    "functools.singledispatch": "branch on `isinstance(value, ...)`",
    "itertools.tee": "materialize the items once with `list(...)` and iterate the list twice",
    "string.Template": "use an f-string: `f\"Hello {name}\"`",
    "string.Formatter": "use an f-string",
    "difflib.HtmlDiff": "use `difflib.unified_diff` and report the text",
    "difflib.context_diff": "use `difflib.unified_diff(a, b)`",
    "difflib.Differ": "use `difflib.unified_diff(a, b)`",
    "difflib.ndiff": "use `difflib.unified_diff(a, b)` (ndiff compares every pair of changed lines: unbounded work)",
    "difflib.SequenceMatcher": "use `difflib.get_close_matches(word, candidates)` or `difflib.unified_diff(a, b)`",
    "statistics.NormalDist": "compute with `statistics.mean` and `statistics.stdev`",
    "textwrap.TextWrapper": "call `textwrap.wrap(text, width=...)` or `textwrap.fill(...)` with keyword options",
}
# Members of a compiled regular expression (`re.compile(...)`) and of a match object.
PATTERN_METHODS: tuple[str, ...] = (
    "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split",
    "pattern", "flags", "groups", "groupindex",
)
MATCH_METHODS: tuple[str, ...] = (
    "group", "groups", "groupdict", "start", "end", "span", "expand",
    "lastindex", "lastgroup", "pos", "endpos", "re", "string",
)
# Members of the values the standard modules make (runtime/interpreter/collections_module.py, ...).
COUNTER_METHODS: tuple[str, ...] = (
    "clear", "copy", "elements", "get", "items", "keys", "most_common", "pop", "popitem", "setdefault",
    "subtract", "total", "update", "values",
)
DEFAULTDICT_METHODS: tuple[str, ...] = (
    "clear", "copy", "default_factory", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values",
)
ORDEREDDICT_METHODS: tuple[str, ...] = (
    "clear", "copy", "get", "items", "keys", "move_to_end", "pop", "popitem", "setdefault", "update", "values",
)
DEQUE_METHODS: tuple[str, ...] = (
    "append", "appendleft", "clear", "copy", "count", "extend", "extendleft", "index", "insert", "maxlen",
    "pop", "popleft", "remove", "reverse", "rotate",
)
NAMEDTUPLE_METHODS: tuple[str, ...] = ("_asdict", "_replace", "_fields", "count", "index")
NAMEDTUPLE_TYPE_MEMBERS: tuple[str, ...] = ("_fields", "_make", "_field_defaults")

STR_METHODS: tuple[str, ...] = (
    "capitalize", "casefold", "center", "count", "endswith", "expandtabs", "find", "index",
    "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
    "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower",
    "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex",
    "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip",
    "swapcase", "title", "upper", "zfill", "translate", "maketrans",
)
LIST_METHODS: tuple[str, ...] = (
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove",
    "reverse", "sort",
)
DICT_METHODS: tuple[str, ...] = (
    "clear", "copy", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values",
    "fromkeys",
)
SET_METHODS: tuple[str, ...] = (
    "add", "clear", "copy", "difference", "difference_update", "discard", "intersection",
    "intersection_update", "isdisjoint", "issubset", "issuperset", "pop", "remove",
    "symmetric_difference", "symmetric_difference_update", "union", "update",
)
FROZENSET_METHODS: tuple[str, ...] = (
    "copy", "difference", "intersection", "isdisjoint", "issubset", "issuperset",
    "symmetric_difference", "union",
)
TUPLE_METHODS: tuple[str, ...] = ("count", "index")
RANGE_METHODS: tuple[str, ...] = ("count", "index", "start", "stop", "step")
SLICE_METHODS: tuple[str, ...] = ("indices", "start", "stop", "step")
INT_METHODS: tuple[str, ...] = ("bit_length", "bit_count", "conjugate", "real", "imag", "numerator", "denominator")
FLOAT_METHODS: tuple[str, ...] = ("is_integer", "conjugate", "real", "imag")

METHODS: dict[str, tuple[str, ...]] = {
    "str": STR_METHODS,
    "list": LIST_METHODS,
    "dict": DICT_METHODS,
    "set": SET_METHODS,
    "frozenset": FROZENSET_METHODS,
    "tuple": TUPLE_METHODS,
    "range": RANGE_METHODS,
    "slice": SLICE_METHODS,
    "int": INT_METHODS,
    "float": FLOAT_METHODS,
    "re.Pattern": PATTERN_METHODS,
    "re.Match": MATCH_METHODS,
    "Counter": COUNTER_METHODS,
    "defaultdict": DEFAULTDICT_METHODS,
    "OrderedDict": ORDEREDDICT_METHODS,
    "deque": DEQUE_METHODS,
    "namedtuple": NAMEDTUPLE_METHODS,
    # The live views dict.keys()/values()/items() return (runtime/values/views.py).
    "dict_keys": ("isdisjoint",),
    "dict_values": (),
    "dict_items": ("isdisjoint",),
}
# The dict methods that change their receiver: what the read-only `args` mapping refuses (the
# compiler's `DWF209` args-read-only and the runtime's `ReadOnlyMapping` and sandbox).
DICT_MUTATING_METHODS: frozenset[str] = frozenset({"clear", "pop", "popitem", "setdefault", "update"})
# The methods of list, dict and set that change their receiver: a name one of them is called on
# is not a constant (the module-constant analyses over the CST and the IR) and its value changes
# (kind inference).
MUTATING_METHODS: frozenset[str] = DICT_MUTATING_METHODS | frozenset({
    "append", "extend", "insert", "remove", "sort", "reverse", "add", "discard",
    "difference_update", "intersection_update", "symmetric_difference_update",
})
# Members of METHODS that are data read from a value, not methods: `x.real`, `r.start`. A type
# name with one of them (`int.real`) is not a function value.
VALUE_ATTRIBUTES: frozenset[str] = frozenset({"real", "imag", "numerator", "denominator", "start", "stop", "step"})
# Methods that belong to the type rather than to a value: `dict.fromkeys(keys)`, `str.maketrans(...)`
# (reached through a value too, as in CPython: `{}.fromkeys(keys)`).
TYPE_LEVEL_METHODS: frozenset[str] = frozenset({"fromkeys", "maketrans"})
# Attributes that are never allowed, with the hint: they turn data into a sandbox escape.
FORBIDDEN_METHODS: dict[str, str] = {"format": "str-format", "format_map": "str-format"}

# Attributes models reach for that a value does not have, by receiver kind (`str`, `list`, ...,
# a record type or `Agent`): an attribute name the receiver has (shown as "did you mean `x`?")
# or the help to give, where `{text}` stands for the receiver's source text. difflib alone
# finds none of these.
_IN = "test membership with `in`: `x in {text}`"
_LEN = "use `len({text})`"
_NO_DECODE = "it is already text (`str`): use it directly"
_KEY_IN = "test membership with `in`: `key in {text}`"
MISTAKEN_ATTRIBUTES: dict[str, dict[str, str]] = {
    "str": {
        "contains": _IN, "includes": _IN,
        "has": _IN, "trim": "strip", "ltrim": "lstrip", "rtrim": "rstrip",
        "decode": _NO_DECODE, "encode": "DWF works with text: use the `str` itself",
        "length": _LEN, "len": _LEN, "size": _LEN, "lowercase": "lower", "uppercase": "upper",
        "toLowerCase": "lower", "toUpperCase": "upper", "to_lower": "lower", "to_upper": "upper",
        "startsWith": "startswith", "endsWith": "endswith", "starts_with": "startswith",
        "ends_with": "endswith", "indexOf": "find", "index_of": "find", "lines": "splitlines",
        "split_lines": "splitlines", "substring": "slice it: `{text}[start:end]`",
        "substr": "slice it: `{text}[start:end]`", "charAt": "index it: `{text}[i]`",
        "reverse": "slice it: `{text}[::-1]`", "reversed": "slice it: `{text}[::-1]`",
        "isEmpty": "test `not {text}`", "is_empty": "test `not {text}`", "append": "concatenate: `{text} + more`",
        "search": "use `re.search(pattern, {text})`", "match": "use `re.match(pattern, {text})`",
        "matches": "use `re.fullmatch(pattern, {text})`", "findall": "use `re.findall(pattern, {text})`",
        "sub": "use `re.sub(pattern, replacement, {text})`", "replaceAll": "replace", "replace_all": "replace",
        "to_json": "use `json.dumps({text})`", "json": "use `json.loads({text})`",
    },
    "list": {
        "push": "append", "add": "append", "append_all": "extend", "add_all": "extend",
        "addAll": "extend", "push_all": "extend", "concat": "concatenate with `+`, or `{text}.extend(more)`",
        "length": _LEN, "len": _LEN, "size": _LEN,
        "contains": _IN, "includes": _IN,
        "has": _IN, "indexOf": "index", "index_of": "index", "find": "index",
        "join": "join from the separator: `\", \".join({text})`", "map": "use a comprehension: `[f(x) for x in {text}]`",
        "filter": "use a comprehension: `[x for x in {text} if ok(x)]`", "sorted": "sort",
        "sum": "use `sum({text})`", "min": "use `min({text})`", "max": "use `max({text})`",
        "first": "index it: `{text}[0]`", "last": "index it: `{text}[-1]`", "isEmpty": "test `not {text}`",
        "is_empty": "test `not {text}`", "unshift": "use `{text}.insert(0, x)`", "shift": "use `{text}.pop(0)`",
        "delete": "remove", "discard": "remove", "get": "index it: `{text}[i]`",
        "split": "a list is already split; join it with `\" \".join({text})` first",
        "strip": "strip each item: `[x.strip() for x in {text}]`", "splitlines": "it is already a list of lines",
        "lower": "lower each item: `[x.lower() for x in {text}]`", "keys": "a list has no keys; iterate it with `enumerate({text})`",
        "items": "a list has no keys; iterate it with `enumerate({text})`", "values": "iterate the list itself",
    },
    "dict": {
        "has_key": _KEY_IN, "contains": _KEY_IN,
        "containsKey": _KEY_IN, "has": _KEY_IN,
        "includes": _KEY_IN, "iteritems": "items", "iterkeys": "keys",
        "itervalues": "values", "length": _LEN, "len": _LEN, "size": _LEN,
        "add": "assign by key: `{text}[key] = value`", "put": "assign by key: `{text}[key] = value`",
        "set": "assign by key: `{text}[key] = value`", "append": "assign by key: `{text}[key] = value`",
        "remove": "pop", "delete": "pop", "getOrDefault": "get", "get_or_default": "get",
        "merge": "update", "to_dict": "it is already a dict", "dict": "it is already a dict",
        "sort": "sort its items: `sorted({text}.items())`", "sorted": "sort its items: `sorted({text}.items())`",
    },
    "set": {
        "append": "add", "push": "add", "extend": "update", "add_all": "update",
        "contains": _IN, "has": _IN,
        "includes": _IN, "length": _LEN, "len": _LEN, "size": _LEN,
        "sort": "sort a copy: `sorted({text})`", "index": "a set has no order to index; use `sorted({text})`",
    },
    "tuple": {
        "append": "tuples cannot change: build a list, or a new tuple with `{text} + (x,)`",
        "length": _LEN, "len": _LEN, "size": _LEN,
    },
    "int": {"to_string": "use `str({text})`", "toString": "use `str({text})`", "round": "use `round({text})`"},
    "float": {"to_string": "use `str({text})`", "toString": "use `str({text})`", "round": "use `round({text}, 2)`"},
    "RunResult": {
        "returncode": "exit_code", "return_code": "exit_code", "exitcode": "exit_code", "exit_status": "exit_code",
        "status": "exit_code", "code": "exit_code", "rc": "exit_code", "exit": "exit_code",
        "output": "stdout", "out": "stdout", "text": "stdout", "err": "stderr", "error": "stderr",
        "errors": "stderr", "ok": "test `{text}.exit_code == 0`", "success": "test `{text}.exit_code == 0`",
        "succeeded": "test `{text}.exit_code == 0`", "failed": "test `{text}.exit_code != 0`",
        "check_returncode": "test `{text}.exit_code != 0` and `raise` yourself",
    },
    "GrepMatch": {
        "lineno": "line", "line_number": "line", "linenum": "line", "line_no": "line", "lineNumber": "line",
        "number": "line", "row": "line", "file": "path", "filename": "path", "filepath": "path",
        "file_path": "path", "name": "path", "content": "text", "contents": "text", "match": "text",
        "matched": "text", "snippet": "text", "line_text": "text", "string": "text",
    },
    "GitStatus": {
        "is_clean": "clean", "isClean": "clean", "dirty": "test `not {text}.clean`", "is_dirty": "test `not {text}.clean`",
        "modified": "unstaged", "changed": "unstaged", "added": "staged", "new": "untracked",
        "current_branch": "branch", "head": "branch",
    },
    "GitCommit": {
        "sha": "hash", "hexsha": "hash", "commit": "hash", "id": "hash", "rev": "hash",
        "message": "subject", "msg": "subject", "title": "subject", "summary": "subject",
        "author_name": "author", "committer": "author", "timestamp": "date", "time": "date",
        "when": "date", "authored_date": "date", "committed_date": "date",
    },
    "ArtifactRef": {"name": "id", "artifact_id": "id", "rev": "version", "revision": "version"},
    "Agent": {
        "id": "name", "agent_name": "name", "run": "ask", "send": "ask", "chat": "ask", "query": "ask",
        "prompt": "ask", "call": "ask", "complete": "ask", "invoke": "ask", "tell": "ask",
    },
}
