"""This module defines the `dwfc` commands that only compile: `guide` (the language guide),
`check FILE|DIR...` (diagnostics), `rules` (the catalogue) and `explain CODE` (one rule's
documentation), and `compile_path`, the one read-and-compile step every command that takes a
script file uses. Each handler returns its exit code: 0 clean (warnings allowed), 1 a script has
errors, 2 a usage error (a missing file, an unknown rule).
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from dwf.grammar import language_guide
from dwf.runtime.cli.exit_codes import EXIT_ERRORS, EXIT_OK, UsageError
from dwf.runtime.cli.usage import read_script, report_usage_problems

if TYPE_CHECKING:
    from dwf.compiler.result import CompileResult


def cmd_guide(args) -> int:
    """`dwfc guide`: the language guide (Markdown) on stdout."""
    sys.stdout.write(language_guide())
    return EXIT_OK


# ---------------------------------------------------------------- check


def expand_inputs(names: list[str]) -> tuple[list[Path], list[str]]:
    """Files to check (directories expanded to their *.dwf.py files) and problems found."""
    files: list[Path] = []
    problems: list[str] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.dwf.py") if p.is_file())
            if not found:
                problems.append(f"{name}: no *.dwf.py files in this directory")
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            problems.append(f"{name}: no such file")
    return files, problems


def compile_path(path: str | Path) -> CompileResult:
    """compile_path(path): the compile result of the script file `path`, named as given, through
    the compile cache of the current directory when it is a workspace (it has a `.dwf/` folder);
    `UsageError` when the file cannot be read."""
    from dwf.runtime.engine.compile_cache import CompileCache, compile_script  # deferred: start-up

    return compile_script(read_script(path), str(path), CompileCache.of_workspace(Path.cwd()))


def cmd_check(args) -> int:
    """`dwfc check FILE|DIR...`: compile each script and print its diagnostics in `--format`."""
    import dwf.compiler.render as render  # deferred: start-up

    files, problems = expand_inputs(args.files)
    results: list[CompileResult] = []
    for path in files:
        try:
            results.append(compile_path(path))
        except UsageError as error:
            problems.append(str(error))
    out = sys.stdout
    if args.format == "json":
        out.write(render.dumps(render.to_json(results)))
    elif args.format == "sarif":
        out.write(render.dumps(render.to_sarif(results)))
    else:
        for result in results:
            out.write(render.render_full(result) if args.format == "full" else render.render_concise(result))
            if args.sites and result.program is not None:
                out.write(f"{result.source.path}: {len(result.program.sites)} sites\n")
                out.write(render.render_sites(result.program))
        if results:
            out.write(render.summary_line(results) + "\n")
    if problems:
        return report_usage_problems(problems)
    return EXIT_ERRORS if any(r.errors for r in results) else EXIT_OK


# ---------------------------------------------------------------- rules and explain


def cmd_rules(args) -> int:
    """`dwfc rules`: the diagnostic catalogue, one rule a line (or a JSON array)."""
    from dwf.compiler.rules import all_rules  # deferred: start-up

    rules = all_rules()
    if args.format == "json":
        data = [{"code": r.code, "name": r.name, "severity": r.severity, "group": r.group(),
                 "summary": r.summary()} for r in rules]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return EXIT_OK
    name_width = max(len(r.name) for r in rules)
    for rule in rules:
        sys.stdout.write(f"{rule.code}  {rule.name.ljust(name_width)}  {rule.severity.ljust(7)}  {rule.summary()}\n")
    return EXIT_OK


def cmd_explain(args) -> int:
    """`dwfc explain CODE`: the documentation of one rule, by code or name."""
    from dwf.compiler.rules import all_rules, lookup  # deferred: start-up

    rule = lookup(args.code)
    if rule is None:
        known = [r.code for r in all_rules()] + [r.name for r in all_rules()]
        by_name = {r.name: r for r in all_rules()}
        if args.code in by_name:
            rule = by_name[args.code]
        else:
            close = difflib.get_close_matches(args.code.upper(), known, n=1) or difflib.get_close_matches(args.code, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else "; `dwfc rules` lists them"
            raise UsageError(f"there is no rule {args.code!r}{hint}")
    sys.stdout.write(f"# {rule.code} {rule.name} ({rule.severity}, {rule.group()})\n\n{rule.docs()}\n")
    return EXIT_OK
