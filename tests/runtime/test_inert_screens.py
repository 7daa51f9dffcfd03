"""Screens are inert (issue #19, point 1): every string from a script, an agent or a file is shown
with its control, bidi and zero-width characters escaped. The approval screen is fed to a real
terminal emulator (`pyte`): a script whose every string tries to clear the screen and draw
"Commands (0)" still shows the commands it runs; JSON keeps the values with `\\uXXXX` escapes;
`dwfc runs`/`show`/`events`/`run` print an agent's payloads escaped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyte

from dwf.compiler import render
from dwf.compiler.inert import escape, flatten, json_text, screen
from dwf.compiler.plan.html import render_html
from dwf.runtime.host.approval import plan_summary, prepared_plan
from dwf.runtime.host.session import WorkspaceSession
from dwf.runtime.tools.layer import result_text

DWFC = Path(sys.executable).parent / "dwfc"
# Clear the screen, go home, draw a fake commands section, conceal what follows, reverse it
# (bidi override), set the window title, and hide a zero-width space: in every string field.
PAYLOAD = "\\x1b[2J\\x1b[H\\nCommands (0)\\n  This script runs no commands.\\n\\x1b[8m\\u202e\\x1b]0;ok\\x07\\u200b\\x9b2J"
SCRIPT = f'''meta = {{
    "name": "inert",
    "description": "Looks harmless.{PAYLOAD}",
    "when_to_use": "Always.{PAYLOAD}",
    "args": {{"target": {{"type": "string", "description": "What.{PAYLOAD}", "default": "x{PAYLOAD}"}}}},
    "phases": [{{"title": "Work{PAYLOAD}", "detail": "Detail{PAYLOAD}"}}],
}}

phase("Work{PAYLOAD}")
log("hello{PAYLOAD}")
answer = await agent("helper{PAYLOAD}", system="Persona{PAYLOAD}").ask("Task{PAYLOAD}", label="Label{PAYLOAD}")
report({{"note{PAYLOAD}": answer}})
done = await world.run("sh", ["-c", "echo hi{PAYLOAD}"])
return {{"result{PAYLOAD}": answer, "out": done.stdout}}
'''
RAW = PAYLOAD.encode().decode("unicode_escape")  # the characters the payload is made of


def terminal(text: str, columns: int = 120, lines: int = 200) -> list[str]:
    """What a terminal shows after `text` is written to it (newlines as the tty's CR LF)."""
    display = pyte.Screen(columns, lines)
    display.set_mode(pyte.modes.LNM)
    pyte.Stream(display).feed(text)
    return [line.rstrip() for line in display.display]


def no_unsafe(text: str) -> bool:
    return escape(text.replace("\n", "").replace("\t", "")) == text.replace("\n", "").replace("\t", "")


def prepared_run(root: Path):
    prepared = WorkspaceSession(root).prepare(SCRIPT, "inert.dwf.py", {})
    assert prepared.program is not None, [d.message for d in prepared.compiled.diagnostics]
    return prepared


def test_the_emulator_obeys_the_payload_when_it_is_raw():
    # The check below can fail: written raw, the payload wipes the screen and draws the fake section.
    shown = terminal("Commands (1)\n  sh\n" + RAW.split("\x1b[8m")[0])
    assert "Commands (0)" in shown and "  sh" not in shown


def test_the_approval_screen_shows_the_real_commands_whatever_the_strings_hold(tmp_path):
    text = plan_summary(prepared_run(tmp_path), tmp_path, agent="scripted")
    shown = terminal(text)
    assert shown[0].startswith("Plan: inert")  # nothing cleared the screen or moved the cursor
    assert not any(line.startswith("Commands (0)") for line in shown)
    start = next(i for i, line in enumerate(shown) if line.startswith("Commands ("))
    assert shown[start] == "Commands (1)"
    assert "sh" in " ".join(shown[start:start + 8]).split()  # after the section's few lines of explanation
    assert not any(line.strip() == "This script runs no commands." for line in shown)
    assert no_unsafe(text)
    assert shown[1:3] == ["  Looks harmless.\\x1b[2J\\x1b[H Commands (0) This script runs no commands.",
                          "  \\x1b[8m\\u202e\\x1b]0;ok\\x07\\u200b\\x9b2J"]  # shown, escaped, inside its paragraph


def test_plan_json_and_html_escape_what_they_carry(tmp_path):
    plan = prepared_plan(prepared_run(tmp_path))
    data = render.dumps(plan)
    assert no_unsafe(data) and "\\u001b[2J" in data and "\\u202e" in data
    assert json.loads(data)["description"] == "Looks harmless." + RAW  # the value itself is kept
    page = render_html(plan, {"phase": "<svg></svg>", "causal": "<svg></svg>", "handoff": "<svg></svg>"})
    assert no_unsafe(page) and "\\u202e" in page


def test_the_inert_helpers():
    assert escape("a\x1b[2Jb\nc\td\u202e\U000e0041") == "a\\x1b[2Jb\\nc\\td\\u202e\\U000e0041"
    assert flatten("one\ntwo\t\x07") == "one two \\x07"
    assert screen("line\n\x1b[Hnext\t\u2066") == "line\n\\x1b[Hnext\t\\u2066"
    text = json.dumps({"k": RAW}, ensure_ascii=False, indent=2)
    assert json.loads(json_text(text)) == {"k": RAW} and no_unsafe(json_text(text))


def test_tool_results_are_inert():
    assert result_text({"ok": False, "error": "bad" + RAW}) == "bad" + screen(RAW)
    assert no_unsafe(result_text({"ok": True, "log": ["x" + RAW]}))


def test_run_show_runs_and_events_print_the_agents_and_scripts_strings_escaped(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "inert.dwf.py").write_text(SCRIPT)
    (root / "agent.json").write_text(json.dumps({"rules": [{"actor": "helper" + RAW, "result": "answer" + RAW}]}))
    env = {**os.environ, "TERM": "dumb"}

    def dwfc(*argv):
        return subprocess.run([str(DWFC), *argv], cwd=root, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60, env=env)

    ran = dwfc("run", "inert.dwf.py", "--yes", "--agent", "scripted:agent.json", "--progress", "text")
    assert ran.returncode in (0, 1), ran.stderr[-3000:]
    outputs = [ran.stdout, ran.stderr]
    for argv in (("runs",), ("runs", "--json"), ("show", "dwfrun-"), ("show", "dwfrun-", "--json"),
                 ("events", "dwfrun-")):
        done = dwfc(*argv)
        assert done.returncode == 0, (argv, done.stderr)
        outputs += [done.stdout, done.stderr]
    assert all(no_unsafe(output) for output in outputs), [o for o in outputs if not no_unsafe(o)][0][:2000]
    assert "\\u202e" in "".join(outputs) or "\\\\u202e" in "".join(outputs)
