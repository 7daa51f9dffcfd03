"""This module defines how the approval screen names things: the short label of each step
(`reviewer-{path}: review {path}`, `git.diff(args["base"], path)`, `pytest -q -x`), the name
or name pattern of each actor, its persona head, model and agent type, and the names of the
elements of a literal fan-out (`reviewer-security`, `reviewer-style`).

Labels come from the IR and, for the text of computed parts, from the script's source: an
f-string field is shown as `{expression}` with the expression's own text. Nothing is evaluated;
a value the compiler cannot know is shown by its source text. Every label is one line,
whitespace collapsed and cut with `…` at a fixed width, so a hostile script cannot stretch
the screen.
"""

from __future__ import annotations

from dwf.compiler import ir
from dwf.compiler.source import SourceFile, Span
from dwf.compiler.plan.trace import Trace

STEP_WIDTH = 56
PERSONA_WIDTH = 96


def one_line(text: str, limit: int) -> str:
    """`text` on one line, whitespace collapsed, cut at `limit` characters with `…`."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


class Labeller:
    def __init__(self, program: ir.Program, source: SourceFile | None, trace: Trace):
        self.program, self.source, self.trace = program, source, trace
        self.sites = {s.id: s for s in program.sites}

    # ------------------------------------------------------------ text of expressions

    def snippet(self, span: Span) -> str:
        """The source text of `span` (its first line when it spans several)."""
        if self.source is None:
            return "…"
        line = self.source.line_text(span.line)
        end = span.end_column if span.end_line == span.line else len(line) + 1
        text = line[span.column - 1:end - 1]
        return text + (" …" if span.end_line != span.line else "")

    def pattern(self, node) -> str | None:
        """The text an expression makes, with computed parts shown as `{source}`; None when the
        expression is not built from strings the compiler can see."""
        kind = type(node)
        if kind is ir.Const and isinstance(node.value, str):
            return node.value
        if kind is ir.FString:
            out = []
            for part in node.parts:
                if isinstance(part, str):
                    out.append(part)
                else:
                    out.append("{" + self.snippet(part.value.span) + "}")
            return "".join(out)
        if kind is ir.BinOp and node.op == "+":
            left, right = self.pattern(node.left), self.pattern(node.right)
            if left is None and right is None:
                return None
            return (left if left is not None else "{" + self.snippet(node.left.span) + "}") + \
                   (right if right is not None else "{" + self.snippet(node.right.span) + "}")
        if kind is ir.Name and node.scope == ir.GLOBAL and isinstance(self.trace.constants.get(node.id), str):
            return self.trace.constants[node.id]
        return None

    def text(self, node, limit: int) -> str:
        if node is None:
            return ""
        found = self.pattern(node)
        return one_line(found if found is not None else self.snippet(node.span), limit)

    @staticmethod
    def argument(node: ir.FacadeCall, position: int | None, keyword: str):
        if position is not None and len(node.args) > position and type(node.args[position]) is not ir.Starred:
            return node.args[position]
        for item in node.keywords:
            if item.name == keyword:
                return item.value
        return None

    # ------------------------------------------------------------ steps

    def step(self, site: str, limit: int = STEP_WIDTH) -> str:
        info = self.trace.steps.get(site)
        node = info.node if info is not None else None
        row = self.sites.get(site)
        if node is None:
            return one_line(row.detail or row.op, limit) if row else site
        if node.op == "ask":
            label = self.argument(node, None, "label")
            return self.text(label if label is not None else self.argument(node, 0, "instructions"), limit)
        if node.op == "world.run":
            command = row.command if row and row.command else "?"
            return one_line(f"{command} {self.command_args(node)}".strip(), limit)
        args = [self.snippet(a.span) for a in node.args] + [f"{k.name}={self.snippet(k.value.span)}" for k in node.keywords if k.name]
        return one_line(f"{node.op}({', '.join(args)})", limit)

    def command_args(self, node: ir.FacadeCall) -> str:
        value = self.argument(node, 1, "args")
        return self._list_text(value) if value is not None else ""

    def _list_text(self, node) -> str:
        """Command arguments as a person would type them; computed parts as `{source}`."""
        if type(node) is ir.Name and node.scope == ir.GLOBAL and isinstance(self.trace.constants.get(node.id), tuple):
            items = self.trace.constants[node.id]
            if all(isinstance(i, str) for i in items):
                return " ".join(items)
        if type(node) in (ir.List, ir.Tuple):
            return " ".join(e.value if type(e) is ir.Const and isinstance(e.value, str) else "{" + self.snippet(e.span) + "}"
                            for e in node.elts)
        if type(node) is ir.BinOp and node.op == "+":
            return " ".join(p for p in (self._list_text(node.left), self._list_text(node.right)) if p)
        return "{" + self.snippet(node.span) + "}"

    # ------------------------------------------------------------ actors

    def actor_name(self, actor: str) -> str:
        if actor.startswith("actor#"):
            row = self.sites.get(actor)
            return row.actor if row is not None and row.actor else "(anonymous)"
        return {"workspace": "workspace", "unknown": "?"}.get(actor, actor)

    def lane_names(self, lanes) -> str:
        return " | ".join(self.actor_name(lane) for lane in lanes)

    def actor_call(self, actor: str) -> ir.FacadeCall | None:
        info = self.trace.actors.get(actor)
        return info.node if info is not None else None

    def persona(self, actor: str) -> str:
        node = self.actor_call(actor)
        system = self.argument(node, 1, "system") if node is not None else None
        if system is None or (type(system) is ir.Const and system.value is None):
            return ""
        return self.text(system, PERSONA_WIDTH)

    def keyword(self, actor: str, name: str) -> str | None:
        node = self.actor_call(actor)
        value = self.argument(node, None, name) if node is not None else None
        return value.value if type(value) is ir.Const and isinstance(value.value, str) else None

    def element_names(self, actor: str, count: int) -> list[str]:
        """Names of the `count` actors one `agent()` site makes in a literal fan-out: the name
        pattern evaluated per element when the pattern reads only the loop variables, else
        `pattern[i]`."""
        base = self.actor_name(actor)
        fallback = [f"{base}[{i}]" for i in range(count)]
        info = self.trace.actors.get(actor)
        node = info.node if info is not None else None
        if node is None or len(info.regions) != 1:
            return fallback
        region = self.trace.regions[info.regions[0]]
        name = self.argument(node, 0, "name")
        if region.elements is None or region.target is None or type(name) is not ir.FString:
            return fallback
        names = []
        for element in region.elements:
            bindings = _bind(region.target, element)
            if bindings is None:
                return fallback
            out = []
            for part in name.parts:
                if isinstance(part, str):
                    out.append(part)
                elif type(part.value) is ir.Name and part.value.id in bindings and part.format_spec is None:
                    out.append(str(bindings[part.value.id]))
                else:
                    return fallback
            names.append(one_line("".join(out), STEP_WIDTH))
        return names


def _bind(target, element) -> dict | None:
    if type(target) is ir.Name:
        return {target.id: element} if element is not None and not isinstance(element, (tuple, dict)) else None
    if type(target) in (ir.Tuple, ir.List) and isinstance(element, tuple) and len(element) == len(target.elts):
        out = {}
        for sub, value in zip(target.elts, element):
            bound = _bind(sub, value)
            if bound is None:
                continue
            out.update(bound)
        return out
    return None




def actor_access(actor: dict) -> list[str]:
    """What a plan's actor may do, as the text and HTML screens show it: its tools, whether it
    can write files, its isolation, and the programs its `run_command` may start."""
    if actor.get("tools") is None:
        tools = "tools: the run's actor tool set (--actor-tools, default write)"
    else:
        tools = "tools: " + (", ".join(actor["tools"]) or "none")
    writes = "can write files" if actor.get("can_write_files") else "cannot write files"
    isolation = "isolated in its own git worktree" if actor.get("isolation") == "worktree" else "no isolation"
    programs = ", ".join(actor.get("programs") or ()) or "none"
    if actor.get("tools") is None and actor.get("programs"):
        programs += " (only with --actor-tools exec)"
    return [f"{tools}  ·  {writes}  ·  {isolation}", f"programs: {programs}"]
