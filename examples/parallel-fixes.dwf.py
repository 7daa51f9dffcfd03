"""Fix every failing test at once: one fixer per failing test, each in its own git worktree, then
a verifier that keeps only the fixes that make their test pass.

The fixers edit code in parallel without clobbering each other: `isolation="worktree"` gives
each its own checkout of `HEAD` on its own branch, and `tools=[...]` lets them read and edit
files but run nothing. The script reads what each changed (`git.worktree(fixer)`), a read-only
verifier reviews each diff, and the script brings the accepted files into the workspace with an
approved `git checkout BRANCH -- FILES`, re-runs that test, and takes the change back out when
the test still fails. The workspace is untouched until then; every fixer's branch is kept.

Language features shown: `agent(isolation="worktree", tools=[...])`, `git.worktree(actor)` and
its `GitWorktree` record (`branch`, `changed_files`, `diff`), `parallel` over an `async def`,
a typed verdict, `git.status()`, and `world.run("git", [...])` with computed arguments.
"""
from typing import TypedDict

meta = {
    "name": "parallel-fixes",
    "description": "Fix each failing test in its own git worktree, in parallel; keep the fixes that pass.",
    "when_to_use": "When several tests fail for unrelated reasons and each fix is in production code.",
    "phases": [
        {"title": "Find failures", "detail": "Run pytest once and list the failing tests."},
        {"title": "Fix in parallel", "detail": "One fixer per failing test, each in its own worktree."},
        {"title": "Verify and merge", "detail": "Review each diff, apply it, re-run its test, keep it if green."},
    ],
}


class Review(TypedDict):
    """A verifier's verdict on one fixer's diff."""

    acceptable: bool
    "False when the diff weakens a test, special-cases it, or changes unrelated code."
    reason: str


MAX_FIXERS = 8
PYTEST_ARGS = ["-q", "-rf", "--no-header", "-p", "no:cacheprovider"]

phase("Find failures")
suite = await world.run("pytest", PYTEST_ARGS, timeout_s=900)
failing = []
for line in suite.stdout.splitlines():
    if line.startswith("FAILED ") and len(failing) < MAX_FIXERS:
        failing.append(line.removeprefix("FAILED ").split(" - ")[0].strip())
if not failing:
    log("No test fails; nothing to fix.")
    return {"failing": [], "kept": [], "rejected": [], "branches": []}
log(f"{len(failing)} failing test(s): {', '.join(failing)}")

phase("Fix in parallel")


async def fix(test):
    fixer = agent(
        f"fixer-{test}",
        system="You fix production code so one failing test passes. Never edit tests.",
        isolation="worktree",
        tools=["read", "grep", "edit"],
    )
    await fixer.ask(
        f"The test {test} fails. Read it and the code it exercises, find the cause and fix the "
        "production code. Reply with one line: what you changed.",
        label=f"fix {test}",
    )
    return await git.worktree(fixer)


changes = await parallel(fix(test) for test in failing)

phase("Verify and merge")
verifier = agent("verifier", system="You review small diffs for correctness.", tools=["read", "grep"])
status = await git.status()
dirty = set(status.staged + status.unstaged)
kept, rejected, taken = [], [], set()
for test, change in zip(failing, changes):
    if change is None or not change.changed_files:
        rejected.append({"test": test, "why": "the fixer changed nothing"})
        continue
    clash = sorted((set(change.changed_files) & dirty) | (set(change.changed_files) & taken))
    if clash:
        rejected.append({"test": test, "why": f"touches files already changed here: {', '.join(clash)}"})
        continue
    review = await verifier.ask(
        f"A fixer changed this to make {test} pass:\n\n{change.diff[-20000:]}\n\nIs it an acceptable fix?",
        returns=Review,
        label=f"review {test}",
    )
    if not review["acceptable"]:
        rejected.append({"test": test, "why": review["reason"]})
        continue
    await world.run("git", ["checkout", change.branch, "--", *change.changed_files])
    rerun = await world.run("pytest", PYTEST_ARGS + [test], timeout_s=900)
    if rerun.exit_code == 0:
        kept.append(test)
        taken.update(change.changed_files)
        report({"test": test, "branch": change.branch, "files": change.changed_files})
    else:
        await world.run("git", ["checkout", "HEAD", "--", *change.changed_files])
        rejected.append({"test": test, "why": "its test still fails with the change"})

return {
    "failing": failing,
    "kept": kept,
    "rejected": rejected,
    "branches": [c.branch for c in changes if c is not None],
}
