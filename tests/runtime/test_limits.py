"""The resource limits of LANGUAGE §4: each is a named constant in `runtime/interpreter/limits.py` with the
specified default, a field of `Limits` that a run overrides, and exceeding it fails the run with
an error naming the limit and the script line. Each limit is checked just under and just over
its (overridden) value."""

from __future__ import annotations

import dataclasses
import threading

import anyio
import pytest

from dwf.runtime.interpreter import limits as limits_module
from dwf.runtime.engine import Engine, StartRequest
from dwf.runtime.interpreter.limits import Limits

from runner import EchoPort, run, script_of


def test_defaults_are_the_specified_constants() -> None:
    assert limits_module.MAX_STEPS == 10_000_000
    assert limits_module.MAX_RECURSION == 200
    assert limits_module.MAX_ITEMS == 1_000_000
    assert limits_module.MAX_STRING_BYTES == 16 * 1024 * 1024
    assert limits_module.MAX_RANGE == 10_000_000
    assert limits_module.MAX_POW_BITS == 10_000
    assert 0 < limits_module.REGEX_TIMEOUT_S <= 5
    assert limits_module.MAX_FANOUT == 4_096
    assert limits_module.MAX_AGENTS == 1_000
    defaults = Limits()
    assert (defaults.steps, defaults.recursion, defaults.items, defaults.string_bytes, defaults.range_items,
            defaults.pow_bits, defaults.regex_timeout_s) == (
        limits_module.MAX_STEPS, limits_module.MAX_RECURSION, limits_module.MAX_ITEMS, limits_module.MAX_STRING_BYTES,
        limits_module.MAX_RANGE, limits_module.MAX_POW_BITS, limits_module.REGEX_TIMEOUT_S)


def test_every_limit_has_a_name() -> None:
    assert set(Limits.NAMES) == {f.name for f in dataclasses.fields(Limits)}


def test_limits_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limits().steps = 1  # type: ignore[misc]


