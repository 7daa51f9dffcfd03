"""The scripted agent port (runtime/ports/scripted.py): every fixture feature, exercised by running small
scripts through the real `Engine` — actor globs (anonymous actors included), site and
instruction matches, sequences whose last outcome repeats, first match wins, the default, no
match, `fail`, `escalate` (answer and `then`), cancellable delays, token counts, `invalid_first`
driving the engine's repair loop, the call log — and the validation of fixture files."""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import pytest

from dwf.runtime.engine import Engine, RunOutcome, StartRequest
from dwf.runtime.journal.memory import MemoryJournal
from dwf.runtime.ports.scripted import (CALL_LOG_ENV, FixtureError, ScriptedAgentPort, default_output_tokens, load_fixture,
                                  parse_fixture)

META = 'meta = {"name": "scripted-test", "description": "Exercises the scripted port."}\n'


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Questions:
    """A QuestionPort fake: answers from a list, records the questions."""

    def __init__(self, *answers: str):
        self.answers = list(answers)
        self.asked: list[tuple[str | None, str]] = []

    async def ask_owner(self, question_id, actor, question, context, *, posted=None):
        if posted is not None:
            posted()
        self.asked.append((actor.name, question))
        return self.answers.pop(0)


async def run_script(body: str, fixture: dict, *, questions=None, journal=None, port=None, **options) -> tuple[RunOutcome, list[dict]]:
    events: list[dict] = []
    port = port or ScriptedAgentPort(parse_fixture(fixture, "test.fixture.json"))
    async with Engine() as engine:
        run = engine.start(StartRequest(script=META + body, agent_port=port, listeners=[events.append],
                                        questions=questions, journal=journal, **options))
        result = await run.result
    return result, events


def usage_events(events: list[dict]) -> list[int]:
    return [e["ask"]["output_tokens"] for e in events if e["type"] == "usage-updated"]


# ---------------------------------------------------------------- matching


@pytest.mark.anyio
async def test_actor_globs_match_slashes_and_anonymous_actors():
    body = """
a = await agent("reviewer-src/pkg/a.py").ask("review a")
b = await agent("reviewer-tests/b.py").ask("review b")
c = await agent().ask("anonymous")
d = await agent("lead").ask("lead")
return [a, b, c, d]
"""
    fixture = {"rules": [
        {"actor": "reviewer-tests/*", "result": "tests"},
        {"actor": "reviewer-*", "result": "reviewer"},  # `*` spans the slashes of src/pkg/a.py
        {"actor": "", "result": "anonymous"},  # only the anonymous actor has the name ""
        {"actor": "*", "result": "anyone"},
    ]}
    result, _ = await run_script(body, fixture)
    assert result.status == "completed", result.error
    assert result.value == ["reviewer", "tests", "anonymous", "anyone"]


@pytest.mark.anyio
async def test_star_matches_anonymous_actors_too_and_globs_are_case_sensitive():
    body = """
a = await agent().ask("one")
b = await agent("Lead").ask("two")
return [a, b]
"""
    fixture = {"rules": [{"actor": "lead", "result": "lower"}, {"actor": "*", "result": "star"}]}
    result, _ = await run_script(body, fixture)
    assert result.value == ["star", "star"]


@pytest.mark.anyio
async def test_site_and_instructions_match():
    body = """
w = agent("worker")
a = await w.ask("Summarize the design")
b = await w.ask("Now summarize the tests")
c = await w.ask("Something else entirely")
return [a, b, c]
"""
    fixture = {"rules": [
        {"site": "ask#3", "result": "by site"},
        {"instructions": "summarize", "result": "by regex (searched, case-sensitive)"},
        {"instructions": "^Summ", "result": "by anchored regex"},
    ]}
    result, _ = await run_script(body, fixture)
    assert result.value == ["by anchored regex", "by regex (searched, case-sensitive)", "by site"]


@pytest.mark.anyio
async def test_all_match_fields_must_match():
    body = """
a = await agent("alpha").ask("hello there")
b = await agent("beta").ask("hello there")
return [a, b]
"""
    fixture = {"rules": [{"actor": "alpha", "instructions": "bye", "result": "no"},
                         {"actor": "beta", "site": "ask#2", "instructions": "hello", "result": "beta"}],
               "default": {"result": "default"}}
    result, _ = await run_script(body, fixture)
    assert result.value == ["default", "beta"]


