"""Benchmark how long `dwfc` takes to start, against `python -c pass` of the same interpreter.

    python bench/startup.py              # measure, print the table, rewrite docs/performance.md
    python bench/startup.py --no-write   # measure and print only
    python bench/startup.py --quick      # fewer rounds (for trying the benchmark out)

Run it with the project's interpreter (`.venv/bin/python`); any other Python re-executes the
script with `.venv/bin/python` when it cannot import `dwf`.

Method. Whole processes, in alternating pairs in one run: every round spawns, for each case,
`python -c pass` and then the case, so drift in the machine's load hits both alike; a case's
ratio is the median of its per-pair ratios (wall time, and CPU time — user + system of the
child from `os.wait4` — beside it). The cases:

- `dwfc --version`: start-up alone (target ≤ 5×, issue #18).
- `dwfc check FILE` of the 200-line script `bench/scripts.py` generates (it checks clean), twice:
  in a workspace (a folder with `.dwf/`) where the unchanged script's compile result is in the
  compile cache, and in a folder without `.dwf/`, where every check parses (target ≤ 10×).
- `dwfc plan FILE` of the same script, cached and not, for what `run`/`resume`/`plan` gain.
- `python -c "import ast, sys; ast.parse(...)" FILE`: a reference row, CPython parsing the same
  script, the floor of any check that has to parse (the front end is CPython's `ast`, issue #18).

Before timing, each case runs twice: that writes the `.pyc` files an installed package has
(`PYTHONDONTWRITEBYTECODE` is removed from the children's environment) and fills the cache.
`DWF_HOME` (where the cache key lives) is a temporary folder. One more run of each cached case
in a fresh interpreter reports whether it loaded the front end (`dwf.compiler.parse`; it must not).

Figures are ratios measured in one run on one machine; compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check import dwfc_command, run_process  # noqa: E402  (bench/ is not a package)
from report import use_project_interpreter, write_section  # noqa: E402
from scripts import generate  # noqa: E402

SECTION = "## Start-up"
LINES = 200
ROUNDS = 15
BASELINE = [sys.executable, "-c", "pass"]
PROBE = ("import sys\nfrom dwf.runtime.cli.main import main\nmain(sys.argv[1:])\n"
         "print('dwf.compiler.parse' in sys.modules)")
PARSE_ONLY = "import ast, sys; ast.parse(open(sys.argv[1], encoding='utf-8').read())"


@dataclass
class Case:
    label: str
    argv: list[str]
    folder: str  # "cold" (no .dwf/) or "warm" (a workspace whose cache holds the script)
    target: float | None = None
    probe: bool = False  # report whether it loads the front end
    pairs: list[tuple] = field(default_factory=list)  # (baseline Run, case Run)
    loads_front_end: bool | None = None

    def median(self, index: int, cpu: bool = False) -> float:
        return statistics.median(pair[index].cpu_seconds if cpu else pair[index].seconds for pair in self.pairs)

    def ratio(self, cpu: bool = False) -> float:
        return statistics.median((case.cpu_seconds if cpu else case.seconds)
                                 / (base.cpu_seconds if cpu else base.seconds) for base, case in self.pairs)


def cases(script: str) -> list[Case]:
    dwfc = dwfc_command()
    return [
        Case("`dwfc --version`", dwfc + ["--version"], "cold", target=5.0),
        Case(f"`dwfc check` of a {LINES}-line script, unchanged, in a workspace (cache hit)",
             dwfc + ["check", script], "warm", target=10.0, probe=True),
        Case(f"`dwfc check` of a {LINES}-line script, no cache (parses)", dwfc + ["check", script], "cold",
             target=10.0),
        Case(f"`dwfc plan` of a {LINES}-line script, unchanged, in a workspace (cache hit)",
             dwfc + ["plan", script], "warm", probe=True),
        Case(f"`dwfc plan` of a {LINES}-line script, no cache (parses)", dwfc + ["plan", script], "cold"),
        Case("reference: `python -c \"import ast, sys; ast.parse(...)\"` of the script",
             [sys.executable, "-c", PARSE_ONLY, script], "cold"),
    ]


def measure(rounds: int, folders: dict[str, Path], env: dict, script: str) -> list[Case]:
    measured = cases(script)
    for case in measured:  # .pyc files and the cache, then the check that the output is clean
        for _ in range(2):
            run = run_process(case.argv, cwd=folders[case.folder], env=env)
        if run.exit_code != 0:
            sys.exit(f"bench: {' '.join(case.argv)} failed (exit {run.exit_code}):\n{run.stdout}")
        if "check" in case.argv and not run.stdout.startswith("All checks passed"):
            sys.exit(f"bench: the generated script does not check clean:\n{run.stdout}")
    for _ in range(rounds):
        for case in measured:
            base = run_process(BASELINE, cwd=folders[case.folder], env=env)
            case.pairs.append((base, run_process(case.argv, cwd=folders[case.folder], env=env)))
    for case in measured:
        if case.probe:
            run = run_process([sys.executable, "-c", PROBE, *case.argv[len(dwfc_command()):]],
                              cwd=folders[case.folder], env=env)
            case.loads_front_end = run.stdout.strip().splitlines()[-1] == "True"
    return measured


def load_average() -> str:
    try:
        return " (load average %.1f at the start)" % os.getloadavg()[0]
    except OSError:
        return ""


def render_section(measured: list[Case], rounds: int, load: str) -> str:
    now = datetime.datetime.now().astimezone()
    lines = [
        SECTION,
        "",
        f"Generated by `python bench/startup.py` on {now:%Y-%m-%d %H:%M %Z}: {os.cpu_count()} CPUs{load}, "
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}.",
        "",
        f"Whole processes in alternating pairs, {rounds} rounds in one run: `python -c pass` of the same "
        "interpreter, then the command. Times are medians; a ratio is the median of the per-pair ratios "
        "(wall time, and the child's CPU time from `os.wait4` beside it). The script is the "
        f"{LINES}-line one `bench/scripts.py` generates (it checks clean). A *cache hit* runs in a workspace "
        "(a folder with `.dwf/`) whose compile cache holds the unchanged script (`.dwf/cache/`, see "
        "docs/design.md, issue #18); *no cache* runs in a folder without `.dwf/`, where every command "
        "parses. `.pyc` files are written before timing, as an installed package has them.",
        "",
    ]
    for case in measured:
        if case.target is not None:
            verdict = "met" if case.ratio() <= case.target else "**missed**"
            lines.append(f"- Target: {case.label} ≤ {case.target:g}× `python -c pass` (wall): {verdict} "
                         f"({case.ratio():.1f}×; CPU {case.ratio(cpu=True):.1f}×).")
    lines += [
        "",
        "| command | `python -c pass` | command | ratio | CPU pass | CPU command | CPU ratio | loads the front end |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for case in measured:
        front_end = "—" if case.loads_front_end is None else ("yes" if case.loads_front_end else "no")
        lines.append(f"| {case.label} | {case.median(0):.3f} s | {case.median(1):.3f} s | **{case.ratio():.1f}×** | "
                     f"{case.median(0, cpu=True):.3f} s | {case.median(1, cpu=True):.3f} s | "
                     f"{case.ratio(cpu=True):.1f}× | {front_end} |")
    reference = measured[-1]
    lines += [
        "",
        "Notes:",
        "",
        f"- The front end is CPython's own parser (`ast`, issue #18; libcst until then): parsing the script "
        f"in a bare interpreter, the reference row, takes {reference.ratio():.1f}× `python -c pass` here. "
        "What a check adds to it is importing the compiler and lowering; an editor or pre-commit hook "
        "re-checking unchanged files in a workspace gets the cached figure.",
        "- `dwfc --version`, `rules`, `runs` and the other commands that do not compile load neither the "
        "front end nor the IR (tests/test_code_shape.py checks every deferred import against `--version`), "
        "and a cached `run`, `resume` or `plan` loads neither the parser nor the lowering "
        "(tests/runtime/test_compile_cache.py checks it in fresh processes).",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    use_project_interpreter(__file__)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print the figures without touching docs/")
    parser.add_argument("--quick", action="store_true", help="3 rounds instead of 15")
    options = parser.parse_args()
    rounds = 3 if options.quick else ROUNDS
    load = load_average()
    with tempfile.TemporaryDirectory(prefix="dwf-bench-startup-") as tmp:
        folders = {"cold": Path(tmp) / "cold", "warm": Path(tmp) / "warm"}
        for folder in folders.values():
            folder.mkdir()
            (folder / "bench.dwf.py").write_text(generate(LINES), encoding="utf-8")
        (folders["warm"] / ".dwf").mkdir()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["DWF_HOME"] = str(Path(tmp) / "home")
        measured = measure(rounds, folders, env, "bench.dwf.py")
    section = render_section(measured, rounds, load)
    print(section)
    if not options.no_write:
        write_section(SECTION, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
