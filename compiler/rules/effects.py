"""This module defines the catalogue entries for the facade and its effects (DWF3xx): site
identity, commands, phases, actors, artifacts, reports and awaits."""

from .base import Rule


class FacadeAsValue(Rule):
    """
    ## What it does
    Reports a facade function used as a value instead of being called directly: aliasing
    (`read = files.read`), passing it as an argument (`map(log, xs)`), `functools.partial`,
    storing it in a container, or returning it.

    ## Why is this bad?
    Every facade call gets a site ID at compile time, and the journal keys each effect by that
    ID. A call through an alias has no site, so it could not be journaled, resumed or shown on
    the plan.

    ## Example
    ```python
    read = files.read
    texts = [await read(p) for p in paths]
    ```

    ## Use instead
    ```python
    texts = [await files.read(p) for p in paths]
    ```
    Binding a container is fine: `f = files; await f.read(p)`.
    """

    code = "DWF301"
    name = "facade-as-value"
    message = "The facade function `{name}` may only be called directly"
    help = "call `{name}(...)` where you need it; a call through an alias has no site ID, so it cannot be journaled"


class FacadeSubscript(Rule):
    """
    ## What it does
    Reports reaching a facade member through a subscript (`files["read"]`) or another dynamic
    lookup.

    ## Why is this bad?
    The compiler must see which facade member is called to give the call a site ID and show it
    on the plan.

    ## Example
    ```python
    op = "read"
    text = await files[op]("README.md")
    ```

    ## Use instead
    ```python
    text = await files.read("README.md")
    ```
    """

    code = "DWF302"
    name = "facade-subscript"
    message = "Facade members cannot be reached by subscript"
    help = "call the member by name, e.g. `files.read(...)`"


class CommandNotLiteral(Rule):
    """
    ## What it does
    Reports `world.run` calls whose first argument (the command) is not a plain string literal.

    ## Why is this bad?
    The set of commands a workflow may execute is fixed at compile time and approved by a
    person before the run; at run time any other command is refused. A computed command cannot
    be approved.

    ## Example
    ```python
    tool = "pytest" if python else "npm"
    await world.run(tool, ["test"])
    ```

    ## Use instead
    ```python
    if python:
        await world.run("pytest", ["-q"])
    else:
        await world.run("npm", ["test"])
    ```
    """

    code = "DWF303"
    name = "command-not-literal"
    message = "`world.run` needs the command as a string literal"
    help = "write the command name literally (e.g. `world.run(\"pytest\", [...])`) and pass runtime values in the args list"


class InvalidCommand(Rule):
    """
    ## What it does
    Reports a literal `world.run` command that is empty, contains whitespace or shell syntax
    (`|`, `;`, `&`, `>`, `<`, `$`, backticks).

    ## Why is this bad?
    Commands run without a shell: `"pytest -q"` would look for a program literally named
    `pytest -q`. Arguments belong in the args list.

    ## Example
    ```python
    await world.run("pytest -q | tail")
    ```

    ## Use instead
    ```python
    await world.run("pytest", ["-q"])
    ```
    """

    code = "DWF304"
    name = "invalid-command"
    message = "The command {command} {problem}"
    help = "give only the program name as the command and put its arguments in the args list; there is no shell"


class PhaseNameNotLiteral(Rule):
    """
    ## What it does
    Reports a `phase()` whose argument is not a non-empty string literal.

    ## Why is this bad?
    Phases are drawn on the approval screen before anything runs, so their names must be known
    at compile time.

    ## Example
    ```python
    phase(f"Review {path}")
    ```

    ## Use instead
    ```python
    phase("Review changed files")
    ```
    """

    code = "DWF305"
    name = "phase-name-not-literal"
    message = "`phase()` needs a non-empty string literal as its name"
    help = "name the stage with a fixed string; put per-item details in `log()`"


