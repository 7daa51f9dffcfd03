"""This module defines the approval screens (TOOLS §2) a person reads before a run starts, for
the command line and the tool layer alike: the plan of `dwfc plan` with the section on the saved
workflows the script calls (`plan_with_called`, `render_plan_text`), what `dwfc run` and
CreateWorkflow show before a run (`plan_summary`; `caps_lines`: the caps given, and those the
host's ceilings lower), and what `dwfc amend` and AmendWorkflow show before an amend
(`amend_summary`). Each takes a `PreparedRun` and explicit values for the agent
and the caps: the command set shown is the one the run will be held to. Every string of a
screen is made inert (`compiler.inert`).

What an approval covers (`approval_binding`, docs/security.md): the sha256 of the script and of
each saved workflow it calls, the arguments, the command set and the actor tool set. A caller
computes the binding when it shows the screen and checks it again just before the run starts
(`check_unchanged`: the files are read again); any difference refuses the run with
`SCRIPT_CHANGED`. A resume needs a fresh approval when a person stopped the run or when the
journal was recorded in another workspace (`resume_needs_approval`, `workspace_identity`).
"""

from __future__ import annotations

import hashlib
import json
import os
import textwrap
from pathlib import Path
from typing import Mapping

from dwf.compiler import ir
from dwf.compiler.plan.commands import command_uses, program_entries
from dwf.compiler.plan.document import actor_programs
from dwf.compiler.inert import escape, flatten, inert_tree, screen
from dwf.compiler.plan.text import render_text

from dwf.runtime.engine import CalledSource, Ceilings, PreparedRun, resolve_caps, run_commands
from dwf.runtime.journal.store import RunRow
from dwf.grammar.facade import FILE_WRITING_TOOLS
from dwf.runtime.ports.actor_tools import TOOLS_BY_SET
from dwf.runtime.ports.sandbox import Sandbox
from dwf.runtime.host.run_views import status_text


def called_entries(called: Mapping[str, ir.Program], sources: Mapping[str, CalledSource]) -> list[dict]:
    """One object per called saved workflow, in call order, as the approval screen lists them:
    name, scope, file, description and its own sorted commands."""
    entries = []
    for name, program in called.items():
        source = sources.get(name) or CalledSource(None)
        meta = program.meta
        entries.append({"name": name, "scope": source.scope, "path": source.path, "description": meta.get("description"),
                        "commands": sorted(program.commands)})
    return entries


def plan_with_called(plan: dict, program: ir.Program, called: Mapping[str, ir.Program],
                     sources: Mapping[str, CalledSource]) -> dict:
    """The plan of `program` when it calls saved workflows: its command set becomes the run's
    (`run_commands`: the only commands the run may execute, TOOLS §2) and `workflows` lists
    them. A plan of a script that calls none is returned unchanged."""
    if not called:
        return plan
    programs = program_entries(command_uses([program, *called.values()]))
    commands = sorted(run_commands(program, called))
    actors = [{**actor, "programs": actor_programs(actor.get("tools"), commands)} for actor in plan["actors"]]
    return {**plan, "commands": commands, "programs": programs, "actors": actors,
            "workflows": called_entries(called, sources)}


def called_section(workflows: list[dict]) -> list[str]:
    """The approval-screen section on the called saved workflows (`called_entries`); no lines
    when there are none."""
    if not workflows:
        return []

    def wrap(text: str, indent: str) -> list[str]:
        return textwrap.wrap(text, width=80, initial_indent=indent, subsequent_indent=indent,
                             break_long_words=False, break_on_hyphens=False)

    out = ["", f"Saved workflows ({len(workflows)})"]
    out += wrap("Called inline: each shares this run's caps, budget and journal; its commands are in the "
                "command set above. `dwfc plan FILE` shows its steps.", "  ")
    for workflow in workflows:
        out += wrap(f"{workflow['name']} ({workflow['scope']})", "  ")
        out += wrap(workflow["description"] or "(no description)", "    ")
        out.append(f"    file: {workflow['path']}")  # never cut or wrapped: a person may open it
        commands = workflow["commands"]
        out += wrap("commands: " + ", ".join(commands) if commands else "runs no commands", "    ")
    return out


