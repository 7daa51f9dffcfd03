"""Benchmark `dwfc check` against a process that only imports libcst and parses the same file.

    python bench/check.py              # measure, print the tables, rewrite docs/performance.md
    python bench/check.py --no-write   # measure and print only
    python bench/check.py --profile    # also print a cProfile of one in-process compile (1,000 lines)

Method. `bench/scripts.py` generates clean scripts of 100, 1,000 and 5,000 lines (each is
verified to exit 0 with no diagnostics before it is timed). For every size the benchmark runs,
alternately and in the same run, two whole processes with the same interpreter:

- baseline: `python -c "import libcst, sys; libcst.parse_module(open(sys.argv[1]).read())" FILE`
- dwfc:     `dwfc check FILE` (the installed console script)

Wall time is measured around spawn and exit; peak RSS comes from `os.wait4`, which returns the
resource usage of exactly that child (no wrapper process, no `/usr/bin/time`). The figure is
the median of the repetitions; the ratio is dwfc / baseline. A second table splits one
in-process compile into stages (parse, positions, lowering with the rules run during it, effect
rules) so a regression can be located. The target from the issue: dwfc ≤ 3× the baseline for
the 1,000-line script.

Figures are ratios measured in one run on one machine; compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from scripts import generate  # noqa: E402  (bench/ is not a package)

SIZES = (100, 1000, 5000)
REPEATS = {100: 7, 1000: 7, 5000: 3}  # 5,000 lines costs seconds per run; 3 keeps us under 2 min
IN_PROCESS_REPEATS = {100: 5, 1000: 3, 5000: 1}
TARGET_LINES, TARGET_RATIO = 1000, 3.0
DOC = ROOT / "docs" / "performance.md"
SECTION = "## dwfc check"
BASELINE_CODE = "import libcst, sys; libcst.parse_module(open(sys.argv[1]).read())"
DOC_INTRO = """# Performance

Figures on this page are written by the benchmarks in `bench/` (run `python bench/<name>.py`);
do not edit them by hand. Each benchmark times DWF against a baseline measured **in the same
run on the same machine** and reports the ratio, so the figures compare across machines and
over time while absolute seconds do not. Nothing in the test suite asserts timings.
"""


# ---------------------------------------------------------------- whole processes


@dataclass
class Run:
    seconds: float
    max_rss_kb: int
    exit_code: int
    stdout: str


def run_process(argv: list[str]) -> Run:
    """Spawn `argv`, wait for it with `os.wait4` and return wall time and the child's peak RSS."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen from waiting
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    rss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss  # macOS: bytes
    return Run(seconds, rss, child.returncode, text)


def dwfc_command() -> list[str]:
    script = Path(sys.executable).with_name("dwfc")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "dwf.runtime.cli"]


@dataclass
class ProcessRow:
    lines: int
    baseline_s: float
    dwfc_s: float
    baseline_rss_kb: int
    dwfc_rss_kb: int
    repeats: int

    @property
    def ratio(self) -> float:
        return self.dwfc_s / self.baseline_s


def measure_processes(files: dict[int, Path], repeats: dict[int, int]) -> tuple[list[ProcessRow], float]:
    dwfc = dwfc_command()
    for path in files.values():  # clean means exit 0 and no diagnostics at all
        run = run_process(dwfc + ["check", str(path)])
        if run.exit_code != 0 or not run.stdout.startswith("All checks passed"):
            sys.exit(f"bench: the generated script {path} is not clean (exit {run.exit_code}):\n{run.stdout}")
    startup = [run_process(dwfc + ["--version"]).seconds for _ in range(5)]
    rows = []
    for lines, path in files.items():
        base_runs, dwfc_runs = [], []
        for _ in range(repeats[lines]):  # alternate, so drift in machine load hits both alike
            base_runs.append(run_process([sys.executable, "-c", BASELINE_CODE, str(path)]))
            dwfc_runs.append(run_process(dwfc + ["check", str(path)]))
        for run in base_runs + dwfc_runs:
            if run.exit_code != 0:
                sys.exit(f"bench: a timed process failed on {path} (exit {run.exit_code}):\n{run.stdout}")
        rows.append(ProcessRow(
            lines,
            statistics.median(r.seconds for r in base_runs),
            statistics.median(r.seconds for r in dwfc_runs),
            max(r.max_rss_kb for r in base_runs),
            max(r.max_rss_kb for r in dwfc_runs),
            repeats[lines],
        ))
    return rows, statistics.median(startup)


