"""This module serves the tool layer (`tools/layer.py`, TOOLS §3) over MCP stdio (`dwfc mcp`), with the
low-level `Server` of the `mcp` 2.x package: `tools/list` offers the eleven tool definitions with
their input schemas; `tools/call` runs `ToolLayer.call` and answers with the result as text
(what `tools.result_text` renders) plus the same object as structured content, `isError` when
the result says `ok: false`.

The language guide (`docs/language.md`) is served twice, for hosts that surface one or the
other: as the resource `dwf://guide/language` (text/markdown), and as the prompt
`write-workflow`, whose one user message holds the guide, how to check and submit the script,
and the optional `task` argument. Every saved workflow is a prompt too (`tools/prompts.py`),
listed afresh on each `prompts/list`.

Approval. `--approve auto` approves every call (for hosts that gate each tool call themselves).
`--approve elicit` (the default) asks the person through MCP elicitation: the plan text is the
message and the form is one required yes/no field. A client that did not declare the
elicitation capability (form mode) cannot show the plan, so such a call is refused with
`NO_ELICITATION` and nothing runs. How the question travels depends on the protocol era:

- handshake era (`initialize`, up to 2025-11-25): a server-to-client `elicitation/create`
  request sent while the tool call is pending;
- 2026-07-28 (per-request envelopes, no server-initiated requests): the call answers with an
  `InputRequiredResult` carrying the elicitation and an opaque `request_state`; the client asks
  the person and calls again with the response. The state is a random token naming a pending
  approval held here, bound to the tool name, a hash of its arguments and the content the
  person was shown (`ApprovalRequest.binding`), used once: a retry with other arguments, or a
  forged or replayed token, is asked again rather than trusted, and a retry whose script (the
  file behind `path=` or `saved=`, a called workflow) changed since the prompt is refused.

Runs report back: while it serves, the server watches every run of the workspace
(`host/watch.py`) and pushes notices — a run finished, an actor asked a question, a run stalled
— as log messages, Claude Code channel events and resource updates of `dwf://runs` and
`dwf://runs/{run_id}` (`tools/notices.py`).

Stdout is the protocol channel: `stdio_server` points fd 1 at stderr while serving, and logs go
to stderr. Stdin is read by a daemon thread (`_StdinLines`) rather than the SDK's worker thread,
which cancellation has to wait for: a server whose client is silent still stops at once on
SIGINT/SIGTERM, and live runs are recorded as `stopped(interrupted)` on the way out.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import signal
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from dwf.compiler.version import COMPILER_VERSION
from dwf.grammar import language_guide

from dwf.runtime.engine import Ceilings
from dwf.runtime.host.watch import DEFAULT_STALL_AFTER_S
from dwf.runtime.host.approval import SCRIPT_CHANGED
from dwf.runtime.tools.definitions import ApprovalPending, ApprovalRequest, ApprovalUnavailable, Approver, approve_all
from dwf.runtime.tools.layer import ToolLayer, result_text
from dwf.runtime.tools.notices import CHANNEL_CAPABILITY, RUN_TEMPLATE, RUNS_RESOURCE, NoticeDelivery
from dwf.runtime.tools.prompts import WRITE_PROMPT, PromptError, get_prompt, list_prompts
from dwf.runtime.values.plain_json import dumps

log = logging.getLogger("dwf.mcp")

APPROVE_MODES = ("elicit", "auto")
NO_ELICITATION = ("this client cannot show the plan for approval; start `dwfc mcp --approve auto` if your host "
                  "approves tool calls itself")
APPROVAL_KEY = "approval"
APPROVAL_FORM = {"type": "object", "required": ["approve"],
                 "properties": {"approve": {"type": "boolean", "title": "Approve",
                                            "description": "Yes to go ahead as described above; no to refuse."}}}
MAX_PENDING_APPROVALS = 64
GUIDE_URI = "dwf://guide/language"
INSTRUCTIONS = (
    "DWF runs workflow scripts that orchestrate sub-agents in this workspace, in the background, journaled and "
    "resumable. Use a workflow only when the user asks for one or the work is clearly worth orchestrating; "
    "otherwise do it directly. Check ListSavedWorkflows (each is also a prompt) before writing a script, and "
    f"read the language guide (resource {GUIDE_URI}) before writing one; CreateWorkflow compiles it and asks "
    "the user to approve its plan. You are notified when a run finishes, stalls or an actor asks a question "
    "(log messages, channel events, and updates of the resources dwf://runs and dwf://runs/{run_id}); "
    "GetWorkflowRun shows a run at any time, and ResolveWorkflowQuestion answers a question.")
GUIDE_RESOURCE = types.Resource(
    uri=GUIDE_URI, name="language-guide", title="DWF language guide", mime_type="text/markdown",
    description="The DWF workflow language on one page: what is Python as usual, what differs, the facades, typed "
                "asks, joins, errors and a complete example. Read it before writing a workflow.")


class _InputNeeded(ApprovalPending):
    """The approval must be asked by an `InputRequiredResult` (2026-07-28) and the call retried."""

    def __init__(self, token: str, request: ApprovalRequest):
        super().__init__(request.summary)
        self.token = token
        self.request = request


class McpToolServer:
    """One MCP server over one `ToolLayer`; `server` is the `mcp` low-level server."""

    def __init__(self, tools: ToolLayer, approve: str = "elicit"):
        if approve not in APPROVE_MODES:
            raise ValueError(f"approve must be one of {APPROVE_MODES}, not {approve!r}")
        self.tools = tools
        self.approve = approve
        self.notices = NoticeDelivery(tools)
        # token -> (fingerprint of the call awaiting it, binding of the content shown)
        self._pending: OrderedDict[str, tuple[str, str]] = OrderedDict()
        self.server = Server("dwf", version=COMPILER_VERSION, title="DWF workflows", instructions=INSTRUCTIONS,
                             on_list_tools=self._list_tools, on_call_tool=self._call_tool,
                             on_list_resources=_list_resources, on_list_resource_templates=_list_resource_templates,
                             on_read_resource=self._read_resource, on_subscribe_resource=self.notices.on_subscribe,
                             on_unsubscribe_resource=self.notices.on_unsubscribe,
                             on_subscriptions_listen=self.notices.listen,
                             on_list_prompts=self._list_prompts, on_get_prompt=self._get_prompt)
        # Registered directly: the constructor's `on_set_logging_level` warns that 2026-07-28 dropped
        # logging, which the handshake era this serves still has.
        self.server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, self.notices.on_set_level)
        self.server.add_notification_handler("notifications/initialized", types.NotificationParams,
                                             self.notices.on_initialized)

    async def run(self, read_stream, write_stream) -> None:
        options = self.server.create_initialization_options(NotificationOptions(prompts_changed=True),
                                                            experimental_capabilities={CHANNEL_CAPABILITY: {}})
        await self.server.run(read_stream, write_stream, options)

    # ------------------------------------------------------------ handlers

    async def _list_tools(self, ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=d.name, description=d.description, input_schema=d.input_schema,
                       annotations=types.ToolAnnotations(read_only_hint=True) if d.read_only else None)
            for d in self.tools.definitions()])

    async def _call_tool(self, ctx, params: types.CallToolRequestParams):
        arguments = params.arguments or {}
        approver = approve_all if self.approve == "auto" else self._elicit_approver(ctx, params)
        try:
            result = await self.tools.call(params.name, arguments, approver=approver)
        except _InputNeeded as needed:
            return types.InputRequiredResult(input_requests={APPROVAL_KEY: _elicit_request(needed.request)},
                                             request_state=needed.token)
        if params.name == "SaveWorkflow" and result.get("ok"):
            await self.notices.prompts_changed()  # the saved workflow is a new prompt
        return types.CallToolResult(content=[types.TextContent(text=result_text(result))], structured_content=result,
                                    is_error=not result.get("ok", True))

    # ------------------------------------------------------------ resources: the guide and the runs

    async def _read_resource(self, ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if params.uri == GUIDE_URI:
            return types.ReadResourceResult(contents=[
                types.TextResourceContents(uri=GUIDE_URI, mime_type="text/markdown", text=language_guide())])
        return await self.notices.read(str(params.uri))

    # ------------------------------------------------------------ prompts: the guide and the saved workflows

    async def _list_prompts(self, ctx, params) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=list_prompts(self.tools.root))

    async def _get_prompt(self, ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        try:
            return get_prompt(self.tools.root, params.name, params.arguments)
        except PromptError as error:
            raise MCPError(types.INVALID_PARAMS, str(error)) from None

    # ------------------------------------------------------------ approval by elicitation

    def _elicit_approver(self, ctx, params: types.CallToolRequestParams) -> Approver:
        async def approve(request: ApprovalRequest) -> bool:
            if not _can_elicit(ctx.session.client_capabilities):
                raise ApprovalUnavailable(NO_ELICITATION + ".")
            if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or not ctx.session.can_send_request:
                return self._answer_from_retry(params, request)
            try:
                answer = await ctx.session.elicit_form(_message(request), APPROVAL_FORM,
                                                       related_request_id=ctx.request_id)
            except Exception as error:  # the client failed to show the form: nobody approved
                log.warning("elicitation failed: %s", error)
                raise ApprovalUnavailable(f"the client could not show the plan for approval ({error}).") from None
            return _approved(answer)

        return approve

    def _answer_from_retry(self, params: types.CallToolRequestParams, request: ApprovalRequest) -> bool:
        """The person's answer carried by this retry, or `_InputNeeded` to ask for it."""
        fingerprint = _fingerprint(params.name, params.arguments or {})
        token = params.request_state
        responses = params.input_responses or {}
        pending = self._pending.get(token) if token is not None else None
        if pending is not None and pending[0] == fingerprint and APPROVAL_KEY in responses:
            del self._pending[token]
            if pending[1] != request.binding:  # the same call, but not what the person was shown
                raise ApprovalUnavailable(f"{SCRIPT_CHANGED}: the script or a workflow it calls was edited after "
                                          "the plan was shown; call again to see the new plan.")
            response = responses[APPROVAL_KEY]
            return isinstance(response, types.ElicitResult) and _approved(response)
        token = secrets.token_urlsafe(24)
        self._pending[token] = (fingerprint, request.binding)
        while len(self._pending) > MAX_PENDING_APPROVALS:
            self._pending.popitem(last=False)
        raise _InputNeeded(token, request)


