"""`dwfc ui` as a person uses it, in real headless Chromium (the system `chromium` that `./dwf test`
installs, driven by Playwright without a browser download): the runs page, a run of another
process followed live (a phase completes on the page within a second of the journal), a question
answered from the page and the run continuing, a run cancelled as `stopped(user)`, resumed, and
its concurrency changed, and markup in every string a script or agent controls staying inert.
One browser and one viewer serve the whole module; screenshots go to `tests/viewer/artifacts/`."""

from __future__ import annotations

import shutil
from datetime import datetime

import pytest
from playwright.sync_api import expect, sync_playwright

from viewer_server import (ARTIFACTS, XSS_RESULT, make_workspace, run_id_of, run_row, run_to_end, start_run,
                           viewer)
from dwf.runtime.journal.sqlite import SqliteJournal


WATCH_GATHER = """() => {
  window.gatherDoneAt = null;
  new MutationObserver(() => {
    if (window.gatherDoneAt === null && document.querySelector('[data-phase="Gather"][data-status="done"]')) {
      window.gatherDoneAt = Date.now();
    }
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium must be installed (`./dwf test` installs Debian's `chromium`)"
    return found


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return make_workspace(tmp_path_factory.mktemp("ui") / "workspace")


@pytest.fixture(scope="module")
def server(workspace):
    with viewer(workspace) as urls:  # a resume uses the agent the run recorded
        yield urls


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser, server):
    """A fresh browser context that opened the printed URL (so it holds the cookie); `page.dialogs`
    records every dialog (an executed `alert` would be one)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.dialogs = []
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))
    tab.goto(server[1])
    yield tab
    context.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def journal_time(workspace, run_id: str, event_type: str, **fields) -> float:
    """The wall-clock time the journal wrote the first `event_type` event matching `fields`."""
    journal = SqliteJournal.for_workspace(workspace)
    try:
        times = journal.event_times(run_id)
        for event in journal.events(run_id):
            if event["type"] == event_type and all(event["payload"].get(k) == v for k, v in fields.items()):
                return datetime.fromisoformat(times[event["seq"]].replace("Z", "+00:00")).timestamp()
    finally:
        journal.close()
    raise AssertionError(f"no {event_type} event in run {run_id}")


def test_runs_page_and_markup_stays_inert(page, server, workspace):
    run_to_end(workspace, "xss")
    page.goto(server[0] + "/")  # the cookie alone opens it now; the token left the address bar
    row = page.locator("tr.run-row", has=page.locator("a.run-name", has_text="xss-probe"))
    expect(row.locator(".run-status")).to_have_text("completed")
    expect(row.locator(".run-asks")).to_have_text("2/2")
    assert "token=" not in page.url
    shot(page, "runs")

    row.locator("a.run-name").click()
    expect(page.locator(".result")).to_contain_text("window.__xss=10")
    expect(page.locator(".log-message")).to_have_text("<script>alert(3)</script>")
    expect(page.locator(".actor-name").first).to_have_text('"><img src=x onerror=alert(4)>')
    expect(page.locator(".phase-title")).to_have_text('Probe "><img src=x onerror=window.__xss=2>')
    expect(page.locator("[data-artifact=rows] td")).to_have_text('"><img src=x onerror=window.__xss=6>')
    expect(page.locator("[data-artifact=health] dd")).to_have_text("<img src=x onerror=window.__xss=13>")
    expect(page.locator(".markdown h3")).to_have_text("Notes <script>window.__xss=8</script>")
    expect(page.locator(".markdown li").first).to_have_text('"><img src=x onerror=window.__xss=9>')
    expect(page.locator(".markdown strong")).to_have_text("bold")
    expect(page.locator(".markdown td").first).to_have_text("<b>1</b>")
    expect(page.locator(".report").last).to_have_text("<script>window.__xss = 7</script>")
    expect(page.locator("img.graph, pre.graph-text")).to_have_count(1)

    page.locator(".step").first.click()
    expect(page.locator(".instructions")).to_have_text("Say <script>window.__xss=5</script>")
    expect(page.locator(".node-result")).to_contain_text("window.__xss = 11")
    shot(page, "xss-run")
    assert page.evaluate("window.__xss") is None
    assert page.locator("img[src=x], script:not([src])").count() == 0
    assert page.dialogs == []
    assert XSS_RESULT in page.locator(".node-result").inner_text().replace('\\"', '"')
    page.locator(".step", has_text="count").click()  # a typed ask repaired once
    expect(page.locator(".attempts li").first).to_contain_text("repairing (1/")
    expect(page.locator(".node-result")).to_have_text("3")

    failed = run_to_end(workspace, "boom", exit_code=1)
    page.goto(f"{server[0]}/runs/{failed['run_id']}")
    expect(page.locator(".error-message")).to_contain_text("ValueError: <img src=x onerror=window.__xss=14>")
    expect(page.locator(".traceback")).to_contain_text("explode")
    assert page.evaluate("window.__xss") is None and page.dialogs == []


def test_a_live_run_updates_then_takes_an_answer(page, server, workspace):
    process = start_run(workspace, "live")
    try:
        run_id = run_id_of(process)
        page.goto(f"{server[0]}/runs/{run_id}")
        gather = page.locator('[data-phase="Gather"]')
        expect(gather).to_have_attribute("data-status", "active", timeout=10_000)
        expect(gather.locator(".step")).to_have_attribute("data-status", "running")
        page.evaluate(WATCH_GATHER)  # the page notes when it drew the phase done (the test's polling is coarser)
        expect(gather).to_have_attribute("data-status", "done", timeout=15_000)
        seen = page.evaluate("window.gatherDoneAt") / 1000
        changed = journal_time(workspace, run_id, "phase-entered", name="Decide")
        assert seen - changed < 1.0, f"the page showed the phase done {seen - changed:.2f} s after the journal"

        question = page.locator(".question")
        expect(question.locator(".question-text")).to_have_text("Which one do you prefer?", timeout=10_000)
        shot(page, "live-question")
        question.locator("textarea").fill("the second one, please")
        question.locator("button.send-answer").click()
        expect(page.locator(".run-head .badge").first).to_have_text("completed", timeout=15_000)
        expect(page.locator(".result")).to_contain_text("the second one, please")
        assert process.wait(timeout=30) == 0
        shot(page, "live-completed")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_cancel_set_concurrency_and_resume(page, server, workspace):
    process = start_run(workspace, "slow")
    try:
        run_id = run_id_of(process)
        page.goto(f"{server[0]}/runs/{run_id}")
        expect(page.locator(".step")).to_have_attribute("data-status", "running", timeout=10_000)
        page.locator("#concurrency").fill("3")
        page.locator("#set-concurrency").click()
        expect(page.locator(".run-head dd").last).to_have_text("3", timeout=10_000)
        page.locator("#cancel").click()
        expect(page.locator(".run-head .badge").first).to_have_text("stopped(user)", timeout=15_000)
        assert process.wait(timeout=30) == 3
        row = run_row(workspace, run_id)
        assert (row["status"], row["stop_reason"], row["caps"]["max_concurrency"]) == ("stopped", "user", 3)
        shot(page, "cancelled")

        page.locator("#resume").click()  # runs in the viewer's process, with the agent the run recorded
        expect(page.locator("#toast")).not_to_have_class("toast bad")
        expect(page.locator(".run-head .badge").first).to_have_text("completed", timeout=20_000)
        expect(page.locator(".result")).to_have_text('"rested"')
        assert run_row(workspace, run_id)["status"] == "completed"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
