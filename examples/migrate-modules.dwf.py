"""Migrate every module that uses the Pydantic v1 API to Pydantic v2, one actor per file.

The script finds the affected modules with `files.grep`, checks which Pydantic is installed,
gives each module its own migrator actor (`f"migrator-{path}"`), and migrates them all with the
strict `gather()`: if any migration fails the whole step fails, because a half-migrated codebase
is worse than none. It then byte-compiles the touched files and runs the tests; when tests fail,
the migrators of the files named in the failure output get one more turn each, with their own
context still loaded.

Language features shown: `files.grep` returning `GrepMatch` records (`m.path`, `m.line`,
`m.text`), a dict comprehension of per-file named actors, `gather(*[...])` over a list with
`*` unpacking, `try/except AskFailed`, several literal `world.run` commands with computed
arguments, a bounded repair loop, and a typed per-file result.
"""
from typing import Literal, TypedDict

meta = {
    "name": "migrate-modules",
    "description": "Migrate modules from the Pydantic v1 API to v2, verify with compileall and "
    "pytest, and repair the files named in test failures.",
    "when_to_use": "When upgrading a dependency with a breaking API change that touches many "
    "files in the same mechanical way.",
    "max_concurrency": 8,
    "phases": [
        {"title": "Survey", "detail": "Find the modules that use the v1 API and check the installed version."},
        {"title": "Migrate", "detail": "One migrator per module, all of them must succeed."},
        {"title": "Verify and repair", "detail": "compileall and pytest; up to two repair rounds."},
    ],
}


class Migration(TypedDict):
    """What one migrator did to its file."""

    status: Literal["migrated", "already-v2", "needs-human"]
    changes: list[str]
    "One short line per API change, e.g. 'validator -> field_validator on User.email'."
    notes: str


V1_PATTERN = r"\b(validator|root_validator|parse_obj|parse_raw|orm_mode)\b|\.dict\(\)|class Config:"
MAX_REPAIR_ROUNDS = 2
MIGRATOR = (
    "You migrate Python modules from Pydantic v1 to Pydantic v2. Follow the official migration "
    "guide: field_validator/model_validator instead of validator/root_validator, model_dump "
    "instead of dict(), model_validate instead of parse_obj, model_config = ConfigDict(...) "
    "instead of class Config. Change only your own file and keep behaviour identical."
)

phase("Survey")
matches = await files.grep(V1_PATTERN, glob="**/*.py")
uses = {}
for m in matches:
    if m.path.startswith(("tests/fixtures/", ".venv/")):
        continue
    uses.setdefault(m.path, []).append(f"{m.line}: {m.text.strip()}")
paths = sorted(uses)
version = await world.run("python", ["-c", "import pydantic; print(pydantic.VERSION)"])
if version.exit_code != 0 or not version.stdout.strip().startswith("2."):
    raise WorkflowError(f"install Pydantic 2 first (found: {version.stdout.strip() or 'none'})")
log(f"{len(paths)} modules use the v1 API; Pydantic {version.stdout.strip()} is installed")
if not paths:
    return {"migrated": [], "tests_pass": True}

phase("Migrate")
migrators = {path: agent(f"migrator-{path}", system=MIGRATOR) for path in paths}
try:
    results = await gather(*[
        migrators[path].ask(
            f"Migrate `{path}` to Pydantic v2. The v1 usages found by grep:\n"
            + "\n".join(uses[path][:40])
            + "\n\nThere may be more than grep found; read the whole file.",
            returns=Migration,
            label=f"migrate {path}",
        )
        for path in paths
    ])
except AskFailed as err:
    raise WorkflowError(f"a migration failed, stopping before verification: {err}")

for path, result in zip(paths, results):
    report({"path": path, "status": result["status"], "changes": result["changes"][:20]})
needs_human = [p for p, r in zip(paths, results) if r["status"] == "needs-human"]

phase("Verify and repair")
compiled = await world.run("python", ["-m", "compileall", "-q"] + paths)
tests = await world.run("python", ["-m", "pytest", "-q", "-x", "--no-header"], timeout_s=1200)
repair_rounds = 0
for round_number in range(MAX_REPAIR_ROUNDS):
    if compiled.exit_code == 0 and tests.exit_code == 0:
        break
    output = compiled.stdout + compiled.stderr + tests.stdout
    culprits = [p for p in paths if p in output] or paths[:3]
    log(f"Repair round {round_number + 1}: {', '.join(culprits)}")
    await gather(*[
        migrators[p].ask(
            f"After the migration the checks fail. Output mentioning your file:\n{output[-5000:]}\n"
            "Fix your file only.",
            label=f"repair {p}",
        )
        for p in culprits
    ])
    repair_rounds += 1
    compiled = await world.run("python", ["-m", "compileall", "-q"] + paths)
    tests = await world.run("python", ["-m", "pytest", "-q", "-x", "--no-header"], timeout_s=1200)

return {
    "migrated": [p for p, r in zip(paths, results) if r["status"] == "migrated"],
    "needs_human": needs_human,
    "repair_rounds": repair_rounds,
    "compiles": compiled.exit_code == 0,
    "tests_pass": tests.exit_code == 0,
}
