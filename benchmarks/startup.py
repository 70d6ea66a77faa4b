"""Start-up benchmark: process spawn → MCP initialize → first tools/list answer, over stdio.

Four servers are measured side by side in one run, each through the official MCP Python SDK
client in legacy (initialize handshake) mode:

  bare            a FastMCP server with one trivial tool: the floor for any Python MCP server
  pandas baseline a FastMCP server that loads both ModelSEED TSVs with pandas and builds dict
                  indexes by id before serving (the straightforward implementation)
  gem-flux warm   `gem-flux serve` with a cache folder that already holds the SQLite index
  gem-flux cold   `gem-flux serve` with a fresh, empty cache folder (builds the index)

The time of one run is `time.perf_counter()` around entering `async with Client(...)` (spawn +
initialize) plus `list_tools()`. The resident memory of the server process (VmRSS, and the peak
VmHWM, from /proc/<pid>/status) is read right after tools/list answered.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/startup.py [--runs 5] [--cold-runs 2]
"""

from __future__ import annotations

import argparse
import compileall
import datetime as dt
import importlib.metadata
import importlib.util
import os
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

TARGET_RATIO = 1.3  # gem-flux warm start must be at most this many times the bare server's (issue 30)

BARE_SERVER = '''\
"""Bare FastMCP server with one trivial tool (written by benchmarks/startup.py)."""
from fastmcp import FastMCP

mcp = FastMCP("bare")


@mcp.tool
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    mcp.run("stdio", show_banner=False)
'''

PANDAS_SERVER = '''\
"""FastMCP server that loads the ModelSEED TSVs with pandas (written by benchmarks/startup.py)."""
import sys
from pathlib import Path

import pandas as pd
from fastmcp import FastMCP

folder = Path(sys.argv[1]) / "modelseed"
compounds = pd.read_csv(folder / "compounds.tsv", sep="\\t", dtype=str, keep_default_na=False)
reactions = pd.read_csv(folder / "reactions.tsv", sep="\\t", dtype=str, keep_default_na=False)
COMPOUNDS = dict(zip(compounds["id"], compounds.to_dict("records")))
REACTIONS = dict(zip(reactions["id"], reactions.to_dict("records")))

mcp = FastMCP("pandas-baseline")


@mcp.tool
def get_compound_name(compound_id: str) -> dict[str, str]:
    """Look a compound up by its ModelSEED id."""
    return COMPOUNDS.get(compound_id.strip().lower(), {})


if __name__ == "__main__":
    mcp.run("stdio", show_banner=False)
'''


@dataclass
class Sample:
    seconds: float
    rss_kib: int
    hwm_kib: int


@dataclass
class Variant:
    key: str
    label: str
    command: str
    args: list[str]
    samples: list[Sample] = field(default_factory=list)

    def median(self) -> float:
        return statistics.median(s.seconds for s in self.samples)

    def minimum(self) -> float:
        return min(s.seconds for s in self.samples)


def require_data_dir() -> Path:
    value = os.environ.get("GEMFLUX_DATA_DIR")
    if not value:
        sys.exit("error: set GEMFLUX_DATA_DIR to the reference data folder (the one holding "
                 "modelseed/compounds.tsv and modelseed/reactions.tsv)")
    data_dir = Path(value).expanduser().resolve()
    for name in ("compounds.tsv", "reactions.tsv"):
        if not (data_dir / "modelseed" / name).is_file():
            sys.exit(f"error: GEMFLUX_DATA_DIR={value}: {data_dir / 'modelseed' / name} not found")
    return data_dir


def compile_package_bytecode() -> Path:
    """Write the bytecode of the gem_flux_mcp package that `gem-flux` will import (as an installed
    package has it), so that a PYTHONDONTWRITEBYTECODE environment does not make every start
    compile the package's sources while FastMCP's, in site-packages, are compiled already."""
    spec = importlib.util.find_spec("gem_flux_mcp")  # found, not imported
    if spec is None or spec.origin is None:
        sys.exit("error: gem_flux_mcp is not importable from this interpreter")
    package = Path(spec.origin).parent
    compileall.compile_dir(package, quiet=1)
    return package


