"""This module defines what the benchmarks share: rewriting one `## ...` section of
docs/performance.md (every other section is kept), and re-running a benchmark with the
checkout's `.venv` interpreter when the current one cannot import `dwf`."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
DOC_INTRO = """# Performance

Figures on this page are written by the benchmarks in `bench/` (run `python bench/<name>.py`);
do not edit them by hand. Each benchmark times DWF against a baseline measured **in the same
run on the same machine** and reports the ratio, so the figures compare across machines and
over time while absolute seconds do not. Nothing in the test suite asserts timings.
"""


def write_section(title: str, section: str) -> None:
    """Replace the section headed `title` (e.g. `## dwfc check`) of docs/performance.md."""
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else DOC_INTRO
    pattern = re.compile(rf"^{re.escape(title)}[ \t]*\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section.rstrip("\n") + "\n\n", text, count=1).rstrip("\n") + "\n"
    else:
        text = text.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text, encoding="utf-8")


def use_project_interpreter(script: str) -> None:
    """Re-execute `script` with `.venv/bin/python` when this interpreter lacks `dwf`."""
    try:
        import dwf.compiler.compile  # noqa: F401
    except ImportError:
        venv_python = ROOT / ".venv" / "bin" / "python"
        if venv_python.exists() and Path(sys.executable) != venv_python:
            os.execv(str(venv_python), [str(venv_python), script, *sys.argv[1:]])
        sys.exit(f"bench: cannot import dwf; run ./dwf once to create .venv, then .venv/bin/python {script}")
