"""This module defines the regular-expression operations of `re` on plain data, and the worker
process that runs them off the main thread.

`perform(job, compiled)` runs one operation of a compiled pattern (`search`, `findall`,
`finditer`, `split`, `sub`, ...) described by a JSON-able `job` and returns JSON-able data: a
match as `match_data` (the span of every group, `lastindex`, `pos`, `endpos`), lists of strings,
`[text, count]` for `sub`. The same function runs in-process under the SIGALRM time bound
(`runtime.interpreter.regex`) and here, in a worker (`python -I -m dwf.runtime.interpreter.regex_worker`)
that reads jobs as JSON lines on stdin, writes one answer line per job on stdout, and is
killed at a job's deadline (a thread keeps its worker between jobs: `regex.in_worker`). Results stop at the job's size limits (`RegexOver`) instead of being built and
refused afterwards. `template_plan` parses a replacement template with CPython's own parser, so
`sub` and `Match.expand` agree with CPython on every escape and error.

It imports only the standard library: the worker starts without the rest of DWF.
"""

from __future__ import annotations

import json
import re
import sys
import time

MARKS_START = 0xF0000  # supplementary private use plane: no template escape produces these


class RegexOver(Exception):
    """A result would exceed a limit: `args[0]` is "items", "chars" or "steps"."""


def match_data(m: re.Match) -> list:
    """A match as plain data: group spans ([-1, -1] for a group that did not take part),
    `lastindex`, `pos`, `endpos`."""
    return [[list(m.span(i)) for i in range(m.re.groups + 1)], m.lastindex, m.pos, m.endpos]


def template_plan(groups: int, groupindex: dict, template: str) -> list:
    """A replacement template as pieces: literal strings and group numbers, in order.

    CPython's template parser is reached through a public door: a synthetic pattern with the
    same group count and names, whose every group matches one marker character absent from the
    template, is expanded by `Match.expand` (raising CPython's own errors for bad escapes and
    group references); the markers in the expansion then name the groups."""
    if "\\" not in template:
        return [template] if template else []
    used = set(template)
    marks: list[str] = []
    code = MARKS_START
    while len(marks) <= groups:
        if code > sys.maxunicode:
            raise ValueError("too many groups to expand a replacement template")
        if chr(code) not in used:
            marks.append(chr(code))
        code += 1
    names = {index: name for name, index in groupindex.items()}
    inner = "".join(f"(?P<{names[i]}>{marks[i]})" if i in names else f"({marks[i]})" for i in range(1, groups + 1))
    synthetic = re.compile(f"{marks[0]}(?={inner})")
    expanded = synthetic.match("".join(marks)).expand(template)
    index_of = {mark: index for index, mark in enumerate(marks)}
    plan: list = []
    for position, piece in enumerate(re.split(f"([{''.join(marks)}])", expanded)):
        if position % 2:
            plan.append(index_of[piece])
        elif piece:
            plan.append(piece)
    return plan


def plan_size(plan: list, span) -> int:
    """How many characters `plan` expands to for a match whose `span(group)` gives the group
    spans ((-1, -1) for a group that did not take part)."""
    size = 0
    for piece in plan:
        if type(piece) is str:
            size += len(piece)
        else:
            start, end = span(piece)
            size += end - start
    return size


def expand_plan(plan: list, group) -> str:
    return "".join(piece if type(piece) is str else (group(piece) or "") for piece in plan)


def _findall(compiled: re.Pattern, string: str, pos: int, endpos: int, max_items: int, budget: int) -> list:
    if compiled.groups == 0 and min(len(string), endpos) + 1 <= max_items:
        return compiled.findall(string, pos, endpos)  # matches do not overlap: at most the string's size
    out: list = []
    size = 0
    for m in compiled.finditer(string, pos, endpos):
        if compiled.groups == 0:
            item = m.group(0)
        elif compiled.groups == 1:
            item = m.group(1) or ""
        else:
            item = list(m.groups(""))
        size += len(item) if type(item) is str else sum(map(len, item))
        out.append(item)
        if len(out) > max_items:
            raise RegexOver("items")
        if size > budget:  # groups in lookaheads can repeat the text: `(?=(.*))`
            raise RegexOver("steps")
    return out


