"""Find public functions that the docs never mention and have writers draft documentation for them."""
import re
from typing import TypedDict

meta = {
    "name": "docs-coverage",
    "description": "Find undocumented public functions and draft documentation for them with a writer and an editor per module.",
    "when_to_use": "When the docs fall behind the code.",
    "args": {
        "src_glob": {"type": "string", "default": "src/**/*.py"},
        "docs_glob": {"type": "string", "default": "docs/**/*.md"},
        "max_modules": {"type": "integer", "default": 10},
    },
    "phases": [
        {"title": "Measure coverage"},
        {"title": "Draft docs"},
        {"title": "Report"},
    ],
}


class Draft(TypedDict):
    module: str
    doc_path: str
    "Where the section should go, under docs/."
    markdown: str


DEF_PATTERN = r"^def [A-Za-z]\w*\("
NAME_RE = re.compile(r"^def ([A-Za-z]\w*)\(")

phase("Measure coverage")
modules = await files.glob(args["src_glob"])
doc_files = await files.glob(args["docs_glob"])
docs_text = ""
for p in doc_files:
    docs_text += (await files.read(p)) + "\n"

defs = await files.grep(DEF_PATTERN, glob=args["src_glob"])
undocumented = {}
documented = 0
for m in defs:
    name_match = NAME_RE.match(m.text)
    if not name_match:
        continue
    name = name_match[1]
    if re.search(rf"\b{re.escape(name)}\b", docs_text):
        documented += 1
    else:
        undocumented.setdefault(m.path, []).append({"name": name, "line": m.line, "signature": m.text.strip()})

total = documented + sum(len(v) for v in undocumented.values())
coverage = 100.0 * documented / total if total else 100.0
log(f"{len(modules)} modules, {len(doc_files)} doc pages, {total} public functions, {coverage:.1f}% documented")
for path in sorted(undocumented):
    for fn in undocumented[path]:
        report({"module": path, "function": fn["name"], "line": fn["line"]})

targets = sorted(undocumented, key=lambda p: -len(undocumented[p]))[: args["max_modules"]]
if not targets:
    return {"coverage": round(coverage, 1), "undocumented": {}, "drafts": []}

phase("Draft docs")
doc_list = ", ".join(doc_files) or "(no docs yet)"


async def write_draft(path, item, index):
    funcs = "\n".join(f"- `{f['signature']}` (line {f['line']})" for f in undocumented[path])
    return await agent(f"writer-{path}", system="You write clear, accurate API reference documentation in Markdown.").ask(
        f"These public functions in `{path}` are not documented anywhere under docs/:\n{funcs}\n\n"
        f"Read the code and draft a Markdown reference section for them. Existing pages: {doc_list}. "
        "Choose the page it belongs on. Do not edit any files.",
        returns=Draft,
        label=f"draft {path}",
    )


async def edit_draft(draft, path, index):
    edited = await agent(f"editor-{path}", system="You edit technical documentation for accuracy and concision.").ask(
        f"Check this draft against the code in `{path}` and fix anything inaccurate or unclear. "
        f"Return the corrected Markdown only.\n\n{draft['markdown']}",
        label=f"edit {path}",
    )
    return {"module": path, "doc_path": draft["doc_path"], "markdown": edited}


drafts = await pipeline(targets, write_draft, edit_draft)

phase("Report")
done = [d for d in drafts if d is not None]
failed = [p for p, d in zip(targets, drafts) if d is None]
content = "\n\n".join(f"<!-- {d['doc_path']} -->\n## `{d['module']}`\n\n{d['markdown']}" for d in done)
if done:
    await artifact.markdown("doc-drafts", f"# Documentation drafts\n\nCoverage before: {coverage:.1f}%\n\n{content}",
                            title="Documentation drafts", primary=True)

return {
    "coverage": round(coverage, 1),
    "undocumented": {p: [f["name"] for f in fs] for p, fs in undocumented.items()},
    "drafts": [{"module": d["module"], "doc_path": d["doc_path"]} for d in done],
    "failed": failed,
}
