"""`dwfc plan` and `dwfc graph` (`dwf.runtime.cli.plan`): formats, run arguments, scripts with
errors, Graphviz output and the clear error when Graphviz is missing. The handlers run
in-process through a parser built with `add_parsers`, as `dwfc` builds it; one test runs the
module as a real process."""

import argparse
import json
import re
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT

from dwf.runtime.cli import graphviz as graphviz_bin
from dwf.runtime.cli.main import UsageError
from dwf.runtime.cli.plan import add_parsers

BROKEN = '''\
meta = {"name": "broken", "description": "Has a mistake."}
phase("Work")
cmd = "git"
await world.run(cmd, ["status"])
'''
TRIAGE = (ROOT / "examples" / "triage-issues.dwf.py").relative_to(ROOT).as_posix()
FIX = (ROOT / "examples" / "fix-until-green.dwf.py").relative_to(ROOT).as_posix()


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def dwfc(capsys, *argv):
    parser = argparse.ArgumentParser(prog="dwfc")
    add_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    code = args.handler(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name.removesuffix(".dwf.py"))
def test_text_plan_fits_80_columns_and_shows_every_section(capsys, path):
    name = path.relative_to(ROOT).as_posix()
    code, out, err = dwfc(capsys, "plan", name)
    assert code == 0 and err == ""
    assert max(len(line) for line in out.splitlines()) <= 80
    for section in ("Arguments (", "Phases (", "Actors (", "Commands (", "Data flow", "Warnings ("):
        assert f"\n{section}" in out
    plan = json.loads(dwfc(capsys, "plan", name, "--format", "json")[1])
    for command in plan["commands"]:
        assert command in out
    for phase in plan["phases"]:
        assert phase["title"][:40] in out


def test_json_plan_has_the_documented_top_level_shape(capsys):
    code, out, _ = dwfc(capsys, "plan", FIX, "--format", "json")
    plan = json.loads(out)
    assert code == 0 and plan["status"] == "planned" and plan["plan"] == 1
    assert list(plan) == ["plan", "status", "path", "sha256", "compiler_version", "name", "description",
                          "when_to_use", "args", "counts", "phases", "phase_edges", "steps", "actors", "commands",
                          "programs", "network", "edges", "data_flow", "handoff", "warnings", "diagnostics", "folded"]
    assert plan["path"] == FIX and plan["commands"] == ["pytest"]
    assert plan["network"] is False and [p["name"] for p in plan["programs"]] == ["pytest"]
    assert {"from": "run#2", "to": "ask#2", "kind": "carry", "exact": True} in plan["edges"]


def test_run_arguments_inline_and_from_a_file(capsys, tmp_path):
    code, out, _ = dwfc(capsys, "plan", TRIAGE, "--format", "json", "--args", '{"team": "platform", "limit": 5}')
    args = {a["name"]: a for a in json.loads(out)["args"]}
    assert code == 0
    assert args["team"] == {"name": "team", "type": "string", "description": "Team whose backlog this is.",
                            "required": True, "value": "platform", "source": "given"}
    assert args["limit"]["value"] == 5 and args["limit"]["source"] == "given"
    assert args["areas"]["source"] == "default"
    given = tmp_path / "args.json"
    given.write_text('{"team": "storage"}')
    code, out, _ = dwfc(capsys, "plan", TRIAGE, "--args", f"@{given}")
    assert code == 0 and '"storage" (given)' in out


def test_without_arguments_a_required_one_shows_as_missing(capsys):
    code, out, _ = dwfc(capsys, "plan", TRIAGE)
    assert code == 0 and "team               string   (required, not given)" in out


@pytest.mark.parametrize("given, message", [
    ('{"teem": "x", "limit": "many"}', "3 problems with --args: unknown argument `teem` (did you mean `team`?); "
                                        "missing required argument `team` (string); "
                                        "argument `limit` must be of type integer"),
    ("[1, 2]", "--args must be a JSON object"),
    ("{team: 1}", "--args is not valid JSON"),
    ("@/nonexistent/args.json", "cannot read the arguments file /nonexistent/args.json"),
])
def test_bad_run_arguments_are_usage_errors(capsys, given, message):
    with pytest.raises(UsageError, match="^" + re.escape(message)):
        dwfc(capsys, "plan", TRIAGE, "--args", given)


def test_a_script_with_errors_prints_diagnostics_instead(capsys, tmp_path):
    script = tmp_path / "broken.dwf.py"
    script.write_text(BROKEN)
    code, out, err = dwfc(capsys, "plan", str(script))
    assert code == 1 and out == ""
    assert "error[DWF303]" in err and "has errors, so it has no plan" in err
    code, out, err = dwfc(capsys, "plan", str(script), "--format", "json")
    rejected = json.loads(out)
    assert code == 1 and rejected["status"] == "rejected" and rejected["errors"] == 1
    assert set(rejected["diagnostics"][0]) == {"line", "column", "end_line", "end_column", "code", "severity",
                                                "message", "help"}
    code, out, err = dwfc(capsys, "graph", str(script))
    assert code == 1 and out == "" and "DWF303" in err


