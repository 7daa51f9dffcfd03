"""The approval screen's graphs (`compiler.plan.graphs`): edge kinds of the causal graph and their
typed reduction, the phase graph's sequence/branch/loop edges, the hand-off cards of fan-outs,
the display caps, and deterministic output."""

from planning import edges, graphs_of, plan_of

from dwf.compiler.plan.graph_render import to_dot, to_mermaid, to_text
from dwf.compiler.plan.graphs import Caps
from dwf.compiler.plan.text import render_text


def test_two_asks_on_one_actor_get_a_fifo_edge():
    g = graphs_of('''
        phase("Work")
        writer = agent("writer")
        other = agent("other")
        draft = writer.ask("Draft the text")
        note = other.ask("Write a note")
        first, second = await gather(draft, note)
        await writer.ask("Now shorten it")
    ''')
    assert g.causal.edges["ask#1", "ask#3"]["kind"] == "fifo"
    assert ("ask#2", "ask#3") in edges(g, "seq")
    assert g.lanes["ask#1"] == ("actor#1",) and g.lanes["ask#3"] == ("actor#1",)


def test_a_for_loop_around_an_ask_gets_a_carry_edge():
    g = graphs_of('''
        phase("Work")
        fixer = agent("fixer")
        for attempt in range(3):
            await fixer.ask(f"Attempt {attempt}")
    ''')
    assert edges(g, "carry") == {("ask#1", "ask#1")}
    assert g.causal.edges["ask#1", "ask#1"]["region"] == "loop#1"
    assert g.trace.regions["loop#1"].bound == 3


def test_a_result_read_in_the_next_iteration_is_a_carry_not_a_forward_edge():
    g = graphs_of('''
        phase("Work")
        fixer = agent("fixer")
        result = await world.run("pytest", ["-q"])
        for attempt in range(4):
            await fixer.ask(f"Fix this: {result.stdout}")
            result = await world.run("pytest", ["-q"])
            if result.exit_code == 0:
                break
    ''')
    assert g.causal.edges["run#2", "ask#1"]["kind"] == "carry"
    assert g.causal.edges["run#2", "ask#1"]["via"] == "data"
    assert ("run#1", "ask#1") in edges(g, "data")
    assert ("ask#1", "run#2") in edges(g, "seq")


def test_a_condition_that_reads_a_result_gets_a_control_edge():
    g = graphs_of('''
        phase("Work")
        status = await world.run("git", ["status", "--porcelain"])
        if status.stdout.strip():
            await agent("committer").ask("Write a commit message")
    ''')
    assert edges(g) == {("run#1", "ask#1")}
    assert g.causal.edges["run#1", "ask#1"]["kind"] == "control"
    assert g.causal.nodes["ask#1"]["conditional"] is True


def test_an_early_return_guards_the_rest_of_the_script():
    g = graphs_of('''
        phase("Work")
        check = await world.run("pytest", ["-q"])
        if check.exit_code == 0:
            return "green"
        await agent("fixer").ask("Fix the tests")
    ''')
    assert g.causal.edges["run#1", "ask#1"]["kind"] == "control"
    assert g.phase.nodes["phase#1"]["early_exit"] is True


def test_the_typed_reduction_keeps_data_paths_and_drops_implied_orderings():
    g = graphs_of('''
        phase("Work")
        a = await agent("a").ask("One")
        b = await agent("b").ask(f"Two {a}")
        c = await agent("c").ask(f"Three {a} {b}")
    ''')
    assert edges(g) == {("ask#1", "ask#2"), ("ask#2", "ask#3")}  # ask#1 -> ask#3 follows from the path
    assert ("ask#1", "ask#3") in g.data_edges  # ... and is still listed in the data flow


def test_a_data_edge_is_not_explained_away_by_an_ordering():
    g = graphs_of('''
        phase("Work")
        a = await agent("a").ask("One")
        await agent("b").ask("Two")
        await agent("c").ask(f"Three {a}")
    ''')
    assert g.causal.edges["ask#1", "ask#3"]["kind"] == "data"
    assert ("ask#1", "ask#2") in edges(g, "seq") and ("ask#2", "ask#3") in edges(g, "seq")


