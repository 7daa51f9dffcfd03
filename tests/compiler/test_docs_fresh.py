"""`docs/rules/` is generated from the catalogue; this fails when the checked-in copy is stale."""

from pathlib import Path

from dwf.compiler.ruledocs import render_pages

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"


def test_rule_docs_are_fresh():
    pages = render_pages()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    stale = sorted(name for name in pages if on_disk.get(name) != pages[name])
    extra = sorted(set(on_disk) - set(pages))
    assert not stale and not extra, (
        f"docs/rules is stale (changed: {stale}, not in the catalogue: {extra}); "
        "regenerate with `.venv/bin/python -m dwf.compiler.ruledocs docs/rules`")