def test_a_missing_file_is_a_usage_error(capsys):
    with pytest.raises(UsageError, match="nope.dwf.py: no such file"):
        dwfc(capsys, "plan", "nope.dwf.py")


@pytest.mark.parametrize("kind", ["phase", "causal", "handoff"])
def test_graph_text_formats(capsys, kind):
    code, dot, _ = dwfc(capsys, "graph", FIX, "--kind", kind)
    assert code == 0 and dot.startswith(f"// {kind} graph of fix-until-green\ndigraph {kind} {{")
    code, mermaid, _ = dwfc(capsys, "graph", FIX, "--kind", kind, "--format", "mermaid")
    assert code == 0 and mermaid.startswith("flowchart TB\n")
    code, text, _ = dwfc(capsys, "graph", FIX, "--kind", kind, "--format", "text")
    assert code == 0 and text.startswith(f"{kind} graph of fix-until-green:")


def test_graph_svg_and_png_through_graphviz(capsys, tmp_path):
    assert graphviz_bin.dot_path() is not None, "Graphviz's `dot` must be installed (.ci/run installs it)"
    code, svg, _ = dwfc(capsys, "graph", FIX, "--kind", "causal", "--format", "svg")
    assert code == 0 and "<svg" in svg and "ask#2" in svg
    png = tmp_path / "causal.png"
    code, out, _ = dwfc(capsys, "graph", FIX, "--kind", "causal", "--format", "png", "-o", str(png))
    assert code == 0 and out == "" and png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_a_missing_graphviz_is_named_in_the_error(capsys, monkeypatch):
    monkeypatch.setattr(graphviz_bin.shutil, "which", lambda name: None)
    for argv in (["graph", FIX, "--format", "svg"], ["graph", FIX, "--format", "png", "-o", "x.png"],
                 ["plan", FIX, "--format", "html"]):
        with pytest.raises(UsageError, match="apt-get install graphviz"):
            dwfc(capsys, *argv)
    code, out, _ = dwfc(capsys, "graph", FIX, "--format", "dot")  # DOT needs no program
    assert code == 0 and out.startswith("// phase graph")


def test_output_file_and_an_unwritable_one(capsys, tmp_path):
    target = tmp_path / "plan.txt"
    code, out, _ = dwfc(capsys, "plan", FIX, "-o", str(target))
    assert code == 0 and out == "" and target.read_text().startswith("Plan: fix-until-green\n")
    with pytest.raises(UsageError, match="cannot write"):
        dwfc(capsys, "plan", FIX, "-o", str(tmp_path / "missing" / "plan.txt"))


def test_the_module_runs_as_a_real_process():
    done = subprocess.run([sys.executable, "-m", "dwf.runtime.cli", "plan", FIX, "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["name"] == "fix-until-green"
    done = subprocess.run([sys.executable, "-m", "dwf.runtime.cli", "plan", "missing.dwf.py"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr == "dwfc: error: missing.dwf.py: no such file\n"


def test_the_subcommands_add_nothing_to_dwfc_start_up():
    """`dwfc` imports this module for every command; networkx and graphviz load only for plans."""
    done = subprocess.run([sys.executable, "-c", "import sys, dwf.runtime.cli.plan as m; "
                           "print(sorted(n for n in ('networkx', 'graphviz') if n in sys.modules))"],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr
    from dwf.compiler.plan.graph_render import KINDS
    from dwf.runtime.cli.plan import GRAPH_KINDS
    assert GRAPH_KINDS == KINDS


def test_compiler_warnings_are_part_of_the_plan(capsys, tmp_path):
    script = tmp_path / "no-phases.dwf.py"
    script.write_text('meta = {"name": "no-phases", "description": "Asks without phases."}\n'
                      'answer = await agent("a").ask("Hello")\nreturn answer\n')
    code, out, err = dwfc(capsys, "plan", str(script))
    assert code == 0 and err == ""
    assert "Warnings (1)\n  ! line 2: DWF309 " in out
    plan = json.loads(dwfc(capsys, "plan", str(script), "--format", "json")[1])
    assert [d["code"] for d in plan["diagnostics"]] == ["DWF309"] and plan["warnings"] == []
    assert [p["id"] for p in plan["phases"]] == ["unphased"]


def test_unknown_agent_type_is_an_error_when_planned(tmp_path, monkeypatch):
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "typed.dwf.py"
    script.write_text('meta = {"name": "typed", "description": "d"}\nphase("P")\n'
                      'x = await agent("r", agent_type="code-reviewer").ask("hi")\n')
    dwfc = str(Path(sys.executable).parent / "dwfc")
    env = {k: v for k, v in __import__("os").environ.items() if k != "DWF_HOME"}
    env["DWF_HOME"] = str(tmp_path / "home")
    refused = subprocess.run([dwfc, "plan", "typed.dwf.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and 'no agent definition named "code-reviewer"' in refused.stderr
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "code-reviewer.md").write_text("---\nname: code-reviewer\ndescription: d\n---\nReview.\n")
    planned = subprocess.run([dwfc, "plan", "typed.dwf.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert planned.returncode == 0 and planned.stdout.startswith("Plan: typed")
