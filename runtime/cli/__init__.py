"""`dwfc`, the command line: the top layer of the runtime, which nothing else imports. The console
script is `dwf.runtime.cli.main:main`; `python -m dwf.runtime.cli` runs the same `main`.

- `main.py`: `main` and the parser (`build_parser`). It imports every command module and calls
  its `add_parsers`; no command module imports it.
- `run.py`: `dwfc run` and `dwfc answer`, and what `resume` and `amend` share with them (the
  question port of a run, `settle`). Runs are prepared and started through `host.session`.
- `exit_codes.py`: the exit codes of every command, `RUN_EXIT` and `UsageError` (exit 2).
- `options.py`: the options several commands share, as argparse parent parsers.
- `usage.py`: helpers of the commands that run or approve: the `--args` reader, `confirm`,
  `isatty`, the usage-problems printer, the `--workspace` check.
- `check.py`: `guide`, `check`, `rules`, `explain`, and `compile_path` (read and compile a script).
- `plan.py`: `dwfc plan` and `dwfc graph`.
- `runs.py`: the run-management subcommands (`runs`, `show`, `events`, `resume`, `amend`, `cancel`).
- `saved.py`: `dwfc save` and `dwfc saved`.
- `eval.py`: `dwfc eval`.
- `mcp.py`: `dwfc mcp`.
- `temporal.py`: `dwfc worker` and the `--temporal` options of run, runs, show, cancel and answer.
- `ui.py`: `dwfc ui`, the live run viewer (`dwf.runtime.viewer`) served on 127.0.0.1.
- `progress.py`: the progress renderers of `dwfc run --progress`.
- `driver.py`: `drive`, one start request run to settlement with signal handling.
- `graphviz.py`: the one place DWF runs Graphviz's `dot`.
- `__main__.py`: `python -m dwf.runtime.cli`.
"""

# `main` is the module `main.py` (its `main()` is the console script): binding the function here
# would hide the module, and `from dwf.runtime.cli import main` means the module everywhere.
from dwf.runtime.cli import main

__all__ = ["main"]