# ---------------------------------------------------------------- in-process stages


STAGES = ("parse", "positions", "lowering + rules", "effect rules", "other", "total")


def measure_stages(text: str, path: str, repeats: int) -> dict[str, float]:
    """Median seconds per stage of `compile_source`, timed by running the stages by hand.

    `parse` is `libcst.parse_module` alone; `positions` is what `dwf.compiler.parse.parse` adds
    to it (the metadata wrapper); `other` is whatever `compile_source` does beyond the stages
    timed here. Stages are timed in separate calls, so they do not share caches."""
    import libcst as cst

    from dwf.compiler.compile import compile_source
    from dwf.compiler.diagnostics import DiagnosticSink
    from dwf.compiler.effects import check_script
    from dwf.compiler.lower import Lowerer
    from dwf.compiler.parse import parse
    from dwf.compiler.source import SourceFile

    try:
        from dwf.compiler.compile import _schema_builder as schema_builder
    except ImportError:
        schema_builder = None

    samples: dict[str, list[float]] = {stage: [] for stage in STAGES}
    compile_source(text, path)  # warm imports and lazy caches
    for _ in range(repeats):
        t0 = time.perf_counter()
        cst.parse_module(text)
        t1 = time.perf_counter()
        parsed = parse(SourceFile(path, text))
        t2 = time.perf_counter()
        lowerer = Lowerer(parsed, DiagnosticSink(), schema_builder_factory=schema_builder)
        lowerer.lower_module()
        t3 = time.perf_counter()
        check_script(lowerer)
        t4 = time.perf_counter()
        result = compile_source(text, path)
        t5 = time.perf_counter()
        if result.diagnostics:
            sys.exit(f"bench: in-process compile of {path} reported {len(result.diagnostics)} diagnostics")
        parse_s, positions_s = t1 - t0, max(0.0, (t2 - t1) - (t1 - t0))
        lower_s, effects_s, total_s = t3 - t2, t4 - t3, t5 - t4
        for stage, value in zip(STAGES, (parse_s, positions_s, lower_s, effects_s,
                                         max(0.0, total_s - (t2 - t1) - lower_s - effects_s), total_s)):
            samples[stage].append(value)
    return {stage: statistics.median(values) for stage, values in samples.items()}


def profile(text: str, path: str, top: int = 25) -> str:
    import cProfile
    import io
    import pstats

    from dwf.compiler.compile import compile_source

    compile_source(text, path)
    profiler = cProfile.Profile()
    profiler.enable()
    compile_source(text, path)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


# ---------------------------------------------------------------- report


