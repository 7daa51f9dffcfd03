"""The operator's ceilings on the command line: `dwfc run`, `resume`, `amend` and `mcp` take
`--max-agents` and `--max-concurrency-ceiling`; a script's meta (or `--max-concurrency`) may ask
for less, never for more, and the approval screen names each cap the ceiling lowered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dwf.runtime.cli.main import main
from dwf.runtime.tools import mcp as tools_mcp

WIDE = '''meta = {"name": "wide", "description": "Asks for more than the host allows.",
        "max_concurrency": 8, "max_agents": 1500}
return await parallel(agent(f"w{i}").ask("go") for i in range(3))
'''


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "wide.dwf.py").write_text(WIDE)
    (root / "any.fixture.json").write_text(json.dumps({"rules": [], "default": {"result": "ok"}}))
    monkeypatch.chdir(root)
    return root


def dwfc(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def run_wide(capsys, *extra: str, progress: str = "stream-json") -> tuple[int, str, str]:
    return dwfc(capsys, "run", "wide.dwf.py", "--yes", "--agent", "scripted:any.fixture.json", "--progress", progress,
                *extra)


def started_caps(out: str) -> dict:
    events = [json.loads(line)["event"] for line in out.splitlines() if '"event"' in line]
    return next(e for e in events if e["type"] == "run-started")["caps"]


@pytest.mark.parametrize("option", ["--max-agents", "--max-concurrency-ceiling"])
def test_a_ceiling_must_be_a_whole_number_of_at_least_one(workspace, capsys, option):
    code, _, err = run_wide(capsys, option, "0")
    assert code == 2 and f"argument {option}: must be at least 1, got 0" in err
    code, _, err = run_wide(capsys, option, "many")
    assert code == 2 and f"argument {option}: expected a whole number, got 'many'" in err
    code, _, err = dwfc(capsys, "mcp", option, "0")
    assert code == 2 and f"argument {option}: must be at least 1, got 0" in err


def test_meta_is_clamped_to_the_default_ceiling(workspace, capsys):
    code, out, _ = run_wide(capsys)
    assert code == 0
    assert started_caps(out) == {"max_concurrency": 8, "max_agents": 1000, "budget": None}


def test_the_operators_ceilings_bound_meta_and_max_concurrency(workspace, capsys):
    code, out, _ = run_wide(capsys, "--max-agents", "3", "--max-concurrency-ceiling", "2", "--max-concurrency", "5")
    assert code == 0
    assert started_caps(out) == {"max_concurrency": 2, "max_agents": 3, "budget": None}
    code, out, _ = run_wide(capsys, "--max-agents", "2", progress="json")
    assert code == 1 and "the actor limit (2) was exceeded" in json.loads(out)["error"]


def test_the_approval_screen_names_each_clamped_cap(workspace, capsys):
    code, _, err = run_wide(capsys, "--max-concurrency-ceiling", "2", progress="text")
    assert code == 0
    assert ("  Caps: max concurrency 2 (asked for 8; this host's ceiling is 2), "
            "max agents 1,000 (asked for 1,500; this host's ceiling is 1,000)\n") in err


def test_resume_and_amend_take_the_ceilings(workspace, capsys):
    for command in ("resume", "amend"):
        code, out, _ = dwfc(capsys, command, "--help")
        assert code == 0 and "--max-agents N" in out and "--max-concurrency-ceiling N" in out


def test_mcp_serves_with_the_operators_ceilings(workspace, capsys, monkeypatch):
    served = {}

    async def fake_serve(workspace, **options):
        served.update(options)

    monkeypatch.setattr(tools_mcp, "serve_stdio", fake_serve)
    code, _, _ = dwfc(capsys, "mcp", "--max-agents", "50", "--max-concurrency-ceiling", "4")
    assert code == 0
    assert (served["ceilings"].max_agents, served["ceilings"].max_concurrency) == (50, 4)
    dwfc(capsys, "mcp")
    assert (served["ceilings"].max_agents, served["ceilings"].max_concurrency) == (1000, 16)
