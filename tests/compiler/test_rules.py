"""Rule fixtures: every `tests/fixtures/rules/**/*.dwf.py` is compiled and the exact set of
(line, column, severity, code) it reports must equal the inline expectations it carries (see
`expectations.py` for the syntax); the full rendering of its diagnostics is snapshotted.

Also here: the one rule no text fixture can hold (`DWF002`, a file that is not UTF-8), and the
guard that turns a crashing pass into `DWF901`.
"""

from __future__ import annotations

import pytest

from dwf.compiler import compile as compile_module
from dwf.compiler.compile import compile_bytes, compile_source
from expectations import (
    FIXTURES,
    LATIN1_POSITION,
    LATIN1_SCRIPT,
    ROOT,
    actual_diagnostics,
    all_fixtures,
    compare,
    compile_fixture,
    parse_expectations,
    syntax_fixtures,
)

from dwf.compiler.render import render_full

FIXTURE_IDS = [path.relative_to(FIXTURES).as_posix() for path in all_fixtures()]


@pytest.fixture(autouse=True)
def _stable_environment(monkeypatch):
    # Agent definitions are looked up relative to the working directory and `$DWF_HOME`;
    # fixture paths are relative to the repository root.
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("DWF_HOME", raising=False)


@pytest.mark.parametrize("path", all_fixtures(), ids=FIXTURE_IDS)
def test_fixture_reports_exactly_its_expectations(path):
    text = path.read_text(encoding="utf-8")
    result = compile_fixture(path)
    difference = compare(parse_expectations(text), actual_diagnostics(result), text.splitlines())
    assert difference is None, f"{path.relative_to(ROOT)}:\n{difference}"


@pytest.mark.parametrize("path", all_fixtures(), ids=FIXTURE_IDS)
def test_fixture_rendering(path, snapshot):
    rendered = render_full(compile_fixture(path))
    assert str(ROOT) not in rendered
    assert rendered == snapshot


@pytest.mark.parametrize("path", syntax_fixtures(), ids=[p.name for p in syntax_fixtures()])
def test_syntax_fixture_expects_one_syntax_error(path):
    expected = parse_expectations(path.read_text(encoding="utf-8"))
    assert [e.code for e in expected] == ["DWF001"]


def test_source_not_utf8(tmp_path):
    script = tmp_path / "latin1.dwf.py"
    script.write_bytes(LATIN1_SCRIPT)
    result = compile_bytes(script.read_bytes(), "latin1.dwf.py")
    assert [(d.span.line, d.span.column, d.code) for d in result.diagnostics] == [(*LATIN1_POSITION, "DWF002")]
    assert result.diagnostics[0].message == "The file is not valid UTF-8 (byte 0xe9 at offset 75)"
    assert result.program is None


def test_crashing_pass_becomes_internal_error(monkeypatch):
    def crash(lowerer):
        raise KeyError("boom")

    monkeypatch.setattr(compile_module, "check_script", crash)
    result = compile_source('meta = {"name": "x", "description": "y"}\n', "crash.dwf.py")
    assert [(d.span.line, d.span.column, d.code) for d in result.diagnostics] == [(1, 1, "DWF901")]
    assert "KeyError" in result.diagnostics[0].message
    assert result.program is None


def test_expectation_syntax():
    text = (
        "x = 1  # error: DWF301:5, DWF206:9  # warning: DWF309:1\n"
        '"""\n'
        "# error-above: DWF503:2\n"
    )
    assert sorted(str(e) for e in parse_expectations(text)) == [
        "1:1: warning DWF309", "1:5: error DWF301", "1:9: error DWF206", "2:2: error DWF503",
    ]
    with pytest.raises(ValueError):
        parse_expectations("x = 1  # error: DWF301\n")  # the column is required
