"""This module defines the inline-expectation format of the rule fixtures and the helpers the
rule harness and the catalogue meta-tests share.

A fixture is an ordinary `*.dwf.py` script. Every diagnostic the compiler must report on a line
is written in a comment on that line, with its severity, code and 1-based column:

    files_read = files.read   # error: DWF301:14
    x = phase("a") or print   # error: DWF306:5, DWF201:19

Several diagnostics of one severity are separated by commas; `# error: ...` and
`# warning: ...` may both appear on one line. A diagnostic on a line that cannot hold a comment
(inside a multi-line string) is written on the next line as `# error-above: DWF503:7`. The
harness compares the exact set of (line, column, severity, code): a missing diagnostic and an
unexpected one both fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from dwf.compiler.compile import CompileResult, compile_source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "rules"
SYNTAX_FIXTURES = FIXTURES / "syntax"

MARKER = re.compile(r"#\s*(error|warning)(-above)?:([^#]*)")
ITEM = re.compile(r"^(DWF\d{3}):(\d+)$")

# A script whose bytes are Latin-1, not UTF-8: the `é` (0xe9) is on line 3, column 21.
LATIN1_SCRIPT = (
    'meta = {"name": "latin", "description": "Not UTF-8."}\n'
    "\n"
    'log("Bonjour, le caf\u00e9 est pr\u00eat")\n'
).encode("latin-1")
LATIN1_POSITION = (3, 21)


@dataclass(frozen=True, order=True)
class Expected:
    line: int
    column: int
    severity: str
    code: str

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity} {self.code}"


class MalformedExpectation(ValueError):
    pass


def parse_expectations(text: str) -> set[Expected]:
    expected: set[Expected] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        for marker in MARKER.finditer(line):
            severity, above, items = marker.group(1), marker.group(2), marker.group(3)
            target = number - 1 if above else number
            for item in items.split(","):
                found = ITEM.match(item.strip())
                if found is None:
                    raise MalformedExpectation(f"line {number}: {item.strip()!r} is not `DWFnnn:column`")
                expected.add(Expected(target, int(found.group(2)), severity, found.group(1)))
    return expected


def actual_diagnostics(result: CompileResult) -> set[Expected]:
    return {Expected(d.span.line, d.span.column, d.severity, d.code) for d in result.diagnostics}


def display_path(path: Path) -> str:
    """The path as shown in diagnostics and snapshots: relative to the repository root."""
    return path.relative_to(ROOT).as_posix()


def compile_fixture(path: Path) -> CompileResult:
    return compile_source(path.read_text(encoding="utf-8"), display_path(path))


def rule_fixtures() -> list[Path]:
    return sorted(FIXTURES.glob("DWF*.dwf.py"))


def syntax_fixtures() -> list[Path]:
    return sorted(SYNTAX_FIXTURES.glob("*.dwf.py"))


def all_fixtures() -> list[Path]:
    return rule_fixtures() + syntax_fixtures()


def compare(expected: set[Expected], actual: set[Expected], source_lines: list[str]) -> str | None:
    """A readable listing of the differences, or None when the sets agree."""
    missing, unexpected = sorted(expected - actual), sorted(actual - expected)
    if not missing and not unexpected:
        return None

    def show(items: list[Expected]) -> str:
        return "\n".join(f"  {item}    | {source_lines[item.line - 1].strip() if 0 < item.line <= len(source_lines) else ''}"
                         for item in items)

    parts = []
    if missing:
        parts.append(f"expected but not reported:\n{show(missing)}")
    if unexpected:
        parts.append(f"reported but not expected:\n{show(unexpected)}")
    return "\n".join(parts)
