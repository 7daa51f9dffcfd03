"""This module defines `ArtifactStore`, the ArtifactStore port over a state directory: the
deliverables a run publishes (`artifact.file`, `artifact.markdown`) and the dashboards it
declares (`artifact.chart|table|metrics|board`), with the caps of LANGUAGE §6.2.

Layout: `<state_dir>/artifacts/<run_id>/` holds one file per published version, named
`<id>@v<N><suffix>` (`@` is outside the id alphabet, so names never collide, and ids such as `..`
stay plain file names), and `manifest.json`:

    {"format": 1, "run_id": "...", "artifacts": {
        "summary": {"kind": "markdown", "primary": true, "title": "...", "description": null,
                    "versions": [{"version": 1, "file": "summary@v1.md", "bytes": 812,
                                  "sha256": "...", "source": null, "title": "...",
                                  "description": null}]},
        "coverage": {"kind": "chart", "primary": false, "title": null, "description": null,
                     "spec": {...}}}}

Ids appear in the order they were first used. Every write is atomic (`statedir.write_atomic`: a
temporary file in the same directory, fsynced, then `os.replace`), and a version file is in place
before the manifest that names it, so a crash leaves at most an unreferenced file, never a
manifest entry without its file.

`publish_file` and `publish_markdown` are async (the port contract; up to 20 MiB is read and
staged in a worker thread); `declare_dashboard` is synchronous, like the script call it serves.
A publication is *prepare, then commit*: the content is staged to a temporary file while the
event loop runs on, then one synchronous step (under a lock, with no await inside) re-reads the
manifest, re-checks every rule, picks the version number, renames the staged file into place and
saves the manifest. So concurrent publications of one id get consecutive versions and a dashboard
declared meanwhile is never lost. The manifest is re-read on every call: a new store over the same
directory (a resumed run in a new process) continues the numbering.

Errors the script can cause (bad id, caps, missing file, path outside the workspace) raise the
catchable `ArtifactError` (`TypeError` for wrong argument types); a malformed `run_id` or
dashboard kind is the engine's bug and raises Python's `ValueError`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from pathlib import Path, PurePosixPath
from typing import Any

import anyio

from dwf.grammar.facade import DASHBOARD_KINDS
from dwf.runtime.values.errors import ScriptError, artifact_error
from dwf.runtime.values.records import Record, artifact_ref
from dwf.runtime.ports.world import MIB, KIB, WorkspacePathError, read_workspace_file
from dwf.runtime.statedir import PRIVATE_MODE, StateDir, stage, write_atomic

FILE_LIMIT = 20 * MIB  # bytes per artifact.file version
MARKDOWN_LIMIT = 256 * KIB  # UTF-8 bytes per artifact.markdown version
SPEC_LIMIT = 8 * KIB  # canonical JSON bytes of a dashboard spec
VERSION_LIMIT = 16  # versions per id
ID_LIMIT = 32  # ids per run (content and dashboards together)
TITLE_LIMIT = 120  # characters
DESCRIPTION_LIMIT = 500  # characters
MANIFEST_NAME = "manifest.json"
REPORTS_NAME = "reports.jsonl"
MANIFEST_FORMAT = 1

ARTIFACT_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
RUN_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}")
SUFFIX = re.compile(r"\.[A-Za-z0-9_-]{1,16}")


class ArtifactStore:
    """Published artifact versions and dashboard declarations, per run (see the module docstring)."""

    def __init__(self, workspace: Path, *, state_dir: Path | None = None):
        self.workspace = Path(workspace).resolve()
        self.directory = StateDir(self.workspace, folder=state_dir).artifacts
        self._lock = threading.Lock()

    def run_dir(self, run_id: str) -> Path:
        if not isinstance(run_id, str) or not RUN_ID.fullmatch(run_id):
            raise ValueError(f"invalid run id: {run_id!r}")
        return self.directory / run_id

    def version_path(self, run_id: str, id: str, version: int) -> Path:
        """The stored file of one published version (ArtifactError when there is none)."""
        entry = self._load(run_id)["artifacts"].get(id)
        for item in (entry or {}).get("versions", ()):
            if item["version"] == version:
                return self.run_dir(run_id) / item["file"]
        raise artifact_error(f"artifact `{id}` has no version {version}")

    # -- publishing -----------------------------------------------------------------------------

    async def publish_file(self, run_id: str, id: str, path: str, *, title: str | None = None,
                           description: str | None = None, primary: bool = False) -> Record:
        """Copy the workspace file `path` as the next version of `id`."""
        _check_str("artifact.file", "path", path)
        _check_common("artifact.file", id, title, description, primary)

        try:
            data = await anyio.to_thread.run_sync(read_workspace_file, self.workspace, path, FILE_LIMIT)
        except WorkspacePathError as exc:
            raise artifact_error(f"artifact.file: {exc}") from None
        suffix = PurePosixPath(path).suffix
        return await self._publish(run_id, id, "file", data, suffix if SUFFIX.fullmatch(suffix) else "",
                                   source="/".join(p for p in path.split("/") if p not in ("", ".")),
                                   title=title, description=description, primary=primary)

    async def publish_markdown(self, run_id: str, id: str, content: str, *, title: str | None = None,
                               description: str | None = None, primary: bool = False) -> Record:
        """Store `content` as the next version of the Markdown artifact `id`."""
        _check_str("artifact.markdown", "content", content)
        _check_common("artifact.markdown", id, title, description, primary)
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            raise artifact_error(f"artifact.markdown: the content of `{id}` is not valid Unicode text") from None
        if len(data) > MARKDOWN_LIMIT:
            raise artifact_error(f"artifact.markdown: `{id}` is {len(data)} bytes, over the 256 KiB cap")
        return await self._publish(run_id, id, "markdown", data, ".md", source=None, title=title,
                                   description=description, primary=primary)

    def declare_dashboard(self, run_id: str, id: str, kind: str, spec: Any) -> None:
        """Record a dashboard declaration (synchronous, like the script call). Declaring the same
        id again with the same kind and spec is a no-op (a replayed declaration); anything else
        on a used id is an error."""
        if kind not in DASHBOARD_KINDS:
            raise ValueError(f"unknown dashboard kind: {kind!r}")
        op = f"artifact.{kind}"
        _check_id(op, id)
        if not isinstance(spec, dict):
            raise ScriptError("TypeError", f"{op}() argument `spec` must be a dict, not {type(spec).__name__}")
        try:
            text = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ScriptError("TypeError", f"{op}: `spec` is not JSON data ({exc})") from None
        if len(text.encode("utf-8", "replace")) > SPEC_LIMIT:
            raise artifact_error(f"{op}: the spec of `{id}` is over the 8 KiB cap")
        with self._lock:
            manifest = self._load(run_id)
            entry = manifest["artifacts"].get(id)
            if entry is not None:
                if entry["kind"] == kind and entry.get("spec") == json.loads(text):
                    return
                raise artifact_error(f"{op}: `{id}` is already declared as a {entry['kind']}"
                                     + (" with another spec" if entry["kind"] == kind else ""))
            _check_id_room(op, manifest, id)
            manifest["artifacts"][id] = {"kind": kind, "primary": False, "title": None, "description": None,
                                         "spec": json.loads(text)}
            self._save(run_id, manifest)

    def append_report(self, run_id: str, site: str, key: str, item: Any, artifact: str | None) -> None:
        """Append one reported item to the run's `reports.jsonl` (flushed and synced, so a killed
        process keeps every report it delivered); `artifact` names the dashboard it feeds."""
        line = json.dumps({"site": site, "key": key, "artifact": artifact, "item": item},
                          ensure_ascii=False, allow_nan=False)
        with self._lock:
            directory = self.run_dir(run_id)
            directory.mkdir(parents=True, exist_ok=True)
            with open(directory / REPORTS_NAME, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def reports(self, run_id: str) -> list[dict]:
        """Every report appended for the run, in delivery order."""
        path = self.run_dir(run_id) / REPORTS_NAME
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]

    def list(self, run_id: str) -> dict:
        """The run's manifest (an empty one when nothing was published); a fresh copy each call."""
        with self._lock:
            return self._load(run_id)

    async def _publish(self, run_id: str, id: str, kind: str, data: bytes, suffix: str, *, source: str | None,
                       title: str | None, description: str | None, primary: bool) -> Record:
        op = f"artifact.{kind}"
        directory = self.run_dir(run_id)
        self._admit(op, self._load(run_id), id, kind, primary)  # fail before writing anything
        staged: Path | None = await anyio.to_thread.run_sync(_stage, directory, data)
        try:
            with self._lock:  # the commit: no await inside, so it is atomic for the event loop
                manifest = self._load(run_id)
                entry = self._admit(op, manifest, id, kind, primary)
                version = len(entry["versions"]) + 1
                name = f"{id}@v{version}{suffix}"
                os.replace(staged, directory / name)
                staged = None
                entry["versions"].append({"version": version, "file": name, "bytes": len(data),
                                          "sha256": hashlib.sha256(data).hexdigest(), "source": source,
                                          "title": title, "description": description})
                entry["primary"] = entry["primary"] or primary
                entry["title"] = title if title is not None else entry["title"]
                entry["description"] = description if description is not None else entry["description"]
                manifest["artifacts"][id] = entry
                self._save(run_id, manifest)
        finally:
            if staged is not None:
                os.unlink(staged)
        return artifact_ref(id, version)

    @staticmethod
    def _admit(op: str, manifest: dict, id: str, kind: str, primary: bool) -> dict:
        """The entry of `id` (a new one when unused), or ArtifactError when one more version of
        `kind` would break a rule: one kind per id, versions per id, ids per run, one primary."""
        artifacts = manifest["artifacts"]
        entry = artifacts.get(id)
        if entry is None:
            _check_id_room(op, manifest, id)
            entry = {"kind": kind, "primary": False, "title": None, "description": None, "versions": []}
        elif entry["kind"] != kind:
            raise artifact_error(f"{op}: `{id}` is already a {entry['kind']} artifact (one kind per id)")
        if len(entry["versions"]) >= VERSION_LIMIT:
            raise artifact_error(f"{op}: `{id}` already has {VERSION_LIMIT} versions, the cap")
        if primary:
            other = next((k for k, v in artifacts.items() if v["primary"] and k != id), None)
            if other is not None:
                raise artifact_error(f"{op}: `{other}` is already the primary artifact; at most one id is primary")
        return entry

    # -- manifest -------------------------------------------------------------------------------

    def _load(self, run_id: str) -> dict:
        path = self.run_dir(run_id) / MANIFEST_NAME
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {"format": MANIFEST_FORMAT, "run_id": run_id, "artifacts": {}}
        try:
            manifest = json.loads(text)
        except ValueError:
            raise artifact_error(f"the artifact manifest of run `{run_id}` is corrupt: {path}") from None
        return manifest

    def _save(self, run_id: str, manifest: dict) -> None:
        text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
        write_atomic(self.run_dir(run_id) / MANIFEST_NAME, text, mode=PRIVATE_MODE)


