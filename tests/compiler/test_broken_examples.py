"""`examples/broken/` holds typical model mistakes; each carries its expected diagnostics inline
(`# error: DWF301:8`, the same syntax as the rule fixtures), compared as an exact set."""

import pytest
from conftest import BROKEN_EXAMPLES, relative
from expectations import actual_diagnostics, compare, parse_expectations

from dwf.compiler.compile import compile_source


@pytest.mark.parametrize("path", BROKEN_EXAMPLES, ids=lambda p: p.name.removesuffix(".dwf.py"))
def test_broken_example_reports_exactly_its_mistake(path):
    text = path.read_text(encoding="utf-8")
    expected = parse_expectations(text)
    assert expected, f"{path.name} declares no expected diagnostic"
    result = compile_source(text, relative(path))
    assert result.program is None
    problem = compare(expected, actual_diagnostics(result), text.splitlines())
    assert problem is None, problem


def test_there_are_enough_broken_examples():
    assert len(BROKEN_EXAMPLES) >= 10