@pytest.mark.anyio
async def test_first_matching_rule_wins():
    body = 'return await agent("fixer").ask("fix it")\n'
    fixture = {"rules": [{"actor": "fix*", "result": "first"}, {"actor": "fixer", "result": "second"},
                         {"result": "catch-all"}]}
    result, _ = await run_script(body, fixture)
    assert result.value == "first"


@pytest.mark.anyio
async def test_sequence_is_used_in_order_and_the_last_outcome_repeats():
    body = """
fixer = agent("fixer")
out = []
for i in range(5):
    out.append(await fixer.ask(f"attempt {i}"))
return out
"""
    fixture = {"rules": [{"actor": "fixer", "sequence": [{"result": "one"}, {"result": "two"}, {"result": "last"}]}]}
    result, _ = await run_script(body, fixture)
    assert result.value == ["one", "two", "last", "last", "last"]


@pytest.mark.anyio
async def test_sequence_can_mix_failures():
    body = """
fixer = agent("fixer")
out = []
for i in range(3):
    try:
        out.append(await fixer.ask(f"attempt {i}"))
    except AskFailed as err:
        out.append("failed: " + str(err))
return out
"""
    fixture = {"rules": [{"actor": "fixer", "sequence": [{"result": "ok"}, {"fail": "tool crashed"}, {"result": "ok again"}]}]}
    result, _ = await run_script(body, fixture)
    assert result.value[0] == "ok" and result.value[2] == "ok again"
    assert result.value[1].startswith("failed: ") and "tool crashed" in result.value[1]


@pytest.mark.anyio
async def test_default_applies_when_no_rule_matches():
    body = 'return await agent("nobody").ask("anything")\n'
    result, _ = await run_script(body, {"rules": [{"actor": "somebody", "result": "x"}], "default": {"result": "fallback"}})
    assert result.value == "fallback"


@pytest.mark.anyio
async def test_no_match_and_no_default_fails_the_ask_naming_it():
    body = """
x = agent("ghost")
for i in range(2):
    try:
        await x.ask("hello")
    except AskFailed as err:
        last = str(err)
return last
"""
    result, _ = await run_script(body, {"rules": [{"actor": "other", "result": "x"}]})
    assert result.status == "completed", result.error
    message = result.value
    assert "ask#1" in message and "ask#1/for#1[1]" in message  # the site and the occurrence key
    assert '"ghost"' in message and "test.fixture.json" in message and "no default" in message


@pytest.mark.anyio
async def test_no_match_uncaught_errors_the_run_with_askfailed():
    result, _ = await run_script('return await agent().ask("hello")\n', {"rules": []})
    assert result.status == "errored"
    assert result.error.startswith("AskFailed") and "anonymous actor" in result.error and "ask#1" in result.error


# ---------------------------------------------------------------- outcomes


@pytest.mark.anyio
async def test_fail_raises_askfailed_with_the_message():
    journal = MemoryJournal()
    body = """
try:
    await agent("a").ask("x")
except AskFailed as err:
    return str(err)
"""
    result, _ = await run_script(body, {"rules": [{"fail": "the model gave up"}]}, journal=journal)
    assert "the model gave up" in result.value
    row = journal.get_node(result.run_id, "ask#1", "ask#1")
    assert row.status == "failed" and row.error["details"]["code"] == "ScriptedFailure"


@pytest.mark.anyio
async def test_escalate_answer_becomes_the_result():
    questions = Questions("use the staging database")
    body = 'return await agent("worker").ask("which database?")\n'
    result, events = await run_script(body, {"rules": [{"escalate": "Which database should I use?"}]},
                                      questions=questions)
    assert result.value == "use the staging database"
    assert questions.asked == [("worker", "Which database should I use?")]
    raised = [e for e in events if e["type"] == "escalation-raised"]
    resolved = [e for e in events if e["type"] == "escalation-resolved"]
    assert len(raised) == 1 and raised[0]["question"] == "Which database should I use?"
    assert resolved[0]["id"] == raised[0]["id"] and resolved[0]["answer"] == "use the staging database"