# ---------------------------------------------------------------------------- the language guide


async def _list_resources(ctx, params) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[GUIDE_RESOURCE, RUNS_RESOURCE])


async def _list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=[RUN_TEMPLATE])


def _can_elicit(capabilities: types.ClientCapabilities | None) -> bool:
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return False
    # An empty capability object (2025-06-18) means form mode; a URL-only client cannot show a form.
    return elicitation.form is not None or elicitation.url is None


def _message(request: ApprovalRequest) -> str:
    return f"{request.summary}\n\n{request.text}\n\nApprove?"


def _elicit_request(request: ApprovalRequest) -> types.ElicitRequest:
    return types.ElicitRequest(params=types.ElicitRequestFormParams(message=_message(request),
                                                                    requested_schema=APPROVAL_FORM))


def _approved(answer: types.ElicitResult) -> bool:
    return answer.action == "accept" and (answer.content or {}).get("approve") is True


def _fingerprint(name: str, arguments: Any) -> str:
    text = dumps([name, arguments], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------- serving


MAX_MESSAGE_BYTES = 8 * 1024 * 1024  # one JSON-RPC line; a script is at most 1 MB, its arguments far less
OVERSIZE_HEAD_BYTES = 4096  # of an oversize line, kept to find the request's id
_REQUEST_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')


def oversize_error(head: bytes, size: int) -> types.JSONRPCError:
    """The JSON-RPC error answering a line over `MAX_MESSAGE_BYTES`: to the request's id when
    its first bytes name one (so the client's call fails instead of waiting forever), else to
    id null (JSON-RPC's answer to a request it could not read)."""
    found = _REQUEST_ID.search(head)
    request_id = None
    if found:
        text = found.group(1).decode("utf-8", errors="replace")
        request_id = json.loads(text) if text.startswith('"') else int(text)
    message = (f"the message is {size:,} bytes, over this server's limit of {MAX_MESSAGE_BYTES:,} bytes per "
               "JSON-RPC message; send a script by `path=` (a file in the workspace) rather than inline")
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=types.INVALID_REQUEST, message=message))


