"""Mistake: `pathlib` to find the files to work on.

Scripts read the workspace through journaled facade calls, so a resumed run sees the same
files: `await files.glob("src/**/*.py")` lists them and `await files.read(path)` reads one.
"""
from pathlib import Path  # error: DWF205:6  # DWF does not offer `pathlib` (use files.glob)

meta = {"name": "pathlib-glob", "description": "Find the modules without a docstring."}

phase("Scan")
missing = []
for source in Path("src").glob("**/*.py"):
    text = source.read_text()
    if not text.lstrip().startswith('"""'):
        missing.append(str(source))
notes = await agent("writer").ask(f"Write docstrings for {missing}")
return {"missing": missing, "notes": notes}
