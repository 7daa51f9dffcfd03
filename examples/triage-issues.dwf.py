"""Triage a team's open issues from an exported JSON file and propose this week's plan.

A saved workflow: `dwfc save examples/triage-issues.dwf.py --scope project`, then
`dwfc run --saved triage-issues --args '{"team": "platform"}'`. Issues come from an export
(`gh issue list --json number,title,body,labels,comments`), since commands run without
credentials. One triager per issue classifies it; a triage lead plans the week. Try it with
`"issues_file": "examples/data/open-issues.json"`.

Shows: `meta["args"]` with a required arg and defaults of every type (string, integer, boolean,
json), the read-only `args` mapping, `files.read` + `json.loads`, `isinstance`, `raise`,
per-issue actors (`f"triager-{issue['number']}"`), `Optional[int]`, `dict[str, int]`, `report()`.
"""
from typing import Annotated, Literal, Optional, TypedDict

import json

meta = {
    "name": "triage-issues",
    "description": "Classify a team's open issues (kind, priority, area, duplicates) and propose "
    "which ones to take on this week.",
    "when_to_use": "Weekly triage meeting prep, or after a release when the issue tracker fills up.",
    "args": {
        "team": {"type": "string", "description": "Team whose backlog this is.", "required": True},
        "issues_file": {"type": "string", "description": "JSON export of the open issues.",
                        "default": "triage/open-issues.json"},
        "limit": {"type": "integer", "description": "Triage at most this many issues.", "default": 30},
        "only_label": {"type": "string", "description": "Only issues with this label ('' for all).",
                       "default": "needs-triage"},
        "areas": {"type": "json", "description": "The team's areas; triagers pick one or 'unknown'.",
                  "default": ["api", "cli", "storage", "docs", "build"]},
        "include_questions": {"type": "boolean", "description": "May questions be scheduled?",
                              "default": False},
    },
    "phases": [
        {"title": "Triage each issue", "detail": "One triager per issue: kind, priority, area, duplicates."},
        {"title": "Plan the week", "detail": "A triage lead picks the issues to take on this week."},
    ],
}


class Triage(TypedDict):
    kind: Literal["bug", "feature", "question", "docs", "chore"]
    priority: Literal["p0", "p1", "p2", "p3"]
    "p0: outage or data loss; p1: broken for many users; p2: normal; p3: nice to have."
    area: str
    duplicate_of: Optional[int]
    needs_info: bool
    summary: Annotated[str, "One sentence restating the problem in the team's words."]
    labels: list[str]


class PlannedIssue(TypedDict):
    number: int
    owner: Literal["anyone", "area-expert", "lead"]
    reason: str


class WeeklyPlan(TypedDict):
    this_week: list[PlannedIssue]
    close_as_duplicate: list[int]
    ask_reporter: list[int]
    load_by_area: dict[str, int]
    note: str


def label_names(issue):
    return [label["name"] for label in issue.get("labels", [])]


phase("Triage each issue")
exported = json.loads(await files.read(args["issues_file"]))
if not isinstance(exported, list):
    raise ValueError(f"{args['issues_file']} must hold a JSON list of issues")
areas = list(args["areas"]) + ["unknown"]
wanted = [i for i in exported if not args["only_label"] or args["only_label"] in label_names(i)]
issues = wanted[: args["limit"]]
log(f"Triaging {len(issues)} of {len(exported)} open issues for team {args['team']}")
index = "\n".join(f"#{i['number']}: {i['title']}" for i in exported[:200])

triages = await parallel(
    agent(f"triager-{issue['number']}", system=f"You triage issues for the {args['team']} team. "
          "Be decisive; when a report cannot be reproduced as written, mark needs_info.").ask(
        f"Issue #{issue['number']}: {issue['title']}\n"
        f"Labels: {', '.join(label_names(issue)) or 'none'}\n"
        f"Comments: {len(issue.get('comments', []))}\n\n"
        f"{issue.get('body', '')[:6000]}\n\n"
        f"Pick the area from: {', '.join(areas)}.\n"
        f"Other open issues, for spotting duplicates:\n{index}",
        returns=Triage, label=f"triage #{issue['number']}",
    )
    for issue in issues
)

triaged = []
for issue, triage in zip(issues, triages):
    if triage is None:
        log(f"Could not triage #{issue['number']}")
        continue
    area = triage["area"] if triage["area"] in areas else "unknown"
    row = {"number": issue["number"], "title": issue["title"], "kind": triage["kind"],
           "priority": triage["priority"], "area": area, "needs_info": triage["needs_info"],
           "duplicate_of": triage["duplicate_of"], "summary": triage["summary"]}
    triaged.append(row)
    report(row)

phase("Plan the week")
schedulable = [t for t in triaged if args["include_questions"] or t["kind"] != "question"]
plan = await agent("triage-lead", system=f"You lead triage for the {args['team']} team.").ask(
    f"Triaged issues (JSON):\n{json.dumps(schedulable, indent=2)}\n\n"
    "Pick at most 8 issues for this week: every p0 first, then p1 bugs, then whatever unblocks "
    "the most users. List duplicates to close and issues where the reporter must add details. "
    "Count this week's issues per area in load_by_area.",
    returns=WeeklyPlan, label="weekly plan",
)

by_priority = {p: sum(1 for t in triaged if t["priority"] == p) for p in ("p0", "p1", "p2", "p3")}
return {"team": args["team"], "triaged": len(triaged), "by_priority": by_priority,
        "this_week": [p["number"] for p in plan["this_week"]], "duplicates": plan["close_as_duplicate"],
        "ask_reporter": plan["ask_reporter"], "load_by_area": plan["load_by_area"], "note": plan["note"]}