def _mb(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def render_section(rows: list[ProcessRow], stages: dict[int, dict[str, float]], startup_s: float,
                   line_counts: dict[int, int]) -> str:
    target = next(r for r in rows if r.lines == TARGET_LINES)
    verdict = "met" if target.ratio <= TARGET_RATIO else "missed"
    now = datetime.datetime.now().astimezone()
    out = [
        SECTION,
        "",
        f"Generated by `python bench/check.py` on {now:%Y-%m-%d %H:%M %Z}; {os.cpu_count()} CPUs "
        f"(`nproc`), Python {platform.python_version()} on {platform.system()} {platform.machine()}.",
        "",
        "Whole processes, same interpreter, alternating in one run: `dwfc check FILE` against a "
        "baseline process that only imports libcst and parses the file "
        "(`python -c \"import libcst, sys; libcst.parse_module(open(sys.argv[1]).read())\" FILE`). "
        "The scripts are generated by `bench/scripts.py` from blocks modelled on `examples/` "
        "(TypedDicts, helpers, asks, fan-outs, commands, loops, `try`, comprehensions, f-strings) "
        "and check clean. Time is the median wall time of the repetitions; peak RSS is the "
        "largest `ru_maxrss` of the child (from `os.wait4`).",
        "",
        f"**Target: `dwfc check` ≤ {TARGET_RATIO:g}× the parse-only process for {TARGET_LINES:,} lines "
        f"— {verdict} ({target.ratio:.2f}×).**",
        "",
        "| script | runs | parse-only | dwfc check | ratio | peak RSS parse-only | peak RSS dwfc | RSS ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(f"| {line_counts[r.lines]:,} lines | {r.repeats} | {r.baseline_s:.2f} s | {r.dwfc_s:.2f} s | "
                   f"**{r.ratio:.2f}×** | {_mb(r.baseline_rss_kb)} | {_mb(r.dwfc_rss_kb)} | "
                   f"{r.dwfc_rss_kb / r.baseline_rss_kb:.2f}× |")
    out += [
        "",
        f"Process start-up alone (`dwfc --version`, which imports the whole compiler): {startup_s:.2f} s.",
        "",
        "In-process stages of one compile (median seconds; `parse` is `libcst.parse_module`, "
        "`positions` the `PositionProvider` metadata resolved by `dwf.compiler.parse.parse`, "
        "`lowering + rules` the single lowering walk with the rules it runs, `effect rules` the "
        "whole-script checks after it, `other` the rest of `compile_source`):",
        "",
        "| script | " + " | ".join(STAGES) + " | lines/s |",
        "|---:|" + "---:|" * (len(STAGES) + 1),
    ]
    for lines, split in stages.items():
        cells = [f"{split[s]:.3f} s ({split[s] / split['total']:.0%})" if s != "total" else f"{split[s]:.3f} s"
                 for s in STAGES]
        out.append(f"| {line_counts[lines]:,} lines | " + " | ".join(cells) + f" | {line_counts[lines] / split['total']:,.0f} |")
    return "\n".join(out) + "\n"


def write_section(section: str) -> None:
    """Replace the `## dwfc check` section of docs/performance.md, keeping every other section."""
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else DOC_INTRO
    pattern = re.compile(rf"^{re.escape(SECTION)}[ \t]*\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1).rstrip("\n") + "\n"
    else:
        text = text.rstrip("\n") + "\n\n" + section
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print the figures without touching docs/")
    parser.add_argument("--profile", action="store_true", help=f"print a cProfile of one {TARGET_LINES}-line compile")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (for trying the benchmark out)")
    options = parser.parse_args()
    repeats = {n: 3 if options.quick else REPEATS[n] for n in SIZES}
    in_process = {n: 1 if options.quick else IN_PROCESS_REPEATS[n] for n in SIZES}

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dwf-bench-") as tmp:
        texts = {n: generate(n) for n in SIZES}
        files = {n: Path(tmp, f"bench-{n}.dwf.py") for n in SIZES}
        for n, path in files.items():
            path.write_text(texts[n], encoding="utf-8")
        line_counts = {n: texts[n].count("\n") for n in SIZES}
        rows, startup_s = measure_processes(files, repeats)
        stages = {n: measure_stages(texts[n], str(files[n]), in_process[n]) for n in SIZES}
        section = render_section(rows, stages, startup_s, line_counts)
        print(section)
        if options.profile:
            print(profile(texts[TARGET_LINES], str(files[TARGET_LINES])))
    if not options.no_write:
        write_section(section)
        print(f"wrote {DOC.relative_to(ROOT)}")
    print(f"bench: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
