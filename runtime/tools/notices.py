"""This module defines how `dwfc mcp` pushes run notices (`host/watch.py`: `run-finished`,
`escalation-raised`, `run-stalled`) to its client, so a host model is told instead of polling (#13).

The pinned `mcp` (2.3.0) serves tasks (`tasks/*`, 2025-11-25 only) to no tool handler, so runs
are announced through resources and notifications, in both protocol eras:

- resources: `dwf://runs` (the workspace's recent runs and the last notices, newest last, each with
  a `seq`) and `dwf://runs/{run_id}` (what GetWorkflowRun returns, plus that run's notices);
- handshake era (`initialize`, up to 2025-11-25): every notice is a `notifications/message` log
  entry (logger `dwf.runs`, level `notice` for a completed run, `warning` for a question, a stall
  or a stopped run, `error` for a failed one; `logging/setLevel` filters) whose `data` is the
  notice's JSON; `notifications/resources/updated` follows for `dwf://runs` and the run's URI when
  the client subscribed to them (`resources/subscribe`); and a `notifications/claude/channel`
  event (Claude Code's channel contract: `content` is the notice text, `meta` the run id and kind)
  is sent too — the server declares the `claude/channel` experimental capability, and clients that
  do not know the method drop it;
- 2026-07-28 (no server-initiated messages outside a request): `subscriptions/listen` streams;
  a notice publishes `ResourceUpdated` for `dwf://runs` and for the run's URI, and the client reads
  the resource to learn what happened.

A saved workflow is a prompt, so a successful SaveWorkflow also sends `prompts/list_changed`
(in both eras).
"""

from __future__ import annotations

import logging
import re
from collections import deque
from typing import Literal

import anyio
import mcp_types as types
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, PromptsListChanged, ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from dwf.runtime.host.watch import RunNotice, RunWatch
from dwf.runtime.tools.layer import ToolLayer
from dwf.runtime.values.plain_json import dumps

log = logging.getLogger("dwf.mcp")

RUNS_URI = "dwf://runs"
RUN_URI_PREFIX = "dwf://runs/"
RUN_URI_TEMPLATE = RUN_URI_PREFIX + "{run_id}"
CHANNEL_CAPABILITY = "claude/channel"
CHANNEL_METHOD = "notifications/claude/channel"
LOGGER_NAME = "dwf.runs"
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
KEPT_NOTICES = 100
RETRY_S = 5.0
RUN_ID = re.compile(r"dwfrun-[0-9a-f]{32}")

RUNS_RESOURCE = types.Resource(
    uri=RUNS_URI, name="runs", title="DWF runs of this workspace", mime_type="application/json",
    description="The workspace's recent runs and the latest notices (run finished, question raised, run stalled). "
                "Subscribe to be told when it changes.")
RUN_TEMPLATE = types.ResourceTemplate(
    uri_template=RUN_URI_TEMPLATE, name="run", title="One DWF run", mime_type="application/json",
    description="What GetWorkflowRun returns for the run, plus its notices. Subscribe to follow the run.")


class ChannelEvent(BaseModel):
    """The params of Claude Code's channel event: the text the model reads, and string attributes."""

    content: str
    meta: dict[str, str]


class ChannelNotification(BaseModel):
    """`notifications/claude/channel`, a vendor notification the `mcp` package has no type for."""

    method: Literal["notifications/claude/channel"] = CHANNEL_METHOD
    params: ChannelEvent


def run_uri(run_id: str) -> str:
    return RUN_URI_PREFIX + run_id


def notice_level(notice: RunNotice) -> str:
    """The log level of a notice: `notice` for good news, `error` for a failed run, else `warning`."""
    if notice.kind == "run-finished":
        return {"completed": "notice", "errored": "error"}.get(notice.data.get("status"), "warning")
    return "warning"


