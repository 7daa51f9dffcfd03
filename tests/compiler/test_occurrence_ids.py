"""The occurrence IDs lowering mints (`compiler/lower/occurrences.py`) follow the order the
runtime's closure compiler numbered them in before issue #12, so journals keep their keys; the
cases here are the places where that order is not the fields' order. (It was checked once against
the old numbering over every program the runtime test suite compiles; the journal fixture test,
tests/runtime/test_journal_fixture_resume.py, guards it end to end.)"""

from __future__ import annotations

import dataclasses

from dwf.compiler import ir
from dwf.compiler.compile import compile_source

SCRIPT = '''meta = {"name": "ids", "description": "Occurrence IDs in compile order."}
def f(x):
    return x
d = {}
d[f(1)] = f(2)
y = f(3) if f(4) else f(5)
s = f"{f(6):{f(7)}}"
e = {f(8): f(9), f(10): f(11)}
for i in [f(12)]:
    pass
z = [f(j) for j in [f(13)] if f(14)]
a = await agent(f"a{f(15)}").ask(f"{f(16)}")
n = 0
while n < f(17):
    n += 1
    log("x")
return {w: 1 for w in [f(18)]}
'''


def calls_by_argument(program: ir.Program) -> dict:
    found = {}

    def walk(value):
        if isinstance(value, ir.Call) and value.args and isinstance(value.args[0], ir.Const):
            found[value.args[0].value] = value.call_id
        if isinstance(value, ir.Node):
            for field in dataclasses.fields(value):
                walk(getattr(value, field.name))
        elif isinstance(value, tuple):
            for item in value:
                walk(item)

    walk(program.body)
    return found


def test_calls_are_numbered_in_the_closure_compilers_order():
    program = compile_source(SCRIPT, "ids.dwf.py").program
    assert calls_by_argument(program) == {
        2: "call#1", 1: "call#2",  # an assignment's value before its target
        4: "call#3", 3: "call#4", 5: "call#5",  # a conditional expression's test first
        7: "call#6", 6: "call#7",  # a format spec before its value
        8: "call#8", 9: "call#9", 10: "call#10", 11: "call#11",  # a dict display key by key
        12: "call#12",
        13: "call#13", 14: "call#14",  # a comprehension's clauses before its element (`f(j)` is call#15)
        16: "call#16", 15: "call#17",  # an ask's instructions before its receiver
        17: "call#18", 18: "call#19",
    }


def test_loops_carry_their_ids_and_whether_iterations_extend_the_path():
    body = compile_source(SCRIPT, "ids.dwf.py").program.body
    loop = next(s for s in body if isinstance(s, ir.For))
    assert (loop.loop_id, loop.has_effects) == ("for#1", False)
    loop = next(s for s in body if isinstance(s, ir.While))
    assert (loop.loop_id, loop.has_effects) == ("while#1", True)  # log() is a facade call
    comprehension = next(s for s in body if isinstance(s, ir.Assign) and isinstance(s.value, ir.ListComp)).value
    assert (comprehension.generators[0].loop_id, comprehension.has_effects) == ("comp#1", True)
    returned = body[-1].value
    assert (returned.generators[0].loop_id, returned.has_effects) == ("comp#2", True)  # f() in the clause
