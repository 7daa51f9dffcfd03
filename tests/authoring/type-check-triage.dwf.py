"""Run mypy, group its errors by code and ask an agent about each of the most common codes."""
from typing import Literal, TypedDict

import re
from collections import Counter

meta = {
    "name": "type-check-triage",
    "description": "Run mypy, parse and count its errors by code, and get a fix strategy for the top codes.",
    "args": {
        "target": {"type": "string", "default": "src"},
        "top": {"type": "integer", "description": "How many error codes to triage.", "default": 3},
    },
}


class CodeTriage(TypedDict):
    code: str
    explanation: str
    strategy: Literal["fix-code", "add-annotations", "ignore", "configure-mypy"]
    example_fix: str


ERROR_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+): error: (?P<msg>.*?)(?:  \[(?P<code>[a-z0-9-]+)\])?$")

phase("Type check")
try:
    result = await world.run("mypy", [args["target"], "--no-color-output", "--show-error-codes"], timeout_s=600)
except WorldError as error:
    raise WorkflowError(f"mypy could not run: {error}")

errors = []
for line in result.stdout.splitlines():
    m = ERROR_LINE.match(line.strip())
    if m:
        errors.append({
            "file": m["file"],
            "line": int(m["line"]),
            "message": m["msg"].strip(),
            "code": m["code"] or "unknown",
        })
log(f"mypy exit {result.exit_code}; {len(errors)} errors parsed")

if not errors:
    return {"exit_code": result.exit_code, "errors": 0, "codes": {}, "triage": []}

by_code = Counter(e["code"] for e in errors)
top_codes = [code for code, _ in by_code.most_common(args["top"])]
for code, n in by_code.most_common():
    report({"code": code, "count": n})

phase("Triage")


def examples_for(code, limit=10):
    sample = [e for e in errors if e["code"] == code][:limit]
    return "\n".join(f"{e['file']}:{e['line']}: {e['message']}" for e in sample)


triages = await parallel(
    agent(f"typing-{code}", system="You are an expert in Python typing and mypy.").ask(
        f"mypy reports {by_code[code]} errors with code [{code}]. Examples:\n{examples_for(code)}\n\n"
        "Explain the cause and the best strategy to resolve them. Do not edit files.",
        returns=CodeTriage, label=f"triage [{code}]")
    for code in top_codes
)

results = []
for code, t in zip(top_codes, triages):
    if t is None:
        log(f"no triage for [{code}]")
        continue
    results.append({"code": code, "count": by_code[code], "strategy": t["strategy"], "explanation": t["explanation"]})

files_affected = sorted({e["file"] for e in errors})
return {
    "exit_code": result.exit_code,
    "errors": len(errors),
    "files": files_affected,
    "codes": dict(by_code),
    "triage": results,
}