@pytest.mark.anyio
async def test_escalate_answer_is_parsed_for_typed_asks():
    body = """
from typing import TypedDict
class Choice(TypedDict):
    db: str
return await agent("worker").ask("which database?", returns=Choice)
"""
    result, _ = await run_script(body, {"rules": [{"escalate": "Which one?"}]}, questions=Questions('{"db": "staging"}'))
    assert result.value == {"db": "staging"}


@pytest.mark.anyio
async def test_escalate_then_applies_the_next_outcome():
    questions = Questions("go ahead")
    body = """
from typing import TypedDict
class Plan(TypedDict):
    steps: list[str]
return await agent("planner").ask("plan", returns=Plan)
"""
    fixture = {"rules": [{"escalate": "May I delete the legacy module?",
                          "then": {"result": {"steps": ["delete legacy", "update imports"]}}}]}
    result, _ = await run_script(body, fixture, questions=questions)
    assert result.value == {"steps": ["delete legacy", "update imports"]}
    assert questions.asked == [("planner", "May I delete the legacy module?")]


@pytest.mark.anyio
async def test_escalate_then_fail_and_the_engine_answers_without_a_question_port():
    body = """
try:
    await agent("a").ask("x")
except AskFailed as err:
    return str(err)
"""
    fixture = {"rules": [{"escalate": "Anyone there?", "then": {"fail": "nobody answered usefully"}}]}
    result, events = await run_script(body, fixture)
    assert "nobody answered usefully" in result.value
    resolved = [e for e in events if e["type"] == "escalation-resolved"]
    assert resolved and "best judgement" in resolved[0]["answer"]


@pytest.mark.anyio
async def test_untyped_ask_needs_a_string_result():
    body = """
try:
    await agent("a").ask("x")
except AskFailed as err:
    return str(err)
"""
    result, _ = await run_script(body, {"rules": [{"result": {"not": "text"}}]})
    assert "must be a string" in result.value and "ask#1" in result.value


@pytest.mark.anyio
async def test_typed_result_is_submitted_and_validated():
    body = """
from typing import Literal, TypedDict
class Review(TypedDict):
    verdict: Literal["approve", "reject"]
    findings: list[str]
return await agent("r").ask("review", returns=Review)
"""
    result, _ = await run_script(body, {"rules": [{"result": {"verdict": "approve", "findings": ["ok"]}}]})
    assert result.value == {"verdict": "approve", "findings": ["ok"]}


@pytest.mark.anyio
async def test_a_result_that_violates_the_schema_fails_with_validation_failed():
    journal = MemoryJournal()
    body = """
from typing import Literal, TypedDict
class Review(TypedDict):
    verdict: Literal["approve", "reject"]
return await agent("r").ask("review", returns=Review)
"""
    result, _ = await run_script(body, {"rules": [{"result": {"verdict": "maybe"}}]}, journal=journal)
    assert result.status == "errored" and "did not match its schema" in result.error
    row = journal.get_node(result.run_id, "ask#1", "ask#1")
    assert row.error["details"]["code"] == "ValidationFailed"
    assert any("$.verdict" in v for v in row.error["details"]["violations"])


@pytest.mark.anyio
async def test_delay_is_awaited():
    body = 'return await agent("slow").ask("x")\n'
    started = time.monotonic()
    result, _ = await run_script(body, {"rules": [{"delay_s": 0.3, "result": "done"}]})
    assert result.value == "done" and time.monotonic() - started >= 0.3


@pytest.mark.anyio
async def test_delay_is_cancellable():
    body = 'return await agent("slow").ask("x")\n'
    port = ScriptedAgentPort(parse_fixture({"rules": [{"delay_s": 60, "result": "never"}]}))
    events: list[dict] = []
    started = time.monotonic()
    async with Engine() as engine:
        run = engine.start(StartRequest(script=META + body, agent_port=port, listeners=[events.append],
                                        grace_period_s=2.0))
        with anyio.fail_after(5):
            while not any(e["type"] == "node-started" for e in events):
                await anyio.sleep(0.01)
        run.cancel("user")
        with anyio.fail_after(5):
            result = await run.result
        settled_after = time.monotonic() - started
    assert settled_after < 1.5  # well inside the grace period: the sleep itself was cancelled
    assert result.status == "stopped" and result.stop_reason == "user"
    assert "force-settled" not in result.error
    settled = [e for e in events if e["type"] == "node-settled"]
    assert [e["outcome"] for e in settled] == ["cancelled"]