def _split(compiled: re.Pattern, string: str, maxsplit: int, max_items: int, budget: int) -> list:
    if compiled.groups == 0:
        parts = compiled.split(string, max_items if maxsplit <= 0 else min(maxsplit, max_items))
        if len(parts) > max_items:
            raise RegexOver("items")
        return parts
    parts: list = []
    size = last = count = 0
    for m in compiled.finditer(string):
        if 0 < maxsplit <= count:
            break
        parts.append(string[last:m.start()])
        parts.extend(m.groups())
        size += m.start() - last + sum(len(g) for g in m.groups() if g)
        if len(parts) > max_items:
            raise RegexOver("items")
        if size > budget:
            raise RegexOver("steps")
        last = m.end()
        count += 1
    parts.append(string[last:])
    return parts


def _sub(compiled: re.Pattern, repl: str, string: str, count: int, max_chars: int) -> list:
    plan = template_plan(compiled.groups, dict(compiled.groupindex), repl)
    literal = all(type(piece) is str for piece in plan)
    most = len(string) + 1 if count <= 0 else min(count, len(string) + 1)
    if literal and len(string) + most * len(repl) <= max_chars:
        return list(compiled.subn(repl, string, count))
    size = len(string)

    def expand(m: re.Match) -> str:
        nonlocal size
        size += plan_size(plan, m.span) - (m.end() - m.start())
        if size > max_chars:
            raise RegexOver("chars")
        return expand_plan(plan, m.group)
    return list(compiled.subn(expand, string, count))


def _finditer(compiled: re.Pattern, string: str, pos: int, endpos: int, count: int, max_items: int) -> list:
    out = []
    for m in compiled.finditer(string, pos, endpos):
        out.append(match_data(m))
        if len(out) * (compiled.groups + 1) > max_items:
            raise RegexOver("items")
        if 0 < count <= len(out):
            break
    return out


def perform(job: dict, compiled: re.Pattern | None = None):
    """Run one job; `compiled` is the job's pattern when the caller holds it compiled."""
    if compiled is None:
        compiled = re.compile(job["pattern"], job["flags"])
    op = job["op"]
    if op == "compile":
        return [compiled.flags, compiled.groups, dict(compiled.groupindex)]
    string, pos, endpos = job.get("string", ""), job.get("pos", 0), job.get("endpos", sys.maxsize)
    if op in ("match", "search", "fullmatch"):
        m = getattr(compiled, op)(string, pos, endpos)
        return None if m is None else match_data(m)
    if op == "findall":
        return _findall(compiled, string, pos, endpos, job["max_items"], job["budget"])
    if op == "finditer":
        return _finditer(compiled, string, pos, endpos, job.get("count", 0), job["max_items"])
    if op == "split":
        return _split(compiled, string, job["count"], job["max_items"], job["budget"])
    if op == "sub":
        return _sub(compiled, job["repl"], string, job["count"], job["max_chars"])
    raise ValueError(f"unknown regular expression operation {op!r}")


# Python errors an operation may raise, answered by name (anything else is a DWF bug).
ANSWERED_ERRORS = (TypeError, ValueError, IndexError, OverflowError, RecursionError)


def answer(job: dict) -> dict:
    try:
        return {"ok": perform(job)}
    except re.error as error:
        return {"error": "re.error", "message": str(error)}
    except RegexOver as error:
        return {"error": "over", "message": str(error)}
    except ANSWERED_ERRORS as error:
        return {"error": type(error).__name__, "message": str(error)}


def main() -> None:
    for line in sys.stdin:  # one job per line, until the parent closes the pipe (or exits)
        if not line.strip():
            continue
        job = json.loads(line)
        started = time.perf_counter()
        reply = answer(job)
        reply["elapsed"] = time.perf_counter() - started  # charged to the run as steps
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