# (id, field, override, script under the limit, script over it, the line that fails)
CASES = [
    ("steps", "steps", 2_000,
     "total = 0\nfor i in range(500):\n    total += i\nreturn total",
     "total = 0\nfor i in range(5000):\n    total += i\nreturn total", 3),
    ("steps-while", "steps", 2_000,
     "i = 0\nwhile i < 500:\n    i += 1\nreturn i",
     "i = 0\nwhile i < 5000:\n    i += 1\nreturn i", 2),
    ("steps-comprehension", "steps", 2_000,
     "return len([i for i in range(1000)])",
     "return len([i for i in range(3000)])", 1),
    ("steps-lambda-calls", "steps", 2_000,
     "return len(list(map(lambda x: x, range(500))))",
     "return len(list(map(lambda x: x, range(3000))))", 1),
    ("recursion", "recursion", 10,
     "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nreturn depth(9)",
     "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nreturn depth(10)", 2),
    ("recursion-async", "recursion", 10,
     "async def depth(n):\n    return 0 if n == 0 else 1 + await depth(n - 1)\nreturn await depth(9)",
     "async def depth(n):\n    return 0 if n == 0 else 1 + await depth(n - 1)\nreturn await depth(10)", 2),
    ("items-repeat", "items", 100,
     "return len([0] * 100)",
     "return len([0] * 101)", 1),
    ("items-append", "items", 100,
     "x = []\nfor i in range(100):\n    x.append(i)\nreturn len(x)",
     "x = []\nfor i in range(101):\n    x.append(i)\nreturn len(x)", 3),
    ("items-dict", "items", 100,
     "d = {}\nfor i in range(100):\n    d[str(i)] = i\nreturn len(d)",
     "d = {}\nfor i in range(101):\n    d[str(i)] = i\nreturn len(d)", 3),
    ("items-set", "items", 100,
     "s = set()\nfor i in range(100):\n    s.add(i)\nreturn len(s)",
     "s = set()\nfor i in range(101):\n    s.add(i)\nreturn len(s)", 3),
    ("items-comprehension", "items", 100,
     "return len({i: i for i in range(100)})",
     "return len({i: i for i in range(101)})", 1),
    ("items-concat", "items", 100,
     "a = [0] * 50\nreturn len(a + a)",
     "a = [0] * 51\nreturn len(a + a)", 2),
    ("items-split", "items", 100,
     "return len(('x,' * 99 + 'x').split(','))",
     "return len(('x,' * 100 + 'x').split(','))", 1),
    ("items-list-of-range", "items", 100,
     "return len(list(range(100)))",
     "return len(list(range(101)))", 1),
    ("string-bytes", "string_bytes", 1_000,
     "return len('a' * 1000)",
     "return len('a' * 1001)", 1),
    ("string-bytes-utf8", "string_bytes", 1_000,
     "return len('é' * 500)",
     "return len('é' * 501)", 1),
    ("string-bytes-concat", "string_bytes", 1_000,
     "s = 'ab' * 250\nreturn len(s + s)",
     "s = 'ab' * 251\nreturn len(s + s)", 2),
    ("string-bytes-join", "string_bytes", 1_000,
     "return len('-'.join(['abcd'] * 200))",
     "return len('-'.join(['abcd'] * 201))", 1),
    ("string-bytes-fstring", "string_bytes", 1_000,
     "s = 'a' * 600\nreturn len(f'{s}{s[:400]}')",
     "s = 'a' * 600\nreturn len(f'{s}{s}')", 2),
    ("string-bytes-pad", "string_bytes", 1_000,
     "return len('x'.rjust(1000))",
     "return len('x'.rjust(1001))", 1),
    ("string-bytes-repr", "string_bytes", 1_000,
     "return len(repr(['ab'] * 150))",
     "return len(repr(['ab'] * 250))", 1),
    ("range", "range_items", 1_000,
     "return len(range(1000))",
     "return len(range(1001))", 1),
    ("range-step", "range_items", 1_000,
     "return len(range(0, 3000, 3))",
     "return len(range(0, 3003, 3))", 1),
    ("pow-bits", "pow_bits", 100,
     "return (2 ** 99).bit_length()",
     "return (2 ** 100).bit_length()", 1),
    ("pow-bits-odd-base", "pow_bits", 100,
     "return (3 ** 63).bit_length()",
     "return (3 ** 64).bit_length()", 1),
    ("pow-bits-builtin", "pow_bits", 100,
     "return pow(2, 99).bit_length()",
     "return pow(2, 100).bit_length()", 1),
    ("pow-bits-shift", "pow_bits", 100,
     "return (1 << 99).bit_length()",
     "return (1 << 100).bit_length()", 1),
    ("pow-bits-multiply", "pow_bits", 100,
     "x = 2 ** 60\nreturn (x * 2 ** 39).bit_length()",
     "x = 2 ** 60\nreturn (x * 2 ** 40).bit_length()", 2),
    ("pow-bits-add", "pow_bits", 100,
     "x = 2 ** 98\nreturn (x + x).bit_length()",
     "x = 2 ** 99\nreturn (x + x).bit_length()", 2),
    ("regex-time", "regex_timeout_s", 0.2,
     "import re\nreturn re.match(r'(a+)+$', 'a' * 12 + 'b') is None",
     "import re\nreturn re.match(r'(a+)+$', 'a' * 40 + 'b') is None", 2),
    ("fanout", "fanout", 3,
     "async def f(x):\n    return x\nreturn await parallel([f(i) for i in range(3)])",
     "async def f(x):\n    return x\nreturn await parallel([f(i) for i in range(4)])", 3),
    ("fanout-gather", "fanout", 3,
     "async def f(x):\n    return x\nreturn await gather(f(1), f(2), f(3))",
     "async def f(x):\n    return x\nreturn await gather(f(1), f(2), f(3), f(4))", 3),
    ("agents", "agents", 2,
     "a = agent()\nb = agent()\nreturn 1",
     "a = agent()\nb = agent()\nc = agent()\nreturn 1", 3),
    ("reports", "reports", 2,
     "report(1)\nreport(2)\nreturn 1",
     "report(1)\nreport(2)\nreport(3)\nreturn 1", 3),
]


@pytest.mark.parametrize(("field", "override", "under", "over", "line"),
                         [pytest.param(*case[1:], id=case[0]) for case in CASES])
def test_limit(field: str, override, under: str, over: str, line: int) -> None:
    limits = dataclasses.replace(Limits(), **{field: override})
    passing = run(under, limits)
    assert passing.status == "completed", f"{passing.error}\n{passing.traceback}"
    failing = run(over, limits)
    assert failing.status == "errored"
    shown = f"{override:,}" if isinstance(override, int) else f"{override}"
    assert failing.error.startswith(f"LimitExceeded: the {Limits.NAMES[field]} ({shown}) was exceeded"), failing.error
    assert failing.error.endswith(f" at line {line}"), failing.error
    assert f"line {line}, col" in failing.traceback
    # The same script passes under the default limits: the override, not a constant, decided.
    if field not in ("regex_timeout_s",):
        assert run(over).status == "completed"


def test_every_language_limit_is_covered() -> None:
    covered = {case[1] for case in CASES}
    assert {"steps", "recursion", "items", "string_bytes", "range_items", "pow_bits", "regex_timeout_s"} <= covered