@pytest.mark.anyio
async def test_output_tokens_default_and_explicit():
    body = """
a = await agent("a").ask("one")
b = await agent("b").ask("two")
return [a, b]
"""
    text = "x" * 400
    result, events = await run_script(body, {"rules": [{"actor": "a", "result": text},
                                                       {"actor": "b", "output_tokens": 1234, "result": "short"}]})
    assert result.status == "completed"
    assert default_output_tokens(text) == len(json.dumps(text)) // 4 == 100
    assert default_output_tokens("") == 1  # never zero
    assert usage_events(events) == [100, 1234]
    assert result.usage["output_tokens"] == 1334


@pytest.mark.anyio
async def test_budget_sees_scripted_tokens():
    body = """
w = agent("w")
done = 0
for i in range(5):
    try:
        await w.ask(f"step {i}")
    except BudgetExceeded:
        return {"done": done, "spent": budget.spent()}
    done += 1
return {"done": done}
"""
    result, _ = await run_script(body, {"rules": [{"output_tokens": 400, "result": "ok"}]}, budget=1000)
    assert result.value == {"done": 3, "spent": 1200}


@pytest.mark.anyio
async def test_invalid_first_exercises_the_repair_loop():
    body = """
from typing import TypedDict
class Count(TypedDict):
    n: int
return await agent("counter").ask("count", returns=Count)
"""
    result, events = await run_script(body, {"rules": [{"invalid_first": 2, "result": {"n": 7}}]})
    assert result.status == "completed", result.error
    assert result.value == {"n": 7}
    repairs = [e["message"] for e in events if e["type"] == "node-progress"]
    assert repairs == ["repairing (1/3)", "repairing (2/3)"]


@pytest.mark.anyio
async def test_invalid_first_beyond_the_repair_limit_fails_with_validation_failed():
    journal = MemoryJournal()
    body = """
from typing import TypedDict
class Count(TypedDict):
    n: int
try:
    await agent("counter").ask("count", returns=Count)
except AskFailed as err:
    return str(err)
"""
    result, events = await run_script(body, {"rules": [{"invalid_first": 5, "result": {"n": 7}}]}, journal=journal)
    assert result.status == "completed"
    assert "did not match its schema after 3 repairs" in result.value
    assert journal.get_node(result.run_id, "ask#1", "ask#1").error["details"]["code"] == "ValidationFailed"
    assert len([e for e in events if e["type"] == "node-progress"]) == 3


@pytest.mark.anyio
async def test_invalid_first_picks_a_value_the_schema_rejects():
    # For a dict-of-bool schema `{"__invalid__": true}` would be valid, so another value is used.
    body = """
return await agent("a").ask("flags", returns=dict[str, bool])
"""
    result, events = await run_script(body, {"rules": [{"invalid_first": 1, "result": {"x": True}}]})
    assert result.value == {"x": True}
    assert [e["message"] for e in events if e["type"] == "node-progress"] == ["repairing (1/3)"]


@pytest.mark.anyio
async def test_call_log_has_one_line_per_dispatched_ask(tmp_path, monkeypatch):
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv(CALL_LOG_ENV, str(log))
    body = """
out = []
for path in ["a.py", "b.py"]:
    out.append(await agent(f"reviewer-{path}").ask(f"Review {path}"))
out.append(await agent().ask("Anonymous work"))
return out
"""
    port = ScriptedAgentPort(parse_fixture({"rules": [{"result": "ok"}]}))
    result, _ = await run_script(body, {}, port=port)
    assert result.status == "completed", result.error
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines == [
        {"actor": "reviewer-a.py", "site": "ask#1", "occurrence": "ask#1/for#1[0]", "instructions": "Review a.py"},
        {"actor": "reviewer-b.py", "site": "ask#1", "occurrence": "ask#1/for#1[1]", "instructions": "Review b.py"},
        {"actor": "", "site": "ask#2", "occurrence": "ask#2", "instructions": "Anonymous work"},
    ]
    assert port.calls == lines


@pytest.mark.anyio
async def test_no_call_log_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(CALL_LOG_ENV, raising=False)
    port = ScriptedAgentPort(parse_fixture({"rules": [{"result": "ok"}]}))
    assert port.call_log is None
    result, _ = await run_script('return await agent().ask("x")\n', {}, port=port)
    assert result.value == "ok" and len(port.calls) == 1


