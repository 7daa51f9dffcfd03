"""Split a question into sub-questions, research each in parallel, synthesize an answer with citations."""
from typing import TypedDict

meta = {
    "name": "research-fanout",
    "description": "Answer a question about the codebase by researching sub-questions in parallel and synthesizing with citations.",
    "when_to_use": "For broad questions that span several parts of the repository.",
    "args": {
        "question": {"type": "string", "description": "The question to answer.", "required": True},
        "max_subquestions": {"type": "integer", "default": 5},
    },
    "phases": [
        {"title": "Plan"},
        {"title": "Research"},
        {"title": "Synthesize"},
    ],
}


class Plan(TypedDict):
    subquestions: list[str]


class Citation(TypedDict):
    path: str
    line: int
    quote: str


class Finding(TypedDict):
    answer: str
    confidence: float
    "Between 0 and 1."
    citations: list[Citation]


class Answer(TypedDict):
    answer: str
    citations: list[str]
    "Citations as path:line, referenced in the answer as [1], [2], ..."
    open_questions: list[str]


question = args["question"]

phase("Plan")
planner = agent("planner", system="You break broad questions into focused, independent sub-questions.")
plan = await planner.ask(
    f"Break this question about the repository into at most {args['max_subquestions']} "
    f"independent sub-questions that can be researched separately:\n\n{question}",
    returns=Plan,
)
subquestions = [q.strip() for q in plan["subquestions"] if q.strip()][: args["max_subquestions"]]
if not subquestions:
    subquestions = [question]
log(f"{len(subquestions)} sub-questions")

phase("Research")
findings = await parallel(
    agent(f"researcher-{i}", system="You research a codebase and cite exact file locations.").ask(
        f"Research this question by reading the repository:\n\n{q}\n\n"
        "Answer it and cite the files and lines that support your answer.",
        returns=Finding,
        label=f"research: {q[:60]}",
    )
    for i, q in enumerate(subquestions)
)

sections = []
all_citations = []
for i, (q, f) in enumerate(zip(subquestions, findings)):
    if f is None:
        sections.append(f"## Q{i + 1}: {q}\n(research failed)")
        continue
    cites = [f"{c['path']}:{c['line']}" for c in f["citations"]]
    all_citations.extend(cites)
    report({"subquestion": q, "confidence": f["confidence"], "citations": cites})
    cite_text = "\n".join(f"  - {c['path']}:{c['line']}: {c['quote']}" for c in f["citations"])
    sections.append(f"## Q{i + 1}: {q}\nconfidence {f['confidence']:.2f}\n{f['answer']}\nSources:\n{cite_text}")

research_text = "\n\n".join(sections)

phase("Synthesize")
try:
    final = await agent("synthesizer", system="You write precise answers grounded in the evidence given.").ask(
        f"Original question: {question}\n\nResearch notes:\n{research_text[:40000]}\n\n"
        "Write a complete answer. Cite sources inline as [n] and list them in `citations` "
        "in the same order (as path:line). List anything the research could not settle in `open_questions`.",
        returns=Answer,
    )
except AskFailed as error:
    raise WorkflowError(f"synthesis failed: {error}") from error

numbered = "\n".join(f"{n}. {c}" for n, c in enumerate(final["citations"], start=1))
doc = f"# {question}\n\n{final['answer']}\n\n## Sources\n{numbered}\n"
ref = await artifact.markdown("answer", doc, title="Research answer", primary=True)

return {
    "question": question,
    "subquestions": subquestions,
    "answer": final["answer"],
    "citations": final["citations"],
    "open_questions": final["open_questions"],
    "failed": [q for q, f in zip(subquestions, findings) if f is None],
    "artifact": ref.id,
}
