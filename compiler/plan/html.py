"""This module defines the HTML view of a plan (`compiler.plan.document`): one self-contained page, the
approval screen a browser shows. The page holds its own CSS and the three graphs as inline
SVG (rendered from DOT by the caller: the compiler starts no processes); it loads nothing
(no scripts, fonts, images or style sheets from anywhere), so it works offline and leaks
nothing when opened.

Every string from the script or its metadata goes through `html.escape`; the only markup not
built here is the SVG from Graphviz, which escapes its own text and from which the XML
prologue, DOCTYPE and comments are removed before it is inlined.
"""

from __future__ import annotations

import json
import re
from html import escape

from dwf.compiler.inert import flatten, inert_tree, screen
from dwf.compiler.plan.labels import actor_access

STYLE = """
:root { color-scheme: light; --ink: #111827; --muted: #6b7280; --line: #e5e7eb; --accent: #4338ca; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       color: var(--ink); background: #f9fafb; }
header { background: #1e1b4b; color: #fff; padding: 24px 32px; }
header h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 4px 0; max-width: 72ch; }
header .meta { color: #c7d2fe; font-size: 13px; }
main { padding: 8px 32px 48px; max-width: 1200px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; margin: 20px 0; padding: 16px 20px; }
h2 { font-size: 18px; margin: 0 0 12px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
code, .id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
.kind { display: inline-block; min-width: 3.2em; font-size: 12px; border-radius: 4px; padding: 0 4px; text-align: center; }
.kind-ask { background: #dbeafe; } .kind-read { background: #dcfce7; } .kind-run { background: #fef3c7; }
.kind-workflow { background: #ede9fe; }
.kind-fold { background: #e5e7eb; }
.muted { color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; background: #fafaff; }
.card h3 { margin: 0 0 4px; }
.commands li { font-family: ui-monospace, Menlo, Consolas, monospace; }
.warning { color: #92400e; }
figure { margin: 12px 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; }
ol.phases > li { margin-bottom: 12px; }
"""

_PROLOGUE = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.S)


