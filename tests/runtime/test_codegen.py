"""Generated blocks (runtime/interpreter/codegen.py) against the closures they replace: each
program runs twice, once with `ClosureCompiler.generate` on and once off, and both runs must
agree on the value, the error and its traceback, and the number of steps counted, including
at the limits (steps, power size, container size) and with small limits that move the
inline fast paths' bounds."""

from __future__ import annotations

import textwrap

import anyio
import pytest

from dwf.compiler.compile import compile_source
from dwf.runtime.interpreter.interpreter import ClosureCompiler, Interpreter
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.values.errors import DwfError

META = '\nmeta = {"name": "codegen-test", "description": "A generated-block test."}\n'


def outcome(snippet: str, limits: Limits, generate: bool) -> tuple:
    compiled = compile_source(textwrap.dedent(snippet).strip("\n") + "\n" + META, "test.dwf.py")
    assert compiled.program is not None, [d.message for d in compiled.diagnostics]
    program = compiled.program
    previous = ClosureCompiler.generate
    ClosureCompiler.generate = generate
    try:
        interpreter = Interpreter(program, host=None, limits=limits)
    finally:
        ClosureCompiler.generate = previous
    try:
        value = anyio.run(interpreter.run)
    except DwfError as error:
        return ("error", type(error).__name__, getattr(error, "type_name", None), error.message,
                [(f.line, f.column, f.where) for f in error.frames], interpreter.steps)
    return ("value", value, interpreter.steps)