def _check_id_room(op: str, manifest: dict, id: str) -> None:
    if len(manifest["artifacts"]) >= ID_LIMIT:
        raise artifact_error(f"{op}: the run already has {ID_LIMIT} artifact ids, the cap (new id `{id}`)")


def _stage(directory: Path, data: bytes) -> Path:
    """A version's content, staged in the run's folder until its number is known (a seam the
    tests use to act between the check and the commit)."""
    return stage(directory, data, name="version", mode=PRIVATE_MODE)


def _check_str(op: str, name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise ScriptError("TypeError", f"{op}() argument `{name}` must be str, not {type(value).__name__}")


def _check_id(op: str, id: Any) -> None:
    _check_str(op, "id", id)
    if not ARTIFACT_ID.fullmatch(id):
        raise artifact_error(f"{op}: invalid artifact id `{id}` (expected 1-64 of A-Z a-z 0-9 _ . -)")


def _check_common(op: str, id: Any, title: Any, description: Any, primary: Any) -> None:
    _check_id(op, id)
    for name, value, limit in (("title", title, TITLE_LIMIT), ("description", description, DESCRIPTION_LIMIT)):
        if value is None:
            continue
        if not isinstance(value, str):
            raise ScriptError("TypeError", f"{op}() argument `{name}` must be str or None, not {type(value).__name__}")
        if len(value) > limit:
            raise artifact_error(f"{op}: the {name} of `{id}` is {len(value)} characters, over the {limit} cap")
    if not isinstance(primary, bool):
        raise ScriptError("TypeError", f"{op}() argument `primary` must be bool, not {type(primary).__name__}")
