"""This module defines `dwfc`, the command line: argument parsing, the subcommands and their
exit codes. Each subcommand is a small function that returns its exit code; user errors are one
clear sentence on stderr (exit 2), never a traceback.

Exit codes: 0 success (warnings allowed), 1 the script has errors, 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from dwf.compiler import render
from dwf.compiler.compile import CompileResult, compile_bytes
from dwf.compiler.rules import all_rules, lookup
from dwf.compiler.version import COMPILER_VERSION

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad argument or unreadable input: reported as one sentence, exit code 2."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.handler(args)
    except UsageError as error:
        print(f"dwfc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("dwfc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default exit code is 2 too; keep one sentence
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dwfc", description="Compile, plan and run DWF workflow scripts (*.dwf.py).")
    parser.add_argument("--version", action="version", version=f"dwfc {COMPILER_VERSION}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = commands.add_parser("check", help="compile scripts and print diagnostics",
                                description="Compile scripts and print diagnostics. Directories are searched for *.dwf.py.")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--format", choices=("concise", "full", "json", "sarif"), default="concise")
    check.add_argument("--sites", action="store_true", help="print the site table of each clean script")
    check.set_defaults(handler=cmd_check)

    rules = commands.add_parser("rules", help="list the diagnostic catalogue")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.set_defaults(handler=cmd_rules)

    explain = commands.add_parser("explain", help="print the documentation of one rule")
    explain.add_argument("code", metavar="CODE")
    explain.set_defaults(handler=cmd_explain)
    return parser


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


def compile_path(path: Path) -> CompileResult:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    return compile_bytes(data, str(path))


def cmd_check(args) -> int:
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
    for problem in problems:
        print(f"dwfc: error: {problem}", file=sys.stderr)
    if problems:
        return EXIT_USAGE
    return EXIT_ERRORS if any(r.errors for r in results) else EXIT_OK


# ---------------------------------------------------------------- rules and explain


def cmd_rules(args) -> int:
    rules = all_rules()
    if args.format == "json":
        data = [{"code": r.code, "name": r.name, "severity": r.severity, "group": r.group(),
                 "summary": render._first_sentence(r)} for r in rules]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return EXIT_OK
    name_width = max(len(r.name) for r in rules)
    for rule in rules:
        sys.stdout.write(f"{rule.code}  {rule.name.ljust(name_width)}  {rule.severity.ljust(7)}  {render._first_sentence(rule)}\n")
    return EXIT_OK


def cmd_explain(args) -> int:
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


if __name__ == "__main__":
    sys.exit(main())
