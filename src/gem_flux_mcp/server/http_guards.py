"""ASGI guard for MCP requests over HTTP: bounded request bodies, and JSON-RPC requests whose
`id` the protocol does not allow answered with an error instead of silence."""

from __future__ import annotations

import json
from typing import Any

MAX_BODY_BYTES = 64 * 1024 * 1024  # a whole proteome as protein_sequences is ~2-10 MB


async def _respond(send: Any, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _bad_ids(message: Any) -> bool:
    """True when a JSON-RPC message (or a batch) carries an id that is not a string, integer or null."""
    messages = message if isinstance(message, list) else [message]
    for item in messages:
        if isinstance(item, dict) and "id" in item:
            rid = item["id"]
            if isinstance(rid, bool) or not isinstance(rid, str | int | type(None)):
                return True
    return False


class RequestGuard:
    def __init__(self, app: Any, path: str = "/mcp") -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                await _respond(send, 413, {"jsonrpc": "2.0", "id": None, "error": {
                    "code": -32600, "message": f"Request body over {MAX_BODY_BYTES // (1024 * 1024)} MB: put large "
                                               "inputs in a file in your file area and pass its path."}})
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None  # the MCP transport answers malformed JSON itself
        if _bad_ids(parsed):
            await _respond(send, 400, {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32600, "message": "Invalid Request: a JSON-RPC id must be a string or an integer."}})
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
