"""A lab's load: N concurrent MCP clients over Streamable HTTP making mixed calls (look-ups, media
writes, `run_fba` on a small stored model) while one long gapfill runs in the background, against
(a) one `gem-flux serve --transport http` on SQLite, (b) two on one PostgreSQL database (clients
split between them) and (c) a bare FastMCP server whose tools of the same names answer at once,
all in one run (issue 33).

Scenarios (clients x calls each, all clients at once): 1 x 200 in a row, 20 x 20, 100 x 10.
Each client's calls cycle through MIX (8 look-ups, one `build_media` with a name of its own,
one `run_fba` on COBRApy's textbook model imported at set-up); clients alternate between the
2025-era handshake and the 2026-07-28 stateless mode. Meanwhile a client outside the figures
gapfills a 200-protein E. coli draft (built at set-up) again and again. Reported: latency
p50/p95 per tool and per scenario, and of each client's first call apart from its later
ones (the MCP SDK lists the tools and compiles the output-schema validator in the first),
throughput (calls / scenario wall time, connecting included),
the servers' CPU time per call (their own, not their workers': a figure other work on the machine
changes little), the clients' CPU time as a share of the wall time (all clients are one process
here: near 100 % it is the clients, not the server, that set the pace), errors; then every
medium a client was told was stored is read back with `get_media` (on PostgreSQL through the
other server) and counted by `list_media`. Ratios are against the bare server in the same run;
the targets are issue 33's. `--profile DIR` runs each gem-flux server under cProfile.

    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/load.py [--quick] [--targets sqlite,postgresql,bare]
        [--rounds N] [--database-url URL] [--cache-dir DIR] [--no-gapfill] [--profile DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cobra.io import load_model, save_json_model

from mcp_http import bare_script, client, cpu_seconds, free_port, gem_flux_command, http_servers, pct

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from postgres import PostgresCluster, find_bin_dir  # noqa: E402

# textbook's medium in ModelSEED ids (tests/models.py TEXTBOOK_MEDIUM), uptake as in textbook
TEXTBOOK_MEDIUM = {"cpd00011": 1000.0, "cpd00027": 10.0, "cpd00067": 1000.0, "cpd00001": 1000.0,
                   "cpd00013": 1000.0, "cpd00007": 1000.0, "cpd00009": 1000.0}
LOOKUPS = {"get_compound_name", "get_reaction_name", "search_compounds", "search_reactions", "get_media"}
Call = tuple[str, Callable[[str], dict[str, Any]]]  # (tool, arguments from the call's unique tag)
MIX: list[Call] = [
    ("get_compound_name", lambda tag: {"compound_id": "cpd00027"}),
    ("search_compounds", lambda tag: {"query": "glucose", "limit": 5}),
    ("build_media", lambda tag: {"compounds": ["cpd00027", "cpd00007", "cpd00009", "cpd00013"], "media_name": tag}),
    ("get_reaction_name", lambda tag: {"reaction_id": "rxn00148"}),
    ("run_fba", lambda tag: {"model_id": "tb.draft", "media_id": "tb_medium", "objective": "Biomass_Ecoli_core"}),
    ("search_reactions", lambda tag: {"query": "pyruvate kinase", "limit": 5}),
    ("get_compound_name", lambda tag: {"compound_id": "cpd00020"}),
    ("get_media", lambda tag: {"media_id": "glucose_minimal_aerobic", "limit": 10}),
    ("search_compounds", lambda tag: {"query": "succinate", "limit": 5}),
    ("get_reaction_name", lambda tag: {"reaction_id": "rxn00200"}),
]
SCENARIOS = {"full": [(1, 200), (20, 20), (100, 10)], "quick": [(1, 40), (10, 5), (30, 3)]}
SETTLE_S = 5.0
# --profile: a gem-flux server under cProfile in every thread (tools run in anyio worker threads)
PROFILED = '''
import atexit, cProfile, pstats, sys, threading

def main(out):
    profiles = [cProfile.Profile()]
    def per_thread(frame, event, arg):
        profiles.append(cProfile.Profile())
        profiles[-1].enable()
    threading.setprofile(per_thread)
    def dump():
        for p in profiles:
            p.disable()
        stats = pstats.Stats(profiles[0])
        for p in profiles[1:]:
            stats.add(p)
        stats.dump_stats(out)
    atexit.register(dump)
    profiles[0].enable()
    from gem_flux_mcp.cli.main import main as gem_flux
    gem_flux(sys.argv[2:])

if __name__ == "__main__":  # not in the worker processes (spawned: they import this file)
    main(sys.argv[1])
'''  # gem-flux imports COBRApy in the background ~3 s after start


@dataclass
class Scenario:
    clients: int
    calls: int
    times: dict[str, list[float]] = field(default_factory=dict)  # tool -> ms
    # ms of each client's first call (the MCP SDK then lists the tools and compiles the tool's
    # output-schema validator before returning) and of its later calls
    first: list[float] = field(default_factory=list)
    later: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0  # the server processes' CPU time (not their workers') during the scenario
    client_cpu_s: float = 0.0  # this process's (all the clients') CPU time during the scenario

    @property
    def label(self) -> str:
        return f"{self.clients} x {self.calls}"

    def all_times(self, only: set[str] | None = None) -> list[float]:
        return [t for tool, ts in self.times.items() if only is None or tool in only for t in ts]


@dataclass
class Target:
    name: str
    scenarios: list[Scenario]
    acknowledged: list[tuple[int, str]] = field(default_factory=list)  # (server index, media id)
    readable: int = 0
    listed: int = 0
    gapfills: list[str] = field(default_factory=list)  # "41.2 s ok" / "error ..."
    load: str = ""


def uptime() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


async def one_client(urls: list[str], n: int, scenario: Scenario, target: Target, run: str) -> None:
    server = n % len(urls)
    mode = "legacy" if n % 2 == 0 else "2026-07-28"
    try:
        async with client(urls[server], mode, f"load-{n}") as c:
            for i in range(scenario.calls):
                tool, arguments = MIX[(n + i) % len(MIX)]
                tag = f"{run}_c{n}_{i}"
                started = time.perf_counter()
                try:
                    answer = await c.call_tool(tool, arguments(tag))
                except Exception as exc:  # a transport failure is an error of that call
                    scenario.errors.append(f"{tool}: {type(exc).__name__}: {exc}"[:200])
                    continue
                elapsed_ms = (time.perf_counter() - started) * 1000
                scenario.times.setdefault(tool, []).append(elapsed_ms)
                (scenario.first if i == 0 else scenario.later).append(elapsed_ms)
                if answer.is_error:
                    scenario.errors.append(f"{tool}: {str(answer.content)[:200]}")
                elif tool == "build_media":
                    target.acknowledged.append((server, str((answer.structured_content or {})["media_id"])))
    except Exception as exc:  # connecting failed: every call of this client is an error
        scenario.errors.extend([f"connect: {type(exc).__name__}: {exc}"[:200]] * scenario.calls)


async def background_gapfill(url: str, target: Target, stop: asyncio.Event) -> None:
    """Gapfill the draft again and again until the scenarios are done (at most one at a time)."""
    async with client(url, "legacy", "load-gapfill", read_timeout_s=900) as c:
        while not stop.is_set():
            started = time.perf_counter()
            answer = await c.call_tool("gapfill_model", {"model_id": "sub200.draft",
                                                         "media_id": "glucose_minimal_aerobic"})
            elapsed = time.perf_counter() - started
            target.gapfills.append(f"{elapsed:.1f} s " + ("error" if answer.is_error else "ok"))
            if elapsed < 1.0:  # the bare server answers at once: do not spin
                await asyncio.sleep(1.0)


async def set_up(url: str, work: Path) -> None:
    async with client(url, "legacy", "load-setup", read_timeout_s=900) as c:
        steps = [("import_model", {"file_path": str(work / "textbook.json"), "model_name": "tb"}),
                 ("build_media", {"compounds": list(TEXTBOOK_MEDIUM), "media_name": "tb_medium",
                                  "custom_bounds": {c: [-v, 1000.0] for c, v in TEXTBOOK_MEDIUM.items()}}),
                 ("build_model", {"fasta_file_path": str(work / "ecoli200.faa"), "model_name": "sub200"})]
        for tool, arguments in steps:
            answer = await c.call_tool(tool, arguments)
            if answer.is_error:
                sys.exit(f"set-up {tool} failed: {answer.content}")


async def check_writes(urls: list[str], target: Target, run: str, first_new: int) -> None:
    """Each medium acknowledged in this round (from `first_new` on) read back (through another
    server when there are two), and the round's media counted by list_media."""
    async with client(urls[-1], "legacy", "load-check") as last, client(urls[0], "legacy", "load-check") as first:
        for server, media_id in target.acknowledged[first_new:]:
            reader = first if server == len(urls) - 1 else last
            answer = await reader.call_tool("get_media", {"media_id": media_id, "limit": 1})
            target.readable += not answer.is_error
        answer = await first.call_tool("list_media", {"name": run, "limit": 1})
        target.listed += int((answer.structured_content or {}).get("matched_media", 0))


