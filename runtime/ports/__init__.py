"""The outside world: the port interfaces and their implementations.

- `protocols.py`: the ports (`AgentPort`, `QuestionPort`, ...) and the values that cross them.
- `scripted.py`: the scripted agent port (answers from a fixture file).
- `anthropic.py`: the Anthropic agent port over the Messages API.
- `command.py`: the command agent port (an external CLI agent per turn).
- `actor_tools.py`: the workspace tools an agent port offers a model.
- `agent_definitions.py`: agent definitions (`agent(agent_type="name")` Markdown files).
- `models.py`: `available_models`, what ListModels answers.
- `world.py`: `LocalWorld`, the local WorldPort (file and git reads, approved commands).
- `artifacts.py`: `ArtifactStore`, the ArtifactStore port over a state directory.
- `questions.py`: the file-based QuestionPort.
"""