def test_phases_in_sequence_branch_and_loop_back():
    g = graphs_of('''
        meta = {"name": "phased", "description": "Phases in a loop and a branch."}
        phase("Prepare")
        todo = await agent("planner").ask("List the topics, one per line")
        for round_number in range(2):
            phase("Write")
            text = await agent(f"writer-{round_number}").ask("Write")
            phase("Check")
            verdict = await agent(f"checker-{round_number}").ask(f"Check {text}")
        if len(todo) > 3:
            phase("Extra")
            await agent("extra").ask("More")
        phase("Finish")
        await agent("finisher").ask("Finish")
    ''')
    titles = {n: a["title"] for n, a in g.phase.nodes(data=True)}
    assert list(titles.values()) == ["Prepare", "Write", "Check", "Extra", "Finish"]
    kinds = {(titles[u], titles[v]): a["kind"] for u, v, a in g.phase.edges(data=True)}
    assert kinds[("Prepare", "Write")] == "sequence"
    assert kinds[("Write", "Check")] == "sequence"
    assert kinds[("Check", "Write")] == "loop"
    assert kinds[("Check", "Extra")] == "branch"  # taken only when the condition holds
    assert kinds[("Check", "Finish")] == "sequence"  # the way past the `if`
    assert kinds[("Extra", "Finish")] == "sequence"
    assert "unphased" not in g.phase


POLL = '''
phase("Poll")
watcher = agent("watcher")
done = False
while not done:
    answer = await watcher.ask("Is the deploy finished? Answer yes or no.")
    done = answer.strip() == "yes"
'''


def test_a_phase_with_a_loop_shows_its_loop_back_edge():
    g = graphs_of(POLL)
    assert list(g.phase.edges(data="kind")) == [("phase#1", "phase#1", "loop")]
    assert edges(g, "carry") == {("ask#1", "ask#1")}
    plan = plan_of(POLL)
    assert plan["phase_edges"] == [{"from": "phase#1", "to": "phase#1", "kind": "loop"}]
    assert "↺ loops within this phase" in render_text(plan)
    assert "loop" in to_dot(g.phase) and "phase#1 -> phase#1 (loop)" not in to_text(g.phase)
    assert "<- phase#1 (loop)" in to_text(g.phase)


def test_unphased_steps_get_their_own_group_and_a_warning():
    plan = plan_of('''
        setup = await files.read("README.md")
        phase("Work")
        await agent("a").ask(f"Summarize {setup}")
    ''')
    assert [p["id"] for p in plan["phases"]] == ["unphased", "phase#1"]
    assert [w["kind"] for w in plan["warnings"]] == ["unphased-step"]


def test_a_literal_fan_out_of_three_yields_three_cards():
    g = graphs_of('''
        phase("Review")
        diff = await git.diff()
        reviews = await parallel(
            agent(f"reviewer-{focus}").ask(f"Review for {focus}: {diff}")
            for focus in ["security", "performance", "style"]
        )
        await agent("lead").ask(f"Merge {reviews}")
    ''')
    cards = [a for _, a in g.handoff.nodes(data=True) if a["lane"] == "actor#1"]
    assert [c["name"] for c in cards] == ["reviewer-security", "reviewer-performance", "reviewer-style"]
    assert [c["element"] for c in cards] == [0, 1, 2]
    lead = "actor#2@phase#1"
    assert all(g.handoff.has_edge(f"actor#1[{i}]@phase#1", lead) for i in range(3))
    assert g.instances["actor#1"] == 3


def test_a_computed_fan_out_yields_one_card_per_item():
    plan = plan_of('''
        phase("Review")
        paths = await git.changed_files()
        await parallel(agent(f"reviewer-{p}").ask(f"Review {p}") for p in paths)
    ''')
    cards = [c for c in plan["handoff"]["cards"] if c["lane"] == "actor#1"]
    assert len(cards) == 1 and cards[0]["one_per_item"] is True and cards[0]["name"] == "reviewer-{p}"
    actor = plan["actors"][0]
    assert actor["instances"] is None and actor["instances_text"] == "one per item"
    # one writing actor per item, all in one working tree: the screen says so
    assert [w["kind"] for w in plan["warnings"]] == ["shared-working-tree", "unknown-fanout"]


def test_a_fan_out_over_a_constant_counts_its_items():
    plan = plan_of('''
        AREAS = ["api", "cli", "docs", "storage"]
        phase("Survey")
        notes = await parallel(agent(f"surveyor-{area}", tools=["read_file", "grep"]).ask(f"Survey {area}")
                               for area in AREAS)
        for n in range(2):
            await agent(f"helper-{n}").ask("Help")
    ''')
    actors = {a["id"]: a for a in plan["actors"]}
    assert actors["actor#1"]["instances"] == 4
    assert actors["actor#1"]["elements"] == ["surveyor-api", "surveyor-cli", "surveyor-docs", "surveyor-storage"]
    assert actors["actor#2"]["instances_text"] == "2 instances"
    assert plan["warnings"] == []


def test_an_unbounded_loop_around_an_ask_is_a_warning():
    plan = plan_of('''
        phase("Work")
        items = await files.glob("*.txt")
        helper = agent("helper")
        for item in items:
            await helper.ask(f"Process {item}")
    ''')
    assert [w["kind"] for w in plan["warnings"]] == ["unbounded-loop"]
    assert "`for item in items:`" in plan["warnings"][0]["message"]


