"""The data-flow analysis (`compiler.plan.dataflow`): which results reach which inputs, through
assignments, containers, f-strings, comprehensions, helpers, joins and pipelines; unrelated
values never create an edge and a computed index makes an edge inexact."""

from planning import compiled, data, feeds, graphs_of

from dwf.compiler.plan.dataflow import analyze


def test_instructions_that_use_a_result_get_a_data_edge():
    g = graphs_of('''
        phase("Work")
        a = agent("a")
        plan = await a.ask("Write a plan")
        await agent("b").ask(f"Carry out: {plan}")
    ''')
    assert feeds(g, "ask#2") == {"ask#1": True}
    assert ("ask#1", "ask#2") in data(g)
    assert g.causal.edges["ask#1", "ask#2"]["kind"] == "data"


def test_an_unrelated_ask_gets_no_data_edge():
    g = graphs_of('''
        phase("Work")
        first = await agent("a").ask("Name a colour")
        second = await agent("b").ask("Name a fruit")
        return {"colour": first}
    ''')
    assert feeds(g, "ask#2") == {}
    assert ("ask#1", "ask#2") not in data(g)
    assert g.causal.edges["ask#1", "ask#2"]["kind"] == "seq"  # only the await orders them
    assert g.flow.returned == {"ask#1": True}


def test_dict_literal_fields_are_kept_apart():
    g = graphs_of('''
        phase("Work")
        facts = {"title": await agent("a").ask("Title?"), "body": await agent("b").ask("Body?")}
        await agent("c").ask(f"Shorten {facts['title']}")
        await agent("d").ask(f"Spell-check {facts}")
    ''')
    assert feeds(g, "ask#3") == {"ask#1": True}
    assert feeds(g, "ask#4") == {"ask#1": True, "ask#2": True}


def test_tuple_unpacking_and_gather_results_by_position():
    g = graphs_of('''
        phase("Work")
        a = agent("a")
        b = agent("b")
        left, right = await gather(a.ask("Left?"), b.ask("Right?"))
        await agent("c").ask(f"Use {right}")
        pair = await parallel([a.ask("One"), b.ask("Two")])
        await agent("d").ask(f"Use {pair[0]}")
    ''')
    assert feeds(g, "ask#3") == {"ask#2": True}
    assert feeds(g, "ask#6") == {"ask#4": True}


def test_a_computed_index_widens_to_an_inexact_edge():
    g = graphs_of('''
        phase("Work")
        pair = await gather(agent("a").ask("One"), agent("b").ask("Two"))
        n = len(pair) - 1
        await agent("c").ask(f"Use {pair[n]}")
    ''')
    assert feeds(g, "ask#3") == {"ask#1": False, "ask#2": False}
    assert g.data_edges[("ask#1", "ask#3")] is False


def test_flow_through_containers_comprehensions_and_mutation():
    g = graphs_of('''
        phase("Work")
        files_found = await files.glob("src/*.py")
        notes = []
        for path in files_found:
            notes.append(f"- {path}")
        short = [n.strip() for n in notes if n]
        by_name = {}
        by_name.setdefault("all", []).extend(short)
        await agent("a").ask("\\n".join(by_name["all"]))
    ''')
    assert feeds(g, "ask#1") == {"read#1": True}


def test_helpers_pass_on_only_what_they_read():
    g = graphs_of('''
        def title_of(record):
            return record["title"].strip()

        async def summarize(text, who):
            return await agent(f"summarizer-{who}").ask(f"Summarize {text}")

        phase("Work")
        record = {"title": await agent("a").ask("Title?"), "body": await agent("b").ask("Body?")}
        await agent("c").ask(title_of(record))
        summary = await summarize(record["body"], "x")
        await agent("d").ask(f"Review {summary}")
    ''')
    # The helper's ask is numbered first (sites follow the source); the title is ask#2.
    assert feeds(g, "ask#4") == {"ask#2": True}
    assert feeds(g, "ask#1") == {"ask#3": True}  # the helper's ask is fed by the body only
    assert feeds(g, "ask#5") == {"ask#1": True}


def test_parallel_fan_out_and_read_arguments():
    g = graphs_of('''
        phase("Work")
        changed = await git.changed_files()
        diffs = await parallel(git.diff(None, path) for path in changed)
        reviews = await parallel(agent(f"r-{p}").ask(f"Review {d}") for p, d in zip(changed, diffs))
        verdict = await agent("lead").ask(f"{len(reviews)} reviews")
        return verdict
    ''')
    assert feeds(g, "read#2") == {"read#1": True}
    assert feeds(g, "ask#1") == {"read#1": True, "read#2": True}
    assert feeds(g, "ask#2") == {"ask#1": True}
    assert g.flow.returned == {"ask#2": True}


def test_pipeline_stages_feed_each_other_in_order():
    g = graphs_of('''
        async def draft(previous, item, index):
            return await agent(f"drafter-{item}").ask(f"Draft {item}")

        async def polish(previous, item, index):
            return await agent(f"editor-{item}").ask(f"Polish {previous}")

        phase("Work")
        topics = await files.glob("topics/*.md")
        done = await pipeline(topics, draft, polish)
        return done
    ''')
    assert feeds(g, "ask#1") == {"read#1": True}
    assert feeds(g, "ask#2") == {"ask#1": True, "read#1": True}  # the editor's name holds the item
    assert g.flow.returned == {"ask#2": True}


def test_run_arguments_and_caught_errors_are_sinks_and_sources():
    g = graphs_of('''
        phase("Work")
        target = await agent("a").ask("Which test file?")
        try:
            result = await world.run("pytest", ["-q", target])
            text = result.stdout
        except WorldError as err:
            text = f"pytest could not run: {err}"
        await agent("b").ask(f"Explain {text}")
    ''')
    assert feeds(g, "run#1") == {"ask#1": True}
    assert set(feeds(g, "ask#2")) == {"run#1"}


def test_the_actor_an_ask_goes_to_is_resolved_through_containers():
    result = compiled('''
        phase("Work")
        paths = await files.glob("*.py")
        workers = {p: agent(f"w-{p}") for p in paths}
        lead = agent("lead")
        await gather(*[workers[p].ask(f"Fix {p}") for p in paths])
        chosen = lead if len(paths) > 3 else workers[paths[0]]
        await chosen.ask("Summarize")
    ''')
    flow = analyze(result.program)
    assert flow.receivers["ask#1"] == ("actor#1",)
    assert flow.receivers["ask#2"] == ("actor#1", "actor#2")
    assert flow.data["ask#1"] == {"read#1": True}


def test_a_flow_insensitive_back_edge_outside_loops_is_dropped():
    g = graphs_of('''
        phase("Work")
        x = await agent("a").ask("First")
        await agent("b").ask(f"Use {x}")
        x = await agent("c").ask("Second")
    ''')
    assert feeds(g, "ask#2") == {"ask#1": True, "ask#3": True}  # the analysis merges both bindings
    assert ("ask#3", "ask#2") not in data(g)  # ... but ask#3 comes later and no loop brings it back
    assert not any(a["kind"] == "carry" for _, _, a in g.causal.edges(data=True))