def render_plan_text(plan: dict) -> str:
    """The text view of a plan, with the section on the saved workflows it calls; every string
    of it made inert (`compiler.inert`)."""
    workflows = inert_tree(plan.get("workflows") or [], flatten)
    return render_text(plan) + "".join(line + "\n" for line in called_section(workflows))


def prepared_plan(prepared: PreparedRun) -> dict:
    """The plan of a prepared run, with the saved workflows it calls."""
    from dwf.compiler.plan.document import build_plan  # deferred: start-up (networkx)

    plan = build_plan(prepared.compiled, prepared.args, prepared.given)
    return plan_with_called(plan, prepared.program, prepared.called, prepared.sources)


def with_actor_tools(plan: dict, tool_set: str) -> dict:
    """The plan with each actor's tools resolved against the run's tool set (`--actor-tools`):
    an actor without `tools=` gets the whole set, one with `tools=` what is in both; whether it can
    write files and its programs follow from that."""
    offered = TOOLS_BY_SET.get(tool_set, ())
    actors = []
    for actor in plan["actors"]:
        tools = [t for t in offered if actor.get("tools") is None or t in actor["tools"]]
        actors.append({**actor, "tools": tools, "can_write_files": bool(FILE_WRITING_TOOLS & set(tools)),
                       "programs": actor_programs(tools, plan["commands"])})
    return {**plan, "actors": actors}


def plan_summary(prepared: PreparedRun, workspace: Path, *, agent: str | None, max_concurrency: int | None = None,
                 budget: int | None = None, ceilings: Ceilings | None = None, actor_tools: str | None = None) -> str:
    """The approval screen printed before a run: the plan of `dwfc plan` (with the saved
    workflows it calls, if any; with `actor_tools`, the run's tool set, each actor's tools
    resolved against it), then where and how this run will execute: the caps given, and any the
    host's `ceilings` lower (with the value asked for)."""
    plan = prepared_plan(prepared)
    if actor_tools in TOOLS_BY_SET:
        plan = with_actor_tools(plan, actor_tools)
    lines = [render_plan_text(plan).rstrip("\n"), "", "This run"]
    lines.append(f"  Workspace: {escape(str(Path(workspace).resolve()))}")
    lines.append(f"  Agent: {escape(str(agent))}")
    if actor_tools in TOOLS_BY_SET:
        lines.append(f"  Actor tools: {actor_tools}: {', '.join(TOOLS_BY_SET[actor_tools])}")
    if prepared.commands:
        lines.append(f"  Sandbox: {run_sandbox(prepared).status()}")
    caps = caps_lines(prepared, max_concurrency=max_concurrency, budget=budget, ceilings=ceilings or Ceilings())
    if caps:
        lines.append("  Caps: " + ", ".join(caps))
    return screen("\n".join(lines) + "\n\n")


def run_sandbox(prepared: PreparedRun) -> Sandbox:
    """The sandbox a prepared run's commands start in: network only when its meta block says so,
    unsandboxed only where the person approved it (`DWF_UNSANDBOXED=1`)."""
    return Sandbox.from_environment(network=bool(prepared.program.meta.get("network", False)))


def caps_lines(prepared: PreparedRun, *, max_concurrency: int | None, budget: int | None,
               ceilings: Ceilings) -> list[str]:
    """The caps the approval screen names: those the caller gave, and each one the host's
    ceiling lowers, with the value asked for ("max agents 1,000 (asked for 1,500; this host's
    ceiling is 1,000)")."""
    stored = prepared.stored.caps if prepared.stored is not None else None
    caps, _problems = resolve_caps(max_concurrency=max_concurrency, max_agents=None, budget=budget, stored=stored,
                                   meta=prepared.program.meta, ceilings=ceilings)
    clamped = caps.clamped if caps is not None else {}  # with problems, the engine refuses the run
    out = []
    for name, label, given in (("max_concurrency", "max concurrency", max_concurrency), ("max_agents", "max agents", None)):
        if name in clamped:
            out.append(f"{label} {getattr(caps, name):,} (asked for {clamped[name]:,}; "
                       f"this host's ceiling is {getattr(ceilings, name):,})")
        elif given:
            out.append(f"{label} {given}")
    if budget is not None:
        out.append(f"budget {budget:,} output tokens")
    return out


