"""This module defines the one place DWF runs Graphviz's `dot` program: turning the DOT text of
an approval-screen graph (`dwf.compiler.plan.graph_render`) into SVG or PNG. The compiler stays pure
(it only writes DOT); starting a process belongs to the runtime.

`dot` is a system program, not a Python package: Debian and Ubuntu ship it in the `graphviz`
package (`apt-get install graphviz`), Homebrew in `graphviz` too. When it is missing,
`GraphvizMissing` says exactly that, and DOT, Mermaid and text output keep working without it.

Why not `graphviz.pipe` (the pinned `graphviz` package, which `graph_render` uses to write DOT):
it has no timeout, and a graph `dot` cannot lay out would hang `dwfc plan --format html`
forever; here `dot` gets `TIMEOUT_S`. It also copies `dot`'s stderr to ours unless `quiet`,
where `GraphvizFailed` puts its first line into the one-sentence error `dwfc` prints.
"""

from __future__ import annotations

import shutil
import subprocess

FORMATS = ("svg", "png")
TIMEOUT_S = 60
INSTALL_HINT = ("install Graphviz's `dot` program (Debian/Ubuntu: `apt-get install graphviz`, "
                "macOS: `brew install graphviz`), or use --format dot, mermaid or text, which need no program")


class GraphvizMissing(Exception):
    """The `dot` program is not installed."""

    def __init__(self) -> None:
        super().__init__(f"Graphviz's `dot` program was not found on PATH; {INSTALL_HINT}")


class GraphvizFailed(Exception):
    """`dot` ran but could not render the graph."""


def dot_path() -> str | None:
    """The path of the `dot` program on PATH, or None."""
    return shutil.which("dot")


def render(dot_source: str, fmt: str) -> bytes:
    """Run `dot -T<fmt>` on `dot_source` and return its output (SVG text as UTF-8, or PNG)."""
    if fmt not in FORMATS:
        raise ValueError(f"unsupported Graphviz format {fmt!r}")
    program = dot_path()
    if program is None:
        raise GraphvizMissing()
    try:
        done = subprocess.run([program, f"-T{fmt}"], input=dot_source.encode("utf-8"), capture_output=True,
                              timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise GraphvizFailed(f"`dot` did not finish within {TIMEOUT_S} s") from None
    except OSError as error:
        raise GraphvizFailed(f"`dot` could not be started: {error.strerror or error}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise GraphvizFailed(f"`dot` failed (exit {done.returncode}): {message[0] if message else 'no message'}")
    return done.stdout


def render_svg(dot_source: str) -> str:
    """`render(dot_source, "svg")` as text."""
    return render(dot_source, "svg").decode("utf-8")
