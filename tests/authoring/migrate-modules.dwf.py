"""Find modules that use a deprecated API, migrate each with its own agent, verify with the tests."""
import re
from typing import Literal, TypedDict

meta = {
    "name": "migrate-modules",
    "description": "Migrate every module that uses a deprecated API, one migrator per module, and verify with pytest.",
    "when_to_use": "When an API is deprecated and its call sites are spread over many modules.",
    "args": {
        "pattern": {"type": "string", "description": "Regex matching the deprecated API.", "default": r"datetime\.utcnow\("},
        "replacement": {"type": "string", "description": "What to use instead.", "default": "datetime.now(timezone.utc)"},
        "glob": {"type": "string", "default": "src/**/*.py"},
    },
    "phases": [
        {"title": "Find usages"},
        {"title": "Migrate"},
        {"title": "Verify"},
    ],
}


class Migration(TypedDict):
    status: Literal["migrated", "skipped", "blocked"]
    changed_lines: int
    notes: str


phase("Find usages")
matches = await files.grep(args["pattern"], glob=args["glob"])
by_module = {}
for m in matches:
    by_module.setdefault(m.path, []).append(m)
modules = sorted(by_module)
log(f"{len(matches)} usages in {len(modules)} modules")
if not modules:
    return {"modules": 0, "migrated": [], "tests": "not run"}

phase("Migrate")


def usage_list(ms):
    return "\n".join(f"  line {m.line}: {m.text.strip()}" for m in ms)


results = await parallel(
    agent(f"migrator-{path}", system="You migrate code off deprecated APIs with minimal, behaviour-preserving edits.").ask(
        f"`{path}` uses a deprecated API matching `{args['pattern']}`:\n{usage_list(by_module[path])}\n\n"
        f"Replace it with `{args['replacement']}` (fix imports as needed). Edit only `{path}`.",
        returns=Migration,
        label=f"migrate {path}",
    )
    for path in modules
)

migrated = []
for path, r in zip(modules, results):
    if r is None:
        report({"module": path, "status": "failed"})
    else:
        report({"module": path, "status": r["status"], "notes": r["notes"]})
        if r["status"] == "migrated":
            migrated.append(path)

phase("Verify")
remaining = await files.grep(args["pattern"], glob=args["glob"])
try:
    tests = await world.run("pytest", ["-q", "--no-header"], timeout_s=900)
    summary_line = (tests.stdout.strip().splitlines() or [""])[-1]
    test_status = "passed" if tests.exit_code == 0 else "failed"
except WorldError as error:
    summary_line = str(error)
    test_status = "error"

if test_status == "failed":
    tail = tests.stdout[-4000:]
    diagnosis = await agent("verifier").ask(
        f"After migrating {', '.join(migrated)}, the tests fail:\n{tail}\n"
        "Which migrated module most likely caused this? Answer in two sentences; do not edit files."
    )
else:
    diagnosis = None

return {
    "modules": len(modules),
    "migrated": migrated,
    "failed": [p for p, r in zip(modules, results) if r is None],
    "remaining_usages": [f"{m.path}:{m.line}" for m in remaining],
    "tests": test_status,
    "test_summary": summary_line,
    "diagnosis": diagnosis,
}