PROGRAMS = {
    "arithmetic loop": """
        total = 0
        i = 0
        while i < 500:
            total = total + i * 2 % 7 - i // 3
            i += 1
        return total
    """,
    "chained compare and bool ops": """
        out = []
        for x in range(-3, 12):
            out.append([0 < x < 5, x < 0 or x > 9, x > 1 and x, not x, -x, 1 < x == x < 10])
        return out
    """,
    "mixed types take the operator table": """
        return [1 + 2.5, "a" + "b", [1] + [2], (1,) * 3, True + True, 7 % 2.5, "%s!" % "x", 2 ** 10, -True]
    """,
    "locals, stores, unpacking and subscripts": """
        def f(pairs):
            d = {}
            xs = [0] * 4
            for k, v in pairs:
                d[k] = d.get(k, 0) + v
                xs[v % 4] += 1
            d["n"] = len(d)
            return [d, xs, xs[-1], xs[1:3], "abc"[1]]
        return f([("a", 1), ("b", 2), ("a", 3)])
    """,
    "break, continue, else and try in loops": """
        out = []
        for i in range(10):
            if i == 2:
                continue
            try:
                if i == 7:
                    break
                out.append(10 // (i - 4))
            except ZeroDivisionError:
                out.append("zero")
                continue
            finally:
                out.append("f")
        for j in range(3):
            pass
        else:
            out.append("else")
        n = 0
        while True:
            n += 1
            if n > 3:
                break
        return [out, n]
    """,
    "comprehensions and lambdas": """
        words = "the cat and the hat and the bat".split()
        counts = {}
        for w in words:
            counts[w] = counts.get(w, 0) + 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        lengths = {w: len(w) for w in counts if w != "cat"}
        pairs = [(a, b) for a in range(3) for b in range(a) if a + b > 1]
        shouted = {w.upper() for w in words}
        makers = [lambda: w for w in ["x"]]
        return [ranked, lengths, pairs, sorted(shouted), repr(makers[0]).split(" at ")[0], any(x > 2 for x in [1, 5])]
    """,
    "fused arithmetic at the bounds": """
        values = [0, 1, -1, 7, 2 ** 30, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 61, 2 ** 62, -(2 ** 62) - 1, True, 1.5]
        out = []
        for x in values:
            for y in values:
                out.append(x + y * 3 % 7 - x // 2)
                out.append(x * 2 + 5 - 1)
        return out
    """,
    "fused arithmetic keeps the order of failures": """
        def f(x):
            return (x * 2 % 0) + later

        def g(x):
            return (x * 2 % 3) + later * 2
        out = []
        try:
            f(3)
        except ZeroDivisionError as error:
            out.append(str(error))
        try:
            g(3)
        except NameError as error:
            out.append(str(error))
        later = 1
        return out + [g(3)]
    """,
    "unbound names": """
        def f():
            if False:
                y = 1
            return y
        return f()
    """,
    "a python error located in a nested loop": """
        def f(xs):
            for x in xs:
                while x > 0:
                    x -= 1
                    if x == 1:
                        return {}["missing"]
        return f([1, 3])
    """,
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_generated_blocks_agree_with_the_closures(name: str) -> None:
    snippet = PROGRAMS[name]
    generated = outcome(snippet, Limits(), True)
    assert generated == outcome(snippet, Limits(), False)
    assert generated[0] == ("error" if "error" in name or "unbound" in name else "value"), generated


LIMITED = {
    # Each program stops at a limit; both paths must stop at the same statement and step.
    "steps in a while loop": ("i = 0\nwhile True:\n    i += 1\n", Limits(steps=1_000)),
    "steps in a comprehension": ("xs = [x for x in range(10_000)]\n", Limits(steps=500)),
    "steps in a nested for": ("t = 0\nfor a in range(100):\n    for b in range(100):\n        t += a * b\n",
                              Limits(steps=2_000)),
    "power size on +": ("x = 1\nwhile True:\n    x = x + x\n", Limits(pow_bits=40)),
    "power size on - with a big operand": ("x = -(2 ** 30)\nwhile True:\n    x = x - (2 ** 29)\n", Limits(pow_bits=31)),
    "power size on *": ("x = 3\nwhile True:\n    x = x * x\n", Limits(pow_bits=64)),
    "power size on * with small limit": ("x = 5\nwhile True:\n    x *= 7\n", Limits(pow_bits=9)),
    "power size in fused arithmetic": ("x = 1\nwhile True:\n    x = x * 3 + x % 5 + 1\n", Limits(pow_bits=20)),
    "items in a comprehension": ("xs = [x for x in range(100)]\n", Limits(items=50)),
    "items in a dict store": ("d = {}\nfor i in range(100):\n    d[i] = i\n", Limits(items=30)),
    "items in a dict comprehension": ("d = {i: i for i in range(100)}\n", Limits(items=30)),
}


@pytest.mark.parametrize("name", list(LIMITED))
def test_generated_blocks_stop_at_the_same_limit(name: str) -> None:
    snippet, limits = LIMITED[name]
    generated = outcome(snippet, limits, True)
    assert generated[0] == "error" and "LimitExceeded" in generated[2:4] or "exceeded" in generated[3], generated
    assert generated == outcome(snippet, limits, False)


def test_power_bounds_hold_exactly_at_the_limit() -> None:
    # 2**pow_bits - 1 is the largest int allowed: reached inline, one more is refused.
    snippet = "x = 2 ** 39 - 2\nx = x + 1\ny = x + 1\n"
    limits = Limits(pow_bits=40)
    generated = outcome(snippet + "return x\n", limits, True)
    assert generated == outcome(snippet + "return x\n", limits, False)
    assert generated[0] == "value" and generated[1] == 2 ** 39 - 1 and (2 ** 39 - 1).bit_length() <= 40
    over = "x = 2 ** 40 - 1\nreturn x + 1\n"
    refused = outcome(over, limits, True)
    assert refused == outcome(over, limits, False) and refused[0] == "error" and "power size limit" in refused[3]


def test_deep_nesting_falls_back_to_closures() -> None:
    # Deeper than Python's 20 static blocks: inner loops become their own functions.
    depth = 12
    lines = ["t = 0"]
    for level in range(depth):
        lines.append("    " * level + f"for v{level} in range(2):")
    lines.append("    " * depth + "t += 1")
    snippet = "\n".join(lines) + "\nreturn t\n"
    generated = outcome(snippet, Limits(), True)
    assert generated == outcome(snippet, Limits(), False) and generated[1] == 2 ** depth


def test_script_text_stays_data_in_generated_code() -> None:
    # Quotes, newlines and Python syntax in names' strings reach the source only as literals.
    snippet = '''
        d = {}
        d["'); import os  # "] = 1
        s = "\\"\\"\\"\\n{0}" + '\\'\\'\\''
        for key in d:
            s = s + key
        return [d, s, len(s)]
    '''
    generated = outcome(snippet, Limits(), True)
    assert generated == outcome(snippet, Limits(), False)
    assert generated[1] == [{"'); import os  # ": 1}, "\"\"\"\n{0}'''" + "'); import os  # ", 27]  # 10 characters, then the key's 17


def test_blocks_without_await_are_generated_and_others_are_not() -> None:
    sync = compile_source("x = 1\nfor i in range(3):\n    x += i\nreturn x\n" + META, "t.dwf.py").program
    awaiting = compile_source("r = await agent('a').ask('hi')\nreturn r\n" + META, "t.dwf.py").program
    assert Interpreter(sync, host=None)._body.run.__code__.co_filename == "<dwf block>"
    assert Interpreter(awaiting, host=None)._body.run.__code__.co_filename != "<dwf block>"
