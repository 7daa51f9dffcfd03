"""Find source modules without tests and have writers propose tests for them."""
from typing import TypedDict

meta = {
    "name": "test-gap-finder",
    "description": "Find modules under src/ that have no test module and ask writers to propose tests.",
    "args": {
        "src_glob": {"type": "string", "default": "src/**/*.py"},
        "tests_glob": {"type": "string", "default": "tests/**/*.py"},
        "max_modules": {"type": "integer", "default": 10},
    },
    "max_concurrency": 4,
}


class TestProposal(TypedDict):
    module: str
    test_path: str
    test_names: list[str]
    code: str
    "The full content of the proposed test module."


def module_stem(path):
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".py") else name


phase("Survey")
sources = [p for p in await files.glob(args["src_glob"]) if not p.endswith("__init__.py")]
tests = await files.glob(args["tests_glob"])
tested = set()
for t in tests:
    stem = module_stem(t)
    if stem.startswith("test_"):
        tested.add(stem[len("test_"):])
    elif stem.endswith("_test"):
        tested.add(stem[: -len("_test")])

untested = [p for p in sources if module_stem(p) not in tested]
log(f"{len(sources)} modules, {len(tests)} test files, {len(untested)} without tests")
for p in untested:
    report({"module": p, "status": "untested"})

if not untested:
    return {"modules": len(sources), "untested": [], "proposals": []}

targets = untested[: args["max_modules"]]


async def propose(path):
    source = await files.read(path)
    writer = agent(f"test-writer-{path}", system="You write focused pytest tests. Do not edit files.")
    return await writer.ask(
        f"The module `{path}` has no tests. Here is its source:\n\n{source[:20000]}\n\n"
        f"Propose a pytest module `tests/test_{module_stem(path)}.py` covering its public functions.",
        returns=TestProposal,
        label=f"propose tests for {path}",
    )


phase("Propose tests")
proposals = await parallel(propose(p) for p in targets)

phase("Collect")
collected = []
bodies = []
for path, proposal in zip(targets, proposals):
    if proposal is None:
        log(f"no proposal for {path}")
        continue
    stem = module_stem(path)
    body = "\n".join([
        f"# Proposed tests for `{path}`",
        "",
        f"Target file: `{proposal['test_path']}`",
        "",
        "Tests: " + ", ".join(proposal["test_names"]),
        "",
        "```python",
        proposal["code"],
        "```",
    ])
    bodies.append(body)
    collected.append({"module": path, "tests": len(proposal["test_names"])})
if bodies:
    await artifact.markdown("test-proposals", "\n\n".join(bodies), title="Proposed tests")

summary = ["# Test gaps", "", "| module | proposed tests |", "|---|---|"]
for c in collected:
    summary.append(f"| `{c['module']}` | {c['tests']} |")
missing = [p for p in targets if p not in {c["module"] for c in collected}]
if missing:
    summary.append("")
    summary.append("No proposal: " + ", ".join(missing))
await artifact.markdown("test-gaps", "\n".join(summary), title="Test gaps", primary=True)

return {"modules": len(sources), "untested": untested, "proposals": collected}
