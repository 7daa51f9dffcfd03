"""The language guide (`grammar/language.md`; `docs/language.md` points to it) stays true.

- Every fenced block whose info string starts with `python` is compiled. A ```` ```python ````
  block is a whole script and must check clean as it stands (no errors; warnings allowed, as
  for `dwfc check`). A ```` ```python fragment ```` block is part of a script body: it is
  compiled with a meta block appended after its last line (unless it has one), so it must
  define every name it uses. A ```` ```python refused ```` block shows what the checker rejects
  and must get at least one error. No other `python ...` info string is allowed.
- Every facade function, container member, container attribute, record and record field
  (`grammar/facade.py`) and every builtin function, exception type, importable module, typing
  name, forbidden builtin and nondeterministic module (`grammar/builtins.py`) is mentioned in
  the guide's code (inline code spans or blocks).
- `dwfc guide` prints the guide, and the guide stays one page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dwf.compiler.compile import compile_source
from dwf.grammar import builtins, facade, language_guide
from dwf.runtime.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
GUIDE = language_guide()
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
KINDS = {"python": "script", "python fragment": "fragment", "python refused": "refused"}
FRAGMENT_META = 'meta = {"name": "guide-fragment", "description": "A fragment of the language guide."}\n'
MAX_LINES = 520  # one page a model reads in one go

# A line of a block -> the features (added on other branches of issue #11) it needs.
def blocks() -> list[tuple[str, str, int]]:
    """(kind, code, line of the opening fence) of every python block."""
    found = []
    for match in FENCE.finditer(GUIDE):
        info = " ".join(match.group(1).split())
        if info.split(" ")[0] != "python":
            continue
        assert info in KINDS, f"unknown block kind ```{info} at line {GUIDE[:match.start()].count(chr(10)) + 1}"
        found.append((KINDS[info], match.group(2), GUIDE[:match.start()].count("\n") + 1))
    return found


def block_params():
    return [pytest.param(kind, code, line, id=f"{kind}-line{line}") for kind, code, line in blocks()]


def compiled(kind: str, code: str, line: int):
    source = code
    if kind != "script" and not re.search(r"^meta\s*=", code, re.MULTILINE):
        source = code + FRAGMENT_META
    return compile_source(source, f"language.md:{line}")


@pytest.mark.parametrize("kind, code, line", block_params())
def test_every_code_block_checks_as_the_guide_says(kind, code, line):
    errors = [d for d in compiled(kind, code, line).diagnostics if d.is_error]
    if kind == "refused":
        assert errors, f"the refused block at line {line} checks clean"
    else:
        assert not errors, "\n".join(f"line {line + d.span.line}: {d.code} {d.message}" for d in errors)


def test_the_guide_has_whole_scripts_fragments_and_refusals():
    kinds = [kind for kind, _, _ in blocks()]
    assert kinds.count("script") >= 2 and kinds.count("fragment") >= 5 and "refused" in kinds


def code_text() -> str:
    """Everything in the guide that is code: fenced blocks and inline code spans."""
    fenced = [m.group(2) for m in FENCE.finditer(GUIDE)]
    prose = FENCE.sub("", GUIDE)
    return "\n".join(fenced + re.findall(r"`([^`]+)`", prose))


def missing(names, pattern=r"(?<![\w.]){}(?!\w)") -> list[str]:
    text = code_text()
    return sorted(n for n in set(names) if not re.search(pattern.format(re.escape(n)), text))


def test_every_facade_name_is_in_the_guide():
    top_level = [m.name for m in facade.MEMBERS if m.container == ""]
    members = [m.qualified for m in facade.MEMBERS if m.container not in ("", "Agent")]
    members += [f"{c}.{a}" for c, attributes in facade.CONTAINER_ATTRIBUTES.items() for a in attributes]
    actor = [m.name for m in facade.MEMBERS if m.container == "Agent"] + list(facade.AGENT_ATTRIBUTES)
    records = list(facade.RECORDS) + [f for fields in facade.RECORDS.values() for f in fields]
    assert missing(top_level, r"(?<![\w.]){}\(") == []
    assert missing(members) == []
    assert missing(actor, r"\.{}\b") == []
    assert missing(records + list(facade.CONTAINERS) + list(facade.VALUES)) == []


def test_every_builtin_exception_and_module_is_in_the_guide():
    assert missing(builtins.BUILTIN_FUNCTIONS) == []
    assert missing(builtins.EXCEPTION_TYPES) == []
    assert missing(builtins.MODULES) == []
    assert missing(builtins.TYPING_NAMES) == []
    assert missing(builtins.FORBIDDEN_BUILTINS) == []
    assert missing(builtins.NONDETERMINISTIC_MODULES) == []


def test_dwfc_guide_prints_the_guide(capsys):
    assert main(["guide"]) == 0
    assert capsys.readouterr().out == GUIDE
    assert "guide" in build_parser().format_help()
    assert GUIDE.startswith("# ") and len(GUIDE.splitlines()) <= MAX_LINES


def test_docs_language_points_to_the_one_copy():
    pointer = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    assert "](../grammar/language.md)" in pointer
    assert len(pointer.splitlines()) < 20  # a pointer, not a second copy
