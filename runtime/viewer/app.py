"""This module defines `Viewer`, the run viewer's ASGI app (`dwfc ui`, #15): the page, its JSON
API over the workspace's journal, the live stream and the actions.

    viewer = Viewer(workspace, token=new_token(), agent="scripted:F.json")
    uvicorn.run(viewer.app(), ...)

- `GET /` and `GET /runs/{id}`: the one page (`static/index.html`, its script and style), which
  draws the runs list or one run from the API; `GET /static/{name}` its files.
- `GET /api/runs`, `/api/runs/{id}`, `/api/runs/{id}/node?site=&key=`: `views.py`'s read models;
  `/api/runs/{id}/graph` the plan's phase graph as text (and whether an SVG exists),
  `/api/runs/{id}/graph.svg` as SVG (an `<img>`: an SVG shown so cannot run script);
  `/api/runs/{id}/artifacts/{artifact}/{version}` a published file, as a download.
- `GET /api/stream[?run=ID]`: server-sent events; a `change` event whenever the journal shows
  something new (polled every `poll_s`, 0.2 s, on the viewer's own connection, so a run of
  another process shows within a second), and every `TICK_S` while a run is live (durations).
- `POST /api/runs/{id}/cancel|resume|concurrency`, `POST /api/questions/{id}/answer`: the
  actions, through the host paths `dwfc cancel|resume|set|answer` and the tools use
  (`host.amend.cancel_run` with reason `user`, `host.session.WorkspaceSession` resume,
  `host.configure.configure_run`, `ports.questions.write_answer`). A resumed run runs in this
  process, on the viewer's engine (with the agent the run recorded, unless `--agent` names one);
  stopping the viewer stops it as `stopped(interrupted)`, resumable again.

`security.TokenGuard` wraps everything (token, cookie, CSP).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Callable

import anyio
import anyio.to_thread
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from dwf.runtime.engine import Ceilings, Engine, StartError, pinned_agent
from dwf.runtime.host.amend import cancel_run
from dwf.runtime.host.configure import ConfigureError, configure_run
from dwf.runtime.host.run_views import RunLookupError, resolve_run, status_text
from dwf.runtime.host.session import WorkspaceSession
from dwf.runtime.ports.artifacts import ArtifactStore
from dwf.runtime.ports.questions import AnswerError, write_answer
from dwf.runtime.values.errors import ScriptError
from dwf.runtime.viewer.graph import phase_graph
from dwf.runtime.viewer.security import TokenGuard
from dwf.runtime.viewer.views import JournalMarks, node_detail, run_page, runs_page

STATIC = Path(__file__).parent / "static"
ASSETS = {"viewer.js": "text/javascript", "viewer.css": "text/css"}
TOKEN_PLACEHOLDER = "__DWF_TOKEN__"
POLL_S = 0.2
TICK_S = 2.0
RECONCILE_S = 2.0
CANCEL_WAIT_S = 10.0

SvgRenderer = Callable[[str], "str | None"]  # DOT text -> SVG text, or None without Graphviz


class ActionError(Exception):
    """An action the viewer refuses: one sentence, with the HTTP status to answer."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


