"""The tables of what DWF does not offer (`grammar/builtins.py`) are complete and consistent:
every CPython 3.11 builtin is offered or has its own replacement hint, no offered module or
builtin is listed as not offered, and each entry reaches the user as "DWF does not offer `X`"
with its hint (never a typo hint to an unrelated name, never "pass it in through `args`")."""

from __future__ import annotations

import builtins

import pytest

from dwf.compiler.compile import compile_source
from dwf.grammar import builtins as B

META = 'meta = {"name": "not-offered", "description": "A use of something DWF does not offer."}\n'
# Builtins and modules that other parts of issue #11 add to the language, so they must never be
# reported as not offered (once merged they are in `B.BUILTINS` / `B.MODULES`).
OFFERED_ELSEWHERE_BUILTINS = frozenset({
    "format", "next", "iter", "frozenset", "hex", "oct", "bin", "callable", "slice", "ascii",
    "BaseException", "LookupError", "RuntimeError", "NotImplementedError", "AssertionError",
    "AttributeError", "NameError", "UnboundLocalError", "ArithmeticError", "OverflowError",
    "RecursionError", "StopIteration", "TimeoutError",
})
OFFERED_ELSEWHERE_MODULES = frozenset({"collections", "itertools", "functools", "statistics", "string", "textwrap",
                                       "difflib", "json", "re", "math", "typing"})
# Module attributes of `builtins` that are not names a script could mean.
MODULE_DUNDERS = frozenset({"__doc__", "__loader__", "__package__", "__spec__"})
NOT_OFFERED = sorted({**B.FORBIDDEN_BUILTINS, **B.NOT_OFFERED_EXCEPTIONS})
HINTS = {**B.FORBIDDEN_BUILTINS, **B.NOT_OFFERED_EXCEPTIONS}
MODULES = sorted(B.NOT_OFFERED_MODULES)


def test_every_cpython_builtin_is_offered_or_has_a_replacement():
    offered = set(B.BUILTINS) | set(B.BUILTIN_CONSTANTS) | OFFERED_ELSEWHERE_BUILTINS
    missing = sorted(set(dir(builtins)) - offered - set(HINTS) - MODULE_DUNDERS)
    assert not missing, f"no replacement hint for: {missing}"


def test_nothing_offered_is_listed_as_not_offered():
    offered = set(B.BUILTINS) | OFFERED_ELSEWHERE_BUILTINS
    assert not offered & set(HINTS)
    assert not set(B.FORBIDDEN_BUILTINS) & set(B.NOT_OFFERED_EXCEPTIONS)
    modules = set(B.MODULES) | OFFERED_ELSEWHERE_MODULES
    assert not modules & set(B.NOT_OFFERED_MODULES)
    assert not modules & set(B.NONDETERMINISTIC_MODULES)
    assert not set(B.NOT_OFFERED_MODULES) & set(B.NONDETERMINISTIC_MODULES)


def test_hints_never_send_a_builtin_to_args_or_a_class_to_typeddict():
    for name, hint in HINTS.items():
        assert hint and hint == hint.strip() and not hint.endswith(".")
        assert "pass it in through" not in hint, name
        assert "TypedDict" not in hint, name


@pytest.mark.parametrize("name", NOT_OFFERED)
def test_a_builtin_dwf_does_not_offer_is_reported_with_its_hint(name):
    result = compile_source(META + f"value = {name}\nreport(value)\n")
    found = [(d.code, d.message, d.help) for d in result.diagnostics]
    assert found == [("DWF201", f"DWF does not offer `{name}`", HINTS[name])]


@pytest.mark.parametrize("module", MODULES)
def test_a_module_dwf_does_not_offer_is_reported_with_its_hint_imported_or_not(module):
    imported = compile_source(f"import {module}\n" + META)
    code = "DWF204" if module.split(".")[0] in B.NONDETERMINISTIC_MODULES else "DWF205"  # `os.path`
    ((found, message, help),) = [(d.code, d.message, d.help) for d in imported.diagnostics]
    assert (found, help) == (code, B.NOT_OFFERED_MODULES[module])
    assert message.startswith(f"DWF does not offer `{module}`")
    if "." not in module:
        used = compile_source(META + f"value = {module}.thing\nreport(value)\n")
        assert [(d.code, d.help) for d in used.diagnostics] == [("DWF205", B.NOT_OFFERED_MODULES[module])]


@pytest.mark.parametrize("module", sorted(B.NONDETERMINISTIC_MODULES))
def test_a_nondeterministic_module_says_why(module):
    result = compile_source(f"import {module}\n" + META)
    why, hint = B.NONDETERMINISTIC_MODULES[module]
    assert [(d.code, d.message, d.help) for d in result.diagnostics] == [("DWF204", f"DWF does not offer `{module}`: {why}", hint)]


def test_an_unknown_module_lists_what_is_offered():
    result = compile_source("import leftpad\n" + META)
    (diagnostic,) = result.diagnostics
    assert diagnostic.message == "DWF does not offer `leftpad`"
    assert all(f"`{m}`" in diagnostic.help for m in B.MODULES)


@pytest.mark.parametrize("name", ["id", "dir", "hash", "vars", "type", "input"])
def test_a_short_builtin_gets_its_replacement_not_a_typo_hint(name):
    result = compile_source(META + "ids = [1]\ndirs = [2]\nhashes = [3]\nvar = 4\ntypes = 5\ninputs = 6\n"
                            f"value = {name}\nreport([ids, dirs, hashes, var, types, inputs, value])\n")
    (diagnostic,) = result.diagnostics
    assert "did you mean" not in (diagnostic.help or "")


def test_a_typo_of_a_script_name_still_gets_did_you_mean():
    result = compile_source(META + "reviewer = agent(\"r\")\nphase(\"p\")\nx = await reviewr.ask(\"Go.\")\nreport(x)\n")
    assert [(d.code, d.help) for d in result.diagnostics] == [("DWF206", "did you mean `reviewer`?")]
