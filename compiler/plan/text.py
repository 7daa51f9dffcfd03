"""This module defines the text view of a plan (`compiler.plan.document`): what `dwfc plan` prints and
what `dwfc run` shows before it asks for approval. It is written for an 80-column terminal:
every line is at most `WIDTH` characters (long values are wrapped or cut with `…`), sections
come in the order a reviewer reads them: who and with which arguments, the phases with their
steps, the actors, the commands, what feeds what, and the warnings.
"""

from __future__ import annotations

import json
import textwrap

from dwf.compiler.inert import flatten, inert_tree
from dwf.compiler.plan.labels import actor_access, one_line

WIDTH = 80
REPEAT_TAG = {"loop": "loop", "fan-out": "per item", None: ""}


def _wrap(text: str, indent: str, first: str | None = None) -> list[str]:
    return textwrap.wrap(" ".join(str(text).split()), width=WIDTH, initial_indent=first if first is not None else indent,
                         subsequent_indent=indent, break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]


def cut(text: str, limit: int = WIDTH) -> str:
    """`text` cut at `limit` characters with `…` (spacing kept: it is layout)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def render_text(plan: dict) -> str:
    """The text of `plan`; every string of it is made inert first (`compiler.inert.flatten`): a
    script's text can neither draw on the terminal nor start a line of the screen."""
    plan = inert_tree(plan, flatten)
    out: list[str] = []
    out += _identity(plan)
    out += _arguments(plan)
    out += _phases(plan)
    out += _actors(plan)
    out += _commands(plan)
    out += _data_flow(plan)
    out += _warnings(plan)
    return "\n".join(line.rstrip() for line in out) + "\n"


def _identity(plan: dict) -> list[str]:
    counts = plan["counts"]
    out = [cut(f"Plan: {plan['name']}")]
    out += _wrap(plan["description"], "  ")
    if plan.get("when_to_use"):
        out += _wrap(f"When to use: {plan['when_to_use']}", "  ")
    out.append(cut(f"  Script: {plan['path']} (sha256 {plan['sha256'][:12]})"))
    out.append(f"  {_plural(counts['phases'], 'phase')}, {_plural(counts['asks'], 'ask')}, "
               f"{_plural(counts['reads'], 'read')}, {_plural(counts['runs'], 'command run')}, "
               f"{_plural(counts['actors'], 'actor')}")
    return out


def _arguments(plan: dict) -> list[str]:
    args = plan["args"]
    out = ["", f"Arguments ({len(args)})"]
    if not args:
        out.append("  This workflow takes no arguments.")
        return out
    name_width = min(20, max(len(a["name"]) for a in args))
    for arg in args:
        if arg["source"] == "missing":
            value = "(required, not given)"
        elif arg["source"] == "unset":
            value = "(not set)"
        else:
            value = one_line(json.dumps(arg["value"], ensure_ascii=False), 30) + f" ({arg['source']})"
        out.append(cut(f"  {arg['name'].ljust(name_width)}  {arg['type']:<7}  {value}"))
        if arg["description"]:
            out += _wrap(arg["description"], " " * (name_width + 4))
    return out


def _phases(plan: dict) -> list[str]:
    phases = plan["phases"]
    steps = {s["id"]: s for s in plan["steps"]}
    numbered = [p for p in phases if not p["unphased"]]
    out = ["", f"Phases ({len(numbered)})"]
    if not phases:
        out.append("  This script has no steps.")
    edges_out: dict[str, list[dict]] = {}
    for edge in plan["phase_edges"]:
        edges_out.setdefault(edge["from"], []).append(edge)
    titles = {p["id"]: p["title"] for p in phases}
    for phase in phases:
        head = phase["title"] if phase["unphased"] else f"{phase['id'].removeprefix('phase#')}. {phase['title']}"
        out += _wrap(f"{head}  ({_plural(phase['step_count'], 'step')})", "     ", "  ")
        if phase["detail"]:
            out += _wrap(phase["detail"], "     ")
        for step_id in phase["steps"]:
            out.append(_step_line(steps[step_id], phase["id"]))
        for edge in edges_out.get(phase["id"], []):
            if edge["kind"] == "loop" and edge["to"] == phase["id"]:
                out.append("     ↺ loops within this phase")
            elif edge["kind"] == "loop":
                out.append(cut(f"     ↺ loops back to {titles.get(edge['to'], edge['to'])}"))
            else:
                out.append(cut(f"     → {titles.get(edge['to'], edge['to'])} ({edge['kind']})"))
        if phase["early_exit"]:
            out.append("     ⏎ may end the run here")
    notes = []
    if plan["folded"]["steps"]:
        notes.append(f"{plan['folded']['steps']} steps beyond the first 64")
    if plan["folded"]["phases"]:
        notes.append(f"{plan['folded']['phases']} phases beyond the first 32")
    if notes:
        out.append(f"  (folded: {'; '.join(notes)})")
    return out


