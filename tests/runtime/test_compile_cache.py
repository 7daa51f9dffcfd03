"""The compile cache (`engine/compile_cache.py`): a hit gives exactly what a fresh compile gives;
a truncated, tampered, foreign (another user's key), other-version or misplaced entry is ignored
and rebuilt, never trusted; and `dwfc run`, `resume` and `plan` of an unchanged script, and the
saved workflows it calls, start without loading the front end, parser or lowering (checked in
fresh processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dwf.compiler.compile import compile_source
from dwf.runtime.engine.compile_cache import KEY_BYTES, MAGIC, CompileCache, compile_script, fingerprint
from dwf.runtime.statedir import StateDir

DWFC = Path(sys.executable).parent / "dwfc"

SCRIPT = '''"""Two asks, a command and a warning."""
from typing import TypedDict

meta = {"name": "cached", "description": "Compiled once.", "args": {"who": {"type": "string", "default": "you"}},
        "phases": [{"title": "Prepare", "detail": "nothing yet"}, {"title": "Work", "detail": "ask"}]}


class Verdict(TypedDict):
    ok: bool


phase("Prepare")
phase("Work")
out = await world.run("echo", [args["who"]])
first = await agent("first").ask(f"Greet {out.stdout.strip()}", returns=Verdict)
second = await agent("second").ask("Say more")
slow = await agent("third").ask("Take your time")
return {"first": first["ok"], "second": second, "slow": slow}
'''
BROKEN = '''meta = {"name": "broken", "description": "Does not compile."}
x = y
'''
GREET = '''meta = {"name": "greet", "description": "Asks for a greeting."}
return await agent("greeter").ask("Say hello")
'''
CALLER = '''meta = {"name": "caller", "description": "Calls a saved workflow."}
hello = await workflow("greet")
return {"hello": hello}
'''


def fixture(delay: float) -> dict:
    return {"rules": [{"actor": "first", "result": {"ok": True}}, {"actor": "second", "result": "more"},
                      {"actor": "third", "result": "done", "delay_s": delay},
                      {"actor": "greet/greeter", "result": "Hello!"}, {"actor": "greeter", "result": "Hello!"}]}


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("DWF_HOME", str(path))
    return path


@pytest.fixture
def cache(tmp_path, home) -> CompileCache:
    (tmp_path / "ws" / ".dwf").mkdir(parents=True)
    return CompileCache.of_workspace(tmp_path / "ws")


def key_of(cache: CompileCache) -> bytes:
    return cache.key_file.read_bytes()


def assert_same(result, fresh) -> None:
    assert result.program == fresh.program
    assert result.diagnostics == fresh.diagnostics
    assert (result.source, result.appended) == (fresh.source, fresh.appended)


# ---------------------------------------------------------------- entries


def test_a_hit_gives_what_a_fresh_compile_gives(cache):
    fresh = compile_source(SCRIPT, "first.dwf.py")
    assert fresh.program is not None and fresh.diagnostics  # a clean program with a warning
    first = cache.compile(SCRIPT, "first.dwf.py")
    assert_same(first, fresh)
    entry = cache.entry_path(SCRIPT)
    assert entry.parent == StateDir(cache.folder.parent.parent).cache and entry.read_bytes().startswith(MAGIC)
    loaded = cache.load(SCRIPT, "first.dwf.py", key_of(cache))
    assert loaded is not None
    assert_same(loaded, fresh)
    assert loaded.program.ir_hash == fresh.program.ir_hash
    renamed = cache.load(SCRIPT, "other/name.dwf.py", key_of(cache))  # one entry per text, any name
    assert renamed.program.path == "other/name.dwf.py" and renamed.source.path == "other/name.dwf.py"


def test_a_hit_keeps_the_order_the_script_declares(cache):
    script = ('meta = {"name": "order", "description": "Args in the script\'s order.",\n'
              '        "args": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}, "mid": {"type": "json"}}}\n'
              'return args["zeta"]\n')
    cache.compile(script, "order.dwf.py")
    loaded = cache.load(script, "order.dwf.py", key_of(cache))
    assert list(loaded.program.meta["args"]) == ["zeta", "alpha", "mid"]  # not sorted: problems and help follow it


def test_the_key_is_private_to_the_user_and_outside_the_workspace(cache, home):
    cache.compile(SCRIPT, "a.dwf.py")
    assert cache.key_file.parent == home
    assert len(key_of(cache)) == KEY_BYTES
    assert cache.key_file.stat().st_mode & 0o777 == 0o600


def test_a_script_with_errors_is_cached_with_its_diagnostics(cache):
    fresh = compile_source(BROKEN, "broken.dwf.py")
    assert fresh.program is None
    cache.compile(BROKEN, "broken.dwf.py")
    loaded = cache.load(BROKEN, "broken.dwf.py", key_of(cache))
    assert loaded is not None and loaded.program is None
    assert_same(loaded, fresh)


def rewritten(cache: CompileCache, change) -> None:
    """Rewrite the entry of SCRIPT: `change(header, payload)` returns the new (header, payload)."""
    entry = cache.entry_path(SCRIPT)
    header, _, payload = entry.read_bytes().partition(b"\n")
    header, payload = change(header, payload)
    entry.write_bytes(header + b"\n" + payload)


def signed(cache: CompileCache, payload: bytes, key: bytes | None = None) -> bytes:
    import hashlib
    import hmac

    return MAGIC + hmac.new(key or key_of(cache), payload, hashlib.sha256).hexdigest().encode()


def edit_payload(payload: bytes, edit) -> bytes:
    data = json.loads(payload)
    edit(data)
    return json.dumps(data).encode()


def truncated(cache, header, payload):
    return header, payload[: len(payload) // 2]


def tampered(cache, header, payload):  # the approved command changed, the old MAC kept
    return header, payload.replace(b'"echo"', b'"curl"')


def tampered_and_rehashed(cache, header, payload):  # what a plain checksum would accept
    payload = payload.replace(b'"echo"', b'"curl"')
    return signed(cache, payload, key=b"k" * KEY_BYTES), payload


def other_version(cache, header, payload):  # signed with our key, but by another compiler
    payload = edit_payload(payload, lambda data: data.update(fingerprint="0.0.9+" + "0" * 32))
    return signed(cache, payload), payload


def other_text(cache, header, payload):  # a valid entry of another script, put under this name
    other = CompileCache(cache.folder, cache.key_file)
    other.compile(GREET, "greet.dwf.py")
    header, _, payload = other.entry_path(GREET).read_bytes().partition(b"\n")
    return header, payload


def garbage_program(cache, header, payload):  # signed with our key, but not an IR program
    payload = edit_payload(payload, lambda data: data.update(program={"node": "Nope"}))
    return signed(cache, payload), payload


@pytest.mark.parametrize("change", [truncated, tampered, tampered_and_rehashed, other_version, other_text,
                                    garbage_program])
def test_a_bad_entry_is_ignored_and_rebuilt(cache, change):
    fresh = compile_source(SCRIPT, "s.dwf.py")
    cache.compile(SCRIPT, "s.dwf.py")
    good = cache.entry_path(SCRIPT).read_bytes()
    rewritten(cache, lambda header, payload: change(cache, header, payload))
    assert cache.entry_path(SCRIPT).read_bytes() != good
    assert cache.load(SCRIPT, "s.dwf.py", key_of(cache)) is None  # never trusted
    assert_same(cache.compile(SCRIPT, "s.dwf.py"), fresh)  # compiled again
    assert cache.entry_path(SCRIPT).read_bytes() == good  # and written again
    assert cache.load(SCRIPT, "s.dwf.py", key_of(cache)) is not None


def test_an_entry_written_under_another_users_key_is_foreign(tmp_path, monkeypatch):
    fresh = compile_source(SCRIPT, "s.dwf.py")
    workspace = tmp_path / "ws"
    (workspace / ".dwf").mkdir(parents=True)
    monkeypatch.setenv("DWF_HOME", str(tmp_path / "them"))
    CompileCache.of_workspace(workspace).compile(SCRIPT, "s.dwf.py")  # e.g. a `.dwf/cache/` from a repository
    monkeypatch.setenv("DWF_HOME", str(tmp_path / "me"))
    mine = CompileCache.of_workspace(workspace)
    theirs = mine.entry_path(SCRIPT).read_bytes()  # the same name: same text, same compiler
    assert_same(mine.compile(SCRIPT, "s.dwf.py"), fresh)
    assert mine.entry_path(SCRIPT).read_bytes() != theirs  # rebuilt under my key, not read
    assert mine.load(SCRIPT, "s.dwf.py", key_of(mine)) is not None


def test_another_compiler_reads_other_entries(cache, monkeypatch):
    """The fingerprint is part of the entry's name: a changed compiler file misses."""
    cache.compile(SCRIPT, "s.dwf.py")
    before = cache.entry_path(SCRIPT)
    monkeypatch.setattr("dwf.runtime.engine.compile_cache.fingerprint", lambda: "9.9.9+changed")
    assert cache.entry_path(SCRIPT) != before
    assert cache.load(SCRIPT, "s.dwf.py", key_of(cache)) is None


