"""This module defines snippet mode, the dialect `compile_source(..., options=SNIPPET)` compiles
(TOOLS §1 `dwfc eval`, §3 `EvalWorkflowSnippet`; the evaluation is `runtime.host.snippets`).

A snippet is DWF code run for its value: world reads (`files.*`, `git.*`), `world.run` of
literal commands and pure logic, with top-level `await` and `return` as in scripts. It differs
from a script in three ways, each a step of `compiler.compile.compile_source`:

1. **No meta block needed.** A snippet without one is compiled with `SYNTHETIC_META` appended
   after its last line (`meta_suffix`), so no line shifts and every diagnostic and traceback
   points at the snippet's own lines; the text with the suffix (`CompileResult.script`)
   compiles to the same program as a plain script, which is what the engine runs.
2. **Findings that do not apply are dropped** (`NOT_FOR_SNIPPETS`): a missing meta block
   (`DWF501`) and missing phases (`DWF309`).
3. **Effects that need a run are refused** (`refusals`): `agent()`, `.ask()`, `report()`,
   `artifact.*`, `phase()`, `workflow()` and `hole()`, each as `DWF326` on its line, so a snippet
   with one has no program and nothing runs.
"""

from __future__ import annotations

from dwf.compiler import ir
from dwf.compiler.diagnostics import Diagnostic
from dwf.compiler.lower.statements import meta_block
from dwf.compiler.parse import ParsedModule
from dwf.compiler.plan.statics import iter_nodes
from dwf.compiler.rules.effects import EffectInSnippet, MissingPhases
from dwf.compiler.rules.meta import MissingMeta

# The meta block a snippet without one runs under. It is appended after the snippet's last line,
# so it shifts no line of the snippet.
SYNTHETIC_META = 'meta = {"name": "snippet", "description": "A snippet evaluated at once (dwfc eval)."}\n'

# Findings that do not apply to snippets: they need no meta block and have no phases.
NOT_FOR_SNIPPETS = frozenset({MissingMeta.code, MissingPhases.code})

_RUN_ONLY = "run it as a workflow with `dwfc run`"
# Site kind -> (why a snippet cannot have it, what to do instead)
_REFUSED_SITES = {
    "actor": ("a snippet has no agents", f"read and compute in the snippet, or {_RUN_ONLY}"),
    "ask": ("a snippet has no agents to ask", f"read and compute in the snippet, or {_RUN_ONLY}"),
    "report": ("a snippet has no run to report to", "return the item as the snippet's value"),
    "artifact": ("a snippet has no run to publish artifacts in", "return the content as the snippet's value"),
    "workflow": ("a snippet cannot start a saved workflow", _RUN_ONLY),
    "hole": ("a snippet has no host to fill a hole", "compute the value in the snippet"),
}
_PHASE = ("a snippet has no stages", "remove it; `log()` prints progress lines")


def meta_suffix(parsed: ParsedModule) -> str:
    """What to append to a parsed snippet's text so that it has a meta block: "" when it
    declares its own, else `SYNTHETIC_META` (on a line of its own)."""
    if meta_block(parsed.module) is not None:
        return ""
    text = parsed.source.text
    return ("\n" if text and not text.endswith("\n") else "") + SYNTHETIC_META


def refusals(program: ir.Program) -> list[Diagnostic]:
    """One `DWF326` error per site (and phase marker) that needs a run, naming the call as
    written."""
    found = [(site.span, ".ask()" if site.kind == "ask" else f"{site.op}()", _REFUSED_SITES[site.kind])
             for site in program.sites if site.kind in _REFUSED_SITES]
    found += [(node.span, "phase()", _PHASE) for node in iter_nodes(program.body) if isinstance(node, ir.Phase)]
    return [EffectInSnippet.diagnostic(span, help=instead, call=call, why=why) for span, call, (why, instead) in found]
