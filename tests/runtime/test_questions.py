"""Escalation across processes (RUNTIME §4, TOOLS §1): the file-based QuestionPort of
`runtime.ports.questions`, `dwfc answer`, and a headless `dwfc run --progress stream-json` whose
actor's question is answered by a second process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest

from dwf.runtime.cli.main import main
from dwf.runtime.ports.protocols import ActorSpec
from dwf.runtime.ports.questions import POLL_INTERVAL_S, AnswerError, FileQuestions, questions_dir, write_answer

DWFC = Path(sys.executable).parent / "dwfc"

ESCALATING = '''meta = {"name": "escalating", "description": "An actor asks the owner a question."}
phase("Decide")
choice = await agent("planner").ask("Pick a database")
return choice
'''
ESCALATING_FIXTURE = {"rules": [{"actor": "planner", "escalate": "Which database should I use?"}]}


@pytest.fixture
def anyio_backend():
    return "asyncio"


ACTOR = ActorSpec("actor#1", "planner", None, None, None)


@pytest.mark.anyio
async def test_file_questions_round_trip(tmp_path):
    port = FileQuestions(tmp_path, "dwfrun-abc")
    answers = []

    async def ask():
        answers.append(await port.ask_owner("dwfq-abc-1", ACTOR, "Which one?", "context here"))

    async with anyio.create_task_group() as group:
        group.start_soon(ask)
        question = questions_dir(tmp_path) / "dwfq-abc-1.json"
        with anyio.fail_after(5):
            while not question.exists():
                await anyio.sleep(0.02)
        record = json.loads(question.read_text())
        assert record["question"] == "Which one?" and record["context"] == "context here"
        assert record["actor"] == "planner" and record["run_id"] == "dwfrun-abc"
        await anyio.sleep(0.3)
        assert answers == []  # no timeout: it waits
        write_answer(tmp_path, "dwfq-abc-1", "Postgres")
    assert answers == ["Postgres"]


@pytest.mark.anyio
async def test_file_questions_poll_at_most_every_200ms_and_cancel(tmp_path):
    port = FileQuestions(tmp_path, "r", poll_interval_s=5)
    assert port.poll_interval_s <= POLL_INTERVAL_S
    with anyio.move_on_after(0.5) as scope:
        await port.ask_owner("dwfq-x-1", ACTOR, "Q?", None)
    assert scope.cancelled_caught  # cancellation is the exit


def test_write_answer_refuses_unknown_ids_twice_and_bad_ids(tmp_path):
    with pytest.raises(AnswerError, match="no pending question"):
        write_answer(tmp_path, "dwfq-none-1", "text")
    with pytest.raises(AnswerError, match="not a question id"):
        write_answer(tmp_path, "../etc/passwd", "text")
    directory = questions_dir(tmp_path)
    directory.mkdir(parents=True)
    (directory / "dwfq-a-1.json").write_text(json.dumps({"id": "dwfq-a-1", "actor": "x"}))
    with pytest.raises(AnswerError, match="empty"):
        write_answer(tmp_path, "dwfq-a-1", "  ")
    write_answer(tmp_path, "dwfq-a-1", "first")
    with pytest.raises(AnswerError, match="already answered"):
        write_answer(tmp_path, "dwfq-a-1", "second")
    assert (directory / "dwfq-a-1.answer").read_text() == "first"
    assert not [p for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_dwfc_answer_exit_codes(tmp_path, capsys):
    assert main(["answer", "dwfq-none-1", "yes", "--workspace", str(tmp_path)]) == 2
    assert "no pending question dwfq-none-1" in capsys.readouterr().err
    directory = questions_dir(tmp_path)
    directory.mkdir(parents=True)
    (directory / "dwfq-b-2.json").write_text(json.dumps({"id": "dwfq-b-2", "actor": "planner"}))
    assert main(["answer", "dwfq-b-2", "yes", "--workspace", str(tmp_path)]) == 0
    assert "answered question dwfq-b-2 from planner" in capsys.readouterr().err
    assert main(["answer", "dwfq-b-2", "no", "--workspace", str(tmp_path)]) == 2
    assert "already answered" in capsys.readouterr().err


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "escalating.dwf.py").write_text(ESCALATING)
    (tmp_path / "fixture.json").write_text(json.dumps(ESCALATING_FIXTURE))
    return tmp_path / "escalating.dwf.py", tmp_path / "fixture.json"


def test_stream_json_run_is_answered_by_another_process(tmp_path):
    script, fixture = _workspace(tmp_path)
    run = subprocess.Popen([str(DWFC), "run", str(script), "--yes", "--agent", f"scripted:{fixture}",
                            "--progress", "stream-json", "--workspace", str(tmp_path)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=tmp_path)
    timer = threading.Timer(60, run.kill)
    timer.start()
    try:
        lines = []
        question_id = None
        for line in run.stdout:
            lines.append(line)
            item = json.loads(line)
            event = item.get("event") or {}
            if event.get("type") == "escalation-raised":
                question_id = event["id"]
                assert event["question"] == "Which database should I use?"
                break
        assert question_id, "".join(lines) + run.stderr.read()
        time.sleep(0.3)
        assert run.poll() is None  # still waiting for the answer
        answered = subprocess.run([str(DWFC), "answer", question_id, "Use SQLite", "--workspace", str(tmp_path)],
                                  capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
        assert answered.returncode == 0, answered.stderr
        rest, errors = run.communicate(timeout=60)
    finally:
        timer.cancel()
    objects = [json.loads(line) for line in rest.splitlines() if line.strip()]
    resolved = [o["event"] for o in objects if o.get("event", {}).get("type") == "escalation-resolved"]
    assert resolved and resolved[0]["id"] == question_id and resolved[0]["answer"] == "Use SQLite"
    result = objects[-1]
    assert run.returncode == 0, errors
    assert result["status"] == "completed" and result["value"] == "Use SQLite"
    again = subprocess.run([str(DWFC), "answer", question_id, "Postgres", "--workspace", str(tmp_path)],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert again.returncode == 2 and "already answered" in again.stderr


def _start_headless(tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    script, fixture = _workspace(tmp_path)
    run = subprocess.Popen([str(DWFC), "run", str(script), "--yes", "--agent", f"scripted:{fixture}",
                            "--progress", "json", "--workspace", str(tmp_path)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=tmp_path)
    return run, fixture


def _first_question_file(tmp_path: Path) -> Path:
    directory = questions_dir(tmp_path)
    deadline = time.monotonic() + 30
    pending = []
    while time.monotonic() < deadline and not pending:
        pending = sorted(directory.glob("*.json")) if directory.is_dir() else []
        time.sleep(0.05)
    assert pending, "no question file was written"
    return pending[0]


def test_headless_text_run_tells_how_to_answer(tmp_path):
    run, _ = _start_headless(tmp_path)
    try:
        question_id = _first_question_file(tmp_path).stem
        write_answer(tmp_path, question_id, "MySQL")
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    assert json.loads(out)["value"] == "MySQL"
    assert f"dwfc answer {question_id}" in err


def test_a_question_answered_while_the_run_was_down_is_found_after_resume(tmp_path):
    run, fixture = _start_headless(tmp_path)
    try:
        question = _first_question_file(tmp_path)
    finally:
        run.kill()  # the process dies while its actor waits for the owner
        run.communicate()
    question_id = question.stem
    answered = subprocess.run([str(DWFC), "answer", question_id, "Use DuckDB", "--workspace", str(tmp_path)],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert answered.returncode == 0, answered.stderr
    run_id = json.loads(question.read_text())["run_id"]
    resumed = subprocess.run([str(DWFC), "resume", run_id, "--agent", f"scripted:{fixture}", "--progress", "json",
                              "--workspace", str(tmp_path)], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                             timeout=60, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    # the re-dispatched ask asked the same question under the same id and found the answer
    assert json.loads(resumed.stdout)["value"] == "Use DuckDB"
    assert sorted(p.name for p in questions_dir(tmp_path).iterdir()) == [f"{question_id}.answer", f"{question_id}.json"]


def test_questions_of_an_amended_run_name_the_new_run(tmp_path):
    run, fixture = _start_headless(tmp_path)
    try:
        first = _first_question_file(tmp_path)
    finally:
        run.kill()
        run.communicate()
    old_id = json.loads(first.read_text())["run_id"]
    amend = subprocess.Popen([str(DWFC), "amend", old_id, str(tmp_path / "escalating.dwf.py"), "--yes", "--agent",
                              f"scripted:{fixture}", "--progress", "json", "--workspace", str(tmp_path)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=tmp_path)
    try:
        deadline, second = time.monotonic() + 30, None
        while time.monotonic() < deadline and second is None:
            second = next((p for p in questions_dir(tmp_path).glob("*.json") if p != first), None)
            time.sleep(0.05)
        assert second is not None, "the amended run asked no question"
        write_answer(tmp_path, second.stem, "Use SQLite")
        out, err = amend.communicate(timeout=60)
    finally:
        if amend.poll() is None:
            amend.kill()
    result = json.loads(out)
    assert amend.returncode == 0, err
    assert result["value"] == "Use SQLite" and result["run_id"] != old_id
    assert json.loads(second.read_text())["run_id"] == result["run_id"]
    assert second.stem.startswith("dwfq-" + result["run_id"].removeprefix("dwfrun-")[:8])
