"""Mistake: `import subprocess` to run the tests.

Commands must go through `world.run("pytest", [...])`: a literal command the human approves
before the run starts, journaled so a resumed run replays the result instead of re-running it.
The import is rejected, and so is every use of the module.
"""
import subprocess  # error: DWF204:8  # import of `subprocess` is not allowed (use world.run)

meta = {"name": "import-subprocess", "description": "Run the tests and fix them if they fail."}

phase("Test and fix")
completed = subprocess.run(["pytest", "-q"], capture_output=True, text=True)  # error: DWF204:13  # reference to module `subprocess`
if completed.returncode != 0:
    await agent("fixer").ask(f"The tests fail:\n{completed.stdout[-4000:]}\nFix the code.")
