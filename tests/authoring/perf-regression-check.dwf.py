"""Run a micro-benchmark twice and ask whether a slowdown is a real regression."""
from typing import Literal, TypedDict

import statistics

meta = {
    "name": "perf-regression-check",
    "description": "Time a benchmark in two runs, compare with a baseline and judge whether a regression is real.",
    "args": {
        "baseline_ms": {"type": "number", "description": "Expected mean time per iteration in ms.", "default": 5.0},
        "repeats": {"type": "integer", "default": 5},
        "threshold": {"type": "number", "description": "Relative slowdown that counts as suspicious.", "default": 0.1},
    },
    "phases": [{"title": "Benchmark"}, {"title": "Analyse"}, {"title": "Judge"}],
}


class Judgement(TypedDict):
    verdict: Literal["regression", "noise", "improvement", "inconclusive"]
    reasoning: str


BENCH = (
    "import timeit\n"
    "t = timeit.Timer('sorted(range(1000))')\n"
    "for _ in range({repeats}):\n"
    "    print(t.timeit(number=200) / 200 * 1000)\n"
)


async def run_benchmark(label):
    code = BENCH.replace("{repeats}", str(args["repeats"]))
    result = await world.run("python", ["-c", code], timeout_s=600)
    if result.exit_code != 0:
        raise WorkflowError(f"benchmark {label} failed: {result.stderr[-2000:]}")
    timings = []
    for line in result.stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            timings.append(float(line))
        except ValueError:
            log(f"ignoring output line: {line}")
    return timings


phase("Benchmark")
first = await run_benchmark("first")
second = await run_benchmark("second")
samples = first + second
if len(samples) < 2:
    raise WorkflowError("not enough timings to compare")

phase("Analyse")
mean = statistics.mean(samples)
stdev = statistics.stdev(samples)
run_means = [statistics.mean(first), statistics.mean(second)]
baseline = args["baseline_ms"]
slowdown = (mean - baseline) / baseline
stats = {
    "mean_ms": round(mean, 4),
    "stdev_ms": round(stdev, 4),
    "run_means_ms": [round(m, 4) for m in run_means],
    "baseline_ms": baseline,
    "slowdown": round(slowdown, 4),
}
report(stats)
log(f"mean {mean:.3f} ms ± {stdev:.3f} (baseline {baseline} ms, {slowdown:+.1%})")

if slowdown < args["threshold"]:
    return {"verdict": "ok", **stats}

phase("Judge")
judge = agent("perf-judge", system="You are a careful performance engineer who distrusts noisy numbers.")
try:
    judgement = await judge.ask(
        f"A benchmark was run twice ({args['repeats']} samples each).\n"
        f"First run (ms): {first}\nSecond run (ms): {second}\n"
        f"Mean {mean:.4f} ms, stdev {stdev:.4f} ms, baseline {baseline} ms, slowdown {slowdown:.1%}.\n"
        "Is this a real regression or noise?",
        returns=Judgement,
    )
except AskFailed as error:
    log(f"judge failed: {error}")
    return {"verdict": "inconclusive", **stats}

return {"verdict": judgement["verdict"], "reasoning": judgement["reasoning"], **stats}
