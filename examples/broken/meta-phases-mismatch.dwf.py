"""Mistake: `meta["phases"]` titles that disagree with the `phase()` calls.

When `meta` lists phases, the set of titles must equal the set of `phase()` names used in the
script; here a spelling difference ("Summarise" vs "Summarize") breaks the match both ways.
"""
meta = {
    "name": "meta-phases-mismatch",
    "description": "Review changed files, then summarize the findings.",
    "phases": [
        {"title": "Review", "detail": "One reviewer per changed file."},
        {"title": "Summarise", "detail": "One summary for the pull request."},  # error: DWF308:19  # meta phase "Summarise" has no phase() call
    ],
}

phase("Review")
paths = await git.changed_files()
reviews = await parallel(agent(f"reviewer-{p}").ask(f"Review {p}.") for p in paths)

phase("Summarize")  # error: DWF308:1  # phase "Summarize" is not listed in meta["phases"]
summary = await agent("summarizer").ask("Summarize these reviews:\n" + "\n".join(r for r in reviews if r))
return summary
