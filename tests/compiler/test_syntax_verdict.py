"""`grammar/dwf.lark` is the normative statement of DWF's syntax: on every fixture, example and
fuzz case the lark parser and the front end (CPython's `ast`) must agree on whether the text is DWF syntax.

The front end's syntax verdict is "no diagnostic of a syntax code": `DWF001` (not Python) and the
syntax-subset rules the grammar states (`SYNTAX_CODES`). The other `DWF1xx` rules (`DWF106`
placement, `DWF107` `await` context) and all later groups are semantic: the grammar accepts
what they reject, and the verdict ignores them."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, compile_text
from test_fuzz import TOKENS, mutated_example

from dwf.grammar.syntax import DwfSyntaxError, parse_tree

SYNTAX_CODES = frozenset({"DWF001", "DWF101", "DWF102", "DWF103", "DWF104", "DWF105", "DWF108", "DWF109", "DWF110"})
CORPUS = sorted((ROOT / "tests" / "fixtures").rglob("*.dwf.py")) + sorted((ROOT / "examples").rglob("*.dwf.py"))


def front_end_accepts(text: str) -> tuple[bool, list[str]]:
    result = compile_text(text)
    syntax = [f"{d.span.line}:{d.span.column} {d.code} {d.message}" for d in result.diagnostics if d.code in SYNTAX_CODES]
    return not syntax, syntax


def grammar_accepts(text: str) -> tuple[bool, str]:
    try:
        parse_tree(text)
    except DwfSyntaxError as error:
        return False, str(error)
    return True, ""


def assert_same_verdict(text: str) -> None:
    front, why_front = front_end_accepts(text)
    grammar, why_grammar = grammar_accepts(text)
    assert front == grammar, f"front end {'accepts' if front else 'rejects'} ({why_front[:3]}), " \
                             f"grammar {'accepts' if grammar else 'rejects'} ({why_grammar})\n--- text ---\n{text}"


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixtures_and_examples(path: Path):
    assert_same_verdict(path.read_text(encoding="utf-8"))


VERDICT_SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@VERDICT_SETTINGS
@given(mutated_example())
def test_mutated_examples(text):
    assert_same_verdict(text)


@VERDICT_SETTINGS
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_token_soup(tokens):
    assert_same_verdict("".join(tokens))


def test_backslash_starting_a_dedented_line():
    # libcst, the front end until #18, could not parse this; CPython and the grammar accept it.
    assert_same_verdict('def f():\n    return 1\n\\\ndef g():\n    pass\n')
