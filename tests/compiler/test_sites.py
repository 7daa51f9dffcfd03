"""Site IDs follow LANGUAGE §8: per-kind counters, 1-based, in source pre-order including helper
bodies; `phase()` and `log()` consume none; comments, blank lines, formatting and
phase/log/report edits never renumber an ask; adding an ask renumbers only later asks."""

import ast
from conftest import EXAMPLES, compile_text

from dwf.runtime.cli.main import main

BASE = '''\
meta = {"name": "sites", "description": "Site stability."}
phase("Review")
reviewer = agent("reviewer")
changed = await git.changed_files()
async def review(path):
    return await reviewer.ask(f"Review {path}")
results = await parallel(review(p) for p in changed)
summary = await agent("lead").ask(f"Summarize {results}")
phase("Fix")
run = await world.run("pytest", ["-q"])
if run.exit_code != 0:
    await agent("fixer").ask("Fix it")
return summary
'''


def site_table(text: str) -> list[tuple[str, str, int]]:
    result = compile_text(text)
    assert result.program is not None, [str(d) for d in result.diagnostics]
    return [(s.id, s.op, s.detail or s.command or s.actor or "") for s in result.program.sites]


def asks(text: str) -> dict[str, str]:
    return {detail: site for site, op, detail in site_table(text) if op == "ask"}


def test_per_kind_preorder_numbering():
    table = site_table(BASE)
    assert [s for s, _, _ in table] == [
        "actor#1", "read#1", "ask#1", "join#1", "ask#2", "actor#2", "run#1", "ask#3", "actor#3"]


def test_comments_blank_lines_and_formatting_do_not_renumber():
    noisy = BASE.replace("phase(\"Review\")\n", "# stage one\n\nphase( 'Review' )   # start\n\n")
    noisy = noisy.replace('["-q"]', '[\n    "-q",\n]')
    noisy = noisy.replace("await agent(\"fixer\").ask(\"Fix it\")", "await agent(\n        \"fixer\"\n    ).ask(\n        \"Fix it\"\n    )")
    assert site_table(noisy) == site_table(BASE)


def test_reformatting_keeps_ids():
    # `ast.unparse` rewrites the whole text (quotes, spacing, line breaks; comments dropped).
    reformatted = ast.unparse(ast.parse(BASE))
    assert reformatted != BASE
    assert site_table(reformatted) == site_table(BASE)


def test_phase_log_report_edits_do_not_renumber_asks():
    edited = BASE.replace('phase("Fix")\n', 'log("fixing")\nreport({"stage": "fix"})\n')
    edited = edited.replace('phase("Review")\n', 'phase("Review")\nphase("Review again")\nlog("go")\n')
    edited = edited.replace('phase("Review again")\n', '')
    assert asks(edited) == asks(BASE)


def test_adding_an_ask_renumbers_only_later_asks():
    edited = BASE.replace('summary = await', 'extra = await agent("extra").ask("Extra step")\nsummary = await')
    before, after = asks(BASE), asks(edited)
    assert after["Review {path}"] == before["Review {path}"] == "ask#1"
    assert after["Extra step"] == "ask#2"
    assert after["Summarize {results}"] == "ask#3" and before["Summarize {results}"] == "ask#2"
    assert after["Fix it"] == "ask#4" and before["Fix it"] == "ask#3"
    # Other kinds are unaffected, except actors, which the edit also adds.
    runs = lambda t: [s for s, op, _ in site_table(t) if op == "world.run"]
    assert runs(edited) == runs(BASE)


def test_site_ids_are_unique_in_every_example():
    for path in EXAMPLES:
        result = compile_text(path.read_text(), path.name)
        ids = [s.id for s in result.program.sites]
        assert len(ids) == len(set(ids)), path.name


def test_sites_cli_table(tmp_path, capsys):
    script = tmp_path / "s.dwf.py"
    script.write_text(BASE)
    assert main(["check", "--sites", str(script)]) == 0
    out = capsys.readouterr().out
    assert "ask#2     ask" in out or "ask#2  " in out
    line = next(l for l in out.splitlines() if l.startswith("run#1"))
    assert "10:" in line and "pytest" in line and "Fix" in line


def test_sites_in_parameter_defaults_are_numbered_in_preorder_in_the_enclosing_code():
    """A default runs where its `def` or `lambda` is (issue #11), so its sites are numbered
    before the body's, after what precedes the `def`, in the enclosing phase and function."""
    text = '''\
meta = {"name": "defaults", "description": "Sites in defaults."}
phase("Setup")
lead = agent("lead")
async def outer():
    async def helper(style=await lead.ask("Pick a style."), *, limit=len(await files.glob("*.md"))):
        return await lead.ask(f"Write in {style} within {limit}.")
    return await helper()
phase("Write")
picks = [lambda n=await lead.ask(f"Pick {i}."): n for i in range(2)]
return [await outer(), [p() for p in picks]]
'''
    result = compile_text(text)
    assert result.program is not None, [str(d) for d in result.diagnostics]
    rows = [(s.id, s.detail, s.phase, s.function) for s in result.program.sites if s.kind != "actor"]
    assert rows == [
        ("ask#1", "Pick a style.", None, "outer"),
        ("read#1", None, None, "outer"),
        ("ask#2", "Write in {style} within {limit}.", None, "helper"),
        ("ask#3", "Pick {i}.", "Write", None),
    ]
