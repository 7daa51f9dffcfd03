"""Benchmark the DWF interpreter against CPython running the same code in the same process, and
write the `## Interpreter` section of docs/performance.md (issue #18, point 4: <= 8x CPython).

Workloads (each also run by CPython, and by starlark-rust when `starlark-pyo3` is installed):
(c) arithmetic: the loop of `bench/run.py` (c), `total = total + i * 2 % 7` for 3,333,335
    iterations of a `while` loop (10,000,005 interpreter steps).
(e) words: word counting over 200,000 words (a `for` loop with `dict.get`), sorting the counts
    with a `key=` lambda, a dict comprehension and a filtered list comprehension with a method
    call, inside a helper function.

Each round runs every variant in its own child process (`--measure`), alternating: this
checkout, and with `--baseline REF` the same workloads on the code of commit REF (extracted
with `git archive`), so a before/after ratio comes from one run. A child times CPython, then
DWF, then starlark, each twice (after a `gc.collect()`), the faster run counting, on the identical input; ratios are per child, the table shows medians.

Usage: python bench/interpreter.py [--rounds N] [--baseline REF] [--quick] [--no-write]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from scripts import LOOP  # bench/ is not a package: this script's folder is on sys.path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Interpreter"
REPEATS = 2  # each engine runs each workload twice in a child; the faster run counts
PACKAGES = ("grammar", "compiler", "runtime")  # the folders `dwf.*` maps (pyproject package-dir)

META = 'meta = {"name": "bench", "description": "Benchmark."}\n'
WORDS_META = ('meta = {"name": "bench", "description": "Benchmark.", '
              '"args": {"text": {"type": "string", "description": "The words."}}}\n')


# Valid DWF, Python and Starlark alike (no `sum`, no generator expressions: Starlark has neither).
WORDS = """
def count_words(text):
    words = text.split()
    counts = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    lengths = {word: len(word) for word in counts}
    shouted = [word.upper() for word in words if len(word) > 6]
    total = 0
    for count in counts.values():
        total += count
    return [[pair[0] for pair in ranked[:10]], len(shouted), total, len(lengths)]
"""

# Starlark has no `while`: its arithmetic row runs the same body in a `for` over `range`
# (and so does the CPython it is compared with).
STARLARK_LOOP = """
def loop():
    total = 0
    for i in range({n}):
        total = total + i * 2 % 7
    return total
