"""Check whether the repository is ready for a release."""
import re

meta = {
    "name": "release-readiness",
    "description": "Run a release checklist: tests pass, version bumped, changelog updated, clean tree.",
    "when_to_use": "Right before tagging a release.",
    "args": {
        "version": {"type": "string", "description": "The version about to be released, e.g. 2.5.0.", "required": True},
        "changelog": {"type": "string", "default": "CHANGELOG.md"},
    },
    "phases": [{"title": "Checks"}, {"title": "Summary"}],
}

artifact.metrics("readiness", {"title": "Release readiness"})


async def check_tests():
    try:
        result = await world.run("pytest", ["-q", "--no-header"], timeout_s=1200)
    except WorldError as error:
        return "tests pass", False, f"pytest could not run: {error}"
    lines = [l for l in result.stdout.strip().splitlines() if l.strip()]
    last = lines[-1] if lines else "no output"
    return "tests pass", result.exit_code == 0, last


async def check_version():
    try:
        text = await files.read("pyproject.toml")
    except WorldError as error:
        return "version bumped", False, str(error)
    m = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    if not m:
        return "version bumped", False, "no version in pyproject.toml"
    found = m.group(1)
    return "version bumped", found == args["version"], f"pyproject.toml has {found}"


async def check_changelog():
    try:
        text = await files.read(args["changelog"])
    except WorldError:
        return "changelog mentions version", False, f"{args['changelog']} not found"
    ok = args["version"] in text
    detail = "mentioned" if ok else f"{args['version']} not in {args['changelog']}"
    return "changelog mentions version", ok, detail


async def check_clean():
    status = await git.status()
    if status.clean:
        return "no uncommitted changes", True, f"clean on {status.branch}"
    dirty = len(status.staged) + len(status.unstaged) + len(status.untracked)
    return "no uncommitted changes", False, f"{dirty} uncommitted paths"


phase("Checks")
checks = await gather(check_tests(), check_version(), check_changelog(), check_clean())
results = []
for name, ok, detail in checks:
    results.append({"name": name, "ok": ok, "detail": detail})
    report({"label": name, "value": "pass" if ok else "fail", "detail": detail}, artifact="readiness")
    log(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")

phase("Summary")
passed = sum(1 for r in results if r["ok"])
ready = passed == len(results)
summary = f"{passed}/{len(results)} checks passed; " + ("ready to release" if ready else "not ready")
return {"version": args["version"], "ready": ready, "summary": summary, "checks": results}
