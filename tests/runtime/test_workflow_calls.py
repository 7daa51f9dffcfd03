"""Saved workflows called inline (LANGUAGE §6.3, runtime/engine/called.py): the called script
runs on the calling run's journal, caps and budget, its effects keyed under the call; a run
that names an unknown, broken or nesting workflow, or unapproved commands, is refused before
any effect; a resume replays the called workflow's finished asks from the pinned script."""

from __future__ import annotations

import anyio
import pytest

from dwf.runtime.engine import Engine, StartError, StartRequest
from dwf.runtime.journal.memory import MemoryJournal
from fakes import FakeAgentPort

META = 'meta = {"name": "caller", "description": "Calls a saved workflow."}\n'
CHILD = '''\
meta = {"name": "summarize", "description": "Summarizes a topic.",
        "args": {"topic": {"type": "string", "required": True}}}
phase("Summarize")
lead = agent("lead")
first = await lead.ask(f"outline {args['topic']}")
second = await lead.ask(f"summarize {first}")
report(second)
return {"topic": args["topic"], "summary": second}
'''


def fake_port(block: str | None = None) -> FakeAgentPort:
    """Answers `<actor>: <instructions>`, 5 output tokens per ask; `calls` logs (key, actor,
    instructions) of every dispatched ask. `block` makes asks whose instructions contain it wait
    until the run is cancelled."""
    return FakeAgentPort(record=lambda request: (request.key, request.actor.name, request.instructions),
                         delay=lambda request: 3600 if block and block in request.instructions else None, usage=5,
                         text=lambda request: f"{request.actor.name}: {request.instructions}")


async def start_and_wait(body: str, port: FakeAgentPort, workflows: dict | None, **options):
    events: list[dict] = []
    async with Engine() as engine:
        run = engine.start(StartRequest(script=META + body, agent_port=port, workflows=workflows,
                                        listeners=[events.append], **options))
        return await run.result, events


def run(body: str, workflows: dict | None = None, port: FakeAgentPort | None = None, **options):
    port = port or fake_port()
    result, events = anyio.run(lambda: start_and_wait(body, port, workflows, **options))
    return result, port, events


def test_a_called_workflow_runs_inline_under_the_call():
    body = ('lead = agent("lead")\nmine = await lead.ask("plan")\n'
            'done = await workflow("summarize", {"topic": "queues"})\nreturn [mine, done]\n')
    journal = MemoryJournal()
    result, port, events = run(body, {"summarize": CHILD}, journal=journal)
    assert result.status == "completed", result.error
    summary = "summarize/lead: summarize summarize/lead: outline queues"
    assert result.value == ["lead: plan", {"topic": "queues", "summary": summary}]
    # its asks are keyed under the call and its actor is named under the workflow
    assert port.calls == [("ask#1", "lead", "plan"), ("workflow#1/ask#1", "summarize/lead", "outline queues"),
                               ("workflow#1/ask#2", "summarize/lead", "summarize summarize/lead: outline queues")]
    keys = [node.key for node in journal.list_nodes(result.run_id)]
    assert keys == ["ask#1", "workflow#1/ask#1", "workflow#1/ask#2", "workflow#1/report#1"]
    assert result.reports == [summary] and result.usage["output_tokens"] == 15
    assert [e["name"] for e in events if e["type"] == "phase-entered"] == ["summarize: Summarize"]
    assert journal.get_run(result.run_id).workflows == {"summarize": CHILD}  # pinned for a resume


def test_two_calls_have_their_own_keys_and_a_typed_ask_uses_the_called_schema():
    child = ('meta = {"name": "count", "description": "Counts."}\n'
             'Count = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}\n'
             'got = await agent().ask("count", returns=Count)\nreturn got["n"]\n')
    body = 'a = await workflow("count")\nb = await workflow("count")\nreturn a + b\n'

    typed = FakeAgentPort(record=lambda request: (request.key, request.schema), value={"n": 2})
    result, port, _ = run(body, {"count": child}, typed)
    assert result.status == "completed", result.error
    assert result.value == 4
    assert [key for key, _ in port.calls] == ["workflow#1/ask#1", "workflow#2/ask#1"]
    assert port.calls[0][1]["required"] == ["n"]


def test_bad_args_and_a_failing_workflow_are_catchable_workflow_errors():
    failing = 'meta = {"name": "boom", "description": "Fails."}\nx = 1\nraise ValueError("no luck")\n'
    body = '''\
out = []
try:
    await workflow("summarize", {"subject": "x"})
except WorkflowError as error:
    out.append(str(error))
try:
    await workflow("boom")
except WorkflowError as error:
    out.append(str(error))
return out
'''
    result, port, _ = run(body, {"summarize": CHILD, "boom": failing})
    assert result.status == "completed", result.error
    bad_args, failed = result.value
    assert bad_args.startswith('workflow("summarize") was called with bad args: ')
    assert "unknown argument `subject`" in bad_args and "missing required argument `topic`" in bad_args
    assert failed == "the saved workflow `boom` failed (line 3): ValueError: no luck"
    assert port.calls == []


