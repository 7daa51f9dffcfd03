"""This module defines the facade registry: every script-visible facade container and member,
the kind of site each call gets, whether it returns an awaitable, and its argument shape.

The compiler reads these rows to recognise facade calls (after name resolution), to mint site
IDs and to check arguments; the runtime reads them to dispatch. Adding a facade member is adding
a row here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Signature:
    positional: tuple[str, ...] = ()  # parameter names that may be passed by position
    required: int = 0  # how many of `positional` are required
    keyword_only: tuple[str, ...] = ()
    variadic: str | None = None  # name of a `*rest` parameter, if any

    def render(self, name: str) -> str:
        parts = [p if i < self.required else f"{p}=..." for i, p in enumerate(self.positional)]
        if self.variadic:
            parts.append(f"*{self.variadic}")
        elif self.keyword_only:
            parts.append("*")
        parts += [f"{k}=..." for k in self.keyword_only]
        return f"{name}({', '.join(parts)})"


@dataclass(frozen=True, slots=True)
class Member:
    container: str  # "" for top-level functions; "Agent" for methods of actor handles
    name: str
    site_kind: str | None  # actor|ask|read|run|report|artifact|join|workflow|hole, or None
    awaitable: bool
    signature: Signature
    returns: str | None = None  # record type name, when the result is a record
    summary: str = ""

    @property
    def qualified(self) -> str:
        return f"{self.container}.{self.name}" if self.container else self.name


def _m(container, name, kind, awaitable, positional=(), required=0, keyword_only=(),
       variadic=None, returns=None, summary=""):
    return Member(container, name, kind, awaitable,
                  Signature(tuple(positional), required, tuple(keyword_only), variadic),
                  returns, summary)


MEMBERS: tuple[Member, ...] = (
    _m("", "agent", "actor", False, ("name", "system"), 0, ("model", "agent_type", "isolation", "tools"),
       summary="create an actor"),
    _m("Agent", "ask", "ask", True, ("instructions",), 1, ("returns", "label"),
       summary="assign one task to an actor"),
    _m("", "phase", None, False, ("name",), 1, summary="start a stage"),
    _m("", "log", None, False, ("message",), 1, summary="a progress line"),
    _m("", "report", "report", False, ("item", "artifact"), 1, summary="publish a result"),
    _m("", "parallel", "join", True, ("awaitables",), 1, summary="run concurrently, failures become None"),
    _m("", "gather", "join", True, (), 0, variadic="awaitables", summary="run concurrently, strict"),
    _m("", "pipeline", "join", True, ("items",), 1, variadic="stages", summary="stream items through stages"),
    _m("", "workflow", "workflow", True, ("name", "args"), 1, summary="run a saved workflow inline"),
    _m("", "hole", "hole", True, ("name",), 1, ("returns", "prompt"), summary="a typed gap (reserved)"),
    _m("files", "glob", "read", True, ("pattern",), 1, summary="list workspace files"),
    _m("files", "read", "read", True, ("path",), 1, summary="read a workspace file"),
    _m("files", "grep", "read", True, ("pattern", "glob"), 1, returns="GrepMatch",
       summary="search workspace files"),
    _m("git", "changed_files", "read", True, ("base",), 0, summary="files changed since a ref"),
    _m("git", "diff", "read", True, ("base", "path"), 0, summary="a diff"),
    _m("git", "status", "read", True, returns="GitStatus", summary="the working tree status"),
    _m("git", "log", "read", True, ("count",), 0, returns="GitCommit", summary="recent commits"),
    _m("git", "worktree", "read", True, ("actor",), 1, returns="GitWorktree",
       summary="what an isolated actor changed in its worktree"),
    _m("world", "run", "run", True, ("cmd", "args"), 1, ("timeout_s",), returns="RunResult",
       summary="run an approved command"),
    _m("artifact", "file", "artifact", True, ("id", "path"), 2, ("title", "description", "primary"),
       returns="ArtifactRef", summary="publish a workspace file"),
    _m("artifact", "markdown", "artifact", True, ("id", "content"), 2,
       ("title", "description", "primary"), returns="ArtifactRef", summary="publish Markdown"),
    *(
        _m("artifact", kind, "artifact", False, ("id", "spec"), 2, summary=f"declare a {kind} dashboard")
        for kind in ("chart", "table", "metrics", "board")
    ),
    _m("budget", "spent", None, False, summary="output tokens spent"),
    _m("budget", "remaining", None, False, summary="output tokens left (None without a budget)"),
)

# Top-level facade names: functions, containers and values.
CONTAINERS = ("files", "git", "world", "artifact", "budget")
VALUES = ("args",)  # read-only data
# Plain attributes of containers (not calls).
CONTAINER_ATTRIBUTES = {"budget": ("total",)}

DASHBOARD_KINDS = ("chart", "table", "metrics", "board")
CONTENT_ARTIFACT_KINDS = ("file", "markdown")

BY_QUALIFIED: dict[str, Member] = {m.qualified: m for m in MEMBERS}
FUNCTIONS: dict[str, Member] = {m.name: m for m in MEMBERS if m.container == ""}
FACADE_NAMES: frozenset[str] = frozenset(FUNCTIONS) | frozenset(CONTAINERS) | frozenset(VALUES)


def members_of(container: str) -> dict[str, Member]:
    return {m.name: m for m in MEMBERS if m.container == container}


# Records returned by facade calls: field names in order.
RECORDS: dict[str, tuple[str, ...]] = {
    "RunResult": ("exit_code", "stdout", "stderr"),
    "GrepMatch": ("path", "line", "text"),
    "GitStatus": ("branch", "clean", "staged", "unstaged", "untracked"),
    "GitCommit": ("hash", "subject", "author", "date"),
    "ArtifactRef": ("id", "version"),
    "GitWorktree": ("actor", "branch", "base", "head", "changed_files", "diff"),
}
# Attributes of actor handles besides `ask`.
AGENT_ATTRIBUTES = ("name",)

SITE_KINDS = ("actor", "ask", "read", "run", "report", "artifact", "join", "workflow", "hole")

# The type of each member's result (after `await` for an awaitable member), for the compiler's
# kind inference (`compiler.checks.kinds`): a builtin type, a record type, `list[...]`, or "" where it
# is not fixed (an ask's result is its `returns=` type, or `str`).
RESULT_TYPES: dict[str, str] = {
    "agent": "Agent", "phase": "", "log": "", "report": "",
    "parallel": "list", "gather": "list", "pipeline": "list", "workflow": "", "hole": "",
    "files.glob": "list[str]", "files.read": "str", "files.grep": "list[GrepMatch]",
    "git.changed_files": "list[str]", "git.diff": "str", "git.status": "GitStatus",
    "git.log": "list[GitCommit]", "git.worktree": "GitWorktree", "world.run": "RunResult",
    "artifact.file": "ArtifactRef", "artifact.markdown": "ArtifactRef",
    "artifact.chart": "", "artifact.table": "", "artifact.metrics": "", "artifact.board": "",
    "budget.spent": "int", "budget.remaining": "",
}
# The type of each record field, in the same notation (`GitStatus.branch` is None when detached).
RECORD_FIELD_TYPES: dict[str, dict[str, str]] = {
    "RunResult": {"exit_code": "int", "stdout": "str", "stderr": "str"},
    "GrepMatch": {"path": "str", "line": "int", "text": "str"},
    "GitStatus": {"branch": "", "clean": "bool", "staged": "list[str]", "unstaged": "list[str]",
                  "untracked": "list[str]"},
    "GitCommit": {"hash": "str", "subject": "str", "author": "str", "date": "str"},
    "ArtifactRef": {"id": "str", "version": "int"},
    "GitWorktree": {"actor": "str", "branch": "str", "base": "str", "head": "str", "changed_files": "list[str]",
                    "diff": "str"},
}
# Keywords models pass that a member does not take, with what to write instead (a close
# match is suggested for any other unknown keyword).
_NO_SHELL = "there is no shell: pass the arguments as a list, `world.run(\"git\", [\"log\", \"-1\"])`"
KEYWORD_HINTS: dict[str, dict[str, str]] = {
    "world.run": {
        "check": "a nonzero exit is a normal result: test `result.exit_code` and `raise` yourself",
        "capture_output": "output is always captured: read `result.stdout` and `result.stderr`",
        "text": "output is always text (`str`)", "shell": _NO_SHELL, "timeout": "did you mean `timeout_s`?",
        "cwd": "commands run in the workspace root; pass paths relative to it",
        "env": "the environment is sanitized; pass what the command needs as arguments",
    },
    "Agent.ask": {
        "schema": "did you mean `returns`?", "response_format": "did you mean `returns`?",
        "output": "did you mean `returns`?", "model": "set the model on the actor: `agent(name, model=...)`",
        "system": "set the system prompt on the actor: `agent(name, system=...)`",
    },
    "agent": {"instructions": "did you mean `system`?", "prompt": "did you mean `system`?",
              "role": "did you mean `system`?", "allowed_tools": "did you mean `tools`?",
              "allowedTools": "did you mean `tools`?", "worktree": "write `isolation=\"worktree\"`"},
    "gather": {"return_exceptions": "`parallel([...])` runs them all and turns failures into `None`"},
    "files.read": {"encoding": "files are read as UTF-8 text"},
    "log": {"level": "`log()` takes one message; put the level in the text"},
    "git.log": {"limit": "did you mean `count`?", "n": "did you mean `count`?", "max_count": "did you mean `count`?"},
}

# agent(isolation=...): the one isolation there is (an own git worktree of the workspace's HEAD).
ISOLATIONS = ("worktree",)
# agent(tools=[...]): the actor tools (runtime.ports.actor_tools) and the names a script may use
# for them: the tool's own name, a short name, or the Claude Code name (as in agent definitions).
ACTOR_TOOLS = ("read_file", "list_files", "grep", "write_file", "edit_file", "run_command")
FILE_WRITING_TOOLS = frozenset({"write_file", "edit_file", "run_command"})  # a command may write files too
ACTOR_TOOL_NAMES: dict[str, str] = {
    **{name: name for name in ACTOR_TOOLS},
    "read": "read_file", "list": "list_files", "glob": "list_files", "write": "write_file", "edit": "edit_file",
    "run": "run_command", "bash": "run_command",
    "Read": "read_file", "Grep": "grep", "Glob": "list_files", "LS": "list_files", "Write": "write_file",
    "Edit": "edit_file", "MultiEdit": "edit_file", "Bash": "run_command",
}
