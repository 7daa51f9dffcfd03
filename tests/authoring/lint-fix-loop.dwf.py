"""Run ruff, group its findings by file, let one fixer per file repair them, and rerun until clean."""
import collections
import re

meta = {
    "name": "lint-fix-loop",
    "description": "Run ruff, fix its findings with one fixer per file, and rerun until clean or out of rounds.",
    "when_to_use": "When ruff reports many findings that --fix cannot repair automatically.",
    "args": {
        "max_rounds": {"type": "integer", "description": "Fix rounds.", "default": 3},
        "target": {"type": "string", "description": "What ruff checks.", "default": "."},
    },
    "phases": [
        {"title": "Lint"},
        {"title": "Fix"},
        {"title": "Report"},
    ],
}

# src/tasktool/cli.py:12:5: F401 [*] `os` imported but unused
LINE_RE = re.compile(r"^(?P<path>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) (?:\[\*\] )?(?P<message>.*)$")


async def lint():
    res = await world.run("ruff", ["check", args["target"], "--output-format", "concise", "--no-cache"])
    by_file = collections.defaultdict(list)
    for line in res.stdout.splitlines():
        m = LINE_RE.match(line.strip())
        if m:
            by_file[m["path"]].append({"line": int(m["line"]), "col": int(m["col"]), "code": m["code"], "message": m["message"]})
    return res, dict(by_file)


phase("Lint")
try:
    res, findings = await lint()
except WorldError as error:
    raise WorkflowError(f"ruff could not run: {error}") from error
initial = {p: len(v) for p, v in findings.items()}
log(f"ruff: {sum(initial.values())} findings in {len(initial)} files (exit {res.exit_code})")
if res.exit_code != 0 and not findings:
    raise WorkflowError(f"ruff failed without parseable output: {(res.stderr or res.stdout)[-2000:]}")

phase("Fix")
fixers = {}
rounds = 0
while findings and rounds < args["max_rounds"]:
    rounds += 1
    paths = sorted(findings)
    for p in paths:
        if p not in fixers:
            fixers[p] = agent(f"fixer-{p}", system="You fix lint findings with minimal edits that keep behaviour unchanged.")

    def prompt(p):
        items = "\n".join(f"- line {f['line']}:{f['col']} {f['code']} {f['message']}" for f in findings[p])
        return (f"Round {rounds}. ruff reports these findings in `{p}`:\n{items}\n\n"
                f"Fix them by editing `{p}` directly (edit only that file). Do not add `noqa` comments "
                "unless a finding is a false positive; say which if so.")

    outcomes = await parallel(fixers[p].ask(prompt(p), label=f"fix {p} (round {rounds})") for p in paths)
    failed = [p for p, o in zip(paths, outcomes) if o is None]
    if failed:
        log(f"round {rounds}: fixers failed for {', '.join(failed)}")
    res, findings = await lint()
    log(f"round {rounds}: {sum(len(v) for v in findings.values())} findings left")

phase("Report")
for p in sorted(set(initial) | set(findings)):
    report({"path": p, "before": initial.get(p, 0), "after": len(findings.get(p, []))})

return {
    "status": "clean" if not findings else "findings-remain",
    "rounds": rounds,
    "before": sum(initial.values()),
    "after": sum(len(v) for v in findings.values()),
    "remaining": {p: [f"{f['line']}: {f['code']}" for f in v] for p, v in findings.items()},
}