class _StdinLines:
    """The lines of stdin as an async iterator, read by a daemon thread that hands each line to
    the event loop; a read blocked on a silent client neither delays cancellation nor keeps the
    process alive at exit. It reads the file descriptor with `os.read`, which holds no lock of
    `sys.stdin` that the interpreter would wait for when it finalizes.

    A line longer than `MAX_MESSAGE_BYTES` is not collected: its bytes are dropped as they
    arrive (a 40 MB line costs no more than a small one), and the client gets a JSON-RPC error
    through `answer` (set once the transport is up) instead."""

    def __init__(self, fd: int = 0):
        self._fd = fd
        self._send, self._receive = anyio.create_memory_object_stream[str](0)
        self.answer = None  # async (JSONRPCError) -> None: writes to the client
        self._answering = anyio.Event()

    def start(self) -> _StdinLines:
        token = anyio.lowlevel.current_token()
        threading.Thread(target=self._pump, args=(token,), name="dwf-mcp-stdin", daemon=True).start()
        return self

    def answer_with(self, answer) -> None:
        """Where errors for oversize lines go (the transport's write stream)."""
        self.answer = answer
        self._answering.set()

    async def _refuse(self, head: bytes, size: int) -> None:
        log.warning("refused a JSON-RPC message of %s bytes (limit %s)", f"{size:,}", f"{MAX_MESSAGE_BYTES:,}")
        await self._answering.wait()
        await self.answer(oversize_error(head, size))

    def _pump(self, token) -> None:
        parts: list[bytes] = []
        size = 0
        head: bytes | None = None  # set once the line is over the limit: its first bytes

        def deliver() -> None:
            if head is not None:
                anyio.from_thread.run(self._refuse, head, size, token=token)
            elif size or parts:
                line = b"".join(parts)
                if line.strip():
                    anyio.from_thread.run(self._send.send, line.decode("utf-8", errors="replace"), token=token)

        try:
            while chunk := os.read(self._fd, 65536):
                start = 0
                while True:
                    newline = chunk.find(b"\n", start)
                    piece = chunk[start:] if newline < 0 else chunk[start:newline]
                    size += len(piece)
                    if head is None:
                        parts.append(piece)
                        if size > MAX_MESSAGE_BYTES:
                            head, parts = b"".join(parts)[:OVERSIZE_HEAD_BYTES], []
                    if newline < 0:
                        break
                    deliver()
                    parts, size, head = [], 0, None
                    start = newline + 1
            deliver()
        except Exception:  # the server stopped (loop gone, stream closed): nothing left to deliver to
            pass
        finally:
            try:
                anyio.from_thread.run_sync(self._send.close, token=token)
            except Exception:
                pass

    def __aiter__(self):
        return self._receive


