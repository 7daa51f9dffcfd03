"""This module defines the allow-lists of names and attributes scripts may use: builtins,
exception types, forbidden names and modules (with the hint to give instead), importable
modules and their members, and the methods of each plain value type."""

from __future__ import annotations

BUILTIN_FUNCTIONS: tuple[str, ...] = (
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "int",
    "isinstance", "len", "list", "map", "max", "min", "pow", "range", "repr", "reversed",
    "round", "set", "sorted", "str", "sum", "tuple", "zip", "chr", "ord",
)
EXCEPTION_TYPES: tuple[str, ...] = (
    "Exception", "ValueError", "TypeError", "KeyError", "IndexError", "ZeroDivisionError", "RuntimeError",
    "WorkflowError", "AskFailed", "WorldError", "ArtifactError", "BudgetExceeded",
)
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
    "__import__": "only `json`, `re`, `math` and `typing` can be imported",
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
    "type": "use `isinstance(value, list)` to test a type",
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

TYPING_NAMES: tuple[str, ...] = (
    "TypedDict", "Literal", "NotRequired", "Required", "Optional", "Union", "Annotated",
)

# Importable modules and the members a script may use.
MODULES: dict[str, tuple[str, ...]] = {
    "json": ("dumps", "loads"),
    "re": ("match", "search", "fullmatch", "findall", "sub", "split",
           "IGNORECASE", "MULTILINE", "DOTALL", "I", "M", "S"),
    "math": (
        "ceil", "floor", "trunc", "sqrt", "isqrt", "exp", "log", "log2", "log10", "pow",
        "fabs", "fsum", "gcd", "lcm", "isfinite", "isinf", "isnan", "isclose", "copysign",
        "fmod", "modf", "comb", "perm", "factorial", "prod", "dist", "hypot",
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
        "degrees", "radians", "pi", "e", "tau", "inf", "nan",
    ),
}
# Members of a regular-expression match object.
MATCH_METHODS: tuple[str, ...] = ("group", "groups", "groupdict", "start", "end", "span")

STR_METHODS: tuple[str, ...] = (
    "capitalize", "casefold", "center", "count", "endswith", "expandtabs", "find", "index",
    "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
    "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower",
    "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex",
    "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip",
    "swapcase", "title", "upper", "zfill",
)
LIST_METHODS: tuple[str, ...] = (
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove",
    "reverse", "sort",
)
DICT_METHODS: tuple[str, ...] = (
    "clear", "copy", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values",
)
SET_METHODS: tuple[str, ...] = (
    "add", "clear", "copy", "difference", "difference_update", "discard", "intersection",
    "intersection_update", "isdisjoint", "issubset", "issuperset", "pop", "remove",
    "symmetric_difference", "symmetric_difference_update", "union", "update",
)
TUPLE_METHODS: tuple[str, ...] = ("count", "index")
INT_METHODS: tuple[str, ...] = ("bit_length", "bit_count", "conjugate", "real", "imag", "numerator", "denominator")
FLOAT_METHODS: tuple[str, ...] = ("is_integer", "conjugate", "real", "imag")

METHODS: dict[str, tuple[str, ...]] = {
    "str": STR_METHODS,
    "list": LIST_METHODS,
    "dict": DICT_METHODS,
    "set": SET_METHODS,
    "tuple": TUPLE_METHODS,
    "int": INT_METHODS,
    "float": FLOAT_METHODS,
    "match": MATCH_METHODS,
    # The live views dict.keys()/values()/items() return (runtime/views.py).
    "dict_keys": ("isdisjoint",),
    "dict_values": (),
    "dict_items": ("isdisjoint",),
}
# Attributes that are never allowed, with the hint: they turn data into a sandbox escape.
FORBIDDEN_METHODS: dict[str, str] = {"format": "str-format", "format_map": "str-format"}
