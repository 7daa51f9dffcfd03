"""Research a technical decision from several angles in parallel, then synthesize a recommendation.

A scoping ask splits the question into research topics; one researcher per topic
(`f"researcher-{i}"`) returns a typed brief with evidence; a synthesizer weighs all the briefs
and returns a typed recommendation. Failed topics are listed as gaps, not silently dropped.

Shows: args with defaults, a typed list result (`returns=list[Topic]`) driving a fan-out whose
size is known only at run time, `enumerate` in a generator handed to `parallel()`, `None` for
failed asks, nested TypedDicts, `Annotated`, `Optional`, and a synthesis over all results.
"""
from typing import Annotated, Literal, Optional, TypedDict

import json

meta = {
    "name": "research-synthesis",
    "description": "Split a technical question into topics, research each in parallel, then "
    "synthesize one recommendation.",
    "when_to_use": "Before an architecture decision record: replacing a dependency, choosing a "
    "storage engine, adopting a framework.",
    "args": {
        "question": {"type": "string", "description": "The decision to research, as a question.",
                     "default": "Should we replace our Celery + Redis job queue with a "
                     "Postgres-backed queue such as procrastinate?"},
        "max_topics": {"type": "integer", "description": "Upper bound on research topics.", "default": 5},
    },
    "phases": [
        {"title": "Scope the question", "detail": "Split the question into independent research topics."},
        {"title": "Research each topic", "detail": "One researcher per topic, in parallel."},
        {"title": "Synthesize", "detail": "Weigh the briefs and write a recommendation."},
    ],
}


class Topic(TypedDict):
    title: str
    question: Annotated[str, "The precise question the researcher must answer."]
    look_at: Annotated[list[str], "Files, directories or systems worth inspecting."]


class Evidence(TypedDict):
    claim: str
    source: Annotated[str, "A file path with line, a documentation URL, or 'experience'."]
    strength: Literal["weak", "moderate", "strong"]


class Brief(TypedDict):
    """What one researcher found about one topic."""
    answer: str
    evidence: list[Evidence]
    risks: list[str]
    open_questions: list[str]
    effort_days: Optional[float]
    "Rough engineering effort if this topic implies work; null if not applicable."


class Recommendation(TypedDict):
    decision: Literal["adopt", "trial", "hold", "reject"]
    rationale: str
    top_risks: list[str]
    next_steps: list[str]
    confidence: Literal["low", "medium", "high"]


phase("Scope the question")
question = args["question"]
topics = await agent("scoper", system="You plan technical research. Topics must not overlap.").ask(
    f"Decision to research: {question}\n\n"
    f"Split it into at most {args['max_topics']} independent research topics (for example: "
    "current usage in this codebase, operational cost, failure modes, migration path, team "
    "familiarity). Point each topic at the files or systems worth inspecting.",
    returns=list[Topic],
)
topics = topics[: args["max_topics"]]
log(f"Researching {len(topics)} topics: {', '.join(t['title'] for t in topics)}")

phase("Research each topic")
briefs = await parallel(
    agent(f"researcher-{i}", system="You are a careful staff engineer. Say which claims you "
          "verified in the code and which come from experience.", tools=["read", "list", "grep"]).ask(
        f"Overall decision: {question}\nYour topic: {topic['title']}\n"
        f"Question: {topic['question']}\n"
        f"Start by inspecting: {', '.join(topic['look_at']) or 'whatever is relevant'}\n"
        "Answer in a few sentences, back every claim with evidence, and list the risks and the "
        "questions you could not settle.",
        returns=Brief, label=f"research: {topic['title']}",
    )
    for i, topic in enumerate(topics)
)

covered, gaps = [], []
for topic, brief in zip(topics, briefs):
    if brief is None:
        gaps.append(topic["title"])
    else:
        covered.append({"topic": topic["title"], "brief": brief})
        report({"topic": topic["title"], "answer": brief["answer"], "risks": brief["risks"]})
if not covered:
    raise WorkflowError("every research topic failed; nothing to synthesize")

phase("Synthesize")
effort = sum(c["brief"]["effort_days"] or 0 for c in covered)
synthesizer = agent("synthesizer", system="You write decision records. You weigh evidence "
                    "by strength and say what would change your mind.")
recommendation = await synthesizer.ask(
    f"Decision: {question}\n\n"
    f"Research briefs (JSON):\n{json.dumps(covered, indent=2)}\n\n"
    f"Topics that could not be researched: {', '.join(gaps) or 'none'}.\n"
    f"Summed effort estimates: {effort:.1f} engineer-days.\n\n"
    "Recommend adopt, trial, hold or reject. Lower your confidence for every gap and for "
    "conclusions that rest only on weak evidence.",
    returns=Recommendation, label="recommendation",
)
log(f"Recommendation: {recommendation['decision']} ({recommendation['confidence']} confidence)")

return {"question": question, "recommendation": recommendation, "gaps": gaps,
        "topics": [c["topic"] for c in covered], "effort_days": effort}