def big_script(phases: int, asks_per_phase: int) -> str:
    lines = []
    for p in range(phases):
        lines.append(f'phase("Stage {p}")')
        for a in range(asks_per_phase):
            lines.append(f'r_{p}_{a} = await agent("worker-{p}-{a}").ask("Task {p}.{a}")')
    return "\n".join(lines)


def test_caps_fold_steps_actors_and_phases_and_say_so():
    g = graphs_of(big_script(phases=40, asks_per_phase=2), Caps())
    assert g.causal.number_of_nodes() < 80
    assert g.causal.graph["folded"] == {"steps": 16}
    assert g.phase.graph["folded"] == {"phases": 9}
    assert g.phase.number_of_nodes() == 32
    assert g.handoff.graph["folded"]["actors"] == 48
    for render in (to_dot, to_mermaid, to_text):
        assert "folded beyond the display caps: 16 steps" in render(g.causal)
    plan = plan_of(big_script(phases=40, asks_per_phase=2))
    assert plan["folded"] == {"steps": 16, "actors": 48, "phases": 9}
    assert len(plan["actors"]) == 32
    assert sum(1 for s in plan["steps"] if s["kind"] != "fold") == 64


def test_graphs_are_deterministic():
    snippet = big_script(phases=3, asks_per_phase=3)
    first, second = graphs_of(snippet), graphs_of(snippet)
    for kind in ("phase", "causal", "handoff"):
        assert to_dot(first.get(kind)) == to_dot(second.get(kind))
        assert list(first.get(kind).edges(data=True)) == list(second.get(kind).edges(data=True))


def test_labels_from_the_script_cannot_inject_dot_or_mermaid():
    g = graphs_of('''
        phase("Work")
        await agent("a").ask("Evil \\" ] ; digraph x { <b>bold</b> \\\\l }", label="x\\"]\\n<y>")
    ''')
    dot = to_dot(g.causal)
    assert "digraph causal {" in dot and dot.count("digraph") == 1
    mermaid = to_mermaid(g.causal)
    assert '\\"' not in mermaid and "#34;" in mermaid


def test_a_helper_called_in_two_phases_lists_its_steps_in_both():
    plan = plan_of('''
        async def check(what):
            return await world.run("pytest", ["-q", what])

        phase("Before")
        await check("tests/unit")
        phase("After")
        await agent("fixer").ask("Fix what is broken")
        await check("tests")
    ''')
    phases = {p["title"]: p["steps"] for p in plan["phases"]}
    assert phases == {"Before": ["run#1"], "After": ["run#1", "ask#1"]}
    step = next(s for s in plan["steps"] if s["id"] == "run#1")
    assert step["phase"] == "phase#1" and step["phases"] == ["phase#1", "phase#2"]
    assert "again" in render_text(plan)


def test_recursion_is_a_loop_without_a_bound():
    plan = plan_of('''
        async def dig(path, depth):
            if depth > 2:
                return []
            found = await agent(f"digger-{depth}-{path}").ask(f"List the subfolders of {path}")
            return [found] + await dig(found, depth + 1)

        phase("Dig")
        await dig(".", 0)
    ''')
    assert [w["kind"] for w in plan["warnings"]] == ["unbounded-loop"]
    assert plan["steps"][0]["repeats"] == "loop"
    assert plan["actors"][0]["instances_text"] == "one per item"


def test_phases_without_asks_are_shown_with_their_steps():
    """A phase is a progress label (issue #11): one whose steps are reads or pure logic is on
    the approval screen like any other, in order, with the edges between them."""
    snippet = '''
        phase("Collect")
        paths = await files.glob("*.py")
        phase("Count")
        sizes = {p: len(p) for p in paths}
        phase("Review")
        reviews = await parallel(agent(f"r-{p}").ask(f"Review {p} ({sizes[p]})") for p in paths)
        phase("Publish")
        report({"reviewed": len(reviews)})
    '''
    phases = plan_of(snippet)["phases"]
    assert [(p["title"], p["steps"]) for p in phases] == [
        ("Collect", ["read#1"]), ("Count", []), ("Review", ["ask#1"]), ("Publish", [])]
    g = graphs_of(snippet)
    titles = {n: a["title"] for n, a in g.phase.nodes(data=True)}
    kinds = {(titles[u], titles[v]): a["kind"] for u, v, a in g.phase.edges(data=True)}
    assert kinds == {("Collect", "Count"): "sequence", ("Count", "Review"): "sequence",
                     ("Review", "Publish"): "sequence"}