class PhaseNotStatement(Rule):
    """
    ## What it does
    Reports `phase(...)` used inside an expression instead of as a statement of its own.

    ## Why is this bad?
    A phase marks the start of a stage for the rest of the enclosing block; inside an
    expression it has no well-defined extent.

    ## Example
    ```python
    x = phase("Review") or 1
    ```

    ## Use instead
    ```python
    phase("Review")
    x = 1
    ```
    """

    code = "DWF306"
    name = "phase-not-statement"
    message = "`phase()` must stand alone as its own statement"
    help = "put `phase(\"...\")` on its own line before the steps of the stage"


class EmptyPhase(Rule):
    """
    ## What it does
    Warns about a phase with nothing in it: every `phase()` marker of that name is directly
    followed by another marker or by the end of its block. A phase is a progress label, so
    any statement after the marker fills it: asks and commands, but also reads, artifacts,
    reports or pure logic.

    ## Why is this bad?
    An empty phase shows on the approval screen and in progress output as a stage in which
    nothing happens; usually a marker was left behind, or the statements it was meant to
    label went to another place.

    ## Example
    ```python
    phase("Collect")
    phase("Review")
    reviews = await parallel(agent(f"r-{p}").ask(f"Review {p}.") for p in changed)
    ```

    ## Use instead
    ```python
    phase("Collect")
    changed = await git.changed_files()
    phase("Review")
    reviews = await parallel(agent(f"r-{p}").ask(f"Review {p}.") for p in changed)
    ```
    """

    code = "DWF307"
    name = "empty-phase"
    severity = "warning"
    message = "The phase \"{name}\" is empty: no statement follows its marker"
    help = "put the statements of that stage after the marker, or remove the `phase()` marker"


class PhasesDisagreeWithMeta(Rule):
    """
    ## What it does
    Reports disagreement between `meta["phases"]` and the `phase()` markers in the script: a
    title listed in meta with no marker, or a marker whose name meta does not list.

    ## Why is this bad?
    Host UIs show `meta["phases"]` before compiling; when it disagrees with the script the
    person approves a plan that is not the one that runs.

    ## Example
    ```python
    meta = {"name": "x", "description": "y", "phases": [{"title": "Review"}]}
    phase("Reviewing")
    ```

    ## Use instead
    Use the same titles in both places.
    """

    code = "DWF308"
    name = "phases-disagree-with-meta"
    message = "{detail}"
    help = "{hint}"


class MissingPhases(Rule):
    """
    ## What it does
    Warns when a script makes asks but has no `phase()` markers at all.

    ## Why is this bad?
    Without phases the approval screen shows one flat list of steps; with them a person can
    see the stages of the work at a glance and follow progress.

    ## Example
    ```python
    reviews = await parallel(agent(f"r-{p}").ask(f"Review {p}") for p in changed)
    ```

    ## Use instead
    ```python
    phase("Review changed files")
    reviews = await parallel(agent(f"r-{p}").ask(f"Review {p}") for p in changed)
    ```
    """

    code = "DWF309"
    name = "missing-phases"
    severity = "warning"
    message = "This script makes asks but marks no phases"
    help = "add `phase(\"...\")` statements so the plan shows the stages of the work"


class DuplicateActorName(Rule):
    """
    ## What it does
    Reports two `agent()` calls with the same literal name.

    ## Why is this bad?
    An actor name is an identity, unique within a run: an amended run matches cached work by
    actor name. Two actors with one name would fail the run with `DuplicateActorName`.

    ## Example
    ```python
    a = agent("reviewer")
    b = agent("reviewer")
    ```

    ## Use instead
    ```python
    a = agent("reviewer-backend")
    b = agent("reviewer-frontend")
    ```
    """

    code = "DWF310"
    name = "duplicate-actor-name"
    message = "Two actors are named \"{name}\" (the first is on line {first_line})"
    help = "give each actor its own name, or drop the name: anonymous actors are allowed"


