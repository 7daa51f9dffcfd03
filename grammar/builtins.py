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

# Builtins DWF removes, with what to write instead.
FORBIDDEN_BUILTINS: dict[str, str] = {
    "print": "use `log(message)` to show progress",
    "exec": "DWF scripts cannot run generated code",
    "eval": "DWF scripts cannot run generated code; parse data with `json.loads`",
    "compile": "DWF scripts cannot run generated code",
    "open": "read workspace files with `await files.read(path)`",
    "input": "ask the run's owner through an agent's escalation, or declare a run argument in `meta[\"args\"]`",
    "__import__": "import one of the allowed modules at the top of the script (`import json`, `from collections import Counter`)",
    "globals": "use variables directly",
    "locals": "use variables directly",
    "vars": "use variables directly",
    "dir": "the attributes a value offers are documented; use them directly",
    "getattr": "access attributes directly (`value.name`) or use a dict",
    "setattr": "use a dict and assign by subscript",
    "delattr": "use a dict and `del d[key]`",
    "hasattr": "use a dict and `key in d`",
    "id": "object identity differs between runs; compare values instead",
    "hash": "string hashes differ between runs; compare values instead",
    "type": "use `isinstance(value, list)` to test a type; `type(value).__name__` is allowed and names it",
    "OSError": "DWF scripts make no OS calls: world reads and commands raise `WorldError`; `TimeoutError` is available",
    "object": "use dicts and lists for data",
    "super": "DWF has no classes with methods",
    "memoryview": "DWF works with text and JSON data",
    "breakpoint": "use `log()` to trace a run",
    "exit": "use `return` to finish the workflow, or `raise` to fail it",
    "quit": "use `return` to finish the workflow, or `raise` to fail it",
    "help": "see `dwfc explain` and the language reference",
}

# Modules that observe time, randomness or the environment, with the reason and what to do.
NONDETERMINISTIC_MODULES: dict[str, tuple[str, str]] = {
    "time": ("clocks differ between a run and its replay", "pass times in as run arguments, or ask a sub-agent"),
    "datetime": ("clocks differ between a run and its replay", "pass dates in as run arguments (`args`), or ask a sub-agent"),
    "random": ("random choices differ between a run and its replay", "derive choices from the data (e.g. sort, or index by position)"),
    "uuid": ("generated ids differ between a run and its replay", "build ids from the data, e.g. f\"{name}-{index}\""),
    "os": ("it reaches the environment and the file system directly", "use `files.*`, `git.*` and `world.run(...)`, which are journaled"),
    "sys": ("it reaches the interpreter and the environment", "use `args` for inputs and `log()` for output"),
    "subprocess": ("commands must be approved and journaled", "use `await world.run(\"cmd\", [args])`"),
    "socket": ("network access is not journaled", "ask a sub-agent to fetch what you need"),
    "asyncio": ("scheduling belongs to the DWF engine", "use `parallel`, `gather` or `pipeline`"),
    "threading": ("scheduling belongs to the DWF engine", "use `parallel`, `gather` or `pipeline`"),
}

# What `from typing import ...` may name. The first seven build result types; the rest are for
# annotations as models write them (`List[X]`, `Dict[str, X]`, `Tuple[X, ...]` also build
# result types, exactly as `list[X]` and so on; `Any`, `Callable`, `Set`, `FrozenSet`,
# `Iterable`, `Sequence` and `Mapping` are refused inside result types with a hint).
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
    # The pure standard modules (runtime/collections_module.py, itertools_module.py,
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
# Members of the values the standard modules make (runtime/collections_module.py, ...).
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
}
# Members of METHODS that are data read from a value, not methods: `x.real`, `r.start`. A type
# name with one of them (`int.real`) is not a function value.
VALUE_ATTRIBUTES: frozenset[str] = frozenset({"real", "imag", "numerator", "denominator", "start", "stop", "step"})
# Methods that belong to the type rather than to a value: `dict.fromkeys(keys)`, `str.maketrans(...)`
# (reached through a value too, as in CPython: `{}.fromkeys(keys)`).
TYPE_LEVEL_METHODS: frozenset[str] = frozenset({"fromkeys", "maketrans"})
# Attributes that are never allowed, with the hint: they turn data into a sandbox escape.
FORBIDDEN_METHODS: dict[str, str] = {"format": "str-format", "format_map": "str-format"}
