"""Shared fixtures: paths of the repository, the examples, and a compile helper."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dwf.compiler.compile import CompileResult, compile_source

ROOT = Path(__file__).resolve().parent.parent
# The helper modules of the test folders (`runner`, `fakes`, `cli_transcripts`, ...) are imported
# by name from every folder.
sys.path[:0] = [str(ROOT / "tests" / "runtime"), str(ROOT / "tests" / "cli")]
EXAMPLES_DIR = ROOT / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.dwf.py"))
BROKEN_EXAMPLES = sorted((EXAMPLES_DIR / "broken").glob("*.dwf.py"))


def compile_text(text: str, path: str = "test.dwf.py") -> CompileResult:
    return compile_source(text, path)


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.fixture(params=EXAMPLES, ids=lambda p: p.name.removesuffix(".dwf.py"))
def example(request) -> Path:
    return request.param