def _step_line(step: dict, phase: str) -> str:
    if step["kind"] == "fold":
        return cut(f"       {step['label']}")
    label = f"{step['actor']}: {step['label']}" if step.get("actor") else step["label"]
    tag = REPEAT_TAG[step["repeats"]]
    if step["conditional"] and not tag:
        tag = "maybe"
    if step["phase"] != phase:
        tag = "again"
    tail = f"{tag:>8}  L{step['line']}"
    prefix = f"       {step['id'] + ' ':<9}"  # a long id (`workflow#1`, `read#1000`) keeps one space
    room = WIDTH - len(prefix) - len(tail) - 1
    return prefix + one_line(label, room).ljust(room) + " " + tail


def _actors(plan: dict) -> list[str]:
    actors = plan["actors"]
    out = ["", f"Actors ({plan['counts']['actors']})"]
    if not actors:
        out.append("  This script creates no actors.")
    phase_titles = {p["id"]: p["title"] for p in plan["phases"]}
    for actor in actors:
        typed = actor["typed"] + (f" ({', '.join(actor['returns'])})" if actor["returns"] else "")
        model = f"model {actor['model']}" if actor["model"] else "default model"
        out.append("  " + one_line(f"{actor['name']}  ·  {actor['instances_text']}  ·  {typed}  ·  {model}", WIDTH - 2))
        if actor["agent_type"]:
            out.append("    " + one_line(f"agent type: {actor['agent_type']}", WIDTH - 4))
        for line in actor_access(actor):
            out += _wrap(line, "    ")
        if actor["elements"]:
            out += _wrap("one each: " + ", ".join(actor["elements"]), "    ")
        if actor["persona"]:
            out.append("    " + one_line(f'"{actor["persona"]}"', WIDTH - 4))
        where = ", ".join(phase_titles.get(p, p) for p in actor["phases"])
        if actor["asks"]:
            out += _wrap(f"asks: {', '.join(actor['asks'])}" + (f" in {where}" if where else ""), "    ")
        else:
            out.append("    is never asked anything")
    if plan["folded"]["actors"]:
        out.append(f"  (folded: {plan['folded']['actors']} more actors beyond the first 32)")
    return out


def _commands(plan: dict) -> list[str]:
    commands = plan["commands"]
    out = ["", f"Commands ({len(commands)})"]
    if not commands:
        out.append("  This script runs no commands.")
        return out
    out += _wrap("The only programs this run may start, with the leading arguments the script spells out "
                 "(… = computed arguments follow, checked against the program's rules when it starts):", "  ")
    programs = {entry["name"]: entry for entry in plan.get("programs", ())}
    for command in commands:
        entry = programs.get(command, {"uses": [command], "runs": None})
        mark = f" [{entry['runs']}]" if entry["runs"] else ""
        out += _wrap(f"{command}{mark}: " + "; ".join(entry["uses"]), "      ", "    ")
    network = "commands may reach the network (the meta block sets \"network\": True)" if plan.get("network") \
        else "none for commands"
    out.append(f"  Network: {network}")
    return out


def _data_flow(plan: dict) -> list[str]:
    feeds: dict[str, list[str]] = {}
    for edge in plan["data_flow"]:
        mark = "" if edge["exact"] else "?"
        feeds.setdefault(edge["to"], []).append(edge["from"] + mark)
    out = ["", "Data flow (consumer <- producers; ? = may flow through a computed index)"]
    if not feeds:
        out.append("  No step's result reaches another step or the return value.")
        return out
    width = max(len(k) for k in feeds)
    for consumer, producers in feeds.items():
        out += _wrap(", ".join(producers), " " * (width + 6), f"  {consumer.ljust(width)} <- ")
    return out


def _warnings(plan: dict) -> list[str]:
    items = plan["warnings"]
    diagnostics = [d for d in plan["diagnostics"] if d["severity"] == "warning"]
    out = ["", f"Warnings ({len(items) + len(diagnostics)})"]
    if not items and not diagnostics:
        out.append("  None.")
    for item in items:
        out += textwrap.wrap(f"line {item['line']}: {item['message']}", width=WIDTH, initial_indent="  ! ",
                             subsequent_indent="    ", break_on_hyphens=False)
    for d in diagnostics:
        out += textwrap.wrap(f"line {d['line']}: {d['code']} {d['message']}", width=WIDTH, initial_indent="  ! ",
                             subsequent_indent="    ", break_on_hyphens=False)
    return out
