"""Authoring workflows: how DWF fares with authors who know only the language guide.

Issue #11 (item 5) measures the author experience with realistic workflows written the way a
model writes them after reading only the language guide (`dwfc guide`, the text of
`grammar/language.md`), then checked, fixed where needed, and kept here so they keep working.
The first-try results (clean or not; each diagnostic justified or friction; run-time failures
after a clean check) are recorded in the "Author experience" tables of `docs/design.md`.

The files of one workflow `<name>`:

- `<name>.dwf.py`: the workflow (its `meta` name need not be `<name>`);
- `<name>.fixture.json` (required): the scripted agent's answers, in the format of
  `examples/README.md` ("Fixture format") and `runtime/ports/scripted.py`: rules matching an actor name
  glob, a site or an instruction pattern, each with a `result` (a string for untyped asks, a
  value of the declared type for typed ones), a `fail` (the ask raises `AskFailed`) or a
  `sequence` of outcomes; the first matching rule wins;
- `<name>.args.json` (optional): the run arguments, one JSON object.

For every workflow this test checks that

1. it checks clean: `dwfc check` semantics, no errors (warnings allowed);
2. it runs to `completed` through the real `dwfc run --yes --agent scripted:<fixture> --progress
   json`, in its own copy of the sample workspace described in `tests/sample_workspace.py` (the
   git repository "tasktool" with `src/`, a test suite with one failing test, `docs/`, the issue
   export `triage/open-issues.json`, the tag `v2.4.0` and four commits after it, uncommitted
   edits; the commands `git`, `python`, `pytest`, `ruff`, `mypy`, `mkdocs`);
3. every rule of its fixture was the first match of at least one ask, so a fixture that drifts
   from its workflow fails here.

Adding one: write `<name>.dwf.py` from the guide alone, run `dwfc check` on it and record the
result, fix it, write the fixture (and args), then run
`.venv/bin/python -m pytest tests/authoring -q -n 0`.

"""

from __future__ import annotations

import json
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from sample_workspace import build_workspace, command_environment, start_run, unused_rules

from dwf.compiler.compile import compile_bytes

HERE = Path(__file__).resolve().parent
WORKFLOWS = sorted(HERE.glob("*.dwf.py"))
SUFFIXES = (".dwf.py", ".fixture.json", ".args.json")
PARALLEL_RUNS = 4  # runs spend their time in `pytest` and scripted delays; keep a 2-core machine usable
RUN_TIMEOUT_S = 300

# Workflow name -> the feature (added on another branch of issue #11) it needs to check clean.


def name_of(path: Path) -> str:
    return path.name.removesuffix(".dwf.py")


def params():
    return [pytest.param(w, id=name_of(w)) for w in WORKFLOWS]


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str
    workspace: Path


def run_to_end(workflow: Path, workspace: Path, env: dict) -> Outcome:
    args_file = HERE / f"{name_of(workflow)}.args.json"
    args = json.loads(args_file.read_text()) if args_file.exists() else None
    process = start_run(workflow, HERE / f"{name_of(workflow)}.fixture.json", workspace, env, args)
    try:
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
    except BaseException:
        process.kill()
        process.communicate()
        raise
    return Outcome(process.returncode, stdout, stderr, workspace)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every workflow runs in its own copy of the sample workspace, a few at a time."""
    template = build_workspace(tmp_path_factory.mktemp("authoring-template") / "tasktool")
    env = command_environment(tmp_path_factory.mktemp("bin"))
    workspaces = {}
    for workflow in WORKFLOWS:
        workspaces[workflow] = tmp_path_factory.mktemp(name_of(workflow)) / "tasktool"
        shutil.copytree(template, workspaces[workflow], symlinks=True)
    with ThreadPoolExecutor(max_workers=PARALLEL_RUNS) as pool:
        futures: dict[Path, Future] = {w: pool.submit(run_to_end, w, workspaces[w], env) for w in WORKFLOWS}
        yield futures
        for future in futures.values():
            future.cancel()


def test_every_file_belongs_to_a_workflow():
    assert WORKFLOWS, "tests/authoring holds no workflow"
    names = {name_of(w) for w in WORKFLOWS}
    for path in HERE.iterdir():
        if path.name in ("test_authoring.py", "__pycache__"):
            continue
        suffix = next((s for s in SUFFIXES if path.name.endswith(s)), None)
        assert suffix is not None, f"{path.name}: not a workflow, fixture or args file"
        assert path.name.removesuffix(suffix) in names, f"{path.name} belongs to no workflow"
    for name in names:
        assert (HERE / f"{name}.fixture.json").is_file(), f"{name} has no fixture"


@pytest.mark.parametrize("workflow", params())
def test_workflow_checks_clean(workflow):
    result = compile_bytes(workflow.read_bytes(), str(workflow))
    errors = [f"{d.span.line}:{d.span.column}: {d.code} {d.message}" for d in result.diagnostics if d.is_error]
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("workflow", params())
def test_workflow_runs_to_completion(workflow, runs):
    outcome = runs[workflow].result()
    assert outcome.stdout.strip(), f"no result on stdout; stderr:\n{outcome.stderr}"
    result = json.loads(outcome.stdout)
    assert result["status"] == "completed", f"{result.get('error') or result}\nstderr:\n{outcome.stderr}"
    assert outcome.returncode == 0
    unused = unused_rules(HERE / f"{name_of(workflow)}.fixture.json", outcome.workspace)
    assert not unused, f"rules {unused} of the fixture match no ask of the run"
