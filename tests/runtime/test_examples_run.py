"""Every example in `examples/` runs to `completed` with its scripted fixture, through the real
`dwfc run --yes --agent scripted:... --progress json` command, in a small realistic workspace.

The workspace (built once per module in a temp dir) is a git repository with a tag and a few
commits (conventional and free-form subjects), Python modules under `src/` with TODO markers,
Pydantic v1 idioms and a hard-coded credential, a `tests/` suite with one genuinely failing test
(so the fix/verify loops of the examples run), Markdown pages under `docs/`, an issue export at
the triage default path, and uncommitted changes for the reviewers.

Commands: the examples may run `git`, `python`, `pytest`, `ruff`, `mypy` and `mkdocs`. The
test's `PATH` starts with a temp `bin/` directory, then this virtualenv's `bin/` (so `python`
and `pytest` are the venv's, with Pydantic 2 installed), then the inherited `PATH`. Every one of
those commands that is *not* installed gets a tiny executable stub in the temp `bin/` that
exits 0 (the `ruff` stub also prints two findings in `--output-format concise` form so the
dashboard's parsing path runs). The stubs are what lets an example that runs, say, `mkdocs` be
tested on a machine without it; they never replace an installed tool.

Each test also asserts a few facts of the result that show the fixture was really used (the
right branch was taken, failed asks became gaps, sequences advanced), and, from the scripted
port's call log (`DWF_SCRIPTED_CALL_LOG`), that every rule of the fixture was the first match of
at least one ask, so a fixture that drifts from its example fails here.

All examples start at once (module fixture `runs`), each in its own copy of the workspace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dwf.runtime.scripted import load_fixture

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = ROOT / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.dwf.py"))
VENV_BIN = Path(sys.executable).parent
DWFC = VENV_BIN / "dwfc"

COMMANDS = ("git", "python", "pytest", "ruff", "mypy", "mkdocs")
STUB_OUTPUT = {
    "ruff": "src/billing/invoice.py:12:5: F821 Undefined name `logger`\n"
            "src/cli/export.py:9:5: E722 Do not use bare `except`\n",
}
# Known engine bug (runtime/engine.py, Run.publish_artifact and Run.declare_artifact): the async
# ArtifactStore methods are called without `await`, so `artifact.markdown(...)` fails with this
# message. Only this exact failure is tolerated (as xfail); once the engine awaits the store, the
# two artifact examples (quality-dashboard, release-notes) run and are checked in full.
KNOWN_ARTIFACT_BUG = "'coroutine' object has no attribute 'to_json'"
ARGS = {"triage-issues": {"team": "platform"}}
LONG_RUNNING = {"fix-until-green.dwf.py", "migrate-modules.dwf.py"}  # several pytest runs each: started first

GIT_ENV = {"GIT_AUTHOR_NAME": "Ada Dev", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada Dev", "GIT_COMMITTER_EMAIL": "ada@example.com",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}

FILES = {
    "pyproject.toml": '[project]\nname = "tasktool"\nversion = "2.5.0"\n\n'
                      '[tool.pytest.ini_options]\npythonpath = ["."]\n',
    "README.md": "# tasktool\n\nA small task tracker with a CLI, an API and CSV export.\n",
    "src/__init__.py": "",
    "src/billing/__init__.py": "",
    "src/billing/invoice.py": '''"""Invoices."""
from decimal import ROUND_HALF_UP, Decimal

TAX_RATE = Decimal("0.19")


def line_total(price, quantity):
    # FIXME: rounding happens per line; it should happen once at the end
    return (Decimal(str(price)) * quantity).quantize(Decimal("0.01"), ROUND_HALF_UP)


def total(lines):
    subtotal = sum((line_total(p, q) for p, q in lines), Decimal("0"))
    return subtotal  # TODO: apply TAX_RATE
''',
    "src/billing/payments.py": '''"""Payment provider client."""
PAYMENT_API_KEY = "sk_live_4f9a8b7c6d5e4f3a2b1c"


def headers():
    return {"Authorization": f"Bearer {PAYMENT_API_KEY}"}
''',
    "src/cli/__init__.py": "",
    "src/cli/export.py": '''"""CSV export."""
import csv


def export(tasks, out):
    # TODO: stream the export instead of building all rows in memory
    rows = [[t["id"], t["title"]] for t in tasks]
    try:
        csv.writer(out).writerows(rows)
    except:  # noqa: E722
        pass
''',
    "src/storage/__init__.py": "",
    "src/storage/client.py": '''"""Object store client."""
import time


def fetch(get, key, attempts=3):
    # TODO: use the shared backoff helper instead of this loop
    for attempt in range(attempts):
        try:
            return get(key)
        except OSError:
            time.sleep(0.1 * attempt)
    raise OSError(f"could not fetch {key}")
''',
    "src/api/__init__.py": "",
    "src/api/pagination.py": '''"""Pagination."""
DEFAULT_PAGE_SIZE = 100


def page(items, number, size=DEFAULT_PAGE_SIZE):
    # TODO: cursor pagination
    return items[number * size:(number + 1) * size]
''',
    "src/models/__init__.py": "",
    "src/models/user.py": '''"""User model, still on the Pydantic v1 API."""
from pydantic import BaseModel, validator


class User(BaseModel):
    name: str
    email: str

    class Config:
        orm_mode = True

    @validator("email")
    def lower(cls, value):
        return value.lower()

    def to_payload(self):
        return self.dict()
''',
    "tests/__init__.py": "",
    "tests/test_pagination.py": '''from src.api.pagination import page


def test_first_page():
    assert page(list(range(250)), 0) == list(range(100))
''',
    "tests/test_invoice.py": '''from decimal import Decimal

from src.billing.invoice import total


def test_total_includes_tax():
    assert total([(10, 1)]) == Decimal("11.90")
''',
    "tests/test_db.py": '''DB_PASSWORD = "hunter2-test-only"


def test_password_is_set():
    assert DB_PASSWORD
''',
    "docs/index.md": "# Overview\n\ntasktool tracks tasks from the command line. Install it with pip, run "
                     "`tool init` once, then add tasks with `tool add`.\n",
    "docs/cli.md": "# Command-line reference\n\n## export\n\nUse `--output` to choose the export file.\n"
                   "The default page size is 50.\n\n```sh\ntool export --output tasks.csv\n```\n",
    "docs/legacy/sync-v1.md": "# Configuring the v1 sync daemon\n\nThe v1 sync daemon reads `sync.ini` and "
                              "pushes every five minutes. It was replaced by the operations guide.\n",
    "docs/changelog.md": "# Changelog\n\n## 2.5.0\n\n- Faster exports.\n- Tokens are signed with the new key.\n",
    "mkdocs.yml": "site_name: tasktool\n",
}

# Committed after the tag, newest last: two conventional subjects and two free-form ones.
COMMITS = [
    ("src/api/pagination.py", "\n\ndef last_page(items, size=DEFAULT_PAGE_SIZE):\n    return max(0, (len(items) - 1) // size)\n",
     "feat(api): add last_page helper"),
    ("src/cli/export.py", "\n\ndef export_json(tasks):\n    return [dict(t) for t in tasks]\n",
     "fix(cli): keep multi-line descriptions in exports"),
    ("src/storage/client.py", "\n\nPOOL_SIZE = 4\n", "Refactor the connection pool"),
    ("README.md", "\nSee docs/ for the full manual.\n", "Tweak the README wording"),
]

# Uncommitted edits, what `review-changed-files` reviews against HEAD.
CHANGES = {
    "src/storage/client.py": "\n\ndef fetch_many(get, keys):\n    return [fetch(get, k) for k in keys]\n",
    "tests/test_pagination.py": "\n\ndef test_second_page():\n    assert page(list(range(250)), 1) == list(range(100, 200))\n",
}


def _git(root: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=root, check=True, capture_output=True,
                   env={**os.environ, **GIT_ENV})


@pytest.fixture(scope="module")
def environment(tmp_path_factory) -> dict[str, str]:
    """The subprocess environment: PATH with the stub dir first, no credential-like variables."""
    bin_dir = tmp_path_factory.mktemp("bin")
    inherited = os.environ.get("PATH", os.defpath)
    search = os.pathsep.join([str(VENV_BIN), inherited])
    for name in COMMANDS:
        if shutil.which(name, path=search) is None:
            stub = bin_dir / name
            output = STUB_OUTPUT.get(name, "")
            stub.write_text("#!/bin/sh\n# test stub: the real tool is not installed here\n"
                            + (f"cat <<'EOF'\n{output}EOF\n" if output else "") + "exit 0\n")
            stub.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "DWF_SCRIPTED_CALL_LOG"}
    env["PATH"] = os.pathsep.join([str(bin_dir), search])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("workspace-template") / "tasktool"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "triage").mkdir()
    shutil.copy(EXAMPLES_DIR / "data" / "open-issues.json", root / "triage" / "open-issues.json")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "Initial import")
    _git(root, "tag", "v2.4.0")
    for rel, addition, subject in COMMITS:
        with open(root / rel, "a") as handle:
            handle.write(addition)
        _git(root, "commit", "-q", "-am", subject)
    for rel, addition in CHANGES.items():
        with open(root / rel, "a") as handle:
            handle.write(addition)
    return root


def start_example(example: Path, workspace: Path, env: dict) -> subprocess.Popen:
    name = example.name.removesuffix(".dwf.py")
    fixture = EXAMPLES_DIR / f"{name}.fixture.json"
    env = {**env, "DWF_SCRIPTED_CALL_LOG": str(call_log(workspace))}
    argv = [str(DWFC), "run", str(example), "--yes", "--agent", f"scripted:{fixture}", "--progress", "json",
            "--max-concurrency", "8", "--workspace", str(workspace)]
    if name in ARGS:
        argv += ["--args", json.dumps(ARGS[name])]
    return subprocess.Popen(argv, cwd=workspace, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def call_log(workspace: Path) -> Path:
    return workspace.parent / "calls.jsonl"  # outside the workspace, so no read of the example sees it


def assert_every_rule_is_used(example: Path, workspace: Path) -> None:
    """Each rule of the fixture is the first match of at least one dispatched ask: a rule that no
    ask reaches means the fixture and its example have drifted apart."""
    fixture = load_fixture(EXAMPLES_DIR / (example.name.removesuffix(".dwf.py") + ".fixture.json"))
    calls = [json.loads(line) for line in call_log(workspace).read_text().splitlines()]
    used = set()
    for call in calls:
        for rule in fixture.rules:
            if rule.matches(call["actor"], call["site"], call["instructions"]):
                used.add(rule.index)
                break
    unused = [rule.index for rule in fixture.rules if rule.index not in used]
    assert not unused, f"rules {unused} of {example.name}'s fixture match no ask of the run"


@pytest.fixture(scope="module")
def runs(template, environment, tmp_path_factory):
    """All examples start at once, each in its own copy of the workspace (they spend most of
    their time in scripted delays and in `pytest`, so running them side by side keeps this module
    fast); each test then waits for its own run."""
    started = {}
    slowest_first = sorted(EXAMPLES, key=lambda p: p.name not in LONG_RUNNING)
    for example in slowest_first:
        workspace = tmp_path_factory.mktemp(example.name.removesuffix(".dwf.py")) / "tasktool"
        shutil.copytree(template, workspace, symlinks=True)
        started[example.name] = (start_example(example, workspace, environment), workspace)
    yield started
    for process, _ in started.values():
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_every_example_has_a_fixture():
    assert EXAMPLES
    for example in EXAMPLES:
        assert (EXAMPLES_DIR / (example.name.removesuffix(".dwf.py") + ".fixture.json")).is_file(), example.name


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name.removesuffix(".dwf.py"))
def test_example_runs_to_completion(example, runs):
    process, workspace = runs[example.name]
    stdout, stderr = process.communicate(timeout=120)
    assert stdout.strip(), f"no result on stdout; stderr:\n{stderr}"
    result = json.loads(stdout)
    if result["status"] == "errored" and KNOWN_ARTIFACT_BUG in (result["error"] or ""):
        pytest.xfail("engine bug: Run.publish_artifact/declare_artifact call the async ArtifactStore "
                     "methods without awaiting them")
    assert result["status"] == "completed", f"{result['error']}\nstderr:\n{stderr}"
    assert process.returncode == 0
    assert result["error"] is None and result["stop_reason"] is None
    assert result["agents_started"] >= 1
    assert result["usage"]["output_tokens"] > 0
    CHECKS[example.name.removesuffix(".dwf.py")](result["value"], result, workspace)
    assert_every_rule_is_used(example, workspace)


# ---------------------------------------------------------------- what each run must show

def _document_pipeline(value, result, workspace):
    assert value["audited"] == 3 and value["skipped"] == []
    assert value["fixed"] == ["docs/cli.md"]
    assert value["obsolete"] == ["docs/legacy/sync-v1.md"]
    assert value["build_ok"] is True
    assert value["changelog"].startswith("Docs:")


def _fix_until_green(value, result, workspace):
    assert value["status"] == "still-failing"  # the scripted fixer changes nothing
    assert value["attempts"] == 4
    assert [h["change"].split(".")[0] for h in value["history"]][:2] == [
        "Changed Invoice", "Used Decimal with ROUND_HALF_EVEN in the tax step too"]
    assert value["history"][3]["change"].startswith("No further change possible")


def _migrate_modules(value, result, workspace):
    assert value["migrated"] == ["src/models/user.py"]
    assert value["compiles"] is True
    assert value["repair_rounds"] == 2  # the failing invoice test keeps the checks red
    assert value["tests_pass"] is False


def _plan_then_execute(value, result, workspace):
    assert [s["key"] for s in value["steps"]] == ["report-to-dict", "json-renderer", "cli-option", "tests", "docs"]
    assert all(s["status"] == "done" for s in value["steps"])
    assert value["goal_met"] is True
    assert value["types_clean"] is True and value["tests_pass"] is False


def _quality_dashboard(value, result, workspace):
    assert value["health"]["lint_findings"] == 2 and value["health"]["high_severity"] == 1
    assert value["health"]["tests_failed"] == 1 and value["health"]["tests_passed"] >= 2
    assert value["health"]["todos"] >= 4
    assert value["hotspots"] == ["src/billing/invoice.py", "src/cli/export.py"]
    assert value["report"] == {"id": "quality-report", "version": 1}
    stored = list((workspace / ".dwf" / "artifacts" / result["run_id"]).glob("quality-report@v1*"))
    assert stored and stored[0].read_text().startswith("# Code quality report")
    # Every report is also stored under .dwf/, routed to its dashboard.
    lines = (workspace / ".dwf" / "artifacts" / result["run_id"] / "reports.jsonl").read_text().splitlines()
    delivered = [json.loads(line) for line in lines]
    assert [d["item"] for d in delivered] == result["reports"]
    assert {d["artifact"] for d in delivered} == {"findings", "health"}


def _release_notes(value, result, workspace):
    assert value["since"] == "v2.4.0"
    assert value["commits"] == 4  # two parsed, two classified by the scripted classifier
    assert value["internal"] == 1 and value["breaking"] == 0
    assert value["notes"] == {"id": "release-notes", "version": 1}


def _research_synthesis(value, result, workspace):
    assert value["topics"] == ["Current Celery usage", "Operational cost"]
    assert value["gaps"] == ["Migration path"]  # researcher-2 fails
    assert value["recommendation"]["decision"] == "trial"
    assert value["effort_days"] == 3.0


def _review_changed_files(value, result, workspace):
    assert value["files"] == 2 and value["unreviewed"] == []
    assert value["verdict"] == "request-changes" and value["serious"] == 1
    assert value["findings"] == 2  # tests/* approved with no findings


def _secret_scan(value, result, workspace):
    assert value["files"] == 2 and value["unjudged"] == []
    assert {r["path"] for r in value["real"]} == {"src/billing/payments.py"}
    assert value["owners"]["src/billing/payments.py"].startswith("Ada Dev <ada@example.com>")
    assert value["rotate"] and value["rewrite_history"] is True


def _todo_sweep(value, result, workspace):
    assert value["markers"] >= 4 and value["classified"] == 4 and value["unclassified"] == 0
    assert value["by_kind"] == {"bug": 1, "debt": 1, "feature": 1, "obsolete": 1}
    assert value["fixed"] == ["src/cli/export.py:88"]
    assert value["failed"] == ["src/storage/client.py:57"]  # the second scripted fix fails


def _triage_issues(value, result, workspace):
    assert value["team"] == "platform" and value["triaged"] == 5
    assert value["by_priority"] == {"p0": 1, "p1": 2, "p2": 1, "p3": 1}
    assert value["this_week"] == [157, 118, 131] and value["duplicates"] == [142]


CHECKS = {
    "document-pipeline": _document_pipeline,
    "fix-until-green": _fix_until_green,
    "migrate-modules": _migrate_modules,
    "plan-then-execute": _plan_then_execute,
    "quality-dashboard": _quality_dashboard,
    "release-notes": _release_notes,
    "research-synthesis": _research_synthesis,
    "review-changed-files": _review_changed_files,
    "secret-scan": _secret_scan,
    "todo-sweep": _todo_sweep,
    "triage-issues": _triage_issues,
}
