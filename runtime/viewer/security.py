"""This module defines the run viewer's guard (#15 point 6): `TokenGuard`, the ASGI middleware
every request passes, and `SECURITY_HEADERS`, the headers of every response.

- A random token, made at each start (`new_token`), is in the URL `dwfc ui` prints. A request
  carrying it as `?token=` gets it back as an HttpOnly, SameSite=Strict cookie named after the
  port (two viewers on one machine keep their own); every other request needs that cookie. So
  another local user (who never saw the URL) and a web page open in the same browser (whose
  requests carry no cookie: SameSite=Strict, and it cannot read ours) can neither read nor drive
  runs.
- A state-changing request is a POST that also carries the token in the `X-DWF-Token` header
  (the page reads it from its own markup, which no other origin can read) and, when the browser
  sends one, an `Origin` of this server; a cross-site form cannot set the header.
- The `Host` header must name this server (a loopback name or the host it was bound to), so a
  DNS-rebinding page cannot talk to it under another name.
- Every response has a strict Content-Security-Policy (scripts, styles and images from this
  server only, no inline script, no framing) and is neither cached nor sent as a referrer.
"""

from __future__ import annotations

import hmac
import secrets
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs

from starlette.responses import PlainTextResponse

TOKEN_HEADER = "x-dwf-token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
}
REFUSED = ("This DWF run viewer needs its access token: open the URL `dwfc ui` printed "
           "(http://HOST:PORT/?token=...).")


def new_token() -> str:
    """A fresh random token (32 URL-safe characters, 192 bits)."""
    return secrets.token_urlsafe(24)


def cookie_name(port: int) -> str:
    """The cookie of the viewer on `port` (cookies are not kept apart by port)."""
    return f"dwf_ui_{port}"


class TokenGuard:
    """The ASGI middleware of the module docstring around `app`; `host` is the bound host."""

    def __init__(self, app, *, token: str, host: str = "127.0.0.1"):
        self.app = app
        self.token = token
        self.hosts = {*LOOPBACK_NAMES, host}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        port = scope["server"][1] if scope.get("server") else 0
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        by_url = self._matches(given)
        problem = self._refusal(scope, headers, port, by_url)
        if problem is not None:
            response = PlainTextResponse(problem, status_code=403 if problem != "method" else 405,
                                         headers=SECURITY_HEADERS)
            await response(scope, receive, send)
            return

        async def send_guarded(message) -> None:
            if message["type"] == "http.response.start":
                extra = [(name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items()]
                if by_url:
                    cookie = f"{cookie_name(port)}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                    extra.append((b"set-cookie", cookie.encode()))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_guarded)

    def _matches(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(value.encode(), self.token.encode())

    def _refusal(self, scope, headers: dict, port: int, by_url: bool) -> str | None:
        """Why the request is refused, or None."""
        host = headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.startswith("[") else host[1:].split("]")[0]
        if name not in self.hosts:
            return f"this viewer answers only as {', '.join(sorted(self.hosts))}, not {host!r}"
        cookies = SimpleCookie()
        try:
            cookies.load(headers.get("cookie", ""))
        except CookieError:  # a malformed Cookie header is just no cookie
            cookies = SimpleCookie()
        morsel = cookies.get(cookie_name(port))
        if not (by_url or self._matches(morsel.value if morsel else None)):
            return REFUSED
        method = scope["method"]
        if method in ("GET", "HEAD"):
            return None
        if method != "POST":
            return "method"
        origin = headers.get("origin")
        if origin is not None and origin not in (f"http://{host}",):
            return f"a request from {origin!r} may not change runs"
        if not self._matches(headers.get(TOKEN_HEADER)):
            return "a request that changes a run must carry the token in the X-DWF-Token header"
        return None


__all__ = ["CSP", "SECURITY_HEADERS", "TOKEN_HEADER", "TokenGuard", "cookie_name", "new_token"]