def test_limits_are_per_run_and_concurrent_runs_do_not_share_them() -> None:
    script = script_of("total = 0\nfor i in range(3000):\n    total += i\nreturn total")

    async def main():
        async with Engine() as engine:
            tight = engine.start(StartRequest(script=script, agent_port=EchoPort(), limits=Limits(steps=1_000)))
            loose = engine.start(StartRequest(script=script, agent_port=EchoPort(), limits=Limits(steps=100_000)))
            return await tight.result, await loose.result

    tight, loose = anyio.run(main)
    assert tight.status == "errored" and "step limit (1,000)" in tight.error
    assert loose.status == "completed" and loose.value == sum(range(3000))
    assert limits_module.MAX_STEPS == 10_000_000 and Limits().steps == 10_000_000


def test_work_on_large_values_is_charged_to_the_step_limit() -> None:
    """An operation that copies or scans n characters costs n // CHARS_PER_STEP steps on top of
    its statement (containers: n // ITEMS_PER_STEP), so the step limit bounds time even when
    each statement works on huge data."""
    from dwf.runtime.interpreter.sandbox import CHARS_PER_STEP, ITEMS_PER_STEP

    limits = Limits(steps=1_000)
    small, big = CHARS_PER_STEP * 50, CHARS_PER_STEP * 400
    assert run(f"s = 'a' * {small}\nt = s.upper()\nreturn len(t)", limits).value == small
    failing = run(f"s = 'a' * {big}\nt = s.upper()\nreturn len(t)", limits)
    assert failing.status == "errored"
    assert failing.error == "LimitExceeded: the step limit (1,000) was exceeded at line 2"
    items = ITEMS_PER_STEP * 400
    assert run(f"x = list(range({items // 8}))\nreturn len(x + x)", limits).status == "completed"
    assert run(f"x = list(range({items}))\nreturn len(x + x)", limits).error.endswith("at line 2")
    # Constant-time operations on the same huge value cost nothing extra.
    assert run(f"s = 'a' * {small}\nx = [s]\nfor i in range(100):\n    x.append(s)\n    n = len(s)\n"
               "    ok = s.startswith('a')\nreturn len(x)", limits).value == 101


def test_report_size_limit() -> None:
    limits = Limits(report_bytes=100)
    assert run("report('x' * 50)", limits).status == "completed"
    failing = run("x = 1\nreport('x' * 500)", limits)
    assert failing.status == "errored"
    assert "report size limit is 100" in failing.error
    assert failing.error.endswith(" at line 2")


def test_limit_errors_are_not_catchable() -> None:
    for field, override, script in [
        ("steps", 500, "while True:\n        pass"),
        ("recursion", 5, "def f():\n        return f()\n    f()"),
        ("items", 10, "x = [0] * 11"),
        ("string_bytes", 10, "x = 'a' * 11"),
        ("range_items", 10, "x = range(11)"),
        ("pow_bits", 10, "x = 2 ** 11"),
    ]:
        limits = dataclasses.replace(Limits(), **{field: override})
        result = run(f"try:\n    {script}\nexcept Exception:\n    return 'caught'\nexcept:\n    return 'caught'", limits)
        assert result.status == "errored", field
        assert Limits.NAMES[field] in result.error, result.error


def test_regex_limit_off_the_main_thread() -> None:
    """Off the main thread no SIGALRM can interrupt `re`, so the operation runs in a worker
    process that is killed at the deadline; results are the same as in-process ones."""
    outcome: dict = {}

    def in_thread() -> None:
        outcome["ok"] = run("""
import re
m = re.search(r"(?P<w>\\w+)@(\\w+)", "mail ada@host")
return [m.group("w"), m.span(2), m.groups(), re.findall(r"(a)(b)?", "abac"), re.sub(r"(\\w)", r"<\\1>", "ab"),
        re.split(",", "a,b"), re.match("z", "a")]
""")
        outcome["slow"] = run("import re\nx = 1\nreturn re.match(r'(a+)+$', 'a' * 40 + 'b')", Limits(regex_timeout_s=0.3))

    worker = threading.Thread(target=in_thread)
    worker.start()
    worker.join(60)
    assert not worker.is_alive()
    assert outcome["ok"].status == "completed", outcome["ok"].error
    assert outcome["ok"].value == ["ada", [9, 13], ["ada", "host"], [["a", "b"], ["a", ""]], "<a><b>", ["a", "b"], None]
    assert outcome["slow"].status == "errored"
    assert outcome["slow"].error == "LimitExceeded: the regular expression time limit (0.3) was exceeded at line 3"
