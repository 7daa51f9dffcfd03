"""This module defines the effect rules: the per-call checks of facade arguments that must be
known at compile time (actor names, commands, artifact ids, report tags, labels, schemas), the
site-table rows, and the whole-script checks that run after lowering (duplicate actors, artifact
kinds and primaries, report routing, phases)."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import ast

from dwf.grammar import facade as F

from dwf.compiler.source import Span

from dwf.compiler import ir
from dwf.compiler.rules import effects as E
from dwf.compiler.rules import schemas as S
from dwf.compiler.lower.arguments import call_args
from dwf.compiler.lower.literals import is_name_constant, is_string, literal_string, single_fstring
from dwf.compiler.lower.scopes import ASYNC_DEF, DEF

ARTIFACT_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
SHELL_SYNTAX = re.compile(r"[\s|;&<>$`]")
HEAD_CHARS = 60


@dataclass
class ActorFact:
    site: str
    span: Span
    name: str | None  # the literal name, if any
    pattern: str | None  # display name or pattern (`reviewer-{path}`)
    in_loop: bool
    name_span: Span | None = None  # the name argument
    isolation: str | None = None  # "worktree", or None: the actor edits the workspace itself
    tools: tuple[str, ...] | None = None  # the actor tools `tools=[...]` narrows to; None: the run's set


@dataclass
class ArtifactFact:
    site: str
    span: Span
    id: str | None
    kind: str  # facade member: file, markdown, chart, table, metrics, board
    primary_span: Span | None
    id_span: Span | None = None


@dataclass
class ReportFact:
    site: str
    span: Span
    tag: str | None  # literal tag, if given as a literal
    tag_span: Span | None
    tag_is_literal: bool


@dataclass
class Facts:
    """What the effect rules need to know, gathered during lowering."""

    actors: list[ActorFact] = field(default_factory=list)
    artifacts: list[ArtifactFact] = field(default_factory=list)
    reports: list[ReportFact] = field(default_factory=list)
    phase_spans: dict[str, Span] = field(default_factory=dict)  # first marker of each phase
    phase_filled: set[str] = field(default_factory=set)  # phases with a statement after a marker
    has_asks: bool = False
    phase_marked: bool = False  # any `phase()` statement, even a rejected one
    meta_phases: list[tuple[str, Span]] | None = None
    meta_span: Span | None = None


AN_AWAITABLE = "An awaitable (missing `await`?)"


def non_json_description(value: ir.Expr, lowerer=None) -> str | None:
    """What a value is when it is statically known not to be JSON data (with the lowerer,
    names of functions and actors and calls of `async def` functions are known too)."""
    if lowerer is not None and isinstance(value, ir.Name) and value.scope in (ir.GLOBAL, ir.LOCAL, ir.FREE):
        if lowerer._binds_only(value.id, (DEF, ASYNC_DEF)):
            return f"The function `{value.id}`"
        if lowerer._is_agent(ast.Name(value.id)):
            return f"The actor `{value.id}`"
    if lowerer is not None and isinstance(value, ir.Call) and isinstance(value.func, ir.Name) \
            and lowerer._binds_only(value.func.id, (ASYNC_DEF,)):
        return AN_AWAITABLE
    if isinstance(value, (ir.Set, ir.SetComp)):
        return "A set"
    if isinstance(value, ir.Lambda):
        return "A function"
    if isinstance(value, ir.GeneratorExp):
        return "A generator"
    if isinstance(value, ir.FacadeCall):
        if value.op == "agent":
            return "An actor"
        member = F.BY_QUALIFIED.get(value.op if value.op != "ask" else "Agent.ask")
        if member is not None and member.awaitable:
            return AN_AWAITABLE
    return None


def non_json_help(what: str) -> str | None:
    return "add `await` to use its result" if what == AN_AWAITABLE else None


def call_argument(node: ast.Call, position: int | None, keyword: str) -> ast.expr | None:
    """The expression passed for a parameter, by keyword or by position. When `*args` or
    `**kwargs` may supply a positional parameter, the unpacked expression is returned, so that
    checks which need a literal (commands, names, ids) see a computed value."""
    arguments = call_args(node)
    for arg in arguments:
        if arg.keyword is not None and arg.keyword == keyword:
            return arg.value
    if position is None:
        return None
    index = 0
    for arg in arguments:
        if arg.keyword is not None:
            continue
        if arg.star or index == position:
            return arg.value
        index += 1
    return None


def _literal(node: ast.expr | None, lowerer=None) -> str | None:
    return literal_string(node, lowerer.positions if lowerer is not None else None) if node is not None else None


class FacadeCallChecks:
    """Checks one facade call and records its site row and facts."""

    def __init__(self, lowerer, node: ast.Call, member: F.Member, site: str | None):
        self.lowerer, self.node, self.member, self.site = lowerer, node, member, site
        self.actor: str | None = None
        self.command: str | None = None
        self.detail: str | None = None

    def before_arguments(self) -> None:
        handler = getattr(self, f"_check_{self.member.name}", None)
        if self.member.container == "artifact":
            handler = self._check_artifact
        if handler is not None:
            handler()
        if self.site is not None:
            lowerer = self.lowerer
            lowerer.sites.append(ir.Site(lowerer.span(self.node), self.site, self.member.site_kind,
                                         self.member.qualified if self.member.container != "Agent" else "ask",
                                         self.actor, self.command, lowerer.phase, lowerer.function, self.detail))

    def after_arguments(self, args, keywords, receiver) -> str | None:
        if self.member.name == "report" and args:
            what = non_json_description(args[0], self.lowerer)
            if what:
                self.lowerer.sink.report(E.ReportNotJson, args[0].span, what=what, action="reported", help=non_json_help(what))
        if self.member.qualified == "Agent.ask":
            returns = call_argument(self.node, None, "returns")
            if returns is not None:
                return self._schema(returns)
        return None

    # ------------------------------------------------------------ per member

    def _check_agent(self) -> None:
        lowerer = self.lowerer
        name_node = call_argument(self.node, 0, "name")
        literal = _literal(name_node, lowerer)
        pattern = literal
        if name_node is not None and literal is None and single_fstring(name_node, lowerer.positions) is not None:
            pattern = _pattern(lowerer, name_node)
        in_loop = lowerer.loop_depth > 0
        if literal and in_loop:
            lowerer.report(E.LiteralActorNameInLoop, name_node, name=literal, where="once per iteration")
        fact = ActorFact(self.site, lowerer.span(self.node), literal or None, pattern, in_loop,
                         lowerer.span(name_node) if name_node is not None else None)
        lowerer.facts.actors.append(fact)
        self.actor = pattern
        fact.isolation = _check_isolation(lowerer, call_argument(self.node, None, "isolation"))
        fact.tools = _check_actor_tools(lowerer, call_argument(self.node, None, "tools"))
        for keyword in ("model", "agent_type"):
            value = call_argument(self.node, None, keyword)
            if value is None or is_name_constant(value, None):
                continue
            text = _literal(value, lowerer)
            if text is None:
                lowerer.report(E.InvalidAskArgument, value, detail=f"`agent({keyword}=...)` must be a string literal",
                               help="it is shown on the approval screen before anything runs")
            elif keyword == "agent_type":
                _check_agent_type(lowerer, value, text)

    def _check_ask(self) -> None:
        lowerer = self.lowerer
        lowerer.facts.has_asks = True
        receiver = self.node.func.value
        self.actor = _receiver_label(lowerer, receiver)
        label = call_argument(self.node, None, "label")
        if label is not None:
            if not is_string(label):
                lowerer.report(E.InvalidAskArgument, label, detail="`label=` must be a string or an f-string",
                               help="labels name the step on the approval screen")
            else:
                self.detail = _head(lowerer, label)
        if self.detail is None:
            instructions = call_argument(self.node, 0, "instructions")
            if instructions is not None:
                self.detail = _head(lowerer, instructions)

    def _check_run(self) -> None:
        lowerer = self.lowerer
        cmd = call_argument(self.node, 0, "cmd")
        if cmd is None:
            return
        command = _literal(cmd, lowerer) if single_fstring(cmd, lowerer.positions) is None else None
        if command is None:
            lowerer.report(E.CommandNotLiteral, cmd)
            return
        problem = help = None
        found = SHELL_SYNTAX.search(command)
        if not command:
            problem = "is empty"
        elif found and found.group().isspace():
            problem = "contains whitespace"
            words = command.split()
            if not any(SHELL_SYNTAX.search(word) for word in words):
                rest = ", ".join(f'"{word}"' for word in words[1:])
                help = f'there is no shell: write `world.run("{words[0]}", [{rest}])`'
        elif found:
            problem = f"contains the shell character `{found.group()}`"
        if problem:
            lowerer.report(E.InvalidCommand, cmd, command=f"\"{command}\"", problem=problem, help=help)
            return
        self.command = command
        lowerer.commands.add(command)

    def _check_report(self) -> None:
        lowerer = self.lowerer
        tag = call_argument(self.node, 1, "artifact")
        if tag is None or is_name_constant(tag, None):
            lowerer.facts.reports.append(ReportFact(self.site, lowerer.span(self.node), None, None, True))
            return
        text = _literal(tag, lowerer)
        lowerer.facts.reports.append(ReportFact(self.site, lowerer.span(self.node), text, lowerer.span(tag), text is not None))
        self.detail = text

    def _check_artifact(self) -> None:
        lowerer = self.lowerer
        kind = self.member.name
        id_node = call_argument(self.node, 0, "id")
        artifact_id = _literal(id_node, lowerer) if id_node is not None else None
        if id_node is not None:
            if artifact_id is None:
                lowerer.report(E.InvalidArtifactId, id_node, detail="The artifact id must be a string literal")
            elif not ARTIFACT_ID.match(artifact_id):
                bad = next((c for c in artifact_id if not ARTIFACT_ID.match(c)), None)
                why = ("is empty" if not artifact_id else
                       f"contains {'a space' if bad == ' ' else f'the character `{bad}`'}" if bad is not None else
                       f"is {len(artifact_id)} characters; the limit is 64")
                lowerer.report(E.InvalidArtifactId, id_node, detail=f"The artifact id \"{artifact_id}\" {why}")
                artifact_id = None
        if kind in F.DASHBOARD_KINDS:
            context = None
            if lowerer.function is not None:
                context = "a function"
            elif "loop" in lowerer.block_kinds or lowerer.loop_depth:
                context = "a loop"
            elif lowerer.block_kinds:
                context = "a branch" if "branch" in lowerer.block_kinds else "a `try` block"
            if context:
                lowerer.report(E.DashboardNotTopLevel, self.node, context=context)
        primary_node = call_argument(self.node, None, "primary")
        primary_span = None
        if is_name_constant(primary_node, True):
            primary_span = lowerer.span(primary_node)
        if kind in F.DASHBOARD_KINDS:
            spec = call_argument(self.node, 1, "spec")
            if isinstance(spec, ast.Dict):
                for key, value in zip(spec.keys, spec.values):
                    if key is not None and _literal(key, lowerer) == "primary" and is_name_constant(value, True):
                        primary_span = lowerer.span(value)
        lowerer.facts.artifacts.append(ArtifactFact(self.site, lowerer.span(self.node), artifact_id, kind, primary_span,
                                                     lowerer.span(id_node) if id_node is not None else None))
        self.detail = artifact_id

    def _check_workflow(self) -> None:
        name = call_argument(self.node, 0, "name")
        if name is not None and _literal(name, self.lowerer) is None:
            self.lowerer.report(E.NestedWorkflow, name)
        elif name is not None:
            self.detail = _literal(name, self.lowerer)

    # ------------------------------------------------------------ schemas

    def _schema(self, returns: ast.expr) -> str | None:
        lowerer = self.lowerer
        if isinstance(returns, ast.Name) and returns.id == "str" and lowerer._resolve("str") == ir.BUILTIN:
            return None  # untyped: the actor's final text
        builder = lowerer._schema_builder
        if builder is None:
            return None
        if isinstance(returns, ast.Name) and lowerer._resolve(returns.id) in (ir.LOCAL, ir.FREE):
            lowerer.report(S.ReturnsNotConstant, returns, hint=f"`{returns.id}` is a local variable: bind the schema "
                           "dict once at the top level and never reassign or mutate it")
            return None
        result = builder.for_returns(returns)
        if result is None:
            return None
        key, schema = result
        lowerer.schemas[key] = schema
        return key


def _pattern(lowerer, node: ast.JoinedStr) -> str:
    """An f-string as written, each field reduced to `{expression}` (a display pattern)."""
    parts = []
    for part in single_fstring(node, lowerer.positions):
        if isinstance(part, str):
            parts.append(part)
        else:
            parts.append("{" + part.code + "}")
    return "".join(parts)


def _head(lowerer, node: ast.expr) -> str:
    text = _literal(node, lowerer)
    if text is None and single_fstring(node, lowerer.positions) is not None:
        text = _pattern(lowerer, node)
    if text is None:
        text = lowerer.code(node)
    text = " ".join(text.split())
    return text if len(text) <= HEAD_CHARS else text[: HEAD_CHARS - 1] + "…"


def _receiver_label(lowerer, receiver: ast.expr) -> str:
    if isinstance(receiver, ast.Call) and lowerer._facade_function(receiver.func) == "agent":
        name = call_argument(receiver, 0, "name")
        if name is None:
            return "(anonymous)"
        literal = _literal(name, lowerer)
        if literal is not None:
            return literal
        return _pattern(lowerer, name) if single_fstring(name, lowerer.positions) is not None else lowerer.code(name)
    if isinstance(receiver, ast.Name):
        return receiver.id
    return " ".join(lowerer.code(receiver).split())


def _is_none(node: ast.expr | None) -> bool:
    return node is None or is_name_constant(node, None)


def _check_isolation(lowerer, node: ast.expr | None) -> str | None:
    """`agent(isolation=...)`: None, or the literal "worktree" (shown on the approval screen)."""
    if _is_none(node):
        return None
    text = _literal(node, lowerer)
    if text not in F.ISOLATIONS:
        shown = f"\"{text}\"" if text is not None else "a computed value"
        lowerer.report(E.InvalidAskArgument, node, detail=f"`agent(isolation=...)` is {shown}; the only isolation is "
                       "\"worktree\"", help="write `isolation=\"worktree\"` to give the actor its own git worktree, "
                       "or leave it out")
        return None
    return text


def _check_actor_tools(lowerer, node: ast.expr | None) -> tuple[str, ...] | None:
    """`agent(tools=[...])`: a literal list of actor tool names (Claude Code names accepted),
    returned as the actor tools they name, in `F.ACTOR_TOOLS` order."""
    if _is_none(node):
        return None
    known = ", ".join(F.ACTOR_TOOLS)
    if not isinstance(node, (ast.List, ast.Tuple)):
        lowerer.report(E.InvalidAskArgument, node, detail="`agent(tools=...)` must be a list of tool-name literals",
                       help=f"it is shown on the approval screen before anything runs; the tools are {known}")
        return None
    named: set[str] = set()
    for element in node.elts:
        value = element.value if isinstance(element, ast.Starred) else element
        text = _literal(element, lowerer) if not isinstance(element, ast.Starred) else None
        if text is None:
            lowerer.report(E.InvalidAskArgument, value, detail="each tool in `agent(tools=[...])` must be a "
                           "string literal", help=f"the tools are {known}")
            return None
        if text not in F.ACTOR_TOOL_NAMES:
            close = difflib.get_close_matches(text, list(F.ACTOR_TOOL_NAMES), n=1)
            lowerer.report(E.InvalidAskArgument, value, detail=f"\"{text}\" is not an actor tool",
                           help=(f"did you mean \"{close[0]}\"? " if close else "") + f"the tools are {known} "
                                "(Claude Code names such as Read, Edit and Bash work too)")
            return None
        named.add(F.ACTOR_TOOL_NAMES[text])
    return tuple(t for t in F.ACTOR_TOOLS if t in named)


def _check_agent_type(lowerer, node: ast.AST, name: str) -> None:
    home = os.environ.get("DWF_HOME")
    places = {".dwf/agents": Path(".dwf/agents"), ".claude/agents": Path(".claude/agents"),
              "$DWF_HOME/agents" if home else "~/.dwf/agents": Path(home or "~/.dwf").expanduser() / "agents"}
    script_dir = Path(lowerer.parsed.source.path).parent
    candidates = [*places.values(), script_dir / ".dwf/agents", script_dir / ".claude/agents"]
    if any((place / f"{name}.md").is_file() for place in candidates):
        return
    known = sorted({path.stem for place in candidates if place.is_dir() for path in place.glob("*.md")})
    close = difflib.get_close_matches(name, known, n=1)
    looked = f"looked in {', '.join(places)}"  # display names only: never an absolute path
    lowerer.report(E.UnknownAgentType, node, name=name, places=", ".join(places),
                   help=f"did you mean \"{close[0]}\"? {looked}" if close else looked)


# ---------------------------------------------------------------- whole-script checks


def check_script(lowerer) -> None:
    _check_actor_names(lowerer)
    _check_artifacts(lowerer)
    _check_reports(lowerer)
    _check_phases(lowerer)


def _check_actor_names(lowerer) -> None:
    first: dict[str, object] = {}
    for actor in lowerer.facts.actors:
        if not actor.name or actor.in_loop:
            continue
        if actor.name in first:
            lowerer.sink.report(E.DuplicateActorName, actor.name_span or actor.span, name=actor.name, first_line=first[actor.name].span.line)
        else:
            first[actor.name] = actor


def _check_artifacts(lowerer) -> None:
    kinds: dict[str, object] = {}
    primary = None
    for artifact in lowerer.facts.artifacts:
        if artifact.id is None:
            continue
        seen = kinds.get(artifact.id)
        if seen is None:
            kinds[artifact.id] = artifact
        elif seen.kind != artifact.kind:
            lowerer.sink.report(E.ArtifactKindConflict, artifact.id_span or artifact.span, id=artifact.id, first=seen.kind,
                                first_line=seen.span.line, second=artifact.kind)
        if artifact.primary_span is not None:
            if primary is None:
                primary = artifact
            elif primary.id != artifact.id:
                lowerer.sink.report(E.MultiplePrimaryArtifacts, artifact.primary_span, id=artifact.id,
                                    first=primary.id, first_line=primary.primary_span.line)


def _check_reports(lowerer) -> None:
    dashboards = sorted({a.id for a in lowerer.facts.artifacts if a.id and a.kind in F.DASHBOARD_KINDS})
    contents = {a.id for a in lowerer.facts.artifacts if a.id and a.kind in F.CONTENT_ARTIFACT_KINDS}
    for report in lowerer.facts.reports:
        if report.tag_span is None:
            continue
        if not report.tag_is_literal:
            lowerer.sink.report(E.InvalidReportTag, report.tag_span, detail="The report's `artifact=` must be a string literal",
                                help="name a dashboard declared with `artifact.table/chart/metrics/board`")
        elif report.tag in contents and report.tag not in dashboards:
            lowerer.sink.report(E.InvalidReportTag, report.tag_span,
                                detail=f"\"{report.tag}\" names a file/markdown artifact, not a dashboard",
                                help="reports feed dashboards; publish file and Markdown deliverables with `artifact.file/markdown`")
        elif report.tag not in dashboards:
            close = difflib.get_close_matches(report.tag, dashboards, n=1)
            listing = f"declared dashboards: {', '.join(dashboards)}" if dashboards else "this script declares no dashboards"
            lowerer.sink.report(E.InvalidReportTag, report.tag_span,
                                detail=f"\"{report.tag}\" names no dashboard declared in this script",
                                help=(f"did you mean \"{close[0]}\"? " if close else "") + listing)


def _check_phases(lowerer) -> None:
    facts = lowerer.facts
    for name, span in facts.phase_spans.items():
        if name not in facts.phase_filled:
            lowerer.sink.report(E.EmptyPhase, span, name=name)
    if facts.meta_phases is not None:
        titles = [title.strip() for title, _ in facts.meta_phases]
        for title, span in facts.meta_phases:
            if title.strip() and title.strip() not in facts.phase_spans:  # an empty title is `DWF503`
                close = difflib.get_close_matches(title.strip(), [n for n in facts.phase_spans if n not in titles], n=1)
                lowerer.sink.report(E.PhasesDisagreeWithMeta, span,
                                    detail=f"`meta[\"phases\"]` lists \"{title}\" but no `phase(\"{title}\")` marks it",
                                    hint=f"the script marks \"{close[0]}\"; use the same title in both places" if close else
                                    "add the marker where that stage starts, or remove the title from meta")
        for name, span in facts.phase_spans.items():
            if name not in titles:
                close = difflib.get_close_matches(name, [t for t in titles if t not in facts.phase_spans], n=1)
                lowerer.sink.report(E.PhasesDisagreeWithMeta, span,
                                    detail=f"The phase \"{name}\" is not listed in `meta[\"phases\"]`",
                                    hint=f"`meta[\"phases\"]` lists \"{close[0]}\"; use the same title in both places" if close else
                                    f"add {{\"title\": \"{name}\"}} to `meta[\"phases\"]`")
    if facts.has_asks and not facts.phase_spans and not facts.phase_marked:
        first_ask = next((s for s in lowerer.sites if s.kind == "ask"), None)
        if first_ask is not None:
            lowerer.sink.report(E.MissingPhases, first_ask.span)