def amend_summary(row: RunRow, prepared: PreparedRun, workspace: Path, *, agent: str | None) -> str:
    """The screen `dwfc amend` prints before it asks: which run, which script, where, and the
    commands the amended run may execute (with the saved workflows it calls)."""
    live = " (it is running: it will be stopped as superseded)" if row.status == "running" else ""
    commands = ", ".join(sorted(prepared.commands)) or "none"
    called = inert_tree(called_entries(prepared.called, prepared.sources), flatten)
    section = "".join(line + "\n" for line in called_section(called))
    return screen(f"Amend run {row.id} ({status_text(row)}){live}\n"
                  f"  Script: {escape(str(prepared.path))}\n  Workspace: {escape(str(workspace))}\n"
                  f"  Agent: {escape(str(agent))}\n  Commands: {escape(commands)}\n" + section)


# ---------------------------------------------------------------------------- what an approval covers

SCRIPT_CHANGED = "the script changed since it was approved"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def approval_binding(prepared: PreparedRun, actor_tools: str | None = None) -> str:
    """The sha256 naming what a person approves for `prepared`: the script's text, the text of
    each saved workflow it calls, the arguments, the command set (its argument rules are the
    scripts' own, so the texts cover them) and the tool set its actors get (`--actor-tools`)."""
    covered = {"script": _sha256(prepared.script),
               "workflows": {name: _sha256(text or "") for name, text in sorted(prepared.workflows.items())},
               "args": prepared.args, "commands": sorted(prepared.commands), "actor_tools": actor_tools or ""}
    return _sha256(json.dumps(covered, sort_keys=True, ensure_ascii=True, default=str))


def check_unchanged(prepared: PreparedRun, script_file: Path | None, approved: str,
                    actor_tools: str | None = None) -> str | None:
    """None when what was approved (`approved`, an `approval_binding`) is still what would run:
    `prepared`'s binding, the script file (`script_file`, None for an inline script) and each
    called workflow's file read again, unchanged; else `SCRIPT_CHANGED` with what changed."""
    changed: list[str] = []
    if approval_binding(prepared, actor_tools) != approved:
        changed.append("what the run would execute")
    files = [(str(script_file), prepared.script)] if script_file is not None else []
    files += [(source.path, source.text) for source in prepared.sources.values() if source.path]
    for path, text in files:
        try:
            now = Path(path).read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff")
        except OSError:
            now = None
        if now != (text or "").lstrip("\ufeff"):
            changed.append(path)
    if not changed:
        return None
    return f"{SCRIPT_CHANGED} ({', '.join(changed)}); nothing ran: look at the plan again and approve it anew"


def workspace_identity(root: Path) -> str:
    """The identity a run records of its workspace: the folder's resolved path and its device
    and inode, so a journal copied or moved to another folder is told apart."""
    resolved = Path(root).resolve()
    stat = os.stat(resolved)
    return f"{resolved} (device {stat.st_dev}, inode {stat.st_ino})"


def resume_needs_approval(row: RunRow, root: Path) -> str | None:
    """Why resuming `row` in the workspace `root` needs a person's fresh approval, or None: a
    person stopped it, or its journal recorded another workspace (a copied `state.db`)."""
    if row.status == "stopped" and row.stop_reason == "user":
        return f"run {row.id} was stopped by a person"
    recorded = (row.caps or {}).get("workspace")
    if recorded is not None and recorded != workspace_identity(root):
        return f"run {row.id} was recorded in another workspace ({recorded})"
    return None