class Viewer:
    """The run viewer over `workspace` (module docstring). `agent` (a `--agent` spec) is what a
    resume runs with; `render_svg` draws the plan's graph (the CLI passes Graphviz's `dot`)."""

    def __init__(self, workspace: str | Path, *, token: str, host: str = "127.0.0.1", agent: str | None = None,
                 model: str | None = None, actor_tools: str | None = None, ceilings: Ceilings | None = None,
                 render_svg: SvgRenderer | None = None, poll_s: float = POLL_S):
        self.session = WorkspaceSession(workspace, agent=agent, model=model, actor_tools=actor_tools,
                                        ceilings=ceilings)
        self.root = self.session.root
        self.token, self.host, self.agent = token, host, agent
        self.render_svg = render_svg
        self.poll_s = poll_s
        self.artifacts = ArtifactStore(self.root)
        self.engine: Engine | None = None
        self._graphs: dict[str, dict] = {}  # run id -> its phase graph (a run's script never changes)
        self._reconciled_at = float("-inf")

    def app(self):
        """The ASGI app: the routes behind the token guard."""
        routes = [
            Route("/", self.page), Route("/runs/{run_id}", self.page),
            Route("/static/{name}", self.asset),
            Route("/api/runs", self.list_runs), Route("/api/runs/{run_id}", self.show_run),
            Route("/api/runs/{run_id}/node", self.show_node),
            Route("/api/runs/{run_id}/graph", self.graph_text), Route("/api/runs/{run_id}/graph.svg", self.graph_svg),
            Route("/api/runs/{run_id}/artifacts/{artifact}/{version:int}", self.artifact_file),
            Route("/api/stream", self.stream),
            Route("/api/runs/{run_id}/cancel", self.cancel, methods=["POST"]),
            Route("/api/runs/{run_id}/resume", self.resume, methods=["POST"]),
            Route("/api/runs/{run_id}/concurrency", self.concurrency, methods=["POST"]),
            Route("/api/questions/{question_id}/answer", self.answer, methods=["POST"]),
        ]
        app = Starlette(routes=routes, lifespan=self.lifespan, exception_handlers={_NotFound: _not_found})
        return TokenGuard(app, token=self.token, host=self.host)

    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        """The journal (created when the workspace has none yet) and the engine of resumed runs,
        open while the server runs; leaving stops those runs as `stopped(interrupted)`."""
        self.session.open()
        try:
            async with Engine() as engine:
                self.engine = engine
                yield
        finally:
            self.engine = None
            self.session.close()

    @property
    def journal(self):
        return self.session.journal

    # ------------------------------------------------------------ the page

    async def page(self, request: Request) -> Response:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        return HTMLResponse(html.replace(TOKEN_PLACEHOLDER, self.token))

    async def asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return Response("no such file", status_code=404, media_type="text/plain")
        return FileResponse(STATIC / name, media_type=ASSETS[name])

    # ------------------------------------------------------------ reading

    async def list_runs(self, request: Request) -> Response:
        self._reconcile()
        return JSONResponse({"workspace": str(self.root), "can_resume": bool(self.agent),
                             "runs": runs_page(self.journal)})

    async def show_run(self, request: Request) -> Response:
        row = self._row(request)
        page = run_page(self.journal, row, self.artifacts)
        page["can_resume"] = bool(self.agent or pinned_agent(row).get("spec"))
        return JSONResponse(page)

    async def show_node(self, request: Request) -> Response:
        row = self._row(request)
        detail = node_detail(self.journal, row, request.query_params.get("site", ""),
                             request.query_params.get("key", ""))
        if detail is None:
            return _error("there is no such step in this run", 404)
        return JSONResponse(detail)

    async def graph_text(self, request: Request) -> Response:
        graph = await self._graph(self._row(request))
        return JSONResponse({"text": graph["text"], "svg": graph["svg"] is not None, "problem": graph["problem"]})

    async def graph_svg(self, request: Request) -> Response:
        graph = await self._graph(self._row(request))
        if graph["svg"] is None:
            return Response("no SVG: Graphviz's `dot` is not installed", status_code=404, media_type="text/plain")
        return Response(graph["svg"], media_type="image/svg+xml")

    async def artifact_file(self, request: Request) -> Response:
        row = self._row(request)
        params = request.path_params
        try:
            path = self.artifacts.version_path(row.id, params["artifact"], params["version"])
        except (ScriptError, ValueError):
            return _error("there is no such artifact version", 404)
        return FileResponse(path, media_type="application/octet-stream", filename=path.name,
                            content_disposition_type="attachment")

    async def _graph(self, row) -> dict:
        if row.id not in self._graphs:
            self._graphs[row.id] = await anyio.to_thread.run_sync(phase_graph, row.script, self.render_svg)
        return self._graphs[row.id]

    # ------------------------------------------------------------ live

    async def stream(self, request: Request) -> Response:
        run_id = request.query_params.get("run") or None
        if run_id is not None:
            run_id = self._row(request, run_id).id

        async def changes():
            marks, last, ticked = JournalMarks(), None, time.monotonic()
            while True:
                self._reconcile()
                mark = marks.mark(self.journal, run_id)
                live = any(status == "running" for _, status, _, _ in mark)
                now = time.monotonic()
                if mark != last or (live and now - ticked >= TICK_S):
                    last, ticked = mark, now
                    yield {"event": "change", "data": "journal"}
                await anyio.sleep(self.poll_s)

        return EventSourceResponse(changes(), ping=15)

    def _reconcile(self) -> None:
        """Mark runs whose process died `stopped(interrupted)`, at most every `RECONCILE_S`."""
        now = time.monotonic()
        if now - self._reconciled_at >= RECONCILE_S:
            self._reconciled_at = now
            self.session.reconcile()

    # ------------------------------------------------------------ actions

    async def cancel(self, request: Request) -> Response:
        row = self._row(request)
        if row.status != "running":
            return _error(f"run {row.id} is not running (it is {status_text(row)}); nothing to cancel")
        current = await cancel_run(self.journal, row, reason="user", engine=self.engine,
                                   control_dir=self.session.control, wait_s=CANCEL_WAIT_S)
        return JSONResponse({"ok": True, "run_id": row.id, "status": status_text(current)})

    async def resume(self, request: Request) -> Response:
        row = self._row(request)
        try:
            run = self._resume(row)
        except ActionError as error:
            return _error(str(error), error.status)
        return JSONResponse({"ok": True, "run_id": run.id, "status": "running"})

    def _resume(self, row):
        session = self.session.resuming(row)  # the agent it was approved with, unless `--agent` gives one
        if not session.agent:
            raise ActionError("this run records no agent (it is older than agent pins); start the viewer with "
                              "`dwfc ui --agent PORT` to resume it")
        prepared = session.prepare_resume(row)  # the script and saved workflows pinned when it started
        if prepared.program is None or prepared.problems:
            raise ActionError("; ".join(prepared.problems) or f"run {row.id} cannot be resumed")
        model = session.resume_model(row)
        problems: list[str] = []
        port = session.open_port(problems, model=model)
        if port is None or problems:
            raise ActionError("; ".join(problems), 400)
        try:
            return session.start(self.engine, prepared, port, model=model)
        except StartError as error:
            raise ActionError("the run was not resumed: " + "; ".join(error.problems)) from None

    async def concurrency(self, request: Request) -> Response:
        row = self._row(request)
        body = await _json_body(request)
        try:
            current = await configure_run(self.journal, row, {"max_concurrency": body.get("max_concurrency")},
                                          engine=self.engine, control_dir=self.session.control)
        except ConfigureError as error:
            return _error(str(error), 400)
        return JSONResponse({"ok": True, "run_id": row.id, "caps": current.caps or {}})

    async def answer(self, request: Request) -> Response:
        body = await _json_body(request)
        text = body.get("answer")
        if not isinstance(text, str):
            return _error("the answer must be text", 400)
        try:
            record = write_answer(self.root, request.path_params["question_id"], text)
        except AnswerError as error:
            return _error(str(error).replace(" (pass --workspace DIR if the run uses another workspace)", ""), 400)
        return JSONResponse({"ok": True, "question_id": request.path_params["question_id"],
                             "run_id": record.get("run_id")})

    # ------------------------------------------------------------ helpers

    def _row(self, request: Request, reference: str | None = None):
        try:
            return resolve_run(self.journal, reference or request.path_params["run_id"])
        except RunLookupError as error:
            raise _NotFound(str(error)) from None


class _NotFound(Exception):
    """A run reference that matches no run (answered 404 by `_not_found`)."""


async def _not_found(request: Request, error: _NotFound) -> Response:
    return _error(str(error), 404)


async def _json_body(request: Request) -> dict:
    try:
        body = await request.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _error(message: str, status: int = 409) -> Response:
    return JSONResponse({"ok": False, "error": message}, status_code=status)


__all__ = ["ActionError", "Viewer"]