def inline_svg(svg: str) -> str:
    """SVG text from `dot -Tsvg`, ready to inline: no prologue, DOCTYPE or comments."""
    return _PROLOGUE.sub("", svg).strip()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def render_html(plan: dict, svgs: dict[str, str]) -> str:
    """The approval page of `plan`; `svgs` maps "phase", "causal" and "handoff" to SVG text.
    Every string of the plan and the pictures is made inert first (`compiler.inert`): no bidi
    override or control character reorders what the page shows."""
    plan = inert_tree(plan, flatten)
    svgs = {kind: screen(svg) for kind, svg in svgs.items()}
    e = escape
    counts = plan["counts"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>Plan: {e(plan['name'])}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        "<header>",
        f'<h1 id="title">Plan: {e(plan["name"])}</h1>',
        f"<p>{e(plan['description'])}</p>",
    ]
    if plan.get("when_to_use"):
        parts.append(f"<p><strong>When to use:</strong> {e(plan['when_to_use'])}</p>")
    parts.append(f'<p class="meta">{e(plan["path"])} · sha256 {e(plan["sha256"][:12])} · '
                 f'{_plural(counts["phases"], "phase")}, {_plural(counts["asks"], "ask")}, '
                 f'{_plural(counts["reads"], "read")}, {_plural(counts["runs"], "command run")}, '
                 f'{_plural(counts["actors"], "actor")}</p>')
    parts += ["</header>", "<main>"]
    parts += _arguments(plan)
    parts += _phases(plan, svgs.get("phase"))
    parts += _actors(plan)
    parts += _commands(plan)
    parts += _flow(plan, svgs.get("causal"), svgs.get("handoff"))
    parts += _warnings(plan)
    parts += _called_workflows(plan)
    parts += ["</main>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _figure(svg: str | None, caption: str, ident: str) -> list[str]:
    if not svg:
        return []
    return [f'<figure id="{ident}">', inline_svg(svg), f"<figcaption>{escape(caption)}</figcaption>", "</figure>"]


def _arguments(plan: dict) -> list[str]:
    out = ['<section id="arguments">', "<h2>Arguments</h2>"]
    if not plan["args"]:
        out.append('<p class="muted">This workflow takes no arguments.</p>')
    else:
        out.append("<table><tr><th>name</th><th>type</th><th>value</th><th>description</th></tr>")
        for arg in plan["args"]:
            if arg["source"] in ("missing", "unset"):
                value = '<span class="warning">required, not given</span>' if arg["source"] == "missing" else '<span class="muted">not set</span>'
            else:
                value = f'<code>{escape(json.dumps(arg["value"], ensure_ascii=False))}</code> <span class="muted">({arg["source"]})</span>'
            out.append(f"<tr><td><code>{escape(arg['name'])}</code></td><td>{escape(arg['type'])}</td>"
                       f"<td>{value}</td><td>{escape(arg['description'])}</td></tr>")
        out.append("</table>")
    out.append("</section>")
    return out


def _step_row(step: dict) -> str:
    if step["kind"] == "fold":
        return f'<tr><td class="id">{escape(step["id"])}</td><td><span class="kind kind-fold">fold</span></td><td colspan="3">{escape(step["label"])}</td></tr>'
    who = escape(step["actor"]) if step.get("actor") else '<span class="muted">workspace</span>'
    repeat = {"loop": "repeats in a loop", "fan-out": "once per item", None: ""}[step["repeats"]]
    if step["conditional"] and not repeat:
        repeat = "may be skipped"
    return (f'<tr><td class="id">{escape(step["id"])}</td><td><span class="kind kind-{step["kind"]}">{step["kind"]}</span></td>'
            f"<td>{who}</td><td>{escape(step['label'])}</td><td class=\"muted\">{repeat + ' · ' if repeat else ''}line {step['line']}</td></tr>")


def _phases(plan: dict, svg: str | None) -> list[str]:
    steps = {s["id"]: s for s in plan["steps"]}
    titles = {p["id"]: p["title"] for p in plan["phases"]}
    edges_out: dict[str, list[dict]] = {}
    for edge in plan["phase_edges"]:
        edges_out.setdefault(edge["from"], []).append(edge)
    out = ['<section id="phases">', "<h2>Phases</h2>"]
    out += _figure(svg, "Phase graph: phases in the order they are reached, with sequence, branch and loop edges.", "phase-graph")
    out.append('<ol class="phases">')
    for phase in plan["phases"]:
        out.append(f'<li class="phase" data-phase="{escape(phase["id"])}"><h3 class="phase-title">{escape(phase["title"])}</h3>')
        if phase["detail"]:
            out.append(f'<p class="muted">{escape(phase["detail"])}</p>')
        out.append("<table>")
        out += [_step_row(steps[s]) for s in phase["steps"]]
        out.append("</table>")
        notes = []
        for edge in edges_out.get(phase["id"], []):
            target = titles.get(edge["to"], edge["to"])
            notes.append("loops within this phase" if edge["kind"] == "loop" and edge["to"] == phase["id"]
                         else f"{edge['kind']} → {escape(target)}")
        if phase["early_exit"]:
            notes.append("may end the run here")
        if notes:
            out.append(f'<p class="muted">{" · ".join(notes)}</p>')
        out.append("</li>")
    out.append("</ol>")
    if plan["folded"]["steps"] or plan["folded"]["phases"]:
        out.append(f'<p class="muted">Folded beyond the display caps: {plan["folded"]["steps"]} steps, '
                   f'{plan["folded"]["phases"]} phases.</p>')
    out.append("</section>")
    return out


def _actors(plan: dict) -> list[str]:
    out = ['<section id="actors">', f"<h2>Actors ({plan['counts']['actors']})</h2>"]
    if not plan["actors"]:
        out.append('<p class="muted">This script creates no actors.</p>')
    out.append('<div class="cards">')
    for actor in plan["actors"]:
        typed = actor["typed"] + (f" ({', '.join(actor['returns'])})" if actor["returns"] else "")
        out.append(f'<div class="card actor" data-actor="{escape(actor["id"])}">')
        out.append(f"<h3><code>{escape(actor['name'])}</code></h3>")
        out.append(f'<p class="muted">{escape(actor["instances_text"])} · {escape(typed)} · '
                   f'{escape(actor["model"] or "default model")}'
                   + (f" · agent type {escape(actor['agent_type'])}" if actor["agent_type"] else "") + "</p>")
        out += [f'<p class="access">{escape(line)}</p>' for line in actor_access(actor)]
        if actor["elements"]:
            out.append(f'<p>one each: {", ".join(f"<code>{escape(n)}</code>" for n in actor["elements"])}</p>')
        if actor["persona"]:
            out.append(f"<p><em>{escape(actor['persona'])}</em></p>")
        out.append(f'<p class="muted">asks: {escape(", ".join(actor["asks"]) or "none")}</p>')
        out.append("</div>")
    out.append("</div>")
    if plan["folded"]["actors"]:
        out.append(f'<p class="muted">{plan["folded"]["actors"]} more actors folded beyond the first 32.</p>')
    out.append("</section>")
    return out


def _commands(plan: dict) -> list[str]:
    out = ['<section id="commands">', f"<h2>Commands ({len(plan['commands'])})</h2>"]
    if not plan["commands"]:
        out.append('<p class="muted">This script runs no commands.</p>')
    else:
        out.append("<p>The only programs this run may start, with the leading arguments the script spells out "
                   "(… = computed arguments follow, checked against the program's rules when it starts):</p>")
        programs = {entry["name"]: entry for entry in plan.get("programs", ())}
        items = []
        for command in plan["commands"]:
            entry = programs.get(command, {"uses": [command], "runs": None})
            mark = f' <strong class="runs-code">{escape(entry["runs"])}</strong>' if entry["runs"] else ""
            uses = "; ".join(f"<code>{escape(use)}</code>" for use in entry["uses"])
            items.append(f'<li class="command">{escape(command)}{mark}: {uses}</li>')
        out.append('<ul class="commands">' + "".join(items) + "</ul>")
        network = "commands may reach the network (the meta block sets <code>\"network\": True</code>)" \
            if plan.get("network") else "none for commands"
        out.append(f'<p class="network">Network: {network}</p>')
    out.append("</section>")
    return out


def _called_workflows(plan: dict) -> list[str]:
    """The saved workflows the script calls inline (`workflows`, added by the runtime, which
    finds them in the workspace); nothing when it calls none."""
    workflows = plan.get("workflows") or []
    if not workflows:
        return []
    out = ['<section id="workflows">', f"<h2>Saved workflows ({len(workflows)})</h2>",
           "<p>Called inline: each shares this run's caps, budget and journal; its commands are in the command "
           "set above.</p>", "<ul>"]
    for workflow in workflows:
        commands = ", ".join(workflow["commands"]) or "runs no commands"
        out.append(f'<li class="workflow"><strong>{escape(workflow["name"])}</strong> ({escape(workflow["scope"])}): '
                   f'{escape(workflow["description"] or "(no description)")}<br><code>{escape(workflow["path"])}</code>'
                   f" · commands: {escape(commands)}</li>")
    out += ["</ul>", "</section>"]
    return out


def _flow(plan: dict, causal: str | None, handoff: str | None) -> list[str]:
    out = ['<section id="data-flow">', "<h2>Data flow</h2>"]
    out += _figure(causal, "Causal graph: steps with data, control, same-actor (fifo), await (seq) and loop (carry) "
                           "edges, transitively reduced.", "causal-graph")
    feeds: dict[str, list[str]] = {}
    for edge in plan["data_flow"]:
        feeds.setdefault(edge["to"], []).append(edge["from"] + ("" if edge["exact"] else " (may)"))
    if feeds:
        out.append("<table><tr><th>consumer</th><th>fed by</th></tr>")
        out += [f'<tr><td class="id">{escape(k)}</td><td class="id">{escape(", ".join(v))}</td></tr>' for k, v in feeds.items()]
        out.append("</table>")
    else:
        out.append('<p class="muted">No step\'s result reaches another step or the return value.</p>')
    out += _figure(handoff, "Hand-off graph: one card per actor (and the workspace) per phase.", "handoff-graph")
    out.append("</section>")
    return out


def _warnings(plan: dict) -> list[str]:
    items = [f"line {w['line']}: {w['message']}" for w in plan["warnings"]]
    items += [f"line {d['line']}: {d['code']} {d['message']}" for d in plan["diagnostics"] if d["severity"] == "warning"]
    out = ['<section id="warnings">', f"<h2>Warnings ({len(items)})</h2>"]
    if not items:
        out.append('<p class="muted">None.</p>')
    else:
        out.append("<ul>" + "".join(f'<li class="warning">{escape(i)}</li>' for i in items) + "</ul>")
    out.append("</section>")
    return out
