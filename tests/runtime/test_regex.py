"""`re` beyond the differential snippets: the worker process gives the same results as the
in-process path (off the main thread no SIGALRM can stop `re`, so every operation runs in
`python -I -m dwf.runtime.interpreter.regex_worker`), each pattern is compiled once per run, and the
replacement-template parser agrees with CPython's `Match.expand` on every template."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from dwf.runtime.interpreter import regex
from dwf.runtime.interpreter import regex_worker
from dwf.runtime.interpreter.limits import Limits

from runner import run

EVERYTHING = r"""
import re
p = re.compile(r'(?P<key>\w+)=(?P<value>\d+)?', re.I | re.X)
m = p.search('x: Alpha=42; beta=', 2)
out = [repr(p), p.flags, p.groups, p.groupindex, repr(m), m[0], m['value'], m.group(1, 2), m.groupdict('-'),
       m.lastindex, m.lastgroup, m.pos, m.endpos, m.span('value'), m.expand(r'\g<value>:\1\n')]
out.append([(x.span(), x.groups()) for x in p.finditer('a=1 b= c=3', 1, 9)])
out.append(re.sub(r'\d+', lambda d: str(int(d.group()) * 2), 'a1 b22 c333', count=2))
out.append(p.subn(lambda x: x['key'].upper(), 'a=1 b=2'))
out.append([re.split(r'(,)|(;)', 'a,b;c'), p.findall('a=1 b= c=3'), re.escape('1.0 (x)'), re.fullmatch('a|ab', 'ab').span()])
for bad in ['(', r'(?P<x>a)\2']:
    try:
        re.compile(bad)
    except re.error as e:
        out.append(str(e))
try:
    re.sub('(a)', r'\g<' + 'nope>', 'a')  # built at run time: a literal is DWF223
except IndexError as e:
    out.append(str(e))
try:
    re.sub('a', lambda x: 1, 'xa')
except TypeError as e:
    out.append(str(e))