class NoticeDelivery:
    """NoticeDelivery: the notices of one `dwfc mcp` server (module docstring): the recent ones,
    the handshake-era connections and their resource subscriptions, and the bus of the 2026
    listen streams (`listen` is the `subscriptions/listen` handler)."""

    def __init__(self, tools: ToolLayer):
        self.tools = tools
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        self.sessions: list[ServerSession] = []  # handshake-era connections (over stdio: at most one)
        self.subscribed: set[str] = set()
        self.min_level = LEVELS[0]
        self.recent: deque[dict] = deque(maxlen=KEPT_NOTICES)
        self._sequence = 0

    # ------------------------------------------------------------ handlers

    async def on_initialized(self, ctx, params) -> None:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS and ctx.session not in self.sessions:
            self.sessions.append(ctx.session)

    async def on_set_level(self, ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
        self.min_level = params.level
        return types.EmptyResult()

    async def on_subscribe(self, ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        self.subscribed.add(_checked_uri(str(params.uri)))
        return types.EmptyResult()

    async def on_unsubscribe(self, ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        self.subscribed.discard(str(params.uri))
        return types.EmptyResult()

    # ------------------------------------------------------------ resources

    async def read(self, uri: str) -> types.ReadResourceResult:
        """`dwf://runs` or `dwf://runs/{run_id}` as JSON text (MCPError for another URI or run)."""
        if _checked_uri(uri) == RUNS_URI:
            listed = await self.tools.call("ListWorkflowRuns", {"limit": 20})
            data = {"runs": listed.get("runs", []), "total": listed.get("total", 0), "notices": list(self.recent)}
        else:
            run_id = uri[len(RUN_URI_PREFIX):]
            data = await self.tools.call("GetWorkflowRun", {"run": run_id, "log_lines": 20})
            if not data.get("ok"):
                raise MCPError(types.INVALID_PARAMS, f"$.uri: {data.get('error') or f'cannot read {uri}'}")
            data["notices"] = [notice for notice in self.recent if notice["run_id"] == data["id"]]
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, mime_type="application/json", text=dumps(data, indent=2))])

    # ------------------------------------------------------------ delivery

    async def pump(self, watch: RunWatch) -> None:
        """Deliver every notice of `watch` until cancelled. A failing check (a locked or unreadable
        journal) is logged and tried again: the tools keep being served either way."""
        while True:
            try:
                async for notice in watch:
                    await self.deliver(notice)
            except Exception:  # the watch's state is kept; the next check continues from it
                log.exception("watching the runs failed; trying again in %s s", RETRY_S)
                await anyio.sleep(RETRY_S)

    async def prompts_changed(self) -> None:
        """Tell the client the prompt list changed (a workflow was saved: it is a prompt now)."""
        for session in list(self.sessions):
            try:
                await session.send_prompt_list_changed()
            except Exception as error:  # the client went away
                log.warning("could not tell the client the prompts changed: %s", error)
        await self.bus.publish(PromptsListChanged())

    async def deliver(self, notice: RunNotice) -> None:
        self._sequence += 1
        self.recent.append({"seq": self._sequence, **notice.to_json()})
        uris = [RUNS_URI, run_uri(notice.run_id)]
        level = notice_level(notice)
        for session in list(self.sessions):
            try:
                if LEVELS.index(level) >= LEVELS.index(self.min_level):
                    await session.send_notification(types.LoggingMessageNotification(
                        params=types.LoggingMessageNotificationParams(level=level, logger=LOGGER_NAME,
                                                                      data=notice.to_json())))
                for uri in uris:
                    if uri in self.subscribed:
                        await session.send_resource_updated(uri)
                await session.send_notification(ChannelNotification(params=ChannelEvent(
                    content=notice.text(), meta={"run_id": notice.run_id, "kind": notice.kind})))
            except Exception as error:  # the client went away: the other ways still deliver
                log.warning("could not send a %s notice to the client: %s", notice.kind, error)
                self.sessions.remove(session)
        for uri in uris:
            await self.bus.publish(ResourceUpdated(uri=uri))


def _checked_uri(uri: str) -> str:
    """`uri` when it names `dwf://runs` or one run (`dwf://runs/dwfrun-…`), else an MCPError."""
    if uri == RUNS_URI or (uri.startswith(RUN_URI_PREFIX) and RUN_ID.fullmatch(uri[len(RUN_URI_PREFIX):])):
        return uri
    raise MCPError(types.INVALID_PARAMS, f"$.uri: unknown resource {uri!r}; runs are {RUNS_URI} and {RUN_URI_TEMPLATE} with a "
                                         "full run id, as ListWorkflowRuns gives it (resources/list has the others)")


__all__ = ["CHANNEL_CAPABILITY", "CHANNEL_METHOD", "ChannelEvent", "ChannelNotification", "LOGGER_NAME", "NoticeDelivery", "RUNS_URI", "RUN_URI_TEMPLATE",
           "notice_level", "run_uri"]
