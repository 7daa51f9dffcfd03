"""The compiler's limits (`compiler.limits`, DWF003): checked before the text is lowered, so
`dwfc check` answers every input with diagnostics and never dies of a signal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import compile_text
from dwf.compiler.limits import MAX_NESTING, MAX_SCRIPT_BYTES

DWFC = str(Path(sys.executable).parent / "dwfc")
META = 'meta = {"name": "limits", "description": "Limits."}\na = 1\n'


def codes(text: str) -> list[str]:
    return [d.code for d in compile_text(text).diagnostics]


def test_a_ten_thousand_term_chain_is_a_diagnostic_not_a_segfault(tmp_path):
    # libcst's native parser (the front end before #18) overflowed the C stack near 8,000 levels:
    # before the pre-check this was exit 139 (SIGSEGV); the IR still nests each `and` a level deeper.
    script = tmp_path / "bomb.dwf.py"
    script.write_text(META + "x = " + " and ".join(["a"] * 10_000) + "\n")
    done = subprocess.run([DWFC, "check", str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert f"{script}:3:5: DWF003 The script is beyond the compiler's limits" in done.stdout
    assert f"nested more than {MAX_NESTING} levels deep" in done.stdout


@pytest.mark.parametrize("operator", ["and", "or"])
def test_chains_past_the_limit_are_refused_at_their_line(operator):
    result = compile_text(META + "\n\ny = " + f" {operator} ".join(["a"] * (MAX_NESTING + 5)) + "\n")
    [diagnostic] = result.diagnostics
    assert (diagnostic.code, diagnostic.span.line) == ("DWF003", 5)
    assert result.program is None


def test_chains_within_the_limit_compile():
    assert codes(META + "x = " + " and ".join(["a"] * 150) + "\ny = " + " or ".join(["a"] * 150) + "\n") == []


def test_a_script_over_the_size_limit_is_refused_with_its_size():
    text = META + "x = 1\n" * (MAX_SCRIPT_BYTES // 6 + 1)
    result = compile_text(text)
    [diagnostic] = result.diagnostics
    assert diagnostic.code == "DWF003"
    assert f"{len(text.encode()):,} bytes; a script is at most {MAX_SCRIPT_BYTES:,} bytes (1 MB)" in diagnostic.message


def test_a_script_at_the_size_limit_is_compiled():
    filler = "x = 1\n" * ((MAX_SCRIPT_BYTES - len(META)) // 6)
    assert len((META + filler).encode()) <= MAX_SCRIPT_BYTES
    assert codes(META + filler) == []


@pytest.mark.parametrize("text", [
    "x = " + "-" * 5000 + "a",  # CPython's own limits give a DWF001
    "x = a" + "[0]" * 5000,
    "x = " + "not " * 5000 + "a",
    "x = " + "a if a else " * 5000 + "a",
])
def test_other_deep_nestings_are_diagnostics(text):
    assert codes(META + text + "\n") in (["DWF001"], ["DWF003"])


def test_the_mcp_server_answers_a_crashing_script_with_a_diagnostic_and_keeps_serving(tmp_path):
    # The script that killed the server before any approval (libcst's SIGSEGV) is now a
    # rejected CreateWorkflow, and the same server answers the next call.
    import anyio
    from mcp import Client, StdioServerParameters

    root = tmp_path / "ws"
    root.mkdir()
    (root / "none.json").write_text('{"rules": []}')
    bomb = META + "x = " + " and ".join(["a"] * 10_000) + "\n"
    parameters = StdioServerParameters(
        command=sys.executable, cwd=str(root), env={"DWF_HOME": str(tmp_path / "home")},
        args=["-m", "dwf.runtime.cli", "mcp", "--workspace", str(root), "--agent", "scripted:none.json"])

    async def main():
        async with Client(parameters) as client:
            rejected = await client.call_tool("CreateWorkflow", {"script": bomb})
            listed = await client.call_tool("ListWorkflowRuns", {})
        return rejected, listed

    rejected, listed = anyio.run(main)
    assert rejected.is_error and rejected.structured_content["status"] == "rejected"
    assert "DWF003" in rejected.structured_content["error"]
    assert not listed.is_error and listed.structured_content["total"] == 0