return out
"""


def _in_thread(script: str, limits: Limits | None = None):
    outcome: dict = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("result", run(script, limits)))
    worker.start()
    worker.join(120)
    assert not worker.is_alive()
    return outcome["result"]


def test_worker_results_equal_in_process_results() -> None:
    here = run(EVERYTHING)
    assert here.status == "completed", here.error
    there = _in_thread(EVERYTHING)
    assert there.status == "completed", there.error
    assert there.value == here.value
    assert here.value[5:7] == ["Alpha=42", "42"]
    assert here.value[-2:] == ["unknown group name 'nope'", "sequence item 1: expected str instance, int found"]


def test_worker_bounds_finditer_and_function_replacements() -> None:
    limits = Limits(regex_timeout_s=0.3)
    for script in ["import re\nx = 1\nfor m in re.finditer(r'(x+x+)+y', 'x' * 50):\n    pass",
                   "import re\nx = 1\nreturn re.sub(r'(a|aa)+$', lambda m: 'x', 'a' * 60 + 'b')"]:
        result = _in_thread(script, limits)
        assert result.status == "errored"
        assert result.error == "LimitExceeded: the regular expression time limit (0.3) was exceeded at line 3"


def test_a_thread_keeps_its_worker_and_replaces_one_killed_at_the_deadline() -> None:
    """Off the main thread every operation is a job for the thread's worker process: a loop of
    a hundred matches reuses one worker (one start-up each would cost seconds), and a worker
    killed at the time limit is replaced for the next operation."""
    script = ("import re\nout = [re.search('b+', 'a' * i + 'bb').start() for i in range(100)]\ntry:\n"
              "    re.match('(a*)*$', 'a' * 40 + 'b')\nexcept Exception as e:\n    out.append('caught')\n"
              "return [sum(out[:100]), re.findall('a', 'banana')]")
    result = _in_thread(script, Limits(regex_timeout_s=0.3))
    assert result.status == "errored" and "regular expression time limit (0.3)" in result.error, result.error
    result = _in_thread(script.replace("'(a*)*$'", "'a*$'"), Limits(regex_timeout_s=0.3))
    assert result.status == "completed" and result.value == [4950, ["a", "a", "a"]], result.error
    pids = {}

    def note():
        run("import re\nreturn re.findall('a', 'aa')")
        pids["first"] = regex.worker_pid()
        run("import re\nreturn re.findall('b', 'bb')")
        pids["second"] = regex.worker_pid()

    thread = threading.Thread(target=note)
    thread.start()
    thread.join(120)
    assert pids["first"] is not None and pids["first"] == pids["second"]


def test_worker_refuses_oversized_results() -> None:
    result = _in_thread("import re\nreturn len(re.findall('a', 'a' * 20000))", Limits(items=10_000))
    assert result.error == "LimitExceeded: the container size limit (10,000) was exceeded at line 2"
    result = _in_thread("import re\nreturn len(list(re.finditer('', 'a' * 20000)))", Limits(items=10_000))
    assert result.error == "LimitExceeded: the container size limit (10,000) was exceeded at line 2"


def test_worker_is_a_module_speaking_json() -> None:
    job = {"op": "sub", "pattern": r"(\w+)@(\w+)", "flags": 0, "string": "ada@host", "repl": r"\2:\1", "count": 0,
           "max_items": 10, "max_chars": 100, "budget": 1000}
    two = json.dumps(job) + "\n" + json.dumps(dict(job, string="bob@box")) + "\n"  # a job per line
    done = subprocess.run([sys.executable, "-I", "-m", "dwf.runtime.interpreter.regex_worker"], input=two,
                          capture_output=True, text=True, timeout=60)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(isinstance(answer.pop("elapsed"), float) for answer in answers)  # charged to the run as steps
    assert answers == [{"ok": ["host:ada", 1]}, {"ok": ["box:bob", 1]}]
    assert regex_worker.answer(dict(job, pattern="(")) == {"error": "re.error",
                                                           "message": "missing ), unterminated subpattern at position 0"}
    assert regex_worker.answer(dict(job, repl="x" * 200)) == {"error": "over", "message": "chars"}


class CountingRe:
    """The `re` module, counting compiles."""

    def __init__(self):
        self.compiles = 0

    def compile(self, *args):
        self.compiles += 1
        return re.compile(*args)

    def __getattr__(self, name):
        return getattr(re, name)


def test_patterns_are_compiled_once_per_run(monkeypatch) -> None:
    counting = CountingRe()
    monkeypatch.setattr(regex, "re", counting)
    result = run("import re\np = re.compile(r'\\d+')\nn = 0\nfor i in range(50):\n    n += len(p.findall(f'{i} {i * 7}'))\n"
                 "    n += len(re.findall(r'\\w', 'ab'))\n    n += sum(1 for m in p.finditer('1 2'))\nreturn n")
    assert result.status == "completed", result.error
    assert result.value == 300
    assert counting.compiles == 2


TEMPLATE_PIECES = st.sampled_from(["\\", "1", "2", "0", "g", "<", ">", "n", "a", "x", "-", "7", "name", "\\g<name>", "\\g<1>"])


@settings(max_examples=300, deadline=None)
@given(st.lists(TEMPLATE_PIECES, max_size=8).map("".join))
def test_template_plan_agrees_with_cpython_expand(template: str) -> None:
    compiled = re.compile(r"(a)(?P<name>b)?(c)")
    m = compiled.match("ac")
    try:
        expected = ("ok", m.expand(template))
    except (re.error, IndexError) as error:
        expected = (type(error).__name__, str(error))
    try:
        plan = regex_worker.template_plan(compiled.groups, dict(compiled.groupindex), template)
        actual = ("ok", regex_worker.expand_plan(plan, m.group))
        assert regex_worker.plan_size(plan, lambda i: m.span(i) if m.span(i)[0] >= 0 else (0, 0)) == len(actual[1])
    except (re.error, IndexError) as error:
        actual = (type(error).__name__, str(error))
    assert actual == expected
