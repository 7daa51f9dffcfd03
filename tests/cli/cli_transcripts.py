"""Shared by the saved-workflow CLI tests: `dwfc` called in this process from a workspace, with
the temp dir shown as `<tmp>` (so transcripts can be snapshotted), and a `DWF_HOME` inside it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from dwf.runtime.cli.main import main


def isolated_home(tmp_path: Path, monkeypatch) -> Path:
    """`DWF_HOME` in the temp dir: global saved workflows never touch the real home."""
    path = tmp_path / "home"
    monkeypatch.setenv("DWF_HOME", str(path))
    return path


def in_process_dwfc(monkeypatch, capsys, workspace: Path, tmp_path: Path) -> Callable[..., tuple[int, str, str]]:
    """`dwfc` (`cli.main`) run from `workspace`: (exit code, stdout, stderr), temp dir as `<tmp>`."""

    def call(*argv: str) -> tuple[int, str, str]:
        monkeypatch.chdir(workspace)
        monkeypatch.delenv("DWF_SCRIPTED_CALL_LOG", raising=False)
        try:
            code = main(list(argv))
        except SystemExit as exit:  # argparse errors
            code = exit.code
        out, err = capsys.readouterr()
        root = str(tmp_path.resolve())
        return code, out.replace(root, "<tmp>"), err.replace(root, "<tmp>")

    return call


def transcript(dwfc, *argv: str) -> dict:
    code, out, err = dwfc(*argv)
    return {"argv": ["dwfc", *argv], "exit": code, "stdout": out, "stderr": err}
