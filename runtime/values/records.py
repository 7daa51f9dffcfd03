"""This module defines records: the read-only structured values facade calls return
(`RunResult`, `GrepMatch`, `GitStatus`, `GitCommit`, `ArtifactRef`). A record exposes its fields
as attributes, serializes as a JSON object, and is rebuilt from the journal's JSON form."""

from __future__ import annotations

from typing import Any

from dwf.grammar.facade import RECORDS


class Record:
    """Record: a read-only value a facade call returns (`RunResult`, `GrepMatch`, `GitStatus`,
    ...), with the fields grammar/facade.py declares for its type."""

    __slots__ = ("type_name", "fields")

    def __init__(self, type_name: str, **fields: Any):
        expected = RECORDS[type_name]
        if tuple(fields) != expected:
            fields = {name: fields[name] for name in expected}
        object.__setattr__(self, "type_name", type_name)
        object.__setattr__(self, "fields", fields)

    def __setattr__(self, name, value):
        raise AttributeError("records are read-only")

    def get(self, name: str) -> Any:
        return self.fields[name]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and other.type_name == self.type_name and other.fields == self.fields

    def __hash__(self) -> int:
        return hash((self.type_name, tuple(self.fields.items())))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"{self.type_name}({inner})"

    def to_json(self) -> dict:
        """The JSON object a script sees when it returns or reports the record."""
        return {name: _plain(value) for name, value in self.fields.items()}

    def to_journal(self) -> dict:
        """The tagged JSON form stored in the journal, from which `from_journal` rebuilds it."""
        return {"$record": self.type_name, **{k: _journal(v) for k, v in self.fields.items()}}

    @staticmethod
    def from_journal(data: Any) -> Any:
        if isinstance(data, dict):
            if "$record" in data:
                fields = {k: Record.from_journal(v) for k, v in data.items() if k != "$record"}
                return Record(data["$record"], **fields)
            return {k: Record.from_journal(v) for k, v in data.items()}
        if isinstance(data, list):
            return [Record.from_journal(v) for v in data]
        return data


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _journal(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_journal()
    if isinstance(value, (list, tuple)):
        return [_journal(v) for v in value]
    return value


def to_journal(value: Any) -> Any:
    """Journal form of any value a world port returns (records nested in lists included)."""
    return _journal(value)


def run_result(exit_code: int, stdout: str, stderr: str) -> Record:
    return Record("RunResult", exit_code=exit_code, stdout=stdout, stderr=stderr)


def grep_match(path: str, line: int, text: str) -> Record:
    return Record("GrepMatch", path=path, line=line, text=text)


def git_status(branch: str | None, clean: bool, staged: list[str], unstaged: list[str], untracked: list[str]) -> Record:
    return Record("GitStatus", branch=branch, clean=clean, staged=staged, unstaged=unstaged, untracked=untracked)


def git_commit(hash: str, subject: str, author: str, date: str) -> Record:
    return Record("GitCommit", hash=hash, subject=subject, author=author, date=date)


def artifact_ref(id: str, version: int) -> Record:
    return Record("ArtifactRef", id=id, version=version)
