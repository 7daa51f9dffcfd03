"""`dwfc plan --format html` as a person sees it: the page is written by the real handler, opened
in headless Chromium (Debian's `chromium`, which `.ci/run` installs), and the test asserts on
the DOM the browser built (title, every phase name, every command, the inline SVG graphs) and
saves a screenshot next to the page in the test's temporary directory."""

import argparse
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from conftest import ROOT

from dwf.runtime.cli.plan import add_parsers

EXAMPLE = "examples/quality-dashboard.dwf.py"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class Dom(HTMLParser):
    """The parts of the browser's DOM the test looks at."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.by_class: dict[str, list[str]] = {}
        self.svgs = 0
        self.figures: list[str] = []
        self._capture: list[str] = []  # classes whose text is being collected
        self._in_title = False
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "title" and not self.title:
            self._in_title = True
        if tag == "svg":
            self.svgs += 1
        if tag == "figure":
            self.figures.append(attrs.get("id", ""))
        for name in ("src", "href", "xlink:href"):
            if re.match(r"(?i)\s*(https?:|//)", attrs.get(name) or ""):
                self.external.append(f"{tag} {name}={attrs[name]}")
        if tag in ("script", "link", "iframe", "img"):
            self.external.append(tag)
        for cls in (attrs.get("class") or "").split():
            if cls in ("phase-title", "command"):
                self.by_class.setdefault(cls, []).append("")
                self._capture.append(cls)

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        if tag in ("h3", "li") and self._capture:
            self._capture.pop()

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        for cls in self._capture:
            self.by_class[cls][-1] += data


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium must be installed (.ci/run installs Debian's `chromium`)"
    return found


def browse(tmp_path, page, *extra) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    return subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def page(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    target = tmp_path / "plan.html"
    parser = argparse.ArgumentParser(prog="dwfc")
    add_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["plan", EXAMPLE, "--format", "html", "-o", str(target)])
    assert args.handler(args) == 0
    return target


def test_the_plan_page_in_a_browser(tmp_path, page):
    done = browse(tmp_path, page, "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = Dom()
    dom.feed(done.stdout)
    assert dom.title == "Plan: quality-dashboard"
    assert [t.strip() for t in dom.by_class["phase-title"]] == ["Collect signals", "Find hotspots", "Publish the report"]
    commands = [c.strip() for c in dom.by_class["command"]]  # "name [mark]: its literal leading arguments"
    assert [c.replace(":", " ").split()[0] for c in commands] == ["pytest", "ruff"]
    assert "pytest -q" in commands[0]
    assert dom.svgs >= 3 and dom.figures == ["phase-graph", "causal-graph", "handoff-graph"]
    assert dom.external == []

    shot = tmp_path / "plan.png"
    done = browse(tmp_path, page, f"--screenshot={shot}", "--window-size=1280,2000", "--hide-scrollbars")
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000  # a real picture, not a blank page


def test_the_page_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and "<link" not in text and "@import" not in text and "url(" not in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "default-src 'none'" in text  # and the browser is told so, should anything slip in
    assert "<?xml" not in text and "<!DOCTYPE svg" not in text
