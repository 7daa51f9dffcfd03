"""Mistake: declaring a result type as a plain class (dataclass/pydantic habit).

Only `class X(TypedDict)` declarations are allowed; they become JSON Schemas and the results
stay plain JSON (read fields with `r["severity"]`). Write `class Finding(TypedDict):`.
"""
meta = {"name": "plain-class-result", "description": "List the security problems in the API code."}


class Finding:  # error: DWF406:1  # class declared without TypedDict
    path: str
    severity: str
    summary: str


phase("Audit")
findings = await agent("auditor").ask(
    "Audit src/api/ for security problems.",
    returns=list[Finding],  # error: DWF402:18  # `Finding` is not a TypedDict (no schema)
)
return findings