"""


def word_text(count: int) -> str:
    """`count` words drawn with Zipf-like weights from 10,000 made-up words (fixed seed)."""
    rng = random.Random(18)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 11))) for _ in range(10_000)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    return " ".join(rng.choices(vocabulary, weights, k=count))


# ---------------------------------------------------------------- one child: one variant


def load_code(code_root: Path) -> None:
    """Import `dwf` from `code_root` (a checkout's folders), not from the installed package."""
    shim = Path(tempfile.mkdtemp(prefix="dwf-bench-"))
    (shim / "dwf").mkdir()
    for name in PACKAGES:
        (shim / "dwf" / name).symlink_to(code_root / name)
    sys.meta_path[:] = [f for f in sys.meta_path if not type(f).__module__.startswith("__editable__")]
    sys.path.insert(0, str(shim))


def run_dwf(source: str, steps: int, args: dict | None = None) -> tuple[float, object, int]:
    import anyio
    from dwf.compiler.compile import compile_source
    from dwf.runtime.interpreter.interpreter import Interpreter
    from dwf.runtime.interpreter.limits import Limits

    program = compile_source(source, "bench.dwf.py").program
    best = None
    for _ in range(REPEATS):
        interpreter = Interpreter(program, host=None, limits=Limits(steps=steps), args=args)
        gc.collect()
        started = time.perf_counter()
        value = anyio.run(interpreter.run)
        elapsed = time.perf_counter() - started
        best = elapsed if best is None else min(best, elapsed)
    return best, value, interpreter.steps


def run_cpython(source: str, call: str, **names) -> tuple[float, object]:
    namespace: dict = dict(names)
    exec(compile(source, "bench", "exec"), namespace)
    best = None
    for _ in range(REPEATS):
        gc.collect()
        started = time.perf_counter()
        value = eval(call, namespace)
        elapsed = time.perf_counter() - started
        best = elapsed if best is None else min(best, elapsed)
    return best, value


def run_starlark(source: str, call: str, **names) -> tuple[float, object] | None:
    try:
        import starlark
    except ImportError:
        return None
    module = starlark.Module()
    for key, value in names.items():
        module[key] = value
    best = None
    for _ in range(REPEATS):
        ast = starlark.parse("bench.star", source + call + "\n", starlark.Dialect.extended())
        gc.collect()
        started = time.perf_counter()
        value = starlark.eval(module, ast, starlark.Globals.standard())
        elapsed = time.perf_counter() - started
        best = elapsed if best is None else min(best, elapsed)
    return best, value


def measure(case: str, quick: bool) -> dict:
    if case == "c":
        iterations = (1_000_000 if quick else 10_000_000) // 3
        body = LOOP.format(n=iterations).replace("\n", "\n    ")
        cpython, expected = run_cpython("def loop():" + body + "\n    return total\n", "loop()")
        dwf, value, steps = run_dwf(META + LOOP.format(n=iterations) + "return total\n", 3 * iterations + 100)
        starlark_source = STARLARK_LOOP.format(n=iterations)
        reference = run_starlark(starlark_source, "loop()")
        reference_cpython = run_cpython(starlark_source, "loop()")[0] if reference else None
    else:
        text = word_text(20_000 if quick else 200_000)
        cpython, expected = run_cpython(WORDS, "count_words(text)", text=text)
        dwf, value, steps = run_dwf(WORDS_META + WORDS + 'return count_words(args["text"])\n', 10_000_000, {"text": text})
        reference = run_starlark(WORDS, "count_words(text)", text=text)
        reference_cpython = cpython
    assert value == expected, (value, expected)
    result = {"dwf": dwf, "cpython": cpython, "steps": steps, "ratio": dwf / cpython}
    if reference:
        assert reference[1] == expected, (reference[1], expected)
        result.update(starlark=reference[0], starlark_ratio=reference[0] / reference_cpython)
    return result


# ---------------------------------------------------------------- the parent: rounds and report


def baseline_checkout(ref: str) -> Path:
    target = Path(tempfile.mkdtemp(prefix="dwf-baseline-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, *PACKAGES], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def child(case: str, code_root: Path | None, quick: bool) -> dict:
    command = [sys.executable, __file__, "--measure", case] + (["--quick"] if quick else [])
    if code_root is not None:
        command += ["--code-root", str(code_root)]
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return json.loads(out.strip().splitlines()[-1])


def median(rows: list[dict], key: str) -> float | None:
    values = [row[key] for row in rows if key in row]
    return statistics.median(values) if values else None


def render(results: dict, rounds: int, baseline: str | None, quick: bool) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    from importlib.metadata import PackageNotFoundError, version
    try:
        peer = f"starlark-pyo3 {version('starlark-pyo3')}"
    except PackageNotFoundError:
        peer = None
    lines = [
        SECTION, "",
        f"Generated by `python bench/interpreter.py{' --quick' if quick else ''}"
        f"{f' --baseline {baseline}' if baseline else ''}` on {now}: {os.cpu_count()} CPUs (load average "
        f"{load:.1f} at the start), Python {platform.python_version()}, {platform.system()} {platform.machine()}; "
        f"{rounds} alternating rounds, one child process per variant and round, medians.", "",
        "Ratios are DWF time over CPython time in the same child (CPython runs the same code as a "
        "plain function). The starlark column is the same workload on "
        + (peer or "starlark-pyo3 (not installed in this run: `pip install -e '.[peers]'`)")
        + " against CPython on the identical Starlark source (its arithmetic loop is a `for` over "
          "`range`: Starlark has no `while`).", "",
        "| workload | DWF | CPython | DWF / CPython | before (same run) | before / after | starlark / CPython | target |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    names = {"c": "(c) arithmetic `while` loop, {steps:,} steps", "e": "(e) word counting, 200,000 words, sort, comprehensions"}
    for case, variants in results.items():
        now_rows, before_rows = variants["now"], variants.get("before", [])
        ratio = median(now_rows, "ratio")
        before = median(before_rows, "ratio")
        speedup = (median(before_rows, "dwf") / median(now_rows, "dwf")) if before_rows else None
        star = median(now_rows, "starlark_ratio")
        lines.append(
            f"| {names[case].format(steps=now_rows[0]['steps'])} | {median(now_rows, 'dwf'):.2f} s | "
            f"{median(now_rows, 'cpython'):.3f} s | **{ratio:.1f}×** | "
            + (f"{before:.1f}× CPython ({median(before_rows, 'dwf'):.2f} s)" if before_rows else "—") + " | "
            + (f"**{speedup:.1f}×** faster" if speedup else "—") + " | "
            + (f"{star:.2f}×" if star else "—") + f" | ≤ 8×: {'met' if ratio <= 8 else '**missed**'} |")
    lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", metavar="REF", help="also run the code of this commit, alternating")
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes, for a smoke run")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--only", choices=("c", "e"))
    parser.add_argument("--measure", choices=("c", "e"), help=argparse.SUPPRESS)
    parser.add_argument("--code-root", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.measure:
        if options.code_root is not None:
            load_code(options.code_root)
        print(json.dumps(measure(options.measure, options.quick)))
        return 0
    sys.path.insert(0, str(Path(__file__).parent))
    from report import use_project_interpreter, write_section
    use_project_interpreter(__file__)
    before_root = baseline_checkout(options.baseline) if options.baseline else None
    results: dict = {}
    try:
        for case in [options.only] if options.only else ["c", "e"]:
            rows: dict = {"now": []}
            if before_root:
                rows["before"] = []
            for round_ in range(options.rounds):
                order = [("now", None), ("before", before_root)] if before_root else [("now", None)]
                for name, root in order if round_ % 2 == 0 else order[::-1]:
                    row = child(case, root, options.quick)
                    rows[name].append(row)
                    print(f"({case}) round {round_ + 1} {name}: DWF {row['dwf']:.2f} s, CPython {row['cpython']:.3f} s, "
                          f"ratio {row['ratio']:.1f}" + (f", starlark {row['starlark_ratio']:.2f}" if "starlark_ratio" in row else ""),
                          flush=True)
            results[case] = rows
    finally:
        if before_root:
            shutil.rmtree(before_root, ignore_errors=True)
    if not options.no_write and not options.only:
        write_section(SECTION, render(results, options.rounds, options.baseline, options.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