def test_the_fingerprint_follows_the_compiler_files():
    import dwf.compiler.version

    assert fingerprint().startswith(dwf.compiler.version.COMPILER_VERSION + "+")
    fingerprint.cache_clear()
    version = Path(dwf.compiler.version.__file__)
    stat = version.stat()
    before = fingerprint()
    try:
        os.utime(version, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        fingerprint.cache_clear()
        assert fingerprint() != before
    finally:
        os.utime(version, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        fingerprint.cache_clear()
    assert fingerprint() == before


def test_a_cache_that_cannot_be_written_still_compiles(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("DWF_HOME", str(blocked / "home"))  # no key can be made under a file
    (tmp_path / ".dwf").mkdir()
    cache = CompileCache.of_workspace(tmp_path)
    assert compile_script(SCRIPT, "s.dwf.py", cache).program is not None
    assert not cache.folder.exists()


def test_nothing_is_cached_where_dwf_keeps_no_state(tmp_path, home):
    cache = CompileCache.of_workspace(tmp_path)
    assert cache.compile(SCRIPT, "s.dwf.py").program is not None
    assert not (tmp_path / ".dwf").exists()  # a check or a refused run leaves no trace
    (tmp_path / ".dwf").mkdir()
    cache.compile(SCRIPT, "s.dwf.py")
    assert cache.entry_path(SCRIPT).is_file()


def test_the_least_recently_used_entries_are_pruned(cache, monkeypatch):
    monkeypatch.setattr("dwf.runtime.engine.compile_cache.MAX_ENTRIES", 4)
    texts = [SCRIPT.replace("Compiled once.", f"Version {n}.") for n in range(5)]
    for age, text in enumerate(texts[:4]):
        cache.compile(text, "s.dwf.py")
        os.utime(cache.entry_path(text), (1_000_000 + age, 1_000_000 + age))  # texts[0] is the oldest
    cache.compile(texts[0], "s.dwf.py")  # a hit: now the most recently used
    cache.compile(texts[4], "s.dwf.py")  # a fifth entry: prune to three
    kept = sorted(path.name for path in cache.folder.glob("*.json"))
    assert kept == sorted(cache.entry_path(text).name for text in (texts[0], texts[3], texts[4]))


def test_a_compiler_failure_is_not_kept(cache):
    from dwf.compiler.result import CompileResult
    from dwf.compiler.rules.internal import InternalError
    from dwf.compiler.source import SourceFile, Span
    from dwf.runtime.engine.compile_cache import INTERNAL_ERROR

    assert InternalError.code == INTERNAL_ERROR
    failed = InternalError.diagnostic(Span.point(1, 1), stage="lowering", detail="the script is nested too deeply")
    cache.compile(GREET, "greet.dwf.py")  # makes the key
    cache.store(SCRIPT, CompileResult(SourceFile("s.dwf.py", SCRIPT), [failed], None), key_of(cache))
    assert not cache.entry_path(SCRIPT).exists()


def test_bytes_that_are_not_utf8_get_the_compilers_diagnostic(cache):
    result = compile_script(b"meta = 1\n\xff\n", "bad.dwf.py", cache)
    assert [d.code for d in result.diagnostics] == ["DWF002"]
    assert not cache.folder.exists()


# ---------------------------------------------------------------- whole processes

PROBE = """import json, sys
from dwf.runtime.cli.main import main
code = main(sys.argv[1:])
FRONT_END = ("dwf.compiler.parse", "dwf.compiler.lower")
print(json.dumps({"code": code, "loaded": [m for m in FRONT_END if m in sys.modules]}))
"""


@pytest.fixture
def workspace(tmp_path, home) -> Path:
    from dwf.runtime.host.saved import save_workflow

    root = tmp_path / "ws"
    root.mkdir()
    (root / "cached.dwf.py").write_text(SCRIPT)
    (root / "caller.dwf.py").write_text(CALLER)
    (root / "fast.json").write_text(json.dumps(fixture(0)))
    (root / "slow.json").write_text(json.dumps(fixture(60)))
    save_workflow(root, GREET, "project")
    return root


def probe(workspace: Path, *argv: str) -> tuple[int, list[str], str]:
    """`dwfc ARGV` in a fresh interpreter: (exit code, the front-end modules it loaded, stdout)."""
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=workspace, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, env={**os.environ})
    assert done.returncode == 0, done.stderr
    *output, last = done.stdout.splitlines()
    report = json.loads(last)
    return report["code"], report["loaded"], "\n".join(output)


RUN = ("run", "cached.dwf.py", "--yes", "--agent", "scripted:fast.json", "--progress", "json")


def test_a_cached_run_start_does_not_load_the_front_end(workspace):
    code, loaded, _ = probe(workspace, *RUN)  # compiles into the cache in `.dwf/` (its saved workflow's)
    assert code == 0 and loaded == ["dwf.compiler.parse", "dwf.compiler.lower"]
    code, loaded, output = probe(workspace, *RUN)
    assert code == 0 and loaded == []
    assert json.loads(output)["value"] == {"first": True, "second": "more", "slow": "done"}


def test_a_cached_plan_does_not_load_the_front_end(workspace):
    code, loaded, first = probe(workspace, "plan", "cached.dwf.py")  # a workspace with .dwf/ only
    assert code == 0 and "dwf.compiler.parse" in loaded
    code, loaded, _ = probe(workspace, "plan", "cached.dwf.py")
    assert code == 0 and loaded == []
    code, loaded, second = probe(workspace, "plan", "cached.dwf.py")
    assert second == first


def test_a_cached_check_gives_the_same_diagnostics(workspace):
    (workspace / "broken.dwf.py").write_text(BROKEN)
    first = [probe(workspace, "check", name, "--format", "json") for name in ("cached.dwf.py", "broken.dwf.py")]
    again = [probe(workspace, "check", name, "--format", "json") for name in ("cached.dwf.py", "broken.dwf.py")]
    assert [(code, output) for code, _, output in again] == [(code, output) for code, _, output in first]
    assert [code for code, _, _ in first] == [0, 1]
    assert all(loaded == [] for _, loaded, _ in again)


def test_a_called_and_a_saved_workflow_hit_the_cache(workspace):
    caller = ("run", "caller.dwf.py", "--yes", "--agent", "scripted:fast.json", "--progress", "json")
    saved = ("run", "--saved", "greet", "--yes", "--agent", "scripted:fast.json", "--progress", "json")
    probe(workspace, *caller)  # compiles both into the cache
    for argv in (caller, saved):
        code, loaded, output = probe(workspace, *argv)
        assert code == 0 and loaded == [], argv
    assert json.loads(output)["value"] == "Hello!"


def test_a_cached_resume_does_not_load_the_front_end(workspace, tmp_path):
    log = tmp_path / "calls.log"
    process = subprocess.Popen([str(DWFC), *RUN[:4], "scripted:slow.json", "--progress", "json"], cwd=workspace,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "DWF_SCRIPTED_CALL_LOG": str(log)})
    try:
        deadline = time.monotonic() + 30
        while not (log.exists() and '"third"' in log.read_text()):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the run never reached its third ask"
            time.sleep(0.05)
    finally:
        process.kill()
        process.communicate()
    code, loaded, output = probe(workspace, "runs", "--json")
    [row] = json.loads(output)
    assert row["status"] == "stopped"
    code, loaded, output = probe(workspace, "resume", row["id"], "--agent", "scripted:fast.json", "--progress", "json")
    assert code == 0 and loaded == []
    assert json.loads(output)["status"] == "completed"