class LiteralActorNameInLoop(Rule):
    """
    ## What it does
    Reports an `agent()` with a literal name inside a loop, a comprehension or a fan-out, or
    inside a script function that runs more than once: one called in a loop, a comprehension or
    a join, called from two places, passed as a value (a `pipeline` stage, a `map` callback), or
    called by such a function.

    ## Why is this bad?
    The call runs once per element, so the second element would create a second actor with the
    same name and fail the run with `DuplicateActorName`, after the asks before it were paid for.

    ## Example
    ```python
    for path in changed:
        await agent("reviewer").ask(f"Review {path}")
    ```

    ## Use instead
    ```python
    for path in changed:
        await agent(f"reviewer-{path}").ask(f"Review {path}")
    ```
    """

    code = "DWF311"
    name = "literal-actor-name-in-loop"
    message = "This `agent()` runs {where} but its name \"{name}\" is a fixed string"
    help = "build a per-item name such as f\"{name}-{{item}}\", create the actor before the loop, or drop the name"


class InvalidArtifactId(Rule):
    """
    ## What it does
    Reports an artifact id that is not a string literal matching `^[A-Za-z0-9_.-]{1,64}$`.

    ## Why is this bad?
    Artifact ids name deliverables and dashboards on the approval screen and in the artifact
    store; they must be known before the run and safe as file names.

    ## Example
    ```python
    await artifact.markdown(f"report-{day}", text)
    ```

    ## Use instead
    ```python
    await artifact.markdown("report", text)
    ```
    """

    code = "DWF312"
    name = "invalid-artifact-id"
    message = "{detail}"
    help = "use a string literal of letters, digits, `_`, `.` or `-` (at most 64 characters)"


class ArtifactKindConflict(Rule):
    """
    ## What it does
    Reports one artifact id used with two different kinds (for example `artifact.table` and
    `artifact.markdown`).

    ## Why is this bad?
    An id names one deliverable of one kind; publishing another kind under it would make its
    versions incomparable.

    ## Example
    ```python
    artifact.table("summary", {...})
    await artifact.markdown("summary", text)
    ```

    ## Use instead
    Give each deliverable its own id.
    """

    code = "DWF313"
    name = "artifact-kind-conflict"
    message = "The artifact \"{id}\" is used with two kinds: `artifact.{first}` on line {first_line} and `artifact.{second}` here"
    help = "give each deliverable its own id"


class DashboardNotTopLevel(Rule):
    """
    ## What it does
    Reports a dashboard declaration (`artifact.chart`, `table`, `metrics`, `board`) inside a
    function, loop or branch.

    ## Why is this bad?
    Dashboards are declared once and fed by `report(item, artifact=id)`; the plan shows them
    before the run, which needs a single unconditional declaration.

    ## Example
    ```python
    for area in areas:
        artifact.table("findings", {"columns": ["path"]})
    ```

    ## Use instead
    ```python
    artifact.table("findings", {"columns": ["path"]})
    ```
    """

    code = "DWF314"
    name = "dashboard-not-top-level"
    message = "Dashboard declarations must be at the top level, not inside {context}"
    help = "declare the dashboard once at the top level and feed it with `report(item, artifact=...)`"


class MultiplePrimaryArtifacts(Rule):
    """
    ## What it does
    Reports a second artifact id marked `primary=True`.

    ## Why is this bad?
    A run has one primary deliverable, the one a host shows first.

    ## Example
    ```python
    await artifact.markdown("summary", text, primary=True)
    await artifact.file("report", "out/report.html", primary=True)
    ```

    ## Use instead
    Mark only one of them primary.
    """

    code = "DWF315"
    name = "multiple-primary-artifacts"
    message = "The artifact \"{id}\" is marked primary, but \"{first}\" already is (line {first_line})"
    help = "a run has one primary deliverable; remove `primary=True` from one of them"


class InvalidReportTag(Rule):
    """
    ## What it does
    Reports a `report(item, artifact=...)` whose tag is not a string literal, names no
    dashboard declared in the script, or names a file/markdown artifact.

    ## Why is this bad?
    Reports are routed to dashboards by id at compile time; a tag that names no dashboard
    would drop the item from every view.

    ## Example
    ```python
    artifact.table("findings", {"columns": ["path"]})
    report(finding, artifact="finding")
    ```

    ## Use instead
    ```python
    report(finding, artifact="findings")
    ```
    """

    code = "DWF316"
    name = "invalid-report-tag"
    message = "{detail}"
    help = "{hint}"


