"""Who may use the HTTP server, and which workspace each caller sees.

Without tokens (the default, and always under stdio) there is one local workspace. With tokens
configured (`GEMFLUX_TOKENS="tokenA=labA,tokenB=labB"` or `--token-file`, one `token workspace`
per line), every MCP and dashboard request needs one (`Authorization: Bearer`, or for a browser
`?token=` once, then a cookie), and the token decides the workspace: one workspace never sees
another's models, media, sessions or calls.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import re
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError

log = logging.getLogger(__name__)

LOCAL_WORKSPACE = "local"
ENV_TOKENS = "GEMFLUX_TOKENS"
COOKIE = "gemflux_token"
_WORKSPACE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$")

_current: ContextVar[str] = ContextVar("gemflux_workspace", default=LOCAL_WORKSPACE)


@dataclass(frozen=True)
class TokenTable:
    tokens: dict[str, str]  # token -> workspace

    @property
    def enabled(self) -> bool:
        return bool(self.tokens)

    def workspace_for(self, token: str | None) -> str | None:
        if not token:
            return None
        for known, workspace in self.tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):  # constant time
                return workspace
        return None

    @classmethod
    def load(cls, token_file: str | None = None) -> TokenTable:
        pairs: list[tuple[str, str]] = []
        raw = os.environ.get(ENV_TOKENS, "")
        pairs += [tuple(p.split("=", 1)) for p in raw.split(",") if p.strip()]  # type: ignore[misc]
        if token_file:
            for line in Path(token_file).read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    parts = line.split()
                    pairs.append((parts[0], parts[1] if len(parts) > 1 else ""))
        tokens: dict[str, str] = {}
        for token, workspace in pairs:
            token, workspace = token.strip(), workspace.strip()
            if len(token) < 16 or not _WORKSPACE.match(workspace):
                raise DataError(ErrorCode.INVALID_TOKEN_CONFIG,
                                "each token needs >= 16 characters and a workspace name of letters, digits, "
                                "'_', '-' or '.'", details={"workspace": workspace})
            tokens[token] = workspace
        return cls(tokens)


_table = TokenTable({})


def configure(table: TokenTable) -> None:
    global _table
    _table = table


def table() -> TokenTable:
    return _table


def token_of(headers: dict[str, str], cookies: dict[str, str], query: dict[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return query.get("token") or cookies.get(COOKIE)


def request_workspace() -> str:
    """The workspace of the MCP request being handled (async context)."""
    if not _table.enabled:
        return LOCAL_WORKSPACE
    try:
        from fastmcp.server.dependencies import get_http_request

        request = get_http_request()
    except RuntimeError:
        return _current.get()
    workspace = _table.workspace_for(token_of(dict(request.headers), dict(request.cookies),
                                              dict(request.query_params)))
    # the ASGI guard has already refused requests without a valid token
    return workspace or _current.get()


def bind_request_workspace() -> None:
    """Called by tool wrappers before they leave the event loop: worker threads inherit it."""
    _current.set(request_workspace())


def current_workspace() -> str:
    return _current.get()


class TokenGuard:
    """ASGI middleware: with tokens configured, refuse requests without a valid one (401)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or not _table.enabled:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        cookies = _cookies(headers.get("cookie", ""))
        query = _query(scope.get("query_string", b"").decode("latin-1"))
        token = token_of(headers, cookies, query)
        workspace = _table.workspace_for(token)
        if workspace is None:
            body = json.dumps({"error": "unauthorized", "message": "A valid token is required: send "
                               "'Authorization: Bearer <token>' (or open the dashboard with ?token=<token>)."})
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"www-authenticate", b'Bearer realm="gem-flux"')]})
            await send({"type": "http.response.body", "body": body.encode()})
            return
        reset = _current.set(workspace)
        set_cookie = "token" in query and token is not None
        if "token" in query:  # the access log and the app below never see the token
            scope["query_string"] = _without_token(scope.get("query_string", b""))

        async def send_with_cookie(message: Any) -> None:
            if set_cookie and message["type"] == "http.response.start":
                cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"set-cookie", cookie.encode("latin-1"))]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_cookie)
        finally:
            _current.reset(reset)


def _cookies(raw: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in raw.split(";"):
        name, sep, value = part.strip().partition("=")
        if sep:
            out[name] = value
    return out


def _without_token(raw: bytes) -> bytes:
    from urllib.parse import parse_qsl, urlencode

    pairs = [(k, v) for k, v in parse_qsl(raw.decode("latin-1"), keep_blank_values=True) if k != "token"]
    return urlencode(pairs).encode("latin-1")


class RedactTokens(logging.Filter):
    """Belt and braces for log lines (the uvicorn access log): `token=...` in a URL is masked."""

    _pattern = re.compile(r"([?&]token=)[^&\s\"']+")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(self._pattern.sub(r"\1***", a) if isinstance(a, str) else a
                                for a in (record.args if isinstance(record.args, tuple) else (record.args,)))
        if isinstance(record.msg, str):
            record.msg = self._pattern.sub(r"\1***", record.msg)
        return True


def _query(raw: str) -> dict[str, str]:
    from urllib.parse import parse_qsl

    return dict(parse_qsl(raw))