async def run_target(urls: list[str], pids: list[int], target: Target, work: Path, gem_flux: bool,
                     gapfill: bool) -> None:
    if gem_flux:
        print(f"[{target.name}] set-up: import textbook, its medium, build a 200-protein draft ...", flush=True)
        await set_up(urls[0], work)
    stop = asyncio.Event()
    background = asyncio.ensure_future(background_gapfill(urls[0], target, stop)) if gapfill else None
    if background is not None:
        await asyncio.sleep(3.0)  # the gapfill is under way in its worker
    run, first_new = f"load_{target.name[:3]}_{int(time.time())}", len(target.acknowledged)
    target.load += f"{'; ' if target.load else ''}{uptime()}"
    for number, scenario in enumerate(target.scenarios):
        print(f"[{target.name}] {scenario.label} (load {uptime()}) ...", flush=True)
        started, cpu, client_cpu = time.perf_counter(), cpu_seconds(pids), time.process_time()
        await asyncio.gather(*(one_client(urls, n, scenario, target, f"{run}_s{number}")
                               for n in range(scenario.clients)))
        scenario.wall_s += time.perf_counter() - started
        scenario.cpu_s += cpu_seconds(pids) - cpu
        scenario.client_cpu_s += time.process_time() - client_cpu
    target.load += f" -> {uptime()}"
    stop.set()
    if background is not None:
        await background  # the one under way finishes: its answer is part of the record
    await check_writes(urls, target, run, first_new)


