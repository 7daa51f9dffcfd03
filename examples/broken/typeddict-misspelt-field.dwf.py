"""Mistake: a TypedDict built with a keyword it does not declare.

Calling a TypedDict builds a plain dict and Python checks nothing at run time, so `lin=` would
be stored as given and every later `issue["line"]` would fail with a `KeyError`, after paid
asks. The checker knows the fields and names the one that was meant.
"""
from typing import TypedDict

meta = {"name": "typeddict-misspelt-field", "description": "Review every Python module under src/."}


class Issue(TypedDict):
    path: str
    line: int
    summary: str


phase("Collect files")
paths = await files.glob("src/**/*.py")
log(f"{len(paths)} modules")

phase("Review")
issues = []
for path in paths:
    for match in await files.grep("TODO", glob=path):
        issues.append(Issue(path=match.path, lin=match.line, summary=match.text))  # error: DWF327:46  # `Issue` has no field `lin`
return sorted(issues, key=lambda issue: issue["line"])
