"""The outside world: the port interfaces and their implementations. The implementations import
`values/` and `statedir`, and each other only as listed here.

- `protocols.py`: the ports the engine calls (`AgentPort`, `AskChannel`, `WorldPort`,
  `ArtifactPort`, `QuestionPort`) and the values that cross them (`ActorSpec`, `AskRequest`,
  `Verdict`, `Usage`, `AskError`).
- `scripted.py`: the scripted agent port (answers from a fixture file, with scripted tool calls
  through `actor_tools`) and agent specs.
- `anthropic.py`: the Anthropic agent port over the Messages API (uses `actor_tools`,
  `agent_definitions`, `contract`).
- `contract.py`: the actor's contract: its system prompt text and each ask's epilogue.
- `command.py`: the command agent port (an external CLI agent per turn).
- `actor_tools.py`: the workspace tools an agent port offers a model (uses `world`, `process`).
- `worktrees.py`: `GitWorktrees`, the git worktrees of isolated actors (`agent(isolation="worktree")`:
  made, re-attached, snapshotted and removed for the engine), and `check_isolation` (uses `process`,
  `sandbox`).
- `agent_definitions.py`: agent definitions (`agent(agent_type="name")` Markdown files).
- `models.py`: `available_models`, what ListModels answers.
- `world.py`: `LocalWorld`, the local WorldPort (file and git reads, approved commands): paths,
  confinement and caps.
- `beneath.py`: `open_beneath` and `Beneath`, race-free opening of a path beneath the workspace
  root (component by component, `O_NOFOLLOW`).
- `sandbox.py`: `Sandbox`, the bubblewrap sandbox every command starts in, and
  `resolve_program` (the fixed system `PATH`).
- `argument_rules.py`: `check_arguments`, the per-program rules on computed arguments (uses
  `grammar.programs`).
- `process.py`: `run_process`, how a port runs a child process, and the sanitized environment.
- `grep_worker.py`: the worker process that matches `files.grep` patterns
  (`python -I -m dwf.runtime.ports.grep_worker`).
- `artifacts.py`: `ArtifactStore`, the ArtifactPort over a state directory (uses `world`).
- `questions.py`: `FileQuestions`, the file-based QuestionPort, `TerminalQuestions`, and `write_answer`.
- `factory.py`: `open_agent_port` and `parse_agent_spec`, the one place an `--agent` spec becomes a
  port (scripted, Anthropic or command).

The package exports the interfaces and their values. The implementations are imported from their
modules: importing them here would load `anyio`, `jsonschema` and the records into every
process that starts through this package, the grep worker included.
"""

from dwf.runtime.ports.protocols import (NUDGE_MESSAGE, ActorSpec, AgentPort, ArtifactPort, AskChannel, AskError,
                                         AskRequest, QuestionPort, Usage, Verdict, WorldPort)

__all__ = ["NUDGE_MESSAGE", "ActorSpec", "AgentPort", "ArtifactPort", "AskChannel", "AskError", "AskRequest",
           "QuestionPort", "Usage", "Verdict", "WorldPort"]
