"""Mistake: `print()` to show progress.

A script has no stdout a human watches, so `print` is rejected. Use `log(message)`, which sends
a progress line to the person watching the run (and is never journaled).
"""
meta = {"name": "print-instead-of-log", "description": "Summarize the README in three bullets."}

phase("Summarize")
text = await files.read("README.md")
summary = await agent("summarizer").ask(f"Summarize this README in three bullets:\n{text[:8000]}")
print(f"Summary is {len(summary)} characters long")  # error: DWF201:1  # `print` is not available; use log()
return summary
