"""This module defines the file-based QuestionPort (RUNTIME §4): escalations of a headless run
answered by another process with `dwfc answer QUESTION_ID TEXT`.

Ids are `dwfq-<run id>-<ask occurrence>-<n>` (see `RunHost.escalate`: the whole run id and 16
hex digits of the ask's occurrence, so they are unique across runs), stable across a resume: an
answer written for a question while its run was down is found when the resumed run asks again.
The running process writes `.dwf/questions/<id>.json` (`id`, `run_id`, `actor`, `question`,
`context`, `asked_at`) under the workspace, and polls for `.dwf/questions/<id>.answer` (UTF-8
text) at most every 0.2 s. Waiting has no timeout: cancelling the run is the only other exit.
`write_answer` (used by `dwfc answer`) writes the answer atomically — a temporary file in the
same directory, then a hard link onto the final name, which fails if an answer already exists —
so a reader never sees a partial answer and a question is answered at most once.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

import anyio

from dwf.runtime.statedir import PRIVATE_MODE, StateDir, write_atomic

POLL_INTERVAL_S = 0.2
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")


class AnswerError(Exception):
    """`dwfc answer` cannot answer: unknown id, already answered, or unwritable."""


def questions_dir(workspace: str | os.PathLike) -> Path:
    """The folder of the workspace's questions and answers, `.dwf/questions/`."""
    return StateDir(workspace).questions


def valid_id(question_id: str) -> bool:
    """Whether `question_id` can name a question file (it can never leave its folder)."""
    return isinstance(question_id, str) and bool(_ID.match(question_id))


class FileQuestions:
    """A QuestionPort over `.dwf/questions/` (see the module docstring)."""

    def __init__(self, workspace: str | os.PathLike, run_id: str | None = None, *,
                 notify: Callable[[str], None] | None = None, poll_interval_s: float = POLL_INTERVAL_S):
        self.directory = questions_dir(workspace)
        self.run_id = run_id
        self.notify = notify
        self.poll_interval_s = min(POLL_INTERVAL_S, poll_interval_s) if poll_interval_s > 0 else POLL_INTERVAL_S

    async def ask_owner(self, question_id: str, actor: Any, question: str, context: str | None, *,
                        posted: Callable[[], None] | None = None) -> str:
        if not valid_id(question_id):
            raise ValueError(f"unusable question id {question_id!r}")
        record = {"id": question_id, "run_id": self.run_id, "actor": getattr(actor, "name", None),
                  "actor_id": getattr(actor, "actor_id", None), "question": question, "context": context,
                  "asked_at": time.time()}
        await anyio.to_thread.run_sync(self._write_question, question_id, record)
        if posted is not None:
            posted()
        if self.notify is not None:
            who = record["actor"] or "an anonymous actor"
            self.notify(f"question {question_id} from {who}: {question}\n"
                        f"  answer it with: dwfc answer {question_id} 'TEXT'")
        answer_path = self.directory / f"{question_id}.answer"
        while True:
            answer = await anyio.to_thread.run_sync(_read_if_present, answer_path)
            if answer is not None:
                return answer
            await anyio.sleep(self.poll_interval_s)

    def _write_question(self, question_id: str, record: dict) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        question_path, answer_path = self.directory / f"{question_id}.json", self.directory / f"{question_id}.answer"
        if answer_path.exists():
            # Ids name the run, the ask occurrence and the question's number in it, so a resumed
            # run asking again meets its own earlier question: an answer given to the same
            # question (perhaps while the run was down) stands; anything else is stale.
            try:
                earlier = json.loads(question_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                earlier = None
            if isinstance(earlier, dict) and (earlier.get("run_id"), earlier.get("question")) == (record["run_id"], record["question"]):
                return
            answer_path.unlink()
        write_atomic(question_path, json.dumps(record, indent=2) + "\n", mode=PRIVATE_MODE)


def write_answer(workspace: str | os.PathLike, question_id: str, text: str) -> dict:
    """Answer a pending question; returns its record. Raises AnswerError (unknown id, already
    answered, empty answer)."""
    if not valid_id(question_id):
        raise AnswerError(f"{question_id!r} is not a question id (ids look like "
                          "dwfq-<32 hex digits of the run>-<16 of the ask>-1; `dwfc show RUN` lists a run's questions)")
    directory = questions_dir(workspace)
    question_path = directory / f"{question_id}.json"
    try:
        record = json.loads(question_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AnswerError(f"there is no pending question {question_id} in {directory}; the id comes from the "
                          "run's escalation-raised event (pass --workspace DIR if the run uses another workspace)") from None
    except (OSError, ValueError) as error:
        raise AnswerError(f"cannot read the question {question_path}: {getattr(error, 'strerror', None) or error}") from None
    if not text.strip():
        raise AnswerError("the answer is empty; pass the answer text as the second argument")
    answer_path = directory / f"{question_id}.answer"
    if answer_path.exists():
        raise AnswerError(f"question {question_id} was already answered; an answer cannot be changed")
    try:
        written = write_atomic(answer_path, text, exclusive=True, mode=PRIVATE_MODE)
    except OSError as error:
        raise AnswerError(f"cannot write the answer {answer_path}: {error.strerror or error}") from None
    if not written:
        raise AnswerError(f"question {question_id} was already answered; an answer cannot be changed")
    return record if isinstance(record, dict) else {}


def _read_if_present(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


__all__ = ["AnswerError", "FileQuestions", "POLL_INTERVAL_S", "questions_dir", "valid_id", "write_answer"]


class TerminalQuestions:
    """TerminalQuestions: the QuestionPort of an interactive run: an actor's question is shown
    through `notice` (the progress display) and answered on the terminal."""

    def __init__(self, notice: Callable[[str], None]):
        self.notice = notice
        self.lock = anyio.Lock()

    async def ask_owner(self, question_id: str, actor, question: str, context: str | None, *,
                        posted: Callable[[], None] | None = None) -> str:
        if posted is not None:
            posted()
        async with self.lock:
            who = actor.name or "an anonymous actor"
            self.notice(f"question {question_id} from {who}: {question}" + (f"\n  context: {context}" if context else ""))
            sys.stderr.write("answer> ")
            sys.stderr.flush()
            answer = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        return answer.strip() or "No answer was given. Proceed on your best judgement and say what you assumed."
