"""What the benchmarks over Streamable HTTP share: free ports, server processes started and
waited for, SDK clients, percentiles, and the bare FastMCP server (tools of Gem-Flux's names that
return a fixed answer), the floor any Python MCP server stands on.

Imported by scripts run as files (`benchmarks/` is then on `sys.path`): `from mcp_http import ...`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from mcp import Client
from mcp.types import Implementation

GEM_FLUX = str(Path(sys.executable).with_name("gem-flux"))

# The bare server's tools: Gem-Flux's names and arguments, a fixed answer (media kept in a dict,
# so the check of acknowledged writes runs against it too).
BARE_TOOLS = {
    "get_compound_name": '''
        @mcp.tool
        def get_compound_name(compound_id: str) -> dict:
            return {"success": True, "id": compound_id, "name": "D-Glucose"}
    ''',
    "get_reaction_name": '''
        @mcp.tool
        def get_reaction_name(reaction_id: str) -> dict:
            return {"success": True, "id": reaction_id, "name": "pyruvate kinase"}
    ''',
    "search_compounds": '''
        @mcp.tool
        def search_compounds(query: str, limit: int = 10) -> dict:
            return {"success": True, "query": query, "results": [{"id": "cpd00027", "name": "D-Glucose"}]}
    ''',
    "search_reactions": '''
        @mcp.tool
        def search_reactions(query: str, limit: int = 10) -> dict:
            return {"success": True, "query": query, "results": [{"id": "rxn00148", "name": "pyruvate kinase"}]}
    ''',
    "build_media": '''
        MEDIA: dict = {}

        @mcp.tool
        def build_media(compounds: list[str], media_name: str | None = None, default_uptake: float = 100.0,
                        custom_bounds: dict | None = None) -> dict:
            media_id = media_name or f"media_{len(MEDIA)}"
            MEDIA[media_id] = compounds
            return {"success": True, "media_id": media_id, "num_compounds": len(compounds)}
    ''',
    "get_media": '''
        @mcp.tool
        def get_media(media_id: str, limit: int = 500, offset: int = 0) -> dict:
            if media_id not in MEDIA and not media_id.startswith("glucose"):
                raise ValueError(f"no medium {media_id}")
            return {"success": True, "media_id": media_id, "compounds": MEDIA.get(media_id, [])}
    ''',
    "list_media": '''
        @mcp.tool
        def list_media(name: str | None = None, compound: str | None = None, limit: int = 25,
                       offset: int = 0) -> dict:
            ids = sorted(m for m in MEDIA if name is None or name in m)
            return {"success": True, "media": [{"media_id": m} for m in ids[offset:offset + limit]],
                    "matched_media": len(ids)}
    ''',
    "run_fba": '''
        @mcp.tool
        def run_fba(model_id: str, media_id: str, objective: str = "bio1", maximize: bool = True) -> dict:
            return {"success": True, "model_id": model_id, "objective_value": 0.874, "status": "optimal"}
    ''',
    "gapfill_model": '''
        @mcp.tool
        def gapfill_model(model_id: str, media_id: str | None = None) -> dict:
            return {"success": True, "model_id": model_id + ".gf", "num_reactions_added": 0}
    ''',
}


def bare_script(tools: Sequence[str]) -> str:
    """A FastMCP server with `tools` (names from BARE_TOOLS) on Streamable HTTP at the port argv[1]."""
    body = "".join(textwrap.dedent(BARE_TOOLS[name]) for name in tools)
    return ("import sys\nfrom fastmcp import FastMCP\n\nmcp = FastMCP('bare')\n" + body
            + "\nmcp.run(transport='http', host='127.0.0.1', port=int(sys.argv[1]), show_banner=False)\n")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pct(values: Sequence[float], q: float) -> float:
    """The q-quantile (0-1) of `values`, nearest rank below."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextmanager
def http_servers(commands: Sequence[Sequence[str]], envs: Sequence[dict[str, str]], ports: Sequence[int],
                 log_dir: Path, settle_s: float = 0.0,
                 procs: list[subprocess.Popen[bytes]] | None = None) -> Iterator[list[str]]:
    """Start one server per command (each listening on its port), wait until all accept
    connections, then `settle_s` more; yields their base URLs (`http://127.0.0.1:PORT`). The
    servers are terminated (killed after 20 s) on exit. `procs`, if given, receives the processes."""
    procs = [] if procs is None else procs
    try:
        for n, (command, env) in enumerate(zip(commands, envs, strict=True)):
            with (log_dir / f"server{n}.log").open("ab") as log:
                procs.append(subprocess.Popen(list(command), env=env, stdout=log, stderr=subprocess.STDOUT))
        for proc, port in zip(procs, ports, strict=True):
            deadline = time.monotonic() + 90
            while True:
                if proc.poll() is not None or time.monotonic() > deadline:
                    sys.exit(f"a server did not start; see {log_dir}")
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                        break
                except OSError:
                    time.sleep(0.1)
        time.sleep(settle_s)
        yield [f"http://127.0.0.1:{port}" for port in ports]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU time the processes have used so far (Linux /proc; their own threads, not
    their children)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / os.sysconf("SC_CLK_TCK")


def gem_flux_command(port: int) -> list[str]:
    return [GEM_FLUX, "serve", "--transport", "http", "--port", str(port)]


def client(url: str, mode: str, name: str, read_timeout_s: float = 120) -> Client:
    """The MCP SDK client on `url`'s /mcp endpoint; `mode` "legacy" (2025-era handshake) or a
    protocol version ("2026-07-28")."""
    return Client(f"{url}/mcp", mode=mode, client_info=Implementation(name=name, version="1"),
                  read_timeout_seconds=read_timeout_s)
