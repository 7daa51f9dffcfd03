"""Benchmark `dwfc plan` against `dwfc check` on the same generated script, in the same run.

    python bench/plan.py              # measure, print the table, rewrite the `## dwfc plan` section
    python bench/plan.py --no-write   # measure and print only
    python bench/plan.py --quick      # fewer repetitions (for trying the benchmark out)

Run it with the project's interpreter (`.venv/bin/python`); any other Python re-executes the
script with `.venv/bin/python` when it cannot import `dwf`.

Method. `bench/scripts.py` generates the 1,000-line script that `bench/check.py` times (plus
100 and 5,000 lines for the trend); every timed process must succeed. For every size the
benchmark runs, alternately and in the same run, two whole processes with the same interpreter:

- check: `dwfc check FILE`
- plan:  `dwfc plan FILE` (text format: compile, data flow, temporal walk, graphs, plan, text)

Both run `dwfc` (the installed console script, or `python -m dwf.runtime.cli` when there is
none; see `bench/check.py`). Wall and CPU time come from `os.wait4` (see `bench/check.py`);
figures are medians; the ratio is plan / check. A second table splits one in-process plan into
compile and the approval-screen stages, so a regression can be located. The target from the
issue: plan ≤ 2× check for the 1,000-line script.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from check import dwfc_command, run_process  # noqa: E402
from report import DOC, use_project_interpreter, write_section  # noqa: E402
from scripts import write_scripts  # noqa: E402

SIZES = (100, 1000, 5000)
REPEATS = {100: 7, 1000: 7, 5000: 3}
TARGET_LINES, TARGET_RATIO = 1000, 2.0
SECTION = "## dwfc plan"
STAGES = ("compile", "data flow", "temporal walk", "graphs", "plan + text", "total")


def plan_command() -> tuple[list[str], str]:
    return dwfc_command() + ["plan"], "`dwfc plan FILE`"


def measure(files: dict[int, Path], repeats: dict[int, int]) -> tuple[list[dict], str]:
    check = dwfc_command() + ["check"]
    plan, described = plan_command()
    for _ in range(3):  # warm .pyc files and the page cache
        run_process(check + [str(files[SIZES[0]])])
        run_process(plan + [str(files[SIZES[0]])])
    rows = []
    for lines, path in files.items():
        checks, plans = [], []
        for _ in range(repeats[lines]):
            checks.append(run_process(check + [str(path)]))
            plans.append(run_process(plan + [str(path)]))
        for run in checks + plans:
            if run.exit_code != 0:
                sys.exit(f"bench: a timed process failed on {path} (exit {run.exit_code}):\n{run.stdout[-2000:]}")
        if not plans[0].stdout.startswith("Plan: "):
            sys.exit(f"bench: the plan process printed no plan:\n{plans[0].stdout[:2000]}")
        rows.append({
            "lines": lines, "repeats": repeats[lines],
            "check_s": statistics.median(r.seconds for r in checks),
            "plan_s": statistics.median(r.seconds for r in plans),
            "check_cpu": statistics.median(r.cpu_seconds for r in checks),
            "plan_cpu": statistics.median(r.cpu_seconds for r in plans),
            "check_rss": max(r.max_rss_kb for r in checks),
            "plan_rss": max(r.max_rss_kb for r in plans),
        })
    return rows, described


def measure_stages(text: str, path: str, repeats: int) -> dict[str, float]:
    """Median CPU seconds per stage of one in-process plan."""
    from dwf.compiler.compile import compile_source
    from dwf.compiler.plan.dataflow import analyze
    from dwf.compiler.plan.graphs import build_graphs
    from dwf.compiler.plan.document import build_plan
    from dwf.compiler.plan.text import render_text
    from dwf.compiler.plan.trace import walk

    samples: dict[str, list[float]] = {stage: [] for stage in STAGES}
    clock = time.process_time
    for _ in range(repeats):
        t0 = clock()
        result = compile_source(text, path)
        t1 = clock()
        flow = analyze(result.program)
        t2 = clock()
        walk(result.program, flow)
        t3 = clock()
        graphs = build_graphs(result.program, result.source)  # runs both analyses again
        t4 = clock()
        render_text(build_plan(result, graphs=graphs))
        t5 = clock()
        graph_only = (t4 - t3) - (t3 - t1)
        split = (t1 - t0, t2 - t1, t3 - t2, max(0.0, graph_only), t5 - t4)
        for stage, value in zip(STAGES, split + (sum(split),)):
            samples[stage].append(value)
    return {stage: statistics.median(values) for stage, values in samples.items()}


def render_section(rows: list[dict], stages: dict[int, dict[str, float]], described: str, line_counts: dict[int, int]) -> str:
    target = next(r for r in rows if r["lines"] == TARGET_LINES)
    ratio = target["plan_s"] / target["check_s"]
    verdict = "met" if ratio <= TARGET_RATIO else "missed"
    now = datetime.datetime.now().astimezone()
    try:
        load = " (load average %.1f at the start)" % os.getloadavg()[0]
    except OSError:
        load = ""
    out = [
        SECTION,
        "",
        f"Generated by `python bench/plan.py` on {now:%Y-%m-%d %H:%M %Z}: {os.cpu_count()} CPUs{load}, "
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}.",
        "",
        f"Whole processes with the same interpreter, alternating in one run: {described} (the text plan: compile, "
        "data flow, temporal walk, graphs, plan) against `dwfc check FILE` on the same generated script "
        "(`bench/scripts.py`, as for `dwfc check` above). Times are medians: wall time, and the child's CPU time "
        "(user + system) from `os.wait4`; peak RSS is the largest `ru_maxrss`.",
        "",
        f"**Target: `dwfc plan` ≤ {TARGET_RATIO:g}× `dwfc check` (wall time) for {TARGET_LINES:,} lines: {verdict} "
        f"({ratio:.2f}×; CPU time {target['plan_cpu'] / target['check_cpu']:.2f}×).**",
        "",
        "| script | runs | dwfc check | dwfc plan | ratio | CPU check | CPU plan | CPU ratio | peak RSS check | peak RSS plan |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(f"| {line_counts[r['lines']]:,} lines | {r['repeats']} | {r['check_s']:.2f} s | {r['plan_s']:.2f} s | "
                   f"**{r['plan_s'] / r['check_s']:.2f}×** | {r['check_cpu']:.2f} s | {r['plan_cpu']:.2f} s | "
                   f"{r['plan_cpu'] / r['check_cpu']:.2f}× | {r['check_rss'] / 1024:.0f} MB | {r['plan_rss'] / 1024:.0f} MB |")
    out += [
        "",
        "Where an in-process plan spends its time (median CPU seconds, share of the total): `compile` is "
        "`compile_source`, `data flow` the may-flow fixpoint, `temporal walk` the issue-order walk, `graphs` "
        "building and reducing the three networkx graphs, `plan + text` the plan document and its text view.",
        "",
        "| script | " + " | ".join(STAGES) + " |",
        "|---:|" + "---:|" * len(STAGES),
    ]
    for lines, split in stages.items():
        cells = [f"{split[s]:.3f} s" + (f" ({split[s] / split['total']:.0%})" if s != "total" else "") for s in STAGES]
        out.append(f"| {line_counts[lines]:,} lines | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"




def main() -> int:
    use_project_interpreter(__file__)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print the figures without touching docs/")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (for trying the benchmark out)")
    options = parser.parse_args()
    repeats = {n: 3 if options.quick else REPEATS[n] for n in SIZES}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dwf-bench-") as tmp:
        texts, files, line_counts = write_scripts(tmp, SIZES)
        rows, described = measure(files, repeats)
        measure_stages(texts[SIZES[0]], str(files[SIZES[0]]), 1)  # warm imports
        stages = {n: measure_stages(texts[n], str(files[n]), 1 if options.quick or n == 5000 else 3) for n in SIZES}
        section = render_section(rows, stages, described, line_counts)
        print(section)
    if not options.no_write:
        write_section(SECTION, section)
        print(f"wrote {DOC.relative_to(ROOT)}")
    print(f"bench: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
