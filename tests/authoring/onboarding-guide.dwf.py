"""Write an onboarding guide from the README and the docs."""
from typing import TypedDict

import textwrap

meta = {
    "name": "onboarding-guide",
    "description": "Read the README and docs, then outline, draft and review each section of an onboarding guide.",
    "args": {
        "sections": {
            "type": "json",
            "description": "Section titles of the guide.",
            "default": ["Getting started", "Architecture", "Development workflow", "Where to get help"],
        },
        "audience": {"type": "string", "default": "a new contributor"},
    },
    "phases": [{"title": "Read"}, {"title": "Write sections"}, {"title": "Assemble"}],
    "max_concurrency": 4,
}


class Outline(TypedDict):
    title: str
    points: list[str]
    sources: list[str]


class ReviewedSection(TypedDict):
    title: str
    body: str
    issues_fixed: list[str]


phase("Read")
readme = ""
try:
    readme = await files.read("README.md")
except WorldError:
    log("no README.md")
doc_paths = await files.glob("docs/**/*.md")
doc_texts = await parallel(files.read(p) for p in doc_paths)
docs = {p: t for p, t in zip(doc_paths, doc_texts) if t is not None}
log(f"read README ({len(readme)} chars) and {len(docs)} docs")

material = f"README.md:\n{readme[:8000]}\n\n" + "\n\n".join(
    f"{p}:\n{t[:4000]}" for p, t in docs.items()
)
material = material[:40000]
audience = args["audience"]


def slug(title):
    return "-".join(title.lower().split())


async def outline(previous, section, index):
    return await agent(f"outliner-{slug(section)}", system="You plan documentation.").ask(
        f"Plan the section '{section}' of an onboarding guide for {audience}.\n"
        f"Project material:\n{material}",
        returns=Outline, label=f"outline {section}")


async def draft(plan, section, index):
    points = "\n".join(f"- {p}" for p in plan["points"])
    return await agent(f"drafter-{slug(section)}", system="You write friendly, precise docs.").ask(
        f"Draft the section '{plan['title']}' covering:\n{points}\n"
        f"Use only facts from this material:\n{material}\nWrite Markdown without a heading.",
        label=f"draft {section}")


async def review(text, section, index):
    return await agent(f"reviewer-{slug(section)}", system="You review docs for accuracy and clarity.").ask(
        f"Review and correct this draft of the section '{section}' for {audience}. "
        f"Check every claim against the material.\n\nDraft:\n{text}\n\nMaterial:\n{material}",
        returns=ReviewedSection, label=f"review {section}")


phase("Write sections")
sections = args["sections"]
results = await pipeline(sections, outline, draft, review)

phase("Assemble")
parts = [
    "# Onboarding guide",
    "",
    textwrap.fill(
        f"This guide introduces {audience} to the project. It was written from the README "
        f"and {len(docs)} documentation pages.",
        width=88,
    ),
    "",
]
missing = []
for number, (section, result) in enumerate(zip(sections, results), 1):
    if result is None:
        missing.append(section)
        continue
    parts.append(f"## {number}. {result['title']}")
    parts.append("")
    parts.append(textwrap.dedent(result["body"]).strip())
    parts.append("")
if missing:
    parts.append("> Sections not written: " + ", ".join(missing))

guide = "\n".join(parts)
ref = await artifact.markdown("onboarding-guide", guide, title="Onboarding guide", primary=True)
return {"sections": len(sections) - len(missing), "missing": missing, "artifact": ref.id, "chars": len(guide)}
