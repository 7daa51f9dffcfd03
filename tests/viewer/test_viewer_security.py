"""The run viewer's guard over real HTTP (#15 point 6): `dwfc ui` answers nothing without its
per-start token (in the printed URL, then an HttpOnly SameSite=Strict cookie), changes runs only
on a POST that also carries the token in a header from its own origin, answers only under its
own host name, and sends a strict Content-Security-Policy; the page has no inline script. With
Graphviz missing, the run page's plan graph degrades to the text graph."""

from __future__ import annotations

import http.client
import json
import os
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from viewer_server import make_workspace, run_to_end, viewer

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = make_workspace(tmp_path_factory.mktemp("ui-guard") / "workspace")
    run_to_end(root, "xss")
    return root


@pytest.fixture(scope="module")
def server(workspace):
    # PATH without Graphviz's `dot` (the venv's programs only): the graph must degrade to text.
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    with viewer(workspace, env=env) as (base, url):
        parts = urlsplit(url)
        yield {"port": parts.port, "token": parts.query.removeprefix("token="), "host": f"127.0.0.1:{parts.port}"}


def request(server, method: str, path: str, *, headers: dict | None = None, body: dict | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", server["port"], timeout=20)
    try:
        sent = {"Host": server["host"], **(headers or {})}
        data = json.dumps(body).encode() if body is not None else None
        if data is not None:
            sent["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode("utf-8", errors="replace")
    finally:
        connection.close()


def cookie(server) -> dict:
    return {"Cookie": f"dwf_ui_{server['port']}={server['token']}"}


def acting(server, **extra) -> dict:
    return {**cookie(server), "X-DWF-Token": server["token"], "Origin": f"http://{server['host']}", **extra}


@pytest.mark.parametrize("path", ["/", "/api/runs", "/static/viewer.js", "/api/stream", "/runs/x"])
def test_nothing_is_served_without_the_token(server, path):
    status, headers, body = request(server, "GET", path)
    assert status == 403 and "open the URL `dwfc ui` printed" in body
    assert headers["content-security-policy"] == CSP
    status, _, _ = request(server, "GET", path + ("&" if "?" in path else "?") + "token=not-the-token")
    assert status == 403
    status, _, _ = request(server, "GET", path, headers={"Cookie": f"dwf_ui_{server['port']}=not-the-token"})
    assert status == 403


def test_the_printed_url_sets_a_strict_cookie_and_the_page_has_no_inline_script(server):
    status, headers, body = request(server, "GET", f"/?token={server['token']}")
    assert status == 200
    assert headers["set-cookie"] == f"dwf_ui_{server['port']}={server['token']}; Path=/; HttpOnly; SameSite=Strict"
    assert headers["content-security-policy"] == CSP
    assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"

    class Scripts(HTMLParser):
        found: list = []

        def handle_starttag(self, tag, attrs):
            attrs = dict(attrs)
            if tag == "script" or any(name.startswith("on") or name == "style" for name in attrs):
                self.found.append((tag, attrs))

    parser = Scripts()
    parser.feed(body)
    assert parser.found == [("script", {"src": "/static/viewer.js", "defer": None})]
    status, _, runs = request(server, "GET", "/api/runs", headers=cookie(server))
    assert status == 200 and json.loads(runs)["runs"][0]["name"] == "xss-probe"


def test_changes_need_a_post_with_the_token_header_from_this_origin(server):
    path = "/api/questions/dwfq-unknown-1-1/answer"
    assert request(server, "POST", path, headers=cookie(server), body={"answer": "x"})[0] == 403
    assert request(server, "POST", path, headers=acting(server, Origin="http://evil.example"),
                   body={"answer": "x"})[0] == 403
    assert request(server, "POST", path, headers={"X-DWF-Token": server["token"]}, body={"answer": "x"})[0] == 403
    assert request(server, "PUT", path, headers=acting(server), body={"answer": "x"})[0] == 405
    assert request(server, "GET", path, headers=cookie(server))[0] == 405
    status, _, body = request(server, "POST", path, headers=acting(server), body={"answer": "x"})
    assert status == 400 and "there is no pending question dwfq-unknown-1-1" in json.loads(body)["error"]


def test_another_host_name_is_refused(server):
    status, _, body = request(server, "GET", "/api/runs", headers={**cookie(server), "Host": f"evil.example:{server['port']}"})
    assert status == 403 and "not 'evil.example" in body


def test_without_graphviz_the_plan_graph_is_text(server):
    _, _, runs = request(server, "GET", "/api/runs", headers=cookie(server))
    run_id = json.loads(runs)["runs"][0]["id"]
    status, _, body = request(server, "GET", f"/api/runs/{run_id}/graph", headers=cookie(server))
    graph = json.loads(body)
    assert status == 200 and graph["svg"] is False
    assert graph["text"].startswith("phase graph of xss-probe")
    assert request(server, "GET", f"/api/runs/{run_id}/graph.svg", headers=cookie(server))[0] == 404
    assert request(server, "GET", "/api/runs/dwfrun-nonesuch", headers=cookie(server))[0] == 404