def report(targets: list[Target]) -> None:
    bare = next((t for t in targets if t.name == "bare"), None)
    print()
    print(f"{'target':<11} {'scenario':<9} {'calls':>6} {'wall s':>7} {'calls/s':>8} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'max ms':>7} {'look-up p50':>11} {'CPU ms/call':>11} {'client CPU':>10} {'errors':>6}  "
          f"{'x bare: look-up p50, calls/s, p95, CPU/call'}")
    for target in targets:
        for k, s in enumerate(target.scenarios):
            times, lookups = s.all_times(), s.all_times(LOOKUPS)
            ratio = ""
            if bare is not None and target is not bare:
                b = bare.scenarios[k]
                ratio = (f"{statistics.median(lookups) / statistics.median(b.all_times(LOOKUPS)):.2f}x, "
                         f"{len(times) / s.wall_s / (len(b.all_times()) / b.wall_s):.2f}x, "
                         f"{pct(times, 0.95) / pct(b.all_times(), 0.95):.2f}x, "
                         f"{s.cpu_s / len(times) / (b.cpu_s / len(b.all_times())):.2f}x")
            print(f"{target.name:<11} {s.label:<9} {len(times):>6} {s.wall_s:>7.2f} {len(times) / s.wall_s:>8.1f} "
                  f"{statistics.median(times):>7.1f} {pct(times, 0.95):>7.1f} {max(times):>7.1f} "
                  f"{statistics.median(lookups):>11.1f} {s.cpu_s / len(times) * 1000:>11.2f} "
                  f"{s.client_cpu_s / s.wall_s:>9.0%} {len(s.errors):>6}  "
                  f"{ratio}")
    print()
    print("per tool, p50 / p95 ms")
    tools = sorted({tool for t in targets for s in t.scenarios for tool in s.times})
    print(f"{'target':<11} {'scenario':<9} " + " ".join(f"{tool[:17]:>17}" for tool in tools))
    for target in targets:
        for s in target.scenarios:
            cells = [f"{statistics.median(s.times[tool]):7.1f} /{pct(s.times[tool], 0.95):7.1f}"
                     if tool in s.times else f"{'-':>17}" for tool in tools]
            print(f"{target.name:<11} {s.label:<9} " + " ".join(f"{c:>17}" for c in cells))
    print()
    print("each client's first call (the MCP SDK lists the tools and compiles the tool's output-schema validator "
          "before it returns) and its later calls, p50 / p95 ms")
    for target in targets:
        for s in target.scenarios:
            if s.first and s.later:
                first, later = s.first, s.later
                print(f"{target.name:<11} {s.label:<9} first {statistics.median(first):7.1f} /{pct(first, 0.95):7.1f}"
                      f"   later {statistics.median(later):7.1f} /{pct(later, 0.95):7.1f}")
    print()
    for target in targets:
        acknowledged = len(target.acknowledged)
        lost = acknowledged - target.readable
        print(f"{target.name}: {acknowledged} media acknowledged, {target.readable} read back, {target.listed} listed"
              f" -> {'0 writes lost' if lost == 0 and target.listed == acknowledged else f'{lost} LOST'}; "
              f"errors {sum(len(s.errors) for s in target.scenarios)}; load {target.load}; "
              f"background gapfills: {', '.join(target.gapfills) or 'none'}")
        for s in target.scenarios:
            for error in s.errors[:3]:
                print(f"    {s.label}: {error}")
    if bare is not None:
        verdicts(targets, bare)


