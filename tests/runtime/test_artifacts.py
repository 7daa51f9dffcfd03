"""ArtifactStore over real temporary directories: versions, manifest, every cap (one over it),
confinement of published files, one kind per id, one primary, dashboards, atomic writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest

from dwf.runtime.ports import artifacts as artifacts_module
from dwf.runtime.ports.artifacts import (DESCRIPTION_LIMIT, FILE_LIMIT, ID_LIMIT, MARKDOWN_LIMIT, SPEC_LIMIT,
                                   TITLE_LIMIT, VERSION_LIMIT, ArtifactStore)
from dwf.runtime.values.errors import ScriptError
from dwf.runtime.values.records import artifact_ref

RUN = "dwfrun-0123456789abcdef"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def store(workspace: Path) -> ArtifactStore:
    return ArtifactStore(workspace)


async def raises(type_name: str, awaitable, match: str = "") -> ScriptError:
    with pytest.raises(ScriptError) as caught:
        await awaitable
    assert caught.value.type_name == type_name, caught.value.summary()
    assert match in caught.value.message, caught.value.message
    return caught.value


def run_dir(workspace: Path) -> Path:
    return workspace / ".dwf" / "artifacts" / RUN


@pytest.mark.anyio
async def test_markdown_versions_and_manifest(store, workspace):
    assert await store.publish_markdown(RUN, "summary", "# One\n", title="Summary") == artifact_ref("summary", 1)
    assert await store.publish_markdown(RUN, "summary", "# Two\n", description="second",
                                        primary=True) == artifact_ref("summary", 2)
    assert (run_dir(workspace) / "summary@v1.md").read_text() == "# One\n"
    assert (run_dir(workspace) / "summary@v2.md").read_text() == "# Two\n"
    manifest = store.list(RUN)
    assert manifest == json.loads((run_dir(workspace) / "manifest.json").read_text())
    entry = manifest["artifacts"]["summary"]
    assert manifest["run_id"] == RUN and manifest["format"] == 1
    assert (entry["kind"], entry["primary"], entry["title"], entry["description"]) == (
        "markdown", True, "Summary", "second")
    assert [(v["version"], v["file"], v["bytes"], v["title"]) for v in entry["versions"]] == [
        (1, "summary@v1.md", 6, "Summary"), (2, "summary@v2.md", 6, None)]
    assert store.version_path(RUN, "summary", 2) == run_dir(workspace) / "summary@v2.md"
    with pytest.raises(ScriptError, match="no version 3"):
        store.version_path(RUN, "summary", 3)


@pytest.mark.anyio
async def test_file_is_copied_with_its_suffix(store, workspace):
    (workspace / "out").mkdir()
    (workspace / "out" / "report.html").write_bytes(b"<h1>hi</h1>")
    (workspace / "data.weird~ext").write_bytes(b"x")
    assert await store.publish_file(RUN, "report", "out/report.html") == artifact_ref("report", 1)
    (workspace / "out" / "report.html").write_bytes(b"<h1>changed</h1>")
    assert await store.publish_file(RUN, "report", "./out/report.html") == artifact_ref("report", 2)
    assert (run_dir(workspace) / "report@v1.html").read_bytes() == b"<h1>hi</h1>"
    assert (run_dir(workspace) / "report@v2.html").read_bytes() == b"<h1>changed</h1>"
    versions = store.list(RUN)["artifacts"]["report"]["versions"]
    assert [v["source"] for v in versions] == ["out/report.html", "out/report.html"]
    assert await store.publish_file(RUN, "data", "data.weird~ext") == artifact_ref("data", 1)
    assert (run_dir(workspace) / "data@v1").read_bytes() == b"x"


@pytest.mark.anyio
async def test_file_errors_and_confinement(store, workspace, tmp_path):
    (tmp_path / "secret.txt").write_text("secret")
    (workspace / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (workspace / "dir").mkdir()
    await raises("ArtifactError", store.publish_file(RUN, "a", "missing.txt"), "no such file")
    await raises("ArtifactError", store.publish_file(RUN, "a", "../secret.txt"), "..")
    await raises("ArtifactError", store.publish_file(RUN, "a", str(tmp_path / "secret.txt")), "absolute")
    await raises("ArtifactError", store.publish_file(RUN, "a", "leak.txt"), "outside the workspace")
    await raises("ArtifactError", store.publish_file(RUN, "a", "dir"), "directory")
    await raises("ArtifactError", store.publish_file(RUN, "a", ".dwf/artifacts"), ".dwf/")
    await raises("TypeError", store.publish_file(RUN, "a", 3), "must be str")
    with open(workspace / "huge.bin", "wb") as handle:
        handle.truncate(FILE_LIMIT + 1)  # sparse: cheap to create
    await raises("ArtifactError", store.publish_file(RUN, "a", "huge.bin"), "20 MiB")
    assert store.list(RUN)["artifacts"] == {}
    assert not run_dir(workspace).exists()


@pytest.mark.anyio
async def test_markdown_size_cap(store):
    assert (await store.publish_markdown(RUN, "full", "x" * MARKDOWN_LIMIT)).get("version") == 1
    await raises("ArtifactError", store.publish_markdown(RUN, "over", "x" * (MARKDOWN_LIMIT + 1)), "256 KiB")
    await raises("ArtifactError", store.publish_markdown(RUN, "wide", "é" * (MARKDOWN_LIMIT // 2 + 1)), "256 KiB")
    await raises("TypeError", store.publish_markdown(RUN, "x", ["not", "str"]), "must be str")


@pytest.mark.anyio
async def test_version_cap(store):
    for version in range(1, VERSION_LIMIT + 1):
        assert (await store.publish_markdown(RUN, "notes", f"v{version}")).get("version") == version
    await raises("ArtifactError", store.publish_markdown(RUN, "notes", "one more"), "16 versions")


@pytest.mark.anyio
async def test_id_cap_counts_content_and_dashboards(store):
    for i in range(ID_LIMIT // 2):
        await store.publish_markdown(RUN, f"doc-{i}", "x")
        store.declare_dashboard(RUN, f"chart-{i}", "chart", {"type": "line"})
    await raises("ArtifactError", store.publish_markdown(RUN, "one-more", "x"), "32 artifact ids")
    with pytest.raises(ScriptError, match="32 artifact ids"):
        store.declare_dashboard(RUN, "one-more", "table", {})
    assert (await store.publish_markdown(RUN, "doc-0", "again")).get("version") == 2  # existing ids go on
    assert (await store.publish_markdown("dwfrun-other", "fresh", "x")).get("version") == 1  # per run


@pytest.mark.anyio
async def test_id_pattern(store, workspace):
    for bad in ("", "a/b", "x" * 65, "has space", "ü", "a@b"):
        await raises("ArtifactError", store.publish_markdown(RUN, bad, "x"), "invalid artifact id")
    await raises("TypeError", store.publish_markdown(RUN, 7, "x"), "must be str")
    assert (await store.publish_markdown(RUN, "x" * 64, "x")).get("version") == 1
    assert (await store.publish_markdown(RUN, "..", "dots")).get("version") == 1
    assert (run_dir(workspace) / "..@v1.md").read_text() == "dots"


@pytest.mark.anyio
async def test_one_kind_per_id(store, workspace):
    (workspace / "a.txt").write_text("a")
    await store.publish_markdown(RUN, "doc", "x")
    await raises("ArtifactError", store.publish_file(RUN, "doc", "a.txt"), "already a markdown")
    with pytest.raises(ScriptError, match="already declared as a markdown"):
        store.declare_dashboard(RUN, "doc", "chart", {})
    store.declare_dashboard(RUN, "board", "board", {"columns": ["todo", "done"]})
    await raises("ArtifactError", store.publish_markdown(RUN, "board", "x"), "already a board")


@pytest.mark.anyio
async def test_title_and_description_caps(store):
    assert await store.publish_markdown(RUN, "a", "x", title="t" * TITLE_LIMIT, description="d" * DESCRIPTION_LIMIT)
    await raises("ArtifactError", store.publish_markdown(RUN, "b", "x", title="t" * (TITLE_LIMIT + 1)), "120")
    await raises("ArtifactError", store.publish_markdown(RUN, "b", "x", description="d" * (DESCRIPTION_LIMIT + 1)),
                 "500")
    await raises("TypeError", store.publish_markdown(RUN, "b", "x", title=5), "str or None")
    await raises("TypeError", store.publish_markdown(RUN, "b", "x", primary="yes"), "must be bool")


@pytest.mark.anyio
async def test_at_most_one_primary(store):
    await store.publish_markdown(RUN, "main", "x", primary=True)
    assert (await store.publish_markdown(RUN, "main", "y", primary=True)).get("version") == 2
    assert (await store.publish_markdown(RUN, "main", "z")).get("version") == 3  # stays primary
    await raises("ArtifactError", store.publish_markdown(RUN, "other", "x", primary=True), "`main` is already")
    await store.publish_markdown(RUN, "other", "x")
    primaries = {k: v["primary"] for k, v in store.list(RUN)["artifacts"].items()}
    assert primaries == {"main": True, "other": False}


@pytest.mark.anyio
async def test_dashboards(store):
    spec = {"x": "day", "y": ["count"], "title": "Findings"}
    store.declare_dashboard(RUN, "findings", "chart", spec)
    store.declare_dashboard(RUN, "findings", "chart", dict(reversed(spec.items())))  # replay: no-op
    with pytest.raises(ScriptError, match="another spec"):
        store.declare_dashboard(RUN, "findings", "chart", {"x": "week"})
    with pytest.raises(ScriptError, match="already declared as a chart"):
        store.declare_dashboard(RUN, "findings", "table", spec)
    entry = store.list(RUN)["artifacts"]["findings"]
    assert entry == {"kind": "chart", "primary": False, "title": None, "description": None, "spec": spec}
    big = {"k": "x" * (SPEC_LIMIT - len('{"k":""}'))}
    store.declare_dashboard(RUN, "exact", "metrics", big)
    with pytest.raises(ScriptError, match="8 KiB") as caught:
        store.declare_dashboard(RUN, "over", "metrics", {"k": big["k"] + "x"})
    assert caught.value.type_name == "ArtifactError"
    with pytest.raises(ScriptError, match="must be a dict"):
        store.declare_dashboard(RUN, "bad", "table", ["columns"])
    with pytest.raises(ScriptError, match="not JSON data"):
        store.declare_dashboard(RUN, "bad", "table", {"s": {1, 2}})
    with pytest.raises(ValueError):
        store.declare_dashboard(RUN, "bad", "pie", {})


@pytest.mark.anyio
async def test_writes_are_atomic_and_state_survives_a_new_store(store, workspace, tmp_path):
    await store.publish_markdown(RUN, "log", "one")
    again = ArtifactStore(workspace)
    assert (await again.publish_markdown(RUN, "log", "two")).get("version") == 2
    assert sorted(os.listdir(run_dir(workspace))) == ["log@v1.md", "log@v2.md", "manifest.json"]
    elsewhere = ArtifactStore(workspace, state_dir=tmp_path / "state")
    await elsewhere.publish_markdown(RUN, "log", "x")
    assert (tmp_path / "state" / "artifacts" / RUN / "log@v1.md").read_text() == "x"


@pytest.mark.anyio
async def test_concurrent_publications_get_consecutive_versions(store):
    refs = []

    async def publish(i):
        refs.append(await store.publish_markdown(RUN, "shared", f"item {i}"))

    async with anyio.create_task_group() as group:
        for i in range(10):
            group.start_soon(publish, i)
    assert sorted(ref.get("version") for ref in refs) == list(range(1, 11))
    versions = store.list(RUN)["artifacts"]["shared"]["versions"]
    assert [v["version"] for v in versions] == list(range(1, 11))


@pytest.mark.anyio
async def test_a_declaration_made_while_a_publication_is_staged_is_kept(store, workspace, monkeypatch):
    def stage_while_declaring(directory, data):  # runs in the worker thread, between check and commit
        monkeypatch.setattr(artifacts_module, "_stage", real_stage)  # once: the manifest write stages too
        store.declare_dashboard(RUN, "metrics", "metrics", {"fields": ["count"]})
        return real_stage(directory, data)

    real_stage = artifacts_module._stage
    monkeypatch.setattr(artifacts_module, "_stage", stage_while_declaring)
    assert await store.publish_markdown(RUN, "doc", "x") == artifact_ref("doc", 1)
    assert list(store.list(RUN)["artifacts"]) == ["metrics", "doc"]
    assert sorted(os.listdir(run_dir(workspace))) == ["doc@v1.md", "manifest.json"]


@pytest.mark.anyio
async def test_a_rule_broken_while_staging_fails_the_publication_and_leaves_no_file(store, workspace, monkeypatch):
    for i in range(ID_LIMIT - 1):
        store.declare_dashboard(RUN, f"d{i}", "table", {})

    def stage_while_declaring(directory, data):
        monkeypatch.setattr(artifacts_module, "_stage", real_stage)
        store.declare_dashboard(RUN, "last", "table", {})  # takes the last free id
        return real_stage(directory, data)

    real_stage = artifacts_module._stage
    monkeypatch.setattr(artifacts_module, "_stage", stage_while_declaring)
    await raises("ArtifactError", store.publish_markdown(RUN, "late", "x"), "32 artifact ids")
    assert os.listdir(run_dir(workspace)) == ["manifest.json"]


def test_list_of_an_unknown_run_and_bad_run_ids(store):
    assert store.list("dwfrun-nothing") == {"format": 1, "run_id": "dwfrun-nothing", "artifacts": {}}
    for bad in ("", "..", "../x", "a/b", ".hidden"):
        with pytest.raises(ValueError):
            store.list(bad)


def test_reports_are_appended_under_the_state_dir(tmp_path):
    store = ArtifactStore(tmp_path)
    store.append_report("dwfrun-1", "report#1", "report#1/for#1[0]", {"path": "a.py"}, "findings")
    store.append_report("dwfrun-1", "report#1", "report#1/for#1[1]", {"path": "b.py"}, None)
    lines = (tmp_path / ".dwf" / "artifacts" / "dwfrun-1" / "reports.jsonl").read_text().splitlines()
    assert len(lines) == 2
    assert store.reports("dwfrun-1") == [
        {"site": "report#1", "key": "report#1/for#1[0]", "artifact": "findings", "item": {"path": "a.py"}},
        {"site": "report#1", "key": "report#1/for#1[1]", "artifact": None, "item": {"path": "b.py"}},
    ]
    assert store.reports("dwfrun-2") == []
