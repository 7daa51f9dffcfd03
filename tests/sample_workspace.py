"""The sample workspace the end-to-end runs work in: a small, realistic Python project
("tasktool") that `tests/runtime/test_examples_run.py` runs every example in and
`tests/authoring/test_authoring.py` runs every authoring workflow in.

What it holds. A git repository on `main` with a tag `v2.4.0` on the initial import and four
commits after it (two Conventional Commit subjects, two free-form ones); Python modules under
`src/` (`api/pagination.py`, `billing/invoice.py`, `billing/payments.py`, `cli/export.py`,
`models/user.py`, `storage/client.py`) with TODO/FIXME markers, Pydantic v1 idioms and a
hard-coded credential; a `tests/` suite with one genuinely failing test (`test_invoice.py`),
so fix and verify loops really loop; Markdown pages under `docs/` (one of them obsolete) and an
`mkdocs.yml`; an issue export at `triage/open-issues.json` (`examples/data/open-issues.json`);
and uncommitted edits to `src/storage/client.py` and `tests/test_pagination.py`.

Commands. Runs may start `git`, `python`, `pytest`, `ruff`, `mypy` and `mkdocs`.
`command_environment` puts a temp `bin/` directory first on `PATH`, then this virtualenv's
`bin/` (so `python` and `pytest` are the venv's, with Pydantic 2), then the inherited `PATH`;
every one of those commands that is *not* installed gets a tiny stub there that exits 0 (the
`ruff` stub also prints two findings in `--output-format concise` form). Stubs never replace an
installed tool. Runs find programs only on the system PATH and `DWF_COMMAND_PATH`, which names the
stub directory and the virtualenv's `bin/`.

Runs. `start_run` starts `dwfc run FILE --yes --agent scripted:FIXTURE --progress json` in a
workspace, with the scripted port's call log (`DWF_SCRIPTED_CALL_LOG`) next to the workspace
(outside it, so no read sees it); `unused_rules` names the fixture rules that were not the first
match of any dispatched ask.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from dwf.runtime.ports.scripted import load_fixture

ROOT = Path(__file__).resolve().parent.parent
ISSUE_EXPORT = ROOT / "examples" / "data" / "open-issues.json"
VENV_BIN = Path(sys.executable).parent
DWFC = VENV_BIN / "dwfc"

COMMANDS = ("git", "python", "pytest", "ruff", "mypy", "mkdocs")
STUB_OUTPUT = {
    "ruff": "src/billing/invoice.py:12:5: F821 Undefined name `logger`\n"
            "src/cli/export.py:9:5: E722 Do not use bare `except`\n",
}

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

# Uncommitted edits (what `review-changed-files` reviews against HEAD).
CHANGES = {
    "src/storage/client.py": "\n\ndef fetch_many(get, keys):\n    return [fetch(get, k) for k in keys]\n",
    "tests/test_pagination.py": "\n\ndef test_second_page():\n    assert page(list(range(250)), 1) == list(range(100, 200))\n",
}


def git(root: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=root, check=True, capture_output=True,
                   env={**os.environ, **GIT_ENV})


def command_environment(bin_dir: Path) -> dict[str, str]:
    """The subprocess environment: PATH with the stub dir first, no call log inherited."""
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
    env["DWF_COMMAND_PATH"] = os.pathsep.join([str(bin_dir), str(VENV_BIN)])  # commands see no other PATH
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def build_workspace(root: Path) -> Path:
    """Create the sample workspace at `root` (which must not exist yet) and return it."""
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "triage").mkdir()
    shutil.copy(ISSUE_EXPORT, root / "triage" / "open-issues.json")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Initial import")
    git(root, "tag", "v2.4.0")
    for rel, addition, subject in COMMITS:
        with open(root / rel, "a") as handle:
            handle.write(addition)
        git(root, "commit", "-q", "-am", subject)
    for rel, addition in CHANGES.items():
        with open(root / rel, "a") as handle:
            handle.write(addition)
    return root


def call_log(workspace: Path) -> Path:
    return workspace.parent / "calls.jsonl"  # outside the workspace, so no read of a run sees it


def start_run(script: Path, fixture: Path, workspace: Path, env: dict, args: dict | None = None) -> subprocess.Popen:
    env = {**env, "DWF_SCRIPTED_CALL_LOG": str(call_log(workspace))}
    argv = [str(DWFC), "run", str(script), "--yes", "--agent", f"scripted:{fixture}", "--progress", "json",
            "--max-concurrency", "8", "--workspace", str(workspace)]
    if args is not None:
        argv += ["--args", json.dumps(args)]
    return subprocess.Popen(argv, cwd=workspace, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def unused_rules(fixture: Path, workspace: Path) -> list[int]:
    """Indexes of the fixture's rules that were not the first match of any dispatched ask: such
    a rule means the fixture and its script have drifted apart."""
    rules = load_fixture(fixture).rules
    log = call_log(workspace)
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    used = set()
    for call in calls:
        for rule in rules:
            if rule.matches(call["actor"], call["site"], call["instructions"]):
                used.add(rule.index)
                break
    return [rule.index for rule in rules if rule.index not in used]
