"""The approval screen: the analyses and views of what a person approves. It reads the IR only
(no syntax tree, nothing of `compiler.lower`: an import contract keeps it so).

- `statics.py`: walks over the IR and module constants.
- `taint.py`: the abstract values of the data-flow analysis.
- `dataflow.py`: which effects' results may reach which effects' inputs.
- `trace.py`: the temporal walk (issue order, awaits, loops).
- `graphs.py`: the three graphs, built with networkx.
- `labels.py`: how the screen names steps.
- `commands.py`: the programs a script starts, with their literal leading arguments and marks.
- `document.py`: the plan, one JSON document.
- `text.py`: the text view of a plan.
- `html.py`: the HTML view of a plan.
- `graph_render.py`: the renderings of the graphs (DOT, SVG, PNG).

The package imports none of them, so that `dwfc` loads networkx and graphviz only for a plan:
`__all__` names the modules.
"""

__all__ = ["commands", "dataflow", "document", "graph_render", "graphs", "html", "labels", "statics", "taint", "text", "trace"]