def children_of(parent: int) -> set[int]:
    """Pids of the live direct children of `parent`, found by scanning /proc (no psutil)."""
    found: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", encoding="ascii", errors="replace") as handle:
                for line in handle:
                    if line.startswith("PPid:"):
                        if int(line.split()[1]) == parent:
                            found.add(int(entry.name))
                        break
        except OSError:  # the process went away while we looked
            continue
    return found


def memory_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in KiB."""
    values = {"VmRSS:": 0, "VmHWM:": 0}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
        for line in handle:
            key = line.split(":", 1)[0] + ":"
            if key in values:
                values[key] = int(line.split()[1])
    return values["VmRSS:"], values["VmHWM:"]


async def measure_once(command: str, args: list[str], env: dict[str, str], errlog: TextIO) -> Sample:
    """Spawn the server, initialize, list tools; time it and read the server's memory."""
    me = os.getpid()
    before = children_of(me)
    params = StdioServerParameters(command=command, args=args, env=env)
    started = time.perf_counter()
    # stdio_client(...) is what Client(StdioServerParameters) builds internally; passing it
    # directly only lets the servers' stderr go to a log file instead of this terminal.
    async with Client(stdio_client(params, errlog=errlog), mode="legacy", cache=None,
                      read_timeout_seconds=600) as client:
        tools = await client.list_tools()
        elapsed = time.perf_counter() - started
        spawned = children_of(me) - before
        if len(spawned) != 1:
            raise RuntimeError(f"expected one server child process, found {sorted(spawned)}")
        rss, hwm = memory_kib(spawned.pop())
    if not tools.tools:
        raise RuntimeError(f"{command} {args} listed no tools")
    return Sample(elapsed, rss, hwm)


def server_env(data_dir: Path, cache_dir: Path, state_dir: Path) -> dict[str, str]:
    # The SDK passes only a small whitelist of variables unless given the environment in full.
    env = dict(os.environ)
    env.update(
        GEMFLUX_DATA_DIR=str(data_dir),
        GEMFLUX_CACHE_DIR=str(cache_dir),
        GEMFLUX_STATE_DIR=str(state_dir),
        # the same for every variant: no update check, no banner, plain logging
        FASTMCP_CHECK_FOR_UPDATES="off",
        FASTMCP_SHOW_SERVER_BANNER="false",
        FASTMCP_ENABLE_RICH_LOGGING="false",
    )
    return env


def mib(kib: float) -> str:
    return f"{kib / 1024:.0f}"


def print_table(variants: list[Variant], bare: Variant) -> None:
    header = (f"{'variant':<18} {'runs':>4} {'median s':>9} {'min s':>7} {'× bare':>7} "
              f"{'RSS MiB':>8} {'peak MiB':>9}")
    print(header)
    print("-" * len(header))
    floor = bare.median()
    for v in variants:
        rss = statistics.median(s.rss_kib for s in v.samples)
        hwm = statistics.median(s.hwm_kib for s in v.samples)
        print(f"{v.label:<18} {len(v.samples):>4} {v.median():>9.3f} {v.minimum():>7.3f} "
              f"{v.median() / floor:>6.2f}× {mib(rss):>8} {mib(hwm):>9}")


