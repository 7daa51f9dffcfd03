"""Confinement without races (issue #19, point 6): file reads, listings and grep resolve paths
component by component beneath the workspace root, so a concurrent directory/symlink swap never
yields outside content; symlink loops and broken links are catchable `WorldError`s; a `.dwf`
that is a symbolic link (or a state path inside it that is one) is refused. Real directories,
real symlinks, a real swapping thread, the real grep worker and the real `dwfc`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dwf.runtime.ports.world import READ_LIMIT, GlobPattern, LocalWorld, WorkspacePathError, read_workspace_file, walk_files
from dwf.runtime.statedir import StateDir, StateDirError, write_atomic
from dwf.runtime.values.errors import ScriptError

SWAPS = 1_000
SECRET = "SECRET outside the workspace\n"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def swapped(tmp_path):
    """A workspace whose `d` is, in turn, a real directory holding `f.txt` and a symlink to an
    outside directory holding an `f.txt` with the secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text(SECRET)
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("inside\n")
    return root, outside


def swap(root: Path, outside: Path, swaps: int, done: threading.Event) -> None:
    real, link = root / "d", root / "d-real"
    try:
        for _ in range(swaps):
            os.rename(real, link)
            replace(real, lambda: os.symlink(outside, real))
            os.unlink(real)
            replace(real, lambda: os.rename(link, real))
    finally:
        done.set()


def replace(real: Path, step) -> None:
    """Run `step`; when a writer created `d` while it was missing (`mkdir` of the parent), drop
    that folder and run it again."""
    while True:
        try:
            return step()
        except OSError:
            shutil.rmtree(real, ignore_errors=True)


def test_a_thousand_directory_symlink_swaps_never_read_outside(swapped):
    root, outside = swapped
    reads = refused = rounds = 0
    pattern = GlobPattern("d/*")
    # Rounds of a thousand swaps until the reader met both states (on a loaded machine the swapper
    # can finish a round before the reader runs): every read of every round stays inside.
    while not (reads and refused) and rounds < 20:
        rounds += 1
        done = threading.Event()
        swapper = threading.Thread(target=swap, args=(root, outside, SWAPS, done))
        swapper.start()
        try:
            while not done.is_set():
                try:
                    data = read_workspace_file(root.resolve(), "d/f.txt", READ_LIMIT)
                except WorkspacePathError:
                    refused += 1  # `d` was a symlink to outside, or missing, at that moment
                else:
                    assert data == b"inside\n"
                    reads += 1
                for relpath in walk_files(root.resolve(), pattern):
                    assert relpath == "d/f.txt"
        finally:
            swapper.join()
    assert reads > 0 and refused > 0, rounds  # both states were seen: the race really ran


@pytest.mark.anyio
async def test_grep_during_swaps_never_returns_outside_lines(swapped):
    root, outside = swapped
    world = LocalWorld(root)
    done = threading.Event()
    swapper = threading.Thread(target=swap, args=(root, outside, SWAPS, done))
    swapper.start()
    try:
        while not done.is_set():
            for match in await world.grep("SECRET|inside"):
                assert match.get("text") == "inside"
    finally:
        swapper.join()


async def world_error(awaitable, match: str) -> None:
    with pytest.raises(ScriptError) as caught:
        await awaitable
    assert caught.value.type_name == "WorldError", caught.value.summary()
    assert match in caught.value.message, caught.value.message


@pytest.mark.anyio
async def test_symlink_loops_and_broken_links_are_world_errors(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "ok.txt").write_text("ok\n")
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    (tmp_path / "broken").symlink_to("missing.txt")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to("../ok.txt")
    (tmp_path / "sub" / "loopdir").symlink_to(".", target_is_directory=True)
    world = LocalWorld(tmp_path)
    assert await world.glob("**") == ["ok.txt", "sub/up"]  # the listing skips what cannot be read
    assert [m.get("path") for m in await world.grep("ok")] == ["ok.txt", "sub/up"]
    assert await world.read_file("sub/up") == "ok\n"
    await world_error(world.read_file("loop"), "symlink loop")
    await world_error(world.read_file("a"), "symlink loop")
    await world_error(world.read_file("loop/x"), "symlink loop")
    await world_error(world.read_file("broken"), "broken symbolic link")
    await world_error(world.read_file("ok.txt/x"), "not a directory")
    assert await world.read_file("sub/loopdir/loopdir/up") == "ok\n"
    await world_error(world.diff(path="loop"), "symbolic links")


@pytest.mark.anyio
async def test_links_into_git_or_dwf_are_refused(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "cfg").symlink_to(".git/config")
    (tmp_path / "abs").symlink_to(tmp_path.resolve() / ".git" / "config")
    world = LocalWorld(tmp_path)
    await world_error(world.read_file("cfg"), ".git/")
    await world_error(world.read_file("abs"), ".git/")
    assert await world.glob("**") == []


def test_a_dwf_symlink_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".dwf").symlink_to(elsewhere, target_is_directory=True)
    for name in ("journal", "runs", "questions", "artifacts", "workflows", "drafts", "agents"):
        with pytest.raises(StateDirError, match="is a symbolic link"):
            getattr(StateDir(root), name)
    assert StateDir(root, folder=elsewhere).journal == elsewhere / "state.db"  # named explicitly: the caller's choice
    (root / ".dwf").unlink()
    (root / ".dwf").mkdir()
    (root / ".dwf" / "artifacts").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(StateDirError):
        StateDir(root).artifacts
    (root / ".dwf" / "runs").mkdir()
    (root / ".dwf" / "runs" / "r1").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(StateDirError):
        write_atomic(root / ".dwf" / "runs" / "r1" / "x.json", "{}")
    assert list(elsewhere.iterdir()) == []


def test_dwfc_refuses_a_workspace_whose_dwf_is_a_symlink(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".dwf").symlink_to(elsewhere, target_is_directory=True)
    script = root / "hello.dwf.py"
    script.write_text('meta = {"name": "hello", "description": "Says hello."}\nreturn "hi"\n')
    for argv in (["run", str(script), "--yes", "--agent", "scripted:none"], ["runs"]):
        done = subprocess.run([sys.executable, "-m", "dwf.runtime.cli", *argv, "--workspace", str(root)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert "is a symbolic link" in done.stderr
    assert list(elsewhere.iterdir()) == []


@pytest.mark.anyio
async def test_actor_writes_during_swaps_never_land_outside(swapped):
    from dwf.runtime.ports.actor_tools import ActorTools

    root, outside = swapped
    tools = ActorTools(root, "write")
    done = threading.Event()
    swapper = threading.Thread(target=swap, args=(root, outside, SWAPS, done))
    written = 0
    swapper.start()
    try:
        while not done.is_set():
            outcome = await tools.call("write_file", {"path": "d/out.txt", "content": "from the actor\n"})
            written += not outcome.is_error
    finally:
        swapper.join()
    assert written > 0 and not (outside / "out.txt").exists()
