"""`dwfc`, the command line; nothing imports it. The console script is `dwf.runtime.cli.main:main`.

- `main.py`: `main`, the parser, the check/run/answer subcommands and their exit codes.
- `plan.py`: `dwfc plan` and `dwfc graph`.
- `runs.py`: the run-management subcommands (`runs`, `show`, `cancel`, `resume`, `amend`, ...).
- `saved.py`: `dwfc save` and `dwfc saved`.
- `eval.py`: `dwfc eval`.
- `mcp.py`: `dwfc mcp`.
- `progress.py`: the progress renderers of `dwfc run --progress`.
- `driver.py`: `drive`, one start request run to settlement with signal handling.
- `graphviz.py`: the one place DWF runs Graphviz's `dot`.
"""