class AwaitableNotAwaited(Rule):
    """
    ## What it does
    Reports an awaitable (an ask, a facade read, `world.run`, an `async def` call, a
    `parallel`/`gather`/`pipeline`) that can never be awaited: an expression statement without
    `await`, or a variable assigned one and never used.

    ## Why is this bad?
    Awaitables in DWF are lazy: they start only when awaited or handed to
    `parallel`/`gather`/`pipeline`. An awaitable that is never awaited silently does nothing.

    ## Example
    ```python
    fixer.ask("Fix the failing test")
    ```

    ## Use instead
    ```python
    await fixer.ask("Fix the failing test")
    ```
    """

    code = "DWF317"
    name = "awaitable-not-awaited"
    message = "{what} is never awaited, so it never runs"
    help = "add `await`, or hand it to `parallel`/`gather`/`pipeline`"


class ReportNotJson(Rule):
    """
    ## What it does
    Reports `report(item)` (and a returned value) whose item is statically known not to be JSON
    data: a set, an actor, an awaitable, a function, a type.

    ## Why is this bad?
    Reports are journaled and shown to people as JSON; such values cannot be serialized and
    would fail the run.

    ## Example
    ```python
    report({p for p in changed})
    ```

    ## Use instead
    ```python
    report(sorted({p for p in changed}))
    ```
    """

    code = "DWF318"
    name = "report-not-json"
    message = "{what} is not JSON data and cannot be {action}"
    help = "convert it to a list, dict, string or number first"


class FacadeArguments(Rule):
    """
    ## What it does
    Reports a facade call with arguments that do not fit its signature: a missing required
    argument, too many positional arguments, an unknown or repeated keyword.

    ## Why is this bad?
    The run would fail at this call after the effects before it were paid for.

    ## Example
    ```python
    await files.read()
    ```

    ## Use instead
    ```python
    await files.read("README.md")
    ```
    """

    code = "DWF319"
    name = "facade-arguments"
    message = "`{name}()` {problem}"
    help = "the signature is `{signature}`"


class UnknownFacadeMember(Rule):
    """
    ## What it does
    Reports a member that a facade container does not have (`files.write`, `git.push`,
    `world.shell`).

    ## Why is this bad?
    The facade is the only way a script touches the world, and it is read-only apart from
    approved commands; an unknown member is either a typo or a capability DWF does not offer.

    ## Example
    ```python
    await files.write("out.txt", text)
    ```

    ## Use instead
    Ask an agent to write the file, or publish it with `artifact.markdown(...)`.
    """

    code = "DWF320"
    name = "unknown-facade-member"
    message = "`{container}` has no member `{member}`"
    help = "{hint}"


class InvalidAskArgument(Rule):
    """
    ## What it does
    Reports `ask()` options that must be known at compile time but are not: a `label` that is
    not a string or f-string, an `agent(agent_type=...)` or `agent(model=...)` that is not a
    string literal, an `agent(isolation=...)` other than the literal `"worktree"`, and an
    `agent(tools=...)` that is not a literal list of actor tool names (`read_file`, `edit`,
    `Bash`, ...).

    ## Why is this bad?
    Labels, agent types, models, isolation and actor tools are shown on the approval screen
    before anything runs.

    ## Example
    ```python
    await reviewer.ask(text, label=make_label(path))
    ```

    ## Use instead
    ```python
    await reviewer.ask(text, label=f"review {path}")
    ```
    """

    code = "DWF321"
    name = "invalid-ask-argument"
    message = "{detail}"
    help = "{hint}"


class UnknownAgentType(Rule):
    """
    ## What it does
    Warns when `agent(agent_type="name")` names an agent definition that is not found in
    `.dwf/agents/`, `.claude/agents/` or `$DWF_HOME/agents/`.

    ## Why is this bad?
    Starting or planning the run fails when the definition is missing. `dwfc check` may run
    outside the workspace, so here it is only a warning.

    ## Example
    ```python
    reviewer = agent("reviewer", agent_type="code-reviewr")
    ```

    ## Use instead
    Name an existing definition, or create `.dwf/agents/code-reviewer.md`.
    """

    code = "DWF322"
    name = "unknown-agent-type"
    severity = "warning"
    message = "No agent definition named \"{name}\" was found"
    help = "looked in {places}"


