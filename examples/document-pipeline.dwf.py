"""Audit every Markdown page under docs/ and fix the stale ones, one document at a time.

Each document flows through read -> audit (typed `DocAudit`) -> fix (only if needed) with no
barrier between stages; a document whose stage fails becomes `None` and skips its later stages
while the others keep flowing. Finally the site is built to prove the docs still render.

Shows: `files.glob`/`files.read`, `pipeline(items, stage1, stage2, stage3)` with `async def`
stages taking `(previous, item, index)`, per-document actors in two stages with distinct names
(`f"auditor-{path}"`, `f"editor-{path}"`), a stage that returns without asking,
`try/except WorldError` around a command that may be missing, and `re.search`.
"""
from typing import Literal, NotRequired, TypedDict

import re

meta = {
    "name": "document-pipeline",
    "description": "Audit each docs/ page against the code, fix the stale ones, and rebuild the site.",
    "when_to_use": "After a release or a big refactor, when the docs have drifted from the code.",
    "max_concurrency": 6,
    "phases": [
        {"title": "Audit and fix documents", "detail": "read -> audit -> fix, no barrier between stages."},
        {"title": "Build the site", "detail": "Run mkdocs in strict mode and summarize the outcome."},
    ],
}


class StaleClaim(TypedDict):
    quote: str
    "The sentence or code line in the document, verbatim."
    reality: str
    "What the code actually does, with the file that proves it."


class DocAudit(TypedDict):
    """The state of one documentation page."""
    title: str
    audience: Literal["user", "operator", "contributor"]
    status: Literal["accurate", "minor-drift", "stale", "obsolete"]
    stale_claims: list[StaleClaim]
    broken_examples: list[str]
    replacement: NotRequired[str]
    "For obsolete pages only: the page that supersedes this one."


SKIP_PATTERN = r"(?i)(^|/)(changelog|release-notes|_snippets)(/|\.md$)"


async def read_doc(previous, path, index):
    text = await files.read(path)
    if len(text.strip()) < 80:
        raise ValueError(f"{path} is a stub; nothing to audit")
    return text


async def audit_doc(text, path, index):
    auditor = agent(f"auditor-{path}", system="You check documentation against source code. "
                    "Quote the document exactly and cite the code that contradicts it.",
                    tools=["read", "list", "grep"])
    audit = await auditor.ask(
        f"Audit the documentation page `{path}` against the current code. Its content:\n\n"
        f"{text[:30000]}\n\n"
        "Check every command, option name, default value, and code example. Do not edit anything.",
        returns=DocAudit,
        label=f"audit {path}",
    )
    report({"path": path, "status": audit["status"], "stale_claims": len(audit["stale_claims"])})
    return audit


async def fix_doc(audit, path, index):
    if audit["status"] == "accurate":
        return {"path": path, "status": "accurate", "changed": False}
    if audit["status"] == "obsolete":
        return {"path": path, "status": "obsolete", "changed": False,
                "replacement": audit.get("replacement", "")}
    problems = [f"- \"{c['quote']}\" -> {c['reality']}" for c in audit["stale_claims"]]
    problems += [f"- broken example: {e}" for e in audit["broken_examples"]]
    editor = agent(f"editor-{path}", system="You are a technical writer. Change only what is "
                   "wrong; keep the page's voice and structure.")
    summary = await editor.ask(
        f"Fix `{path}` in place. The audit found:\n" + "\n".join(problems) + "\n\n"
        "Correct each point, make every code example runnable, and reply with one line per "
        "change you made.",
        label=f"fix {path}",
    )
    return {"path": path, "status": audit["status"], "changed": True, "summary": summary}


phase("Audit and fix documents")
pages = await files.glob("docs/**/*.md")
paths = [p for p in pages if not re.search(SKIP_PATTERN, p)]
log(f"{len(paths)} documentation pages to audit")
outcomes = await pipeline(paths, read_doc, audit_doc, fix_doc)

fixed = [o for o in outcomes if o is not None and o["changed"]]
obsolete = [o["path"] for o in outcomes if o is not None and o["status"] == "obsolete"]
skipped = [p for p, o in zip(paths, outcomes) if o is None]
log(f"Fixed {len(fixed)} pages; {len(obsolete)} obsolete; {len(skipped)} skipped or failed")

phase("Build the site")
try:
    build = await world.run("mkdocs", ["build", "--strict", "--quiet"], timeout_s=600)
    build_ok = build.exit_code == 0
    build_log = (build.stdout + build.stderr)[-4000:]
except WorldError as err:
    build_ok = False
    build_log = f"mkdocs could not run: {err}"

verdict = await agent("docs-lead", system="You summarize documentation work for a changelog.").ask(
    "Write a short changelog entry for this documentation pass.\n"
    "Fixed pages:\n" + "\n".join(f"- {o['path']}: {o['summary'][:300]}" for o in fixed) + "\n"
    f"Obsolete pages (not deleted, need a decision): {', '.join(obsolete) or 'none'}\n"
    f"Site build {'passed' if build_ok else 'FAILED'}:\n{build_log}",
    label="docs changelog",
)

return {"audited": len(paths) - len(skipped), "fixed": [o["path"] for o in fixed],
        "obsolete": obsolete, "skipped": skipped, "build_ok": build_ok, "changelog": verdict}
