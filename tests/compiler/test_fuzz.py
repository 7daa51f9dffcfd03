"""`dwfc check` answers every input with diagnostics or a clean result: never a traceback, and
never an internal error (`DWF901`), on arbitrary text and on randomly mutated example scripts."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, compile_text

EXAMPLE_TEXTS = [p.read_text(encoding="utf-8") for p in EXAMPLES]
TOKENS = ["await ", "(", ")", "[", "]", "{", "}", ":", ",", "\n", "    ", "=", "phase(", "agent(", ".ask(",
          "files.read", "world.run(", "lambda x: ", "for x in y:", "if ", "else:", "return ", "yield ",
          "class A:", "def f():", "async def g():", "import os\n", "f\"{", "}\"", "'", '"', "*", "**", ":=",
          "__class__", ".format(", "None", "1e9", "0x", "#", "\\", "with open(p) as f:", "try:", "except:",
          "global x\n", "match x:", "@dec\n", "del ", "assert ", "report(", "parallel(", "gather(*"]

FUZZ_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_answers(text: str) -> None:
    result = compile_text(text)
    codes = [d.code for d in result.diagnostics]
    assert "DWF901" not in codes, [str(d) for d in result.diagnostics if d.code == "DWF901"]
    assert (result.program is None) == (result.errors > 0)
    for d in result.diagnostics:
        assert d.span.line >= 1 and d.span.column >= 1


@FUZZ_SETTINGS
@given(st.text(max_size=400))
def test_arbitrary_text(text):
    assert_answers(text)


@FUZZ_SETTINGS
@given(st.lists(st.sampled_from(TOKENS) | st.text(max_size=5), max_size=60))
def test_token_soup(tokens):
    assert_answers("".join(tokens))


@st.composite
def mutated_example(draw):
    lines = draw(st.sampled_from(EXAMPLE_TEXTS)).splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        index = draw(st.integers(0, len(lines) - 1))
        operation = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "truncate", "dedent", "indent"]))
        if operation == "delete":
            del lines[index]
        elif operation == "duplicate":
            lines.insert(index, lines[index])
        elif operation == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        elif operation == "insert":
            column = draw(st.integers(0, len(lines[index])))
            lines[index] = lines[index][:column] + draw(st.sampled_from(TOKENS)) + lines[index][column:]
        elif operation == "truncate":
            lines[index] = lines[index][: draw(st.integers(0, len(lines[index])))] + "\n"
        elif operation == "dedent":
            lines[index] = lines[index].lstrip()
        else:
            lines[index] = "    " + lines[index]
    return "".join(lines)


@FUZZ_SETTINGS
@given(mutated_example())
def test_mutated_examples(text):
    assert_answers(text)
