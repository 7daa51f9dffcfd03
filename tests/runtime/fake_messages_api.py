"""A fake Anthropic Messages API: a real HTTP server on 127.0.0.1 (an ephemeral port, one thread
per connection) answering `POST /v1/messages` from a queue of scripted replies and recording
every request body, so tests drive the real `anthropic` SDK over real HTTP via `base_url`.

    with FakeMessagesAPI() as api:
        api.queue(text("hello"), tool_use("submit_result", {"x": 1}), rate_limited(retry_after=0.2))
        port = AnthropicAgentPort(api_key="test", base_url=api.url, ...)

An empty queue answers 500 with an `api_error` naming the exhaustion.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_ids = itertools.count(1)


@dataclass
class Reply:
    status: int = 200
    body: dict = field(default_factory=dict)
    headers: dict = field(default_factory=dict)
    delay_s: float = 0.0


def message(*content: dict, stop_reason: str | None = None, input_tokens: int = 10, output_tokens: int = 5,
            cache_read: int = 0, cache_write: int = 0, model: str = "claude-test") -> Reply:
    if stop_reason is None:
        stop_reason = "tool_use" if any(c["type"] == "tool_use" for c in content) else "end_turn"
    return Reply(body={
        "id": f"msg_{next(_ids)}", "type": "message", "role": "assistant", "model": model,
        "content": list(content), "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                  "cache_read_input_tokens": cache_read, "cache_creation_input_tokens": cache_write}})


def text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def tool_block(name: str, arguments: dict, tool_id: str | None = None) -> dict:
    return {"type": "tool_use", "id": tool_id or f"toolu_{next(_ids)}", "name": name, "input": arguments}


def text(answer: str, **usage) -> Reply:
    return message(text_block(answer), **usage)


def tool_use(name: str, arguments: dict, tool_id: str | None = None, **usage) -> Reply:
    return message(tool_block(name, arguments, tool_id), **usage)


def error(status: int, kind: str, msg: str, headers: dict | None = None, delay_s: float = 0.0) -> Reply:
    return Reply(status, {"type": "error", "error": {"type": kind, "message": msg}}, headers or {}, delay_s)


def rate_limited(retry_after: float | None = None) -> Reply:
    headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
    return error(429, "rate_limit_error", "Number of requests has exceeded your rate limit", headers)


def overloaded() -> Reply:
    return error(529, "overloaded_error", "Overloaded")


def slow(reply: Reply, delay_s: float) -> Reply:
    reply.delay_s = delay_s
    return reply


class FakeMessagesAPI:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict] = []  # request bodies, in arrival order
        self.arrivals: list[float] = []  # time.monotonic() of each request
        self.headers: list[dict] = []
        self.aborted = threading.Event()  # a slow reply found its client gone
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                with api._lock:
                    api.arrivals.append(time.monotonic())
                    api.headers.append({k.lower(): v for k, v in self.headers.items()})
                    try:
                        api.requests.append(json.loads(raw))
                    except ValueError:
                        api.requests.append({"unparsed": raw.decode("utf-8", "replace")})
                    reply = api.replies.popleft() if api.replies else error(
                        500, "api_error", "the fake Messages API has no scripted reply left")
                if self.path.split("?")[0] != "/v1/messages":
                    reply = error(404, "not_found_error", f"no route {self.path}")
                if reply.delay_s:
                    deadline = time.monotonic() + reply.delay_s
                    while time.monotonic() < deadline:
                        time.sleep(0.02)
                        if _peer_closed(self.connection):
                            api.aborted.set()
                            return
                data = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.send_header("request-id", f"req_{next(_ids)}")
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    api.aborted.set()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def queue(self, *replies: Reply) -> FakeMessagesAPI:
        with self._lock:
            self.replies.extend(replies)
        return self

    def __enter__(self) -> FakeMessagesAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)


def _peer_closed(sock) -> bool:
    import select
    import socket

    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True
