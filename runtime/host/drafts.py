"""This module defines drafts (TOOLS §3): every script a host agent submits inline is written to
`<workspace>/.dwf/drafts/<name>.dwf.py`, so that when it does not compile the model fixes the
file in place and resubmits it by `path` instead of pasting the whole script again.

The name is the script's `meta["name"]` when the script parses far enough to read it (and the
name is a safe file name), else `workflow`. Files are created exclusively — an existing draft is
never overwritten — with `-2`, `-3`... suffixes; a submission byte-identical to an existing
draft of the same name reuses that file (so a retried call does not litter the folder). The
folder carries a `.gitignore` of `*`: drafts are scratch files, never commits.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from dwf.runtime.host.saved import is_valid_name
from dwf.runtime.statedir import StateDir, same_content
DEFAULT_NAME = "workflow"
MAX_DRAFTS_PER_NAME = 1000


class DraftError(Exception):
    """The draft could not be written (one sentence naming the file)."""


def drafts_dir(workspace: str | os.PathLike) -> Path:
    return StateDir(workspace).drafts


def draft_name(source: str) -> str:
    """The file name stem of a draft: the meta name, read with Python's parser (the meta block is
    a pure literal, so no DWF compile is needed), or `workflow`."""
    name = _meta_name(source)
    if is_valid_name(name) and not name.startswith("-"):  # `-` first would read as an option in a shell
        return name
    return DEFAULT_NAME


def _meta_name(source: str) -> object:
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    for statement in module.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if any(isinstance(target, ast.Name) and target.id == "meta" for target in targets):
            try:
                value = ast.literal_eval(statement.value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                return None
            return value.get("name") if isinstance(value, dict) else None
    return None


def write_draft(workspace: str | os.PathLike, source: str) -> Path:
    """Write `source` as a new draft (or find the identical one) and return its absolute path."""
    directory = drafts_dir(workspace).resolve()
    stem = draft_name(source)
    data = source.encode("utf-8")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        ignore = directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n", encoding="utf-8")
        for number in range(1, MAX_DRAFTS_PER_NAME + 1):
            path = directory / (f"{stem}.dwf.py" if number == 1 else f"{stem}-{number}.dwf.py")
            try:
                with open(path, "xb") as handle:  # exclusive: never clobber a draft being edited
                    handle.write(data)
                return path
            except FileExistsError:
                if same_content(path, data):
                    return path
    except OSError as error:
        raise DraftError(f"cannot write the draft in {directory}: {error.strerror or error}") from None
    raise DraftError(f"there are already {MAX_DRAFTS_PER_NAME} drafts named {stem} in {directory}; "
                     "delete the old ones")


__all__ = ["DraftError", "draft_name", "drafts_dir", "write_draft"]
