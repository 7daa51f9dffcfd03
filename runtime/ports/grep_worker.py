"""This module is the worker process that does the matching of `files.grep`
(`python -I -m dwf.runtime.ports.grep_worker CPU_SECONDS`, started by `world.LocalWorld.grep`).

Python's `re` backtracks, so a pattern such as `(a+)+$` can run for hours inside one C call that
no thread deadline can interrupt; the parent kills this process instead. The worker also caps
its own CPU time (`RLIMIT_CPU` of `CPU_SECONDS`, its first argument), so it cannot outlive a host
that dies without killing it.

Protocol: stdin carries one JSON job `{"pattern", "root", "files": [relpath, ...], "sniff",
"max_matches", "max_bytes"}`; stdout answers `{"matches": [[relpath, line, text], ...]}` or
`{"error": "pattern", "message": ...}` (the pattern does not compile) or `{"error": "matches"}` /
`{"error": "bytes"}` (over a cap: the worker enforces the caps itself so its output stays small).
The parent has walked and confined the file set; the worker opens each file beneath `root`
component by component (`beneath.py`), so a file swapped for a symlink since the walk is never
followed outside; a file is skipped when it no longer resolves inside the workspace to a regular file, when a NUL byte in its first `sniff` bytes marks it as binary, or when it is not UTF-8.

It imports only the standard library and `beneath.py` (itself standard library only): the worker
starts without the rest of DWF.
"""

from __future__ import annotations

import json
import os
import re
import resource
import sys

from dwf.runtime.ports.beneath import Beneath, WorkspacePathError


def search(job: dict) -> dict:
    """The answer to one job (see the module docstring)."""
    try:
        regex = re.compile(job["pattern"])
    except (re.error, OverflowError, RecursionError) as exc:
        return {"error": "pattern", "message": str(exc)}
    with Beneath(job["root"]) as beneath:
        return _search_files(regex, beneath, job)


def _search_files(regex: re.Pattern, beneath: Beneath, job: dict) -> dict:
    matches: list[list] = []
    size = 0
    for relpath in job["files"]:
        try:
            fd = beneath.open_file(relpath.split("/"), relpath)
        except (WorkspacePathError, OSError):
            continue
        found, added, over = [], 0, None
        with os.fdopen(fd, "rb") as handle:
            if b"\0" in handle.read(job["sniff"]):
                continue
            handle.seek(0)
            try:
                for number, raw in enumerate(handle, 1):
                    line = raw.decode("utf-8")
                    if over:
                        continue  # past a cap: only finish checking that the file is text
                    line = line[:-1] if line.endswith("\n") else line
                    line = line[:-1] if line.endswith("\r") else line
                    if regex.search(line):
                        found.append([relpath, number, line])
                        added += len(relpath.encode()) + len(line.encode())
                        if len(matches) + len(found) > job["max_matches"]:
                            over = "matches"
                        elif size + added > job["max_bytes"]:
                            over = "bytes"
            except UnicodeDecodeError:
                continue  # not UTF-8 text: skipped like any binary file
        if over:
            return {"error": over}
        matches += found
        size += added
    return {"matches": matches}


def main(argv: list[str]) -> None:
    """Bound this process's CPU time by `argv[1]` seconds, answer the job on stdin, exit."""
    cpu = int(argv[1])  # bounds the worker by itself, even if its parent dies without killing it
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    sys.stdout.write(json.dumps(search(json.loads(sys.stdin.buffer.read()))))


if __name__ == "__main__":
    main(sys.argv)
