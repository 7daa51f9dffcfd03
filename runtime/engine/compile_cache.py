"""This module defines the compile cache (`CompileCache`) and `compile_script`, the one way the
runtime compiles a script: a workspace keeps the compile results of the scripts it ran or planned
under `.dwf/cache/`, so running, resuming or planning an unchanged script loads its analyzed
program from one file instead of parsing it (the parser and the lowering are not even imported).

What an entry is. The cached artifact is the whole `CompileResult` of a script compiled as a
script (not a snippet): its diagnostics (warnings are shown again on a hit; a script with errors
is cached too, so `dwfc check` of an unchanged broken file is as quick) and its IR `Program`, as
the IR's own JSON form (`ir.to_json`, read back by `ir.from_json`), never pickle. The file is

    dwf-compile-cache 2 <HMAC-SHA256 of the payload, hex>\\n<payload: JSON, in the script's order>

and the payload repeats what the entry is for: the compiler fingerprint and the sha256 of the
source text. The program's display path is left out (the same text under two names is one
entry) and set again from the caller's path on a hit.

Keys. An entry's file name is the sha256 of the compiler fingerprint and of the source text's
sha256. The fingerprint is `COMPILER_VERSION` plus the name, size and modification time of every
file of `dwf.compiler` and `dwf.grammar`, so a checkout whose compiler changed (without a version
bump) never reads what the old compiler wrote.

Trust. An entry is used only if its HMAC verifies under the user's cache key, a random 32-byte
file `$DWF_HOME/cache.key` (mode 0600, created on first use), and its payload names this
fingerprint and this text. The key lives outside every workspace, so a `.dwf/cache/` that came
with a repository, an archive or another machine (a *foreign* entry) cannot verify, whatever
its checksums say; a truncated, edited or other-version entry fails the same checks. Any failure
is a miss: the script is compiled and the entry written again. Entries are only ever written
whole (`statedir.write_atomic`); past `MAX_ENTRIES` the least recently used are deleted. The
cache is best effort: a folder or key that cannot be read
or written means compiling every time, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import dwf.compiler
import dwf.grammar
from dwf.compiler.version import COMPILER_VERSION

from dwf.runtime.statedir import PRIVATE_MODE, StateDir, dwf_home, write_atomic

if TYPE_CHECKING:
    from dwf.compiler.result import CompileResult

MAGIC = b"dwf-compile-cache 2 "
KEY_NAME = "cache.key"
KEY_BYTES = 32
INTERNAL_ERROR = "DWF901"  # `compiler.rules.internal.InternalError`, named without importing the rules
MAX_ENTRIES = 256  # per workspace: an editor that checks on every save writes an entry per version


class CompileCache:
    """CompileCache(folder, key_file): compile results kept in `folder`, authenticated with the
    key in `key_file` (see the module docstring). Entries are written only while the parent of
    `folder` exists: a workspace's cache lives in its `.dwf/`, and DWF never creates that folder
    just to cache (a refused run, a plan or a check outside a workspace leave no trace)."""

    def __init__(self, folder: Path, key_file: Path) -> None:
        self.folder = Path(folder)
        self.key_file = Path(key_file)

    @classmethod
    def of_workspace(cls, root: str | os.PathLike) -> CompileCache:
        """The cache of the workspace `root` (`.dwf/cache/`), with the user's key."""
        return cls(StateDir(Path(root)).cache, dwf_home() / KEY_NAME)

    def compile(self, text: str, path: str) -> CompileResult:
        """The compile result of `text` named `path`: the cached one when a valid entry exists,
        else a fresh compile, which is then stored."""
        key = self._key() if self.folder.parent.is_dir() else None  # no state folder: no entries, no key
        found = self.load(text, path, key) if key is not None else None
        if found is not None:
            with contextlib.suppress(OSError):  # recently used entries outlive the pruning
                os.utime(self.entry_path(text))
            return found
        from dwf.compiler.compile import compile_source  # deferred: start-up (the front end)

        result = compile_source(text, path)
        if key is not None:
            self.store(text, result, key)
        return result

    def entry_path(self, text: str) -> Path:
        """The file the entry of `text` is kept in."""
        name = hashlib.sha256(f"{fingerprint()}\0{source_sha256(text)}".encode()).hexdigest()
        return self.folder / f"{name}.json"

    def load(self, text: str, path: str, key: bytes) -> CompileResult | None:
        """The cached compile result of `text` (named `path`), or None when there is no entry
        that verifies and describes exactly this text and compiler."""
        try:
            data = self.entry_path(text).read_bytes()
        except OSError:
            return None
        header, _, payload = data.partition(b"\n")
        if not header.startswith(MAGIC) or not hmac.compare_digest(header[len(MAGIC):], _mac(key, payload)):
            return None
        try:
            return _result_from_payload(json.loads(payload), text, path)
        except Exception:  # a verified entry this code cannot read (a bug, not an attack): a miss
            return None

    def store(self, text: str, result: CompileResult, key: bytes) -> None:
        """Keep `result`, the compile result of `text`; a failure to write is ignored. A compiler
        failure (`DWF901`, e.g. a script nested past this thread's recursion limit) is not kept:
        it may not happen again."""
        if any(d.code == INTERNAL_ERROR for d in result.diagnostics):
            return
        try:
            payload = _payload(text, result)
        except ValueError:  # a value JSON cannot carry: such a script is just compiled every time
            return
        try:
            write_atomic(self.entry_path(text), MAGIC + _mac(key, payload) + b"\n" + payload)
            self._prune()
        except OSError:
            pass

    def _prune(self) -> None:
        """Past `MAX_ENTRIES` entries, delete the least recently used down to three quarters of
        it (so that not every store prunes)."""
        entries = [entry for entry in os.scandir(self.folder) if entry.name.endswith(".json")]
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda entry: entry.stat().st_mtime_ns, reverse=True)
        for entry in entries[MAX_ENTRIES * 3 // 4:]:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)

    def _key(self) -> bytes | None:
        """The user's cache key, created on first use; None when it cannot be read or made."""
        try:
            key = self.key_file.read_bytes()
        except FileNotFoundError:
            try:  # of two processes creating it at once, one wins and both use its key
                write_atomic(self.key_file, os.urandom(KEY_BYTES), exclusive=True, mode=PRIVATE_MODE)
                key = self.key_file.read_bytes()
            except OSError:
                return None
        except OSError:
            return None
        return key if len(key) == KEY_BYTES else None


def compile_script(script: str | bytes, path: str, cache: CompileCache | None = None) -> CompileResult:
    """Compile `script` (text, or a file's bytes) named `path`, through `cache` when given."""
    if isinstance(script, bytes):
        try:
            script = script.decode("utf-8")
        except UnicodeDecodeError:
            from dwf.compiler.compile import compile_bytes  # deferred: start-up (the front end)

            return compile_bytes(script, path)  # its diagnostic says where the bad byte is
    if cache is not None:
        return cache.compile(script, path)
    from dwf.compiler.compile import compile_source  # deferred: start-up (the front end)

    return compile_source(script, path)


def source_sha256(text: str) -> str:
    """The sha256 of a script's text (UTF-8), as an entry records it."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


@cache
def fingerprint() -> str:
    """The compiler fingerprint: its version and the name, size and mtime of each of its files
    (the packages' folders are listed; importing them runs nothing of the compiler)."""
    digest = hashlib.sha256(COMPILER_VERSION.encode())
    for package in (dwf.compiler, dwf.grammar):
        top = os.path.dirname(package.__file__)
        for folder, subfolders, files in sorted(os.walk(top)):
            subfolders[:] = [name for name in subfolders if name != "__pycache__"]
            for name in sorted(files):
                if name.endswith((".py", ".lark", ".json")):
                    stat = os.stat(os.path.join(folder, name))
                    digest.update(f"{os.path.relpath(folder, top)}/{name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return f"{COMPILER_VERSION}+{digest.hexdigest()[:32]}"


def _mac(key: bytes, payload: bytes) -> bytes:
    return hmac.new(key, payload, hashlib.sha256).hexdigest().encode()


def _payload(text: str, result: CompileResult) -> bytes:
    from dwf.compiler.ir import to_json  # deferred: start-up

    program = None
    if result.program is not None:
        program = to_json(result.program)
        program["path"] = ""
    data = {"fingerprint": fingerprint(), "source_sha256": source_sha256(text),
            "diagnostics": [d.to_json() for d in result.diagnostics], "program": program}
    # Not canonical (sorted) JSON: the order of meta's args, phases and schema properties is the
    # script's, and a hit must give exactly what a compile gives. The HMAC covers these bytes.
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def _result_from_payload(data: dict, text: str, path: str) -> CompileResult | None:
    """The compile result an entry's payload describes, or None when it is about another text
    or compiler."""
    if data["fingerprint"] != fingerprint() or data["source_sha256"] != source_sha256(text):
        return None
    from dwf.compiler.diagnostics import Diagnostic  # deferred: start-up
    from dwf.compiler.result import CompileResult  # deferred: start-up
    from dwf.compiler.ir import Program, from_json  # deferred: start-up
    from dwf.compiler.source import SourceFile  # deferred: start-up

    source = SourceFile(path, text.lstrip("\ufeff"))  # as `compile_source` names its text
    program = None
    if data["program"] is not None:
        program = from_json({**data["program"], "path": path})
        if not isinstance(program, Program) or program.source_sha256 != source.sha256:
            return None
    diagnostics = [Diagnostic.from_json(item) for item in data["diagnostics"]]
    if (program is None) != any(d.is_error for d in diagnostics):
        return None
    return CompileResult(source, diagnostics, program)