def verdicts(targets: list[Target], bare: Target) -> None:
    print()
    print("issue 33's targets")
    for target in targets:
        if target is bare:
            continue
        one, twenty, hundred = target.scenarios[:3]
        b_one, b_twenty = bare.scenarios[:2]
        lookup = statistics.median(one.all_times(LOOKUPS)) / statistics.median(b_one.all_times(LOOKUPS))
        throughput = (len(twenty.all_times()) / twenty.wall_s) / (len(b_twenty.all_times()) / b_twenty.wall_s)
        p95 = pct(hundred.all_times(), 0.95)
        lost = len(target.acknowledged) - target.readable
        errors = sum(len(s.errors) for s in target.scenarios)
        checks = [(f"1 client look-ups p50 {lookup:.2f}x bare (<= 2x)", lookup <= 2),
                  (f"{twenty.label} throughput {throughput:.2f}x bare (>= 0.5x)", throughput >= 0.5),
                  (f"{hundred.label} p95 {p95:.0f} ms (< 1000)", p95 < 1000),
                  (f"errors {errors} (0)", errors == 0), (f"writes lost {lost} (0)", lost == 0)]
        print(f"  {target.name}: " + "; ".join(f"{text} {'met' if ok else 'NOT MET'}" for text, ok in checks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short scenarios: 1 x 40, 10 x 5, 30 x 3")
    parser.add_argument("--targets", default="sqlite,postgresql,bare")
    parser.add_argument("--rounds", type=int, default=1, help="rounds, the targets interleaved (figures pooled)")
    parser.add_argument("--no-gapfill", action="store_true", help="no gapfill in the background")
    parser.add_argument("--database-url", help="an empty PostgreSQL database (default: a throwaway cluster)")
    parser.add_argument("--profile", type=Path, help="a folder: cProfile each gem-flux server (<target>-<n>.prof)")
    parser.add_argument("--cache-dir", help="biochemistry index folder (default: $GEMFLUX_CACHE_DIR, else temp)")
    args = parser.parse_args()
    data_dir = os.environ.get("GEMFLUX_DATA_DIR")
    if not data_dir or not Path(data_dir, "modelseed", "compounds.tsv").is_file():
        sys.exit("set GEMFLUX_DATA_DIR to the reference data folder")
    names = args.targets.split(",")
    if args.database_url and args.rounds > 1:
        sys.exit("--database-url serves one round (each round needs an empty database): leave it out for a cluster")
    plan = SCENARIOS["quick" if args.quick else "full"]
    print(f"gem-flux load benchmark | {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC | {platform.node()} | "
          f"{os.cpu_count()} CPUs | load {uptime()} | {args.rounds} round(s) of "
          f"{', '.join(f'{c} x {n}' for c, n in plan)} | "
          f"gapfill in the background: {not args.no_gapfill}")
    with tempfile.TemporaryDirectory(prefix="gemflux-load-") as tmp:
        work = Path(tmp)
        from gem_flux_mcp.data.biochem import BiochemIndex

        cache = Path(args.cache_dir or os.environ.get("GEMFLUX_CACHE_DIR") or work / "cache")
        BiochemIndex.open(Path(data_dir), cache)  # built once, before any server starts
        save_json_model(load_model("textbook"), str(work / "textbook.json"))
        proteins = (Path(data_dir) / "genomes" / "ecoli_k12_mg1655.faa").read_text().split(">")[1:201]
        (work / "ecoli200.faa").write_text("".join(">" + p for p in proteins))
        (work / "profiled.py").write_text(PROFILED)
        (work / "bare.py").write_text(bare_script(sorted({tool for tool, _ in MIX} | {"gapfill_model", "list_media"})))
        base_env = {**os.environ, "GEMFLUX_DATA_DIR": data_dir, "GEMFLUX_CACHE_DIR": str(cache),
                    "GEMFLUX_ALLOWED_ROOTS": str(work), "FASTMCP_CHECK_FOR_UPDATES": "off",
                    "FASTMCP_SHOW_SERVER_BANNER": "false"}
        base_env.pop("GEMFLUX_DATABASE_URL", None)
        cluster: PostgresCluster | None = None
        try:
            targets = [Target(name, [Scenario(c, n) for c, n in plan]) for name in names]
            # rounds interleaved (the order reversed every other round), so other work on the
            # machine weighs on every target alike; fresh servers and stores each round
            for round_no, target in ((r, t) for r in range(args.rounds) for t in targets[::1 - 2 * (r % 2)]):
                name = target.name
                folder = work / f"{name}{round_no}"
                folder.mkdir()
                ports = [free_port() for _ in range(2 if name == "postgresql" else 1)]
                def gem_flux(n: int, port: int, name: str = name) -> list[str]:
                    if args.profile is None:
                        return gem_flux_command(port)
                    args.profile.mkdir(parents=True, exist_ok=True)
                    return [sys.executable, str(work / "profiled.py"), str(args.profile.resolve() / f"{name}-{n}.prof"),
                            *gem_flux_command(port)[1:]]

                if name == "bare":
                    commands = [[sys.executable, str(work / "bare.py"), str(ports[0])]]
                    envs = [base_env]
                elif name == "sqlite":
                    commands = [gem_flux(0, ports[0])]
                    envs = [{**base_env, "GEMFLUX_STATE_DIR": str(folder / "state")}]
                else:
                    url = args.database_url
                    if url is None:
                        bin_dir = find_bin_dir()
                        if bin_dir is None:
                            sys.exit("no PostgreSQL server binaries (apt-get install postgresql), no --database-url")
                        cluster = cluster or PostgresCluster(bin_dir).start()
                        url = cluster.new_database("load")
                    commands = [gem_flux(n, port) for n, port in enumerate(ports)]
                    envs = [{**base_env, "GEMFLUX_STATE_DIR": str(folder / f"state{n}"), "GEMFLUX_DATABASE_URL": url}
                            for n in range(len(ports))]
                procs: list[subprocess.Popen[bytes]] = []
                with http_servers(commands, envs, ports, folder, SETTLE_S if name != "bare" else 1.0, procs) as urls:
                    asyncio.run(run_target(urls, [p.pid for p in procs], target, work, name != "bare",
                                           not args.no_gapfill))
        finally:
            if cluster is not None:
                cluster.stop()
    report(targets)


if __name__ == "__main__":
    main()