class NestedWorkflow(Rule):
    """
    ## What it does
    Reports `workflow(name)` whose name is not a string literal.

    ## Why is this bad?
    The plan must show which saved workflow runs inline, and the nesting depth is checked
    before the run.

    ## Example
    ```python
    await workflow(choice)
    ```

    ## Use instead
    ```python
    await workflow("triage-issues", {"label": "bug"})
    ```
    """

    code = "DWF323"
    name = "workflow-name-not-literal"
    message = "`workflow()` needs the saved workflow's name as a string literal"
    help = "write the name literally; pass runtime values through `args=`"


class NotAwaitable(Rule):
    """
    ## What it does
    Reports `await` applied to a facade call that returns a plain value (`log`, `report`,
    `agent`, `phase`, dashboard declarations, `budget.spent()`).

    ## Why is this bad?
    The value is not awaitable, so the run would fail with a `TypeError` here.

    ## Example
    ```python
    await report(finding)
    ```

    ## Use instead
    ```python
    report(finding)
    ```
    """

    code = "DWF324"
    name = "not-awaitable"
    message = "`{name}()` returns a plain value and cannot be awaited"
    help = "remove the `await`"


class HoleNotSupported(Rule):
    """
    ## What it does
    Reports `hole(...)`, a typed gap filled by the host while the run is live. It is reserved
    in the language (LANGUAGE §9) but not implemented yet.

    ## Why is this bad?
    The runtime cannot fill it, so the run could not finish.

    ## Example
    ```python
    plan = await hole("plan", returns=Plan)
    ```

    ## Use instead
    Ask an agent: `plan = await planner.ask("Make a plan", returns=Plan)`.
    """

    code = "DWF325"
    name = "hole-not-supported"
    message = "`hole()` is reserved but not supported yet"
    help = "ask an agent for the value instead"



class EffectInSnippet(Rule):
    """
    ## What it does
    Reports, in a snippet (`dwfc eval`, the `EvalWorkflowSnippet` tool), an effect that needs a
    run: `agent()`, `.ask()`, `report()`, `artifact.*`, `phase()`, `workflow()`. Scripts are
    never checked for it.

    ## Why is this bad?
    A snippet runs at once for its value, with no agents, no journal and no approval screen, so
    none of these effects has anything to act on; refusing them before anything runs means a
    snippet never half-runs.

    ## Example
    ```python
    files_list = await files.glob("**/*.py")
    summary = await agent("lead").ask(f"Summarize {files_list}")
    ```

    ## Use instead
    Compute the value in the snippet, or run the code as a workflow with `dwfc run`:
    ```python
    return len(await files.glob("**/*.py"))
    ```
    """

    code = "DWF326"
    name = "effect-in-snippet"
    message = "`{call}` cannot be used in a snippet: {why}"


class UnknownTypedDictField(Rule):
    """
    ## What it does
    Reports a keyword argument (or a string key of a dict literal) in a TypedDict constructor
    call, `Issue(file=p, line=3)`, that is not a field the TypedDict (or one of its bases)
    declares.

    ## Why is this bad?
    Calling a TypedDict builds a plain dict, and Python checks nothing at run time: a misspelt
    key is stored as given, and the mistake surfaces later as a `KeyError` or a result that
    fails its schema. Missing fields are not reported: a dict is often filled in step by step.

    ## Example
    ```python
    class Issue(TypedDict):
        file: str
        line: int

    issue = Issue(file="a.py", lin=3)
    ```

    ## Use instead
    ```python
    issue = Issue(file="a.py", line=3)
    ```
    """

    code = "DWF327"
    name = "unknown-typeddict-field"
    message = "`{typeddict}` has no field `{field}`"
    help = "{hint}"


