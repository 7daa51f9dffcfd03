"""`dwfc check`, `rules` and `explain` as a user runs them: real processes, exit codes, and
snapshotted transcripts (argv, exit code, stdout, stderr) with paths relative to a temp dir."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import EXAMPLES

DWFC = str(Path(sys.executable).parent / "dwfc")

CLEAN = '''\
meta = {"name": "clean", "description": "A clean script."}
phase("Work")
answer = await agent("worker").ask("Say hello")
return answer
'''
BROKEN = '''\
import os
meta = {"name": "Broken Script", "description": "Has mistakes."}
phase("Work")
read = files.read
print(os.getcwd())
agent("worker").ask("Say hello")
'''
SYNTAX = 'meta = {"name": "x", "description": "y"}\nif True\n    pass\n'


def run(args, cwd):
    done = subprocess.run([DWFC, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "clean.dwf.py").write_text(CLEAN)
    (tmp_path / "broken.dwf.py").write_text(BROKEN)
    (tmp_path / "syntax.dwf.py").write_text(SYNTAX)
    return tmp_path


TRANSCRIPTS = {
    "clean": ["check", "clean.dwf.py"],
    "broken-concise": ["check", "broken.dwf.py"],
    "broken-full": ["check", "--format", "full", "broken.dwf.py"],
    "syntax-error": ["check", "syntax.dwf.py"],
    "sites": ["check", "--sites", "clean.dwf.py"],
    "missing-file": ["check", "nope.dwf.py"],
    "no-arguments": ["check"],
    "explain": ["explain", "DWF303"],
    "explain-unknown": ["explain", "DWF3"],
    "rules": ["rules"],
}


@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_transcript(name, workdir, snapshot):
    argv = TRANSCRIPTS[name]
    code, out, err = run(argv, workdir)
    assert {"argv": ["dwfc", *argv], "exit": code, "stdout": out, "stderr": err} == snapshot


def test_exit_codes(workdir):
    assert run(["check", "clean.dwf.py"], workdir)[0] == 0
    assert run(["check", "broken.dwf.py"], workdir)[0] == 1
    assert run(["check", "syntax.dwf.py"], workdir)[0] == 1
    assert run(["check", "nope.dwf.py"], workdir)[0] == 2
    assert run(["check", "--format", "yaml", "clean.dwf.py"], workdir)[0] == 2
    assert run(["explain", "DWF999"], workdir)[0] == 2


def test_syntax_error_is_one_diagnostic(workdir):
    code, out, _ = run(["check", "--format", "json", "syntax.dwf.py"], workdir)
    data = json.loads(out)
    (diagnostic,) = data["files"][0]["diagnostics"]
    assert (diagnostic["code"], diagnostic["line"], diagnostic["column"]) == ("DWF001", 2, 8)


def test_json_shape_is_exact(workdir):
    code, out, _ = run(["check", "--format", "json", "clean.dwf.py", "broken.dwf.py"], workdir)
    data = json.loads(out)
    assert set(data) == {"files", "errors", "warnings"}
    assert [f["path"] for f in data["files"]] == ["clean.dwf.py", "broken.dwf.py"]
    for file in data["files"]:
        assert set(file) == {"path", "diagnostics"}
        for d in file["diagnostics"]:
            assert set(d) == {"line", "column", "end_line", "end_column", "code", "severity", "message", "help"}
            assert d["severity"] in ("error", "warning")
            assert all(isinstance(d[k], int) and d[k] >= 1 for k in ("line", "column", "end_line", "end_column"))
    codes = [d["code"] for d in data["files"][1]["diagnostics"]]
    assert codes == ["DWF204", "DWF503", "DWF301", "DWF201", "DWF204", "DWF317"]
    assert data["errors"] == len(codes) and data["warnings"] == 0
    assert code == 1


# The parts of SARIF 2.1.0 that editors and code-scanning services rely on.
SARIF_SHAPE = {
    "type": "object",
    "required": ["version", "runs", "$schema"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"],
                    "properties": {"rules": {"type": "array", "items": {
                        "type": "object", "required": ["id", "shortDescription"]}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["ruleId", "level", "message", "locations"],
                    "properties": {
                        "level": {"enum": ["error", "warning", "note", "none"]},
                        "message": {"type": "object", "required": ["text"]},
                        "locations": {"type": "array", "minItems": 1, "items": {
                            "type": "object", "required": ["physicalLocation"],
                            "properties": {"physicalLocation": {
                                "type": "object", "required": ["artifactLocation", "region"],
                                "properties": {"region": {
                                    "type": "object", "required": ["startLine", "startColumn"],
                                    "properties": {"startLine": {"type": "integer", "minimum": 1},
                                                   "startColumn": {"type": "integer", "minimum": 1}}}}}}}}}}},
            }}},
    },
}


def test_sarif_output(workdir):
    code, out, _ = run(["check", "--format", "sarif", "broken.dwf.py", "clean.dwf.py"], workdir)
    data = json.loads(out)
    jsonschema.validate(data, SARIF_SHAPE)
    run_ = data["runs"][0]
    rule_ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    for result in run_["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "broken.dwf.py"
    assert len(run_["results"]) == 6 and code == 1


def test_main_job_checks_every_example_clean(tmp_path):
    for path in EXAMPLES:
        shutil.copy(path, tmp_path / path.name)
    code, out, err = run(["check", "."], tmp_path)
    assert code == 0, out + err
    assert out.strip() == f"All checks passed ({len(EXAMPLES)} files)."


def test_directory_without_scripts_is_a_usage_error(tmp_path):
    code, _, err = run(["check", "."], tmp_path)
    assert code == 2 and "no *.dwf.py files" in err