@pytest.mark.parametrize("workflows, expected", [
    (None, "the script calls the saved workflow `summarize`, whose script was not given"),
    ({"summarize": "meta = {}\nreturn (\n"}, "the saved workflow `summarize` has 1 error"),
    ({"summarize": 'meta = {"name": "s", "description": "d"}\nreturn await workflow("other")\n'},
     "saved workflows run one level deep: `summarize` calls `other`"),
])
def test_a_run_that_cannot_call_its_workflows_is_refused_before_any_effect(workflows, expected):
    port = fake_port()

    async def main():
        async with Engine() as engine:
            engine.start(StartRequest(script=META + 'x = await agent("a").ask("go")\n'
                                      'return await workflow("summarize", {"topic": "t"})\n',
                                      agent_port=port, workflows=workflows))

    with pytest.raises(StartError) as refused:
        anyio.run(main)
    assert refused.value.problems[0].startswith(expected)
    assert port.calls == []


def test_the_called_workflows_commands_need_approval():
    child = 'meta = {"name": "check", "description": "Runs true."}\nr = await world.run("true")\nreturn r.exit_code\n'
    body = 'return await workflow("check")\n'

    async def main(approved):
        async with Engine() as engine:
            engine.start(StartRequest(script=META + body, agent_port=fake_port(), workflows={"check": child},
                                      approved_commands=approved))

    with pytest.raises(StartError, match="not approved: true"):
        anyio.run(main, frozenset())
    anyio.run(main, frozenset({"true"}))  # approved: it starts


def test_a_resume_replays_the_called_workflows_finished_asks_from_the_pinned_script(tmp_path):
    from dwf.runtime.journal.sqlite import SqliteJournal

    body = 'return await workflow("summarize", {"topic": "queues"})\n'
    journal = SqliteJournal(tmp_path / "state.db")
    first = fake_port(block="summarize ")  # the second ask of the called workflow never finishes

    async def interrupted():
        async with Engine() as engine:
            run = engine.start(StartRequest(script=META + body, agent_port=first, journal=journal,
                                            workflows={"summarize": CHILD}))
            while len(first.calls) < 2:
                await anyio.sleep(0.01)
            run.cancel("user")
            return await run.result

    stopped = anyio.run(interrupted)
    assert stopped.status == "stopped"
    second = fake_port()

    async def resumed():
        async with Engine() as engine:
            # the saved file changed meanwhile: the resume runs the pinned script regardless
            run = engine.start(StartRequest(script="", agent_port=second, journal=journal, run_id=stopped.run_id,
                                            resume=True, workflows={"summarize": "meta = {}\nreturn 0\n"}))
            return await run.result

    result = anyio.run(resumed)
    journal.close()
    assert result.status == "completed", result.error
    assert result.value["summary"] == "summarize/lead: summarize summarize/lead: outline queues"
    assert [key for key, _, _ in second.calls] == ["workflow#1/ask#2"]  # the outline replayed


def test_a_fatal_error_in_the_called_workflow_ends_the_run_and_says_where():
    child = 'meta = {"name": "deep", "description": "Misuses a facade."}\nd = [files]\nreturn d[0].read\n'
    result, _, _ = run('x = 1\nreturn await workflow("deep")\n', {"deep": child})
    assert result.status == "errored"
    assert result.error.endswith("at line 3 in the saved workflow `deep`, called at line 3")


def test_calls_in_a_loop_and_in_parallel_name_their_actors_by_occurrence():
    body = '''\
looped = []
for topic in ["a", "b"]:
    looped.append(await workflow("summarize", {"topic": topic}))
fanned = await parallel(workflow("summarize", {"topic": t}) for t in ["c", "d"])
return [x["summary"] for x in looped + fanned]
'''
    result, port, _ = run(body, {"summarize": CHILD})
    assert result.status == "completed", result.error
    names = ["summarize(workflow#1)/for#1[0]/lead", "summarize(workflow#1)/for#1[1]/lead",
             "summarize(workflow#2)/comp#1[0]/lead", "summarize(workflow#2)/comp#1[1]/lead"]
    assert sorted({name for _, name, _ in port.calls}) == names
    assert result.value == [f"{n}: summarize {n}: outline {t}" for n, t in zip(names, "abcd")]


def test_an_amended_run_imports_the_called_workflows_finished_asks():
    from dwf.runtime.host.amend import amend

    journal = MemoryJournal()
    body = 'done = await workflow("summarize", {"topic": "queues"})\nreturn await agent("judge").ask("judge")\n'
    first, _, _ = run(body, {"summarize": CHILD}, journal=journal)
    assert first.status == "completed", first.error
    port = fake_port()

    async def amended():
        async with Engine() as engine:
            new = await amend(engine, first.run_id, META + body.replace('ask("judge")', 'ask("judge again")'),
                              journal=journal, agent_port=port, workflows={"summarize": CHILD})
            return await new.result

    result = anyio.run(amended)
    assert result.status == "completed", result.error
    assert result.value == "judge: judge again"
    assert [instructions for _, _, instructions in port.calls] == ["judge again"]  # the child's asks imported