class MissingAwait(Rule):
    """
    ## What it does
    Reports an awaitable used where its result is needed: an ask, an awaitable facade call
    (`files.read`, `files.grep`, `git.*`, `world.run`, ...) or a call of an `async def`, not
    awaited, and then read as a value: an attribute or method (`files.read(p).splitlines()`),
    a subscript, a `for` loop or comprehension over it, an argument of a builtin, of a module
    function or of a facade call, a condition, an operand, an f-string field. It sees names
    bound to awaitables too (`x = a.ask(...)`, then `x["k"]`).

    ## Why is this bad?
    An awaitable is not its result: until it is awaited nothing has run, and using it as a
    value fails at run time (or, in a condition, is always true).

    ## Example
    ```python
    lines = files.read("CHANGELOG.md").splitlines()
    ```

    ## Use instead
    ```python
    lines = (await files.read("CHANGELOG.md")).splitlines()
    ```
    """

    code = "DWF328"
    name = "missing-await"
    message = "`{text}` needs `await` {use}"
    help = "{hint}"


class CommandArgumentNotStr(Rule):
    """
    ## What it does
    Reports an argument of `world.run(cmd, args)` that is known not to be a string: a number
    (`["log", "-n", 3]`), a run argument declared `integer` or `boolean`, the result of `len()`,
    `None`, a list. Arguments of unknown kind are not reported.

    ## Why is this bad?
    A command gets its arguments as strings; DWF does not convert them, and `world.run` raises
    `TypeError` when the run reaches it.

    ## Example
    ```python
    result = await world.run("git", ["log", "-n", args["count"]])
    ```

    ## Use instead
    ```python
    result = await world.run("git", ["log", "-n", str(args["count"])])
    ```
    """

    code = "DWF329"
    name = "command-argument-not-str"
    message = "`world.run` arguments must be strings: `{text}` is {what}"
    help = "{hint}"


class SharedStateInJoin(Rule):
    """
    ## What it does
    Reports a change, inside an item of `parallel`, `gather` or `pipeline`, to a value the items
    share: a top-level list appended to, a dict filled in (even with distinct keys), a set added
    to, an attribute set — directly, in a function the item calls, or through a parameter every
    item is given the same variable for. Changes in an item that never awaits are left alone (such
    an item runs start to end in input order), except in a `pipeline` stage after the first, which
    runs when the stage before it finished.

    ## Why is this bad?
    The items run at once and finish in whatever order their agents answer, so the shared value
    ends up in completion order. A resumed run replays the finished items instantly, in another
    order, and then differs from the run it continues (`InputHashMismatch`), or silently returns
    something else.

    ## Example
    ```python
    summaries = {}

    async def summarize(path):
        summaries[path] = await agent(f"reader-{path}").ask(f"Summarize {path}.")

    await parallel(summarize(p) for p in paths)
    ```

    ## Use instead
    ```python
    async def summarize(path):
        return await agent(f"reader-{path}").ask(f"Summarize {path}.")

    summaries = dict(zip(paths, await parallel(summarize(p) for p in paths)))
    ```
    """

    code = "DWF330"
    name = "shared-state-in-join"
    message = "`{text}` changes `{name}`, which every item of this `{join}` shares{where}: the items finish in any order"
    help = "{hint}"


class IdentityComparison(Rule):
    """
    ## What it does
    Reports `is` and `is not` between values other than `None`, `True` and `False`.

    ## Why is this bad?
    `is` compares object identity. A resumed run reads finished results back from the journal as
    new objects, so two values that were the same object in the original run are different
    objects after a resume, and the script takes another branch than the run it continues.

    ## Example
    ```python
    if summary is previous:
        log("unchanged")
    ```

    ## Use instead
    ```python
    if summary == previous:
        log("unchanged")
    ```
    """

    code = "DWF331"
    name = "identity-comparison"
    message = "`{text}` compares object identity, which a resumed run does not keep"
    help = "compare values with `{equal}` instead of `{op}`; keep `is` for `None`, `True` and `False`"