@pytest.mark.anyio
async def test_parallel_actors_with_named_rules_are_deterministic():
    body = """
results = await parallel(agent(f"worker-{i}").ask(f"task {i}") for i in range(4))
return results
"""
    fixture = {"rules": [{"actor": "worker-1", "delay_s": 0.05, "result": "one"},
                         {"actor": "worker-3", "fail": "boom"},
                         {"actor": "worker-*", "result": "other"}]}
    result, _ = await run_script(body, fixture, max_concurrency=4)
    assert result.value == ["other", "one", "other", None]


# ---------------------------------------------------------------- fixture validation


@pytest.mark.parametrize("data, path, message", [
    ([], "$", "must be a JSON object"),
    ({}, "$", 'missing "rules"'),
    ({"rules": {}}, "$.rules", "must be a list"),
    ({"rules": [], "extra": 1}, "$", 'unknown key "extra"'),
    ({"rules": ["x"]}, "$.rules[0]", "a rule must be a JSON object"),
    ({"rules": [{"actor": "a", "resut": "x"}]}, "$.rules[0]", 'unknown key "resut"'),
    ({"rules": [{"result": "x", "fail": "y"}]}, "$.rules[0]", 'two outcomes ("result" and "fail")'),
    ({"rules": [{"actor": "a"}]}, "$.rules[0]", "needs exactly one of"),
    ({"rules": [{"actor": 3, "result": "x"}]}, "$.rules[0].actor", "must be a string"),
    ({"rules": [{"instructions": "(unclosed", "result": "x"}]}, "$.rules[0].instructions", "not a valid regular expression"),
    ({"rules": [{"sequence": [{"result": "x"}], "result": "y"}]}, "$.rules[0]", 'either "sequence" or one outcome'),
    ({"rules": [{"sequence": []}]}, "$.rules[0].sequence", "non-empty list"),
    ({"rules": [{"sequence": [{"result": "x"}, {"result": 1, "escalate": "q"}]}]}, "$.rules[0].sequence[1]", "two outcomes"),
    ({"rules": [{"result": "x", "then": {"result": "y"}}]}, "$.rules[0].then", "only follows an \"escalate\""),
    ({"rules": [{"escalate": "q", "then": {"delay_s": 1}}]}, "$.rules[0].then", "needs exactly one of"),
    ({"rules": [{"fail": 3}]}, "$.rules[0].fail", "must be a string"),
    ({"rules": [{"result": "x", "delay_s": -1}]}, "$.rules[0].delay_s", "non-negative number"),
    ({"rules": [{"result": "x", "output_tokens": 1.5}]}, "$.rules[0].output_tokens", "non-negative integer"),
    ({"rules": [{"result": "x", "invalid_first": True}]}, "$.rules[0].invalid_first", "non-negative integer"),
    ({"rules": [{"fail": "x", "invalid_first": 1}]}, "$.rules[0].invalid_first", "only applies to a \"result\""),
    ({"rules": [], "default": {"result": "x", "oops": 1}}, "$.default", 'unknown key "oops"'),
])
def test_bad_fixtures_name_the_file_and_the_json_path(data, path, message):
    with pytest.raises(FixtureError) as caught:
        parse_fixture(data, "my.fixture.json")
    text = str(caught.value)
    assert text.startswith(f"my.fixture.json: {path}: "), text
    assert message in text, text


def test_load_fixture_reports_missing_and_malformed_files(tmp_path):
    with pytest.raises(FixtureError, match="no such fixture file"):
        load_fixture(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(FixtureError, match=r"bad\.json: not valid JSON"):
        load_fixture(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"rules": [{"actor": "a*", "sequence": [{"result": 1}, {"fail": "x"}]}],
                                "default": {"escalate": "q", "then": {"result": "y"}}}))
    fixture = load_fixture(good)
    assert len(fixture.rules) == 1 and len(fixture.rules[0].outcomes) == 2
    assert fixture.default.kind == "escalate" and fixture.default.then.value == "y"


def test_every_example_fixture_is_valid():
    examples = Path(__file__).resolve().parents[2] / "examples"
    fixtures = sorted(examples.glob("*.fixture.json"))
    assert fixtures
    for path in fixtures:
        load_fixture(path)