async def main_async(args: argparse.Namespace) -> int:
    data_dir = require_data_dir()
    python = sys.executable
    gem_flux = str(Path(python).with_name("gem-flux"))
    if not Path(gem_flux).is_file():
        sys.exit(f"error: {gem_flux} not found; install the project into this virtualenv")

    print("gem-flux start-up benchmark: spawn → initialize → tools/list (stdio, MCP SDK legacy mode)")
    print(f"date {dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z} | {platform.node()} | "
          f"{os.cpu_count()} CPUs | Python {platform.python_version()} | "
          f"fastmcp {importlib.metadata.version('fastmcp')} | mcp {importlib.metadata.version('mcp')}")
    print(f"data {data_dir} | runs {args.runs} (+1 untimed warm-up each), cold runs {args.cold_runs}")
    print(f"gem_flux_mcp from {compile_package_bytecode()} (bytecode compiled)")
    print()

    with tempfile.TemporaryDirectory(prefix="gemflux-startup-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "bare_server.py").write_text(BARE_SERVER, encoding="utf-8")
        (tmp / "pandas_server.py").write_text(PANDAS_SERVER, encoding="utf-8")
        warm_cache = tmp / "cache-warm"
        state = tmp / "state"
        env_warm = server_env(data_dir, warm_cache, state)
        bare = Variant("bare", "bare FastMCP", python, [str(tmp / "bare_server.py")])
        pandas = Variant("pandas", "pandas baseline", python, [str(tmp / "pandas_server.py"), str(data_dir)])
        warm = Variant("warm", "gem-flux warm", gem_flux, ["serve"])
        cold = Variant("cold", "gem-flux cold", gem_flux, ["serve"])

        with (tmp / "servers-stderr.log").open("w", encoding="utf-8") as errlog:

            async def run(variant: Variant, env: dict[str, str], timed: bool = True) -> None:
                sample = await measure_once(variant.command, variant.args, env, errlog)
                if timed:
                    variant.samples.append(sample)
                mark = "" if timed else " (warm-up, not counted)"
                print(f"  {variant.label:<16} {sample.seconds:7.3f} s  RSS {mib(sample.rss_kib):>4} MiB{mark}",
                      flush=True)

            try:
                # Prime the OS file cache and bytecode for the shared imports (fastmcp, mcp, ...).
                await run(bare, env_warm, timed=False)
                # Cold: a fresh empty cache folder every run. The first one's index then serves
                # as the warm cache, so the index is built only as often as cold runs are asked for.
                for i in range(args.cold_runs):
                    cache = warm_cache if i == 0 else tmp / f"cache-cold-{i}"
                    await run(cold, server_env(data_dir, cache, state))
                if args.cold_runs == 0:
                    await run(warm, env_warm, timed=False)  # builds the index, not counted
                await run(pandas, env_warm, timed=False)
                await run(warm, env_warm, timed=False)
                # Interleaved, so that drift in machine load hits every variant alike.
                for _ in range(args.runs):
                    for variant in (bare, pandas, warm):
                        await run(variant, env_warm)
            except Exception:
                errlog.flush()
                print("server stderr (last 40 lines):", file=sys.stderr)
                lines = (tmp / "servers-stderr.log").read_text(encoding="utf-8").splitlines()
                print("\n".join(lines[-40:]), file=sys.stderr)
                raise

    print()
    variants = [bare, pandas, warm] + ([cold] if cold.samples else [])
    print_table(variants, bare)
    ratio = warm.median() / bare.median()
    verdict = "MET" if ratio <= TARGET_RATIO else "NOT MET"
    print()
    print(f"Target: gem-flux warm ≤ {TARGET_RATIO}× bare (median/median): "
          f"{warm.median():.3f} s / {bare.median():.3f} s = {ratio:.2f}× → {verdict}")
    extra = f", cold {cold.median() - bare.median():+.3f} s" if cold.samples else ""
    print(f"Over the floor (median): warm {warm.median() - bare.median():+.3f} s, "
          f"pandas {pandas.median() - bare.median():+.3f} s{extra}")
    print("RSS = VmRSS of the server process right after tools/list; peak = VmHWM (its high-water mark).")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per variant (default 5)")
    parser.add_argument("--cold-runs", type=int, default=2,
                        help="runs of gem-flux with an empty cache folder (default 2; 0 skips)")
    args = parser.parse_args()
    if args.runs < 1 or args.cold_runs < 0:
        parser.error("--runs must be ≥ 1 and --cold-runs ≥ 0")
    return anyio.run(main_async, args)


if __name__ == "__main__":
    sys.exit(main())