async def serve_stdio(workspace: str | Path, *, agent: str | None = None, model: str | None = None,
                      actor_tools: str | None = None, approve: str = "elicit", ceilings: Ceilings | None = None,
                      stall_after_s: float = DEFAULT_STALL_AFTER_S) -> None:
    """Serve until the client closes stdin or SIGINT/SIGTERM; live runs then stop as
    `stopped(interrupted)` (resumable). Meanwhile the workspace's runs are watched and their
    notices pushed to the client (`tools/notices.py`; a run is stalled after `stall_after_s`).
    Raises `ToolLayerError` before serving when the workspace or the agent port is unusable."""
    async with ToolLayer(workspace, agent=agent, model=model, actor_tools=actor_tools, ceilings=ceilings) as tools, \
            tools.watch(stall_after_s=stall_after_s) as watch:
        server = McpToolServer(tools, approve)
        with anyio.CancelScope() as scope, anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with anyio.create_task_group() as group:
                async def stop_on_signal():
                    async for number in signals:
                        log.warning("signal %s: stopping the server; live runs stop as interrupted", number)
                        scope.cancel()

                group.start_soon(stop_on_signal)
                group.start_soon(server.notices.pump, watch)
                lines = _StdinLines().start()
                async with stdio_server(stdin=lines) as (read_stream, write_stream):
                    lines.answer_with(lambda error: write_stream.send(SessionMessage(error)))
                    await server.run(read_stream, write_stream)
                group.cancel_scope.cancel()


__all__ = ["APPROVE_MODES", "GUIDE_URI", "McpToolServer", "NO_ELICITATION", "WRITE_PROMPT", "serve_stdio"]
