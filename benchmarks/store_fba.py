"""Store, FBA and solver benchmark (issue 3): what a model-sized tool call costs, and with which solver.

Sections (all by default; name some to run only those):

  --solvers   1. FBA latency on iJO1366 (2,583 reactions) with GLPK, optlang's HiGHS interface (when
                 installed) and COBRApy's `hybrid` interface (HiGHS for LPs): slim_optimize / optimize
                 N=30 after 3 warm-ups, FBA after a bound change, from a cold basis and the native
                 solver call alone, pFBA N=10 (its first call apart); one-time costs (model.copy(),
                 switching the solver, loading the store's JSON with either solver as COBRApy's
                 default); and whether a solve holds the GIL (a pure-Python counter in thread B while
                 thread A solves, in a pool of 2 threads).
  --run-fba   2. services.fba.run_fba on iJO1366 imported (SBML) into a Store in a temp folder, on its
                 default medium mapped to ModelSEED ids: cold and warm fba / pfba, growth checked
                 against COBRApy's own slim_optimize, the same COBRApy calls timed alone, and a
                 cProfile of one warm call.
  --list      3. services.models.list_models with 100 and 1,000 stored models (in-process), and over MCP
                 (`gem-flux serve`, stdio) with 1,000, and the SDK client's share of that time.
  --io        4. import_model / export_model: textbook and iJO1366, SBML and JSON, with file sizes.
  --rss       5. Server memory with 500 stored models: VmRSS/VmHWM after start-up, list_models, and
                 get_model for 50 of them (then 150 more, to show the trend); and what a discarded
                 model leaves behind (GLPK problem, sympy-cached optlang problem).

Everything is written under one temporary folder; the reference data come from GEMFLUX_DATA_DIR.
The biochemistry index is built into --cache-dir, else GEMFLUX_CACHE_DIR, else the temp folder.

Usage:
    GEMFLUX_DATA_DIR=/path/to/data .venv/bin/python benchmarks/store_fba.py [--solvers] [--run-fba]
        [--list] [--io] [--rss] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import ctypes
import datetime as dt
import gc
import importlib.metadata
import json
import math
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
import cobra
from cobra.flux_analysis import pfba
from cobra.util.solver import solvers as cobra_solvers
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.media_library import PredefinedMedium, load_media_library
from gem_flux_mcp.services import fba, models
from gem_flux_mcp.services import media as media_service
from gem_flux_mcp.services.workspace import Workspace
from gem_flux_mcp.store.store import Store

LOCAL_WORKSPACE = "local"  # the one workspace of a stdio server (no tokens)
SOLVERS = ("glpk", "highs", "hybrid")  # "highs" = an optlang HiGHS interface: used when cobra lists it
IJO = "iJO1366"
IJO_OBJECTIVE = "BIOMASS_Ec_iJO1366_core_53p95M"
GLUCOSE_EXCHANGE = "EX_glc__D_e"
N_FBA = 30
N_PFBA = 10
N_WARMUP = 3
N_RUN_FBA = 20
N_LIST = 50
N_LIST_MCP = 20
N_IO = 5
N_GET_MODEL = 50
LIST_TARGET_MS = 10.0
GIL_PROBE_SECONDS = 1.5
GROWTH_TOLERANCE = 1e-6
SECTIONS = ("solvers", "run_fba", "list", "io", "rss")

T = TypeVar("T")


# ----------------------------------------------------------------------------------------------
# small helpers



def plain(call: Callable[[], Any]) -> Callable[[], dict[str, Any]]:
    """A service call whose typed answer is wanted as the dict a client receives."""
    return lambda: call().model_dump(exclude_unset=True)  # type: ignore[no-any-return]

def median(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    """Nearest-rank 95th percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def timed_calls(fn: Callable[[], T], n: int, warmup: int = 0) -> tuple[list[float], list[T]]:
    """Milliseconds of `n` calls (after `warmup` untimed ones), and what the timed calls returned."""
    for _ in range(warmup):
        fn()
    samples: list[float] = []
    returned: list[T] = []
    for _ in range(n):
        started = time.perf_counter()
        value = fn()
        samples.append((time.perf_counter() - started) * 1000)
        returned.append(value)
    return samples, returned


def timed_ms(fn: Callable[[], object], n: int, warmup: int = 0) -> list[float]:
    return timed_calls(fn, n, warmup)[0]


def once_ms(fn: Callable[[], object]) -> float:
    return timed_ms(fn, 1)[0]


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f}"


def size_text(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:.2f} MB" if n_bytes >= 100_000 else f"{n_bytes / 1e3:.1f} kB"


def heading(title: str) -> None:
    print()
    print(title)
    print("=" * len(title))


def table(header: list[str], rows: list[list[str]], align: str | None = None) -> None:
    """Print a fixed-width table; `align` holds '<' or '>' per column (default: first left, rest right)."""
    align = align or "<" + ">" * (len(header) - 1)
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join(f"{h:{a}{w}}" for h, a, w in zip(header, align, widths, strict=True))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(f"{c:{a}{w}}" for c, a, w in zip(row, align, widths, strict=True)))


def require_data_dir() -> Path:
    value = os.environ.get("GEMFLUX_DATA_DIR")
    if not value:
        sys.exit("error: set GEMFLUX_DATA_DIR to the reference data folder (the one holding modelseed/ and media/)")
    data_dir = Path(value).expanduser().resolve()
    for name in ("compounds.tsv", "reactions.tsv"):
        if not (data_dir / "modelseed" / name).is_file():
            sys.exit(f"error: GEMFLUX_DATA_DIR={value}: {data_dir / 'modelseed' / name} not found")
    return data_dir


def children_of(parent: int) -> set[int]:
    """Pids of the live direct children of `parent`, from /proc (no psutil)."""
    found: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as handle:
                # pid (comm) state ppid ...: comm may hold spaces, so split after the last ')'
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:  # gone while we looked
            continue
        if int(fields[1]) == parent:
            found.add(int(entry.name))
    return found


def memory_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process, KiB."""
    values = {"VmRSS": 0, "VmHWM": 0}
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
        for line in handle:
            key = line.split(":", 1)[0]
            if key in values:
                values[key] = int(line.split()[1])
    return values["VmRSS"], values["VmHWM"]


# ----------------------------------------------------------------------------------------------
# shared context: temp folder, reference data, models and their files (loaded once, on demand)


@dataclass
class Context:
    tmp: Path
    data_dir: Path
    cache_dir: Path
    errlog: TextIO
    _ijo: cobra.Model | None = None
    _textbook: cobra.Model | None = None
    _biochem: BiochemIndex | None = None
    _media: dict[str, PredefinedMedium] | None = None
    _files: dict[tuple[str, str], Path] = field(default_factory=dict)
    findings: dict[str, Any] = field(default_factory=dict)

    def ijo(self) -> cobra.Model:
        """iJO1366 as shipped with COBRApy (the default solver, GLPK). Never mutated outside `with`."""
        if self._ijo is None:
            started = time.perf_counter()
            self._ijo = cobra.io.load_model(IJO)
            print(f"(loaded {IJO} with cobra.io.load_model in {time.perf_counter() - started:.2f} s: "
                  f"{len(self._ijo.reactions)} reactions, {len(self._ijo.metabolites)} metabolites)")
        return self._ijo

    def textbook(self) -> cobra.Model:
        if self._textbook is None:
            self._textbook = cobra.io.load_model("textbook")
        return self._textbook

    def biochem(self) -> BiochemIndex:
        if self._biochem is None:
            started = time.perf_counter()
            self._biochem = BiochemIndex.open(self.data_dir, self.cache_dir)
            print(f"(biochemistry index opened in {time.perf_counter() - started:.2f} s)")
        return self._biochem

    def media_library(self) -> dict[str, PredefinedMedium]:
        if self._media is None:
            self._media = load_media_library(self.data_dir)
        return self._media

    def workspace(self, state_name: str) -> Workspace:
        store = Store(self.tmp / state_name)
        return Workspace(store, LOCAL_WORKSPACE, self.biochem(), self.media_library())

    def model_file(self, name: str, fmt: str) -> Path:
        """The model written by COBRApy into the temp folder (once), as SBML (.xml) or JSON."""
        key = (name, fmt)
        if key not in self._files:
            model = self.ijo() if name == IJO else self.textbook()
            folder = self.tmp / "source-files"
            folder.mkdir(exist_ok=True)
            path = folder / f"{name}.{'xml' if fmt == 'sbml' else 'json'}"
            if fmt == "sbml":
                cobra.io.write_sbml_model(model, str(path))
            else:
                cobra.io.save_json_model(model, str(path))
            self._files[key] = path
        return self._files[key]

    def server_env(self, state_dir: Path) -> dict[str, str]:
        self.biochem()  # the index must exist, or the server would build it at start-up
        env = dict(os.environ)  # the SDK passes only a small whitelist unless given the full environment
        env.update(
            GEMFLUX_DATA_DIR=str(self.data_dir),
            GEMFLUX_CACHE_DIR=str(self.cache_dir),
            GEMFLUX_STATE_DIR=str(state_dir),
            FASTMCP_CHECK_FOR_UPDATES="off",
            FASTMCP_SHOW_SERVER_BANNER="false",
            FASTMCP_ENABLE_RICH_LOGGING="false",
        )
        return env


@asynccontextmanager
async def served(env: dict[str, str], errlog: TextIO) -> AsyncIterator[tuple[Client, int]]:
    """A `gem-flux serve` stdio session (official SDK client, legacy handshake) and the server's pid."""
    gem_flux = str(Path(sys.executable).with_name("gem-flux"))
    params = StdioServerParameters(command=gem_flux, args=["serve"], env=env)
    me = os.getpid()
    before = children_of(me)
    # stdio_client(...) is what Client(StdioServerParameters) builds; passing it lets the server's
    # stderr go to a log file.
    async with Client(stdio_client(params, errlog=errlog), mode="legacy", cache=None,
                      read_timeout_seconds=300) as client:
        await client.list_tools()
        spawned = children_of(me) - before
        if len(spawned) != 1:
            raise RuntimeError(f"expected one server child process, found {sorted(spawned)}")
        yield client, spawned.pop()


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    payload = dict(result.structured_content or {})
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {payload or result.content}")
    return payload


def add_textbooks(store: Store, model: cobra.Model, start: int, stop: int) -> float:
    """Store the same model under ids textbook_<i>.draft for i in [start, stop); returns ms per model."""
    started = time.perf_counter()
    for i in range(start, stop):
        store.add_model(LOCAL_WORKSPACE, f"textbook_{i:04d}.draft", model, model_name=f"textbook_{i:04d}",
                        source="imported", template=None, derived_from=None)
    return (time.perf_counter() - started) * 1000 / max(1, stop - start)


# ----------------------------------------------------------------------------------------------
# 1. solvers


@dataclass
class SolverRun:
    name: str
    note: str = ""
    switch_ms: float | None = None
    samples: dict[str, list[float]] = field(default_factory=dict)
    growth: float = math.nan
    pfba_total_flux: float = math.nan
    model: cobra.Model | None = None


@dataclass
class GilProbe:
    label: str
    rate: float  # counter iterations per second in thread B
    max_stall_ms: float  # longest gap between two checkpoints of thread B (1,000 iterations apart)
    gc_max_ms: float  # longest cyclic-GC pass during the probe (it holds the GIL too)
    calls: int = 0  # calls of thread A's work
    call_ms: float = math.nan  # median duration of one call in thread A


class GcWatch:
    """gc.callbacks hook: the longest garbage-collection pass while installed."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.longest = max(self.longest, time.perf_counter() - self._started)


def cold_solve(run: SolverRun) -> Callable[[], float]:
    """FBA without a usable starting basis: GLPK is reset to the standard (slack) basis first;
    the hybrid interface builds a fresh HiGHS problem on every solve anyway."""
    model = run.model
    assert model is not None
    if run.name == "glpk":
        import swiglpk

        def glpk_cold() -> float:
            swiglpk.glp_std_basis(model.solver.problem)
            return float(model.slim_optimize())

        return glpk_cold

    def fba() -> float:
        return float(model.slim_optimize())

    return fba


def native_solve(run: SolverRun) -> Callable[[], object] | None:
    """Only the solver's own C/C++ call, from scratch (no optlang/COBRApy Python around it):
    GLPK: glp_std_basis + glp_simplex; HiGHS: clearSolver + run on the hybrid interface's Highs object."""
    model = run.model
    assert model is not None
    if run.name == "glpk":
        import swiglpk

        problem = model.solver.problem
        params = swiglpk.glp_smcp()
        swiglpk.glp_init_smcp(params)
        params.msg_lev = swiglpk.GLP_MSG_OFF

        def glpk_native() -> int:
            swiglpk.glp_std_basis(problem)
            return int(swiglpk.glp_simplex(problem, params))

        return glpk_native
    model.slim_optimize()  # makes the hybrid interface pass the LP to HiGHS
    highs = getattr(model.solver.problem, "_highs_env", None)  # private to optlang's hybrid interface
    if highs is None:
        return None

    def highs_native() -> object:
        highs.clearSolver()
        return highs.run()

    return highs_native


def bench_solver(run: SolverRun) -> None:
    model = run.model
    assert model is not None
    exchange = model.reactions.get_by_id(GLUCOSE_EXCHANGE)
    original = exchange.lower_bound
    flips = [0]

    def changed_bounds() -> None:  # what a medium change does between two solves
        flips[0] += 1
        exchange.lower_bound = original * (0.9 if flips[0] % 2 else 1.0)
        model.slim_optimize()

    run.samples["slim_optimize"] = timed_ms(model.slim_optimize, N_FBA, warmup=N_WARMUP)
    run.samples["optimize"] = timed_ms(model.optimize, N_FBA)
    try:
        run.samples["slim, bound changed"] = timed_ms(changed_bounds, N_FBA)
    finally:
        exchange.lower_bound = original
    run.samples["slim, cold basis"] = timed_ms(cold_solve(run), N_PFBA)
    native = native_solve(run)
    if native is not None:
        run.samples["native solve only"] = timed_ms(native, N_PFBA)
    run.samples["pfba, first call"] = timed_ms(partial(pfba, model), 1)
    run.samples["pfba"], solutions = timed_calls(partial(pfba, model), N_PFBA)
    run.growth = float(model.slim_optimize())
    run.pfba_total_flux = float(solutions[-1].objective_value)


def gil_probe(label: str, work: Callable[[], object] | None, seconds: float) -> GilProbe:
    """Thread B counts in pure Python while thread A repeats `work` (or sleeps) for `seconds`."""
    stop = threading.Event()

    def counter() -> tuple[int, float, float]:
        count = 0
        max_gap = 0.0
        started = last = time.perf_counter()
        while not stop.is_set():
            for _ in range(1000):
                count += 1
            now = time.perf_counter()
            max_gap = max(max_gap, now - last)
            last = now
        return count, time.perf_counter() - started, max_gap

    def worker() -> list[float]:
        durations: list[float] = []
        deadline = time.perf_counter() + seconds
        try:
            if work is None:
                time.sleep(seconds)
            while work is not None and time.perf_counter() < deadline:
                started = time.perf_counter()
                work()
                durations.append((time.perf_counter() - started) * 1000)
        finally:
            stop.set()
        return durations

    watch = GcWatch()
    gc.collect()
    gc.callbacks.append(watch)
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            counting = pool.submit(counter)
            working = pool.submit(worker)
            durations = working.result()
            count, elapsed, max_gap = counting.result()
    finally:
        gc.callbacks.remove(watch)
    return GilProbe(label, count / elapsed, max_gap * 1000, watch.longest * 1000, len(durations),
                    median(durations) if durations else math.nan)


def busy_python() -> int:
    total = 0
    for i in range(300_000):
        total += i
    return total


MEASURES = ("slim_optimize", "optimize", "slim, bound changed", "slim, cold basis", "native solve only",
            "pfba, first call", "pfba")


def section_solvers(ctx: Context) -> None:
    heading(f"1. FBA latency on {IJO}: GLPK vs HiGHS")
    base = ctx.ijo()
    runs: list[SolverRun] = []
    copy_ms: list[float] = []
    for name in SOLVERS:
        run = SolverRun(name)
        runs.append(run)
        if name not in cobra_solvers:
            run.note = "not available"
            continue
        elapsed, copies = timed_calls(base.copy, 1)
        copy_ms.extend(elapsed)
        run.model = copies[0]
        if name != "glpk":
            run.switch_ms = once_ms(partial(setattr, run.model, "solver", name))
        interface = run.model.solver.interface.__name__
        run.note = interface
        print(f"  {name:<7} {interface}: benchmarking ...", flush=True)
        bench_solver(run)

    glpk = runs[0]
    rows: list[list[str]] = []
    for kind in MEASURES:
        for run in runs:
            if kind not in run.samples:
                continue
            values = run.samples[kind]
            ratio = median(values) / median(glpk.samples[kind])
            rows.append([kind if run is glpk else "", run.name, str(len(values)), f"{median(values):.1f}",
                         f"{p95(values):.1f}" if len(values) > 1 else "", f"{ratio:.2f}×"])
    print()
    table(["measure", "solver", "N", "median ms", "p95 ms", "÷ glpk"], rows, "<<>>>>")
    print("slim_optimize: 3 warm-ups, then N solves of the unchanged problem (GLPK re-starts from the last "
          "optimal basis;\n  the hybrid interface rebuilds the whole LP and HiGHS solves it from scratch every "
          "time). optimize = slim_optimize\n  + building the cobra.Solution (pandas). 'bound changed': glucose "
          "uptake toggled 10 ↔ 9 before each solve.\n  'cold basis': GLPK reset to the slack basis "
          "(glp_std_basis) before each solve. 'native solve only': just the C/C++\n  call, from scratch (GLPK "
          "glp_simplex; HiGHS clearSolver + run). pfba = cobra.flux_analysis.pfba; its first call on\n  a model "
          "is shown apart (optlang/sympy build the objective expressions then).")
    for run in runs:
        if run.model is None:
            print(f"  {run.name}: {run.note} — cobra knows {', '.join(sorted(cobra_solvers))}; optlang "
                  f"{importlib.metadata.version('optlang')} has no HiGHS interface of its own, HiGHS is reached "
                  f"through 'hybrid'")
    solved = [r for r in runs if r.model is not None]
    print("Agreement: " + "; ".join(f"{r.name} growth {r.growth:.9f}, pFBA total flux {r.pfba_total_flux:.4f}"
                                    for r in solved))

    # the GIL
    print()
    print(f"Does a solve block other threads? Thread B counts in pure Python while thread A works for "
          f"{GIL_PROBE_SECONDS:g} s\n(pool of 2 threads; sys.getswitchinterval() = "
          f"{sys.getswitchinterval() * 1000:.0f} ms; {os.cpu_count()} CPUs)")
    probes = [gil_probe("A sleeps (B alone)", None, GIL_PROBE_SECONDS),
              gil_probe("A pure-Python loop", busy_python, GIL_PROBE_SECONDS)]
    natives: dict[str, GilProbe] = {}
    for run in solved:
        native = native_solve(run)
        if native is not None:
            natives[run.name] = gil_probe(f"A native solve only ({run.name})", native, GIL_PROBE_SECONDS)
            probes.append(natives[run.name])
    for run in solved:
        probes.append(gil_probe(f"A FBA, cold basis ({run.name})", cold_solve(run), GIL_PROBE_SECONDS))
    for run in solved:
        model = run.model
        assert model is not None
        pfba(model)  # untimed: the first pFBA after other work rebuilds sympy expressions
        probes.append(gil_probe(f"A pFBA ({run.name})", partial(pfba, model), GIL_PROBE_SECONDS))
    alone = probes[0].rate
    table(["thread A", "A calls", "A call ms", "B Mit/s", "B ÷ alone", "B max stall ms", "max GC pass ms"],
          [[p.label, str(p.calls) if p.calls else "-", f"{p.call_ms:.0f}" if p.calls else "-",
            f"{p.rate / 1e6:.1f}", f"{p.rate / alone:.2f}", f"{p.max_stall_ms:.1f}", f"{p.gc_max_ms:.1f}"]
           for p in probes])
    # Held GIL: during a solve that does nothing but the native call, B is frozen for about the whole call.
    holds = {name: p.max_stall_ms >= 0.5 * p.call_ms for name, p in natives.items()}
    print("A solver that holds the GIL freezes thread B for a whole native solve (B max stall ≈ A call ms); one "
          "that\nreleases it leaves B's stalls near the switch interval. Stalls beyond that in the cobra-level "
          "rows come from\nPython work and cyclic-GC passes (max GC pass), which hold the GIL whatever the solver. "
          + "; ".join(f"{s} holds the GIL: {'yes' if h else 'no'}" for s, h in holds.items()))

    # one-time costs
    print()
    one_time: list[list[str]] = [[f"model.copy() ({IJO}, GLPK)", f"{median(copy_ms):.0f}",
                                  f"median of {len(copy_ms)}"]]
    for run in runs:
        if run.switch_ms is not None:
            one_time.append([f"model.solver = '{run.name}' (a loaded model)", f"{run.switch_ms:.0f}", "once"])
    for run in runs:
        run.model = None  # free the copies
    data = cobra.io.to_json(base)
    config = cobra.Configuration()
    default_solver = config.solver
    load_ms: dict[str, float] = {}
    try:
        for run in solved:
            config.solver = run.name
            load_ms[run.name] = median(timed_ms(partial(cobra.io.from_json, data), 2))
            one_time.append([f"cobra.io.from_json, default solver {run.name}", f"{load_ms[run.name]:.0f}",
                             "median of 2 (what the store's cold load costs)"])
    finally:
        config.solver = default_solver
    table(["one-time cost", "ms", "note"], one_time, "<><")

    ctx.findings["solvers"] = {
        "fba": {r.name: median(r.samples["optimize"]) for r in solved},
        "fba_changed": {r.name: median(r.samples["slim, bound changed"]) for r in solved},
        "fba_cold": {r.name: median(r.samples["slim, cold basis"]) for r in solved},
        "native": {r.name: median(r.samples["native solve only"]) for r in solved if "native solve only" in r.samples},
        "pfba": {r.name: median(r.samples["pfba"]) for r in solved},
        "pfba_first": {r.name: r.samples["pfba, first call"][0] for r in solved},
        "switch": {r.name: r.switch_ms for r in solved if r.switch_ms is not None},
        "load": load_ms,
        "holds_gil": holds,
    }


# ----------------------------------------------------------------------------------------------
# 2. run_fba through the library


def ijo_medium_in_modelseed(ctx: Context) -> tuple[dict[str, float], dict[str, str], list[str]]:
    """iJO1366's default medium as {cpd: max uptake}, the exchanges used ({exchange: cpd}), unmapped ones."""
    uptake = dict(ctx.ijo().medium)
    bigg = {rid: rid[3:-2] for rid in uptake if rid.startswith("EX_") and rid.endswith("_e")}
    mapping = ctx.biochem().compound_ids_for_external("BiGG", list(bigg.values()))
    compounds: dict[str, float] = {}
    used: dict[str, str] = {}
    unmapped = [rid for rid in uptake if rid not in bigg]
    for rid, bigg_id in bigg.items():
        cpd = mapping.get(bigg_id)
        if cpd is None:
            unmapped.append(rid)
            continue
        compounds[cpd] = max(compounds.get(cpd, 0.0), float(uptake[rid]))
        used[rid] = cpd
    return compounds, used, unmapped


def section_run_fba(ctx: Context) -> None:
    heading(f"2. run_fba through the library (services.fba.run_fba, {IJO} in a temp Store)")
    base = ctx.ijo()
    sbml = ctx.model_file(IJO, "sbml")
    ws = ctx.workspace("state-run-fba")
    try:
        import_ms, imported = timed_calls(plain(partial(models.import_model, ws, sbml, IJO, "sbml")), 1)
        model_id = str(imported[0]["model_id"])
        compounds, used, unmapped = ijo_medium_in_modelseed(ctx)
        media = media_service.build_media(ws, list(compounds), default_uptake=10.0,
                               custom_bounds={c: [-u, 1000.0] for c, u in compounds.items()},
                               media_name="iJO1366_default").model_dump()
        media_id = str(media["media_id"])
        print(f"imported {sbml.name} ({size_text(sbml.stat().st_size)}) as {model_id} in {import_ms[0] / 1000:.2f} s; "
              f"medium {media_id}: {len(compounds)} compounds from {len(used)} of {len(base.medium)} default "
              f"exchanges" + (f" (not mapped: {', '.join(unmapped)})" if unmapped else ""))

        # COBRApy's own answer and timings on the same bounds: the mapped exchanges opened at their
        # uptake, every other uptake closed (what apply_medium does), on the in-memory model.
        with base:
            base.medium = {rid: float(base.medium[rid]) for rid in used}
            reference = float(base.slim_optimize())
            raw = {"slim_optimize": timed_ms(base.slim_optimize, N_RUN_FBA, warmup=N_WARMUP),
                   "optimize": timed_ms(base.optimize, N_RUN_FBA),
                   "pfba": timed_ms(partial(pfba, base), N_PFBA, warmup=1)}
        cobra_alone = {"fba": median(raw["optimize"]), "pfba": median(raw["optimize"]) + median(raw["pfba"])}

        def run(pfba_flag: bool) -> dict[str, Any]:
            return fba.run_fba(ws, model_id, media_id, objective=IJO_OBJECTIVE, pfba=pfba_flag).model_dump()

        def evict_all() -> int:
            return ws.store.evict_idle(now=time.monotonic() + 1e9)  # drop every cached model

        rows: list[list[str]] = []
        checks: list[str] = []
        overhead: dict[str, float] = {}
        warm_median: dict[str, float] = {}
        for label, flag in (("fba", False), ("pfba", True)):
            evict_all()
            cold_ms, first = timed_calls(partial(run, flag), 1)
            warm, later = timed_calls(partial(run, flag), N_RUN_FBA)
            results = first + later
            solve = [float(r["solve_time_ms"]) for r in later]
            warm_median[label] = median(warm)
            overhead[label] = median(warm) - cobra_alone[label]
            rows.append([label, f"{cold_ms[0]:.0f}", f"{median(warm):.1f}", f"{p95(warm):.1f}", f"{median(solve):.1f}",
                         f"{cobra_alone[label]:.1f}", f"{overhead[label]:+.1f}", str(results[0]["solver"])])
            growth = float(results[-1]["objective_value"])
            same = all(abs(float(r["objective_value"]) - reference) <= GROWTH_TOLERANCE for r in results)
            checks.append(f"{label}: run_fba {growth:.6f} vs cobra {reference:.9f} → "
                          f"{'equal' if same else 'DIFFERENT'} to {GROWTH_TOLERANCE:g}")
        print()
        table(["method", "cold ms", "warm median ms", "warm p95 ms", "solve ms", "cobra alone ms", "overhead ms",
               "solver"], rows)
        print(f"cold = first call after the cache was emptied (reads, checks and parses the stored JSON, then a "
              f"solve without a basis);\nwarm = median of {N_RUN_FBA}; solve = the result's solve_time_ms "
              f"(model.optimize(), + pfba). cobra alone = the same COBRApy calls\non the in-memory {IJO} with the "
              f"same bounds (fba: optimize(), median of {N_RUN_FBA}; pfba: optimize() + pfba(), {N_PFBA}); "
              f"overhead = warm − cobra alone.")
        print("Growth check (cobra slim_optimize on iJO1366 with model.medium set to the same exchanges): "
              + "; ".join(checks))
        slim = median(raw["slim_optimize"])
        solution_ms = median(raw["optimize"]) - slim
        print(f"Warm fba {warm_median['fba']:.1f} ms ≈ GLPK re-solve (slim_optimize) {slim:.1f} ms + building "
              f"cobra's Solution (optimize − slim) {solution_ms:.1f} ms\n  + gem-flux around it "
              f"{warm_median['fba'] - slim - solution_ms:.1f} ms (medium, summary, SQLite writes: see the profile).")

        # where a warm call spends its time: one untimed fba first (after pfba, GLPK's basis is stale)
        run(False)
        profiler = cProfile.Profile()
        profiler.enable()
        run(False)
        profiler.disable()
        stats = pstats.Stats(profiler)
        total_s = max(v[3] for v in stats.stats.values())  # type: ignore[attr-defined]
        entries = sorted(stats.stats.items(), key=lambda item: -item[1][3])  # type: ignore[attr-defined]
        ours = [(k, v) for k, v in entries if "gem_flux_mcp" in k[0]][:10]
        theirs = [(k, v) for k, v in entries if "gem_flux_mcp" not in k[0] and "cProfile" not in k[2]
                  and "store_fba" not in k[0]]
        print()
        print(f"cProfile of one warm fba call ({total_s * 1000:.0f} ms under the profiler), top 10 cumulative "
              f"entries in gem_flux_mcp:")
        table(["cum ms", "own ms", "calls", "function"],
              [[f"{v[3] * 1000:.1f}", f"{v[2] * 1000:.1f}", str(v[1]), short_name(k)] for k, v in ours], ">>><")
        print("…and the heaviest entries outside it:")
        table(["cum ms", "own ms", "calls", "function"],
              [[f"{v[3] * 1000:.1f}", f"{v[2] * 1000:.1f}", str(v[1]), short_name(k)] for k, v in theirs[:10]],
              ">>><")
        ctx.findings["run_fba"] = {"overhead": overhead, "warm": warm_median["fba"], "slim": slim,
                                   "solution": solution_ms}
    finally:
        ws.store.close()


def short_name(key: tuple[str, int, str]) -> str:
    path, line, name = key
    if path == "~":
        return name
    parts = Path(path).parts
    for anchor in ("gem_flux_mcp", "site-packages"):
        if anchor in parts:
            parts = parts[parts.index(anchor) + (0 if anchor == "gem_flux_mcp" else 1):]
            break
    return f"{'/'.join(parts[-3:])}:{line}({name})"


# ----------------------------------------------------------------------------------------------
# 3. list_models


def section_list(ctx: Context) -> None:
    heading("3. list_models with 100 and 1,000 stored models")
    textbook = ctx.textbook()
    state = ctx.tmp / "state-list"
    ws = ctx.workspace(state.name)
    rows: list[list[str]] = []
    verdict = ""
    try:
        for start, stop in ((0, 100), (100, 1000)):
            per_model = add_textbooks(ws.store, textbook, start, stop)
            payload = models.list_models(ws).model_dump(exclude_unset=True)
            assert payload["total_models"] == stop, payload["total_models"]
            samples = timed_ms(partial(models.list_models, ws), N_LIST, warmup=1)
            rows.append([f"{stop:,}", "in-process", str(N_LIST), f"{median(samples):.2f}", f"{p95(samples):.2f}",
                         size_text(len(json.dumps(payload)))])
            print(f"  stored {stop - start} textbook models via Store.add_model: {per_model:.1f} ms per model",
                  flush=True)
            if stop == 100:
                met = p95(samples) < LIST_TARGET_MS
                verdict = (f"Target: list_models with 100 models in-process < {LIST_TARGET_MS:g} ms: median "
                           f"{median(samples):.2f} ms, p95 {p95(samples):.2f} ms → {'MET' if met else 'NOT MET'}")
    finally:
        ws.store.close()

    async def over_mcp() -> tuple[list[float], dict[str, Any], float, dict[str, Any] | None]:
        async with served(ctx.server_env(state), ctx.errlog) as (client, _pid):
            listed = await client.list_tools()
            schema = next((t.output_schema for t in listed.tools if t.name == "list_models"), None)
            started = time.perf_counter()
            first = await call(client, "list_models", {})
            first_ms = (time.perf_counter() - started) * 1000
            samples: list[float] = []
            for _ in range(N_LIST_MCP):
                started = time.perf_counter()
                await call(client, "list_models", {})
                samples.append((time.perf_counter() - started) * 1000)
        return samples, first, first_ms, schema

    samples, first, first_ms, schema = anyio.run(over_mcp)
    assert first["total_models"] == 1000, first["total_models"]
    rows.append(["1,000", "over MCP (stdio)", str(N_LIST_MCP), f"{median(samples):.2f}", f"{p95(samples):.2f}",
                 size_text(len(json.dumps(first)))])
    validation = ""
    if schema is not None:
        # The SDK client checks every structured result against the tool's output schema (jsonschema,
        # compiled validator): time the same check here, on the same payload.
        from jsonschema.validators import validator_for

        validator = validator_for(schema)(schema)
        check_ms = median(timed_ms(partial(lambda v, x: list(v.iter_errors(x)), validator, first), 5))
        validation = (f"Of the MCP time, {check_ms:.0f} ms is the SDK client re-validating the 1,000-model result "
                      f"against the tool's output schema (jsonschema;\ntimed here on the same payload): a "
                      f"client-side cost, not the server's.")
    print()
    table(["models", "where", "N", "median ms", "p95 ms", "payload"], rows)
    print(f"In-process: services.models.list_models() after 1 untimed call; over MCP: call_tool('list_models') on one "
          f"gem-flux serve session\n  after 1 untimed call ({first_ms:.0f} ms). payload = the dict as JSON.")
    if validation:
        print(validation)
    print(verdict)


# ----------------------------------------------------------------------------------------------
# 4. import / export


def section_io(ctx: Context) -> None:
    heading("4. import_model / export_model time")
    ws = ctx.workspace("state-io")
    out_dir = ctx.tmp / "exported"
    rows: list[list[str]] = []
    try:
        for name in ("textbook", IJO):
            for fmt in ("sbml", "json"):
                source = ctx.model_file(name, fmt)
                imports, results = timed_calls(plain(partial(models.import_model, ws, source, None, fmt)), N_IO)
                model_id = str(results[0]["model_id"])
                stored = ws.store.get_model_row(LOCAL_WORKSPACE, model_id).file_size
                ws.store.evict_idle(now=time.monotonic() + 1e9)  # the first export loads the stored file
                target = out_dir / source.name
                exports, exported = timed_calls(plain(partial(models.export_model, ws, model_id, target, fmt)), N_IO)
                rows.append([name, fmt, size_text(source.stat().st_size), size_text(stored),
                             f"{median(imports):.0f}", f"{exports[0]:.0f}", f"{median(exports):.0f}",
                             size_text(int(exported[-1]["size_bytes"]))])
                print(f"  {name} {fmt}: done", flush=True)
    finally:
        ws.store.close()
    print()
    table(["model", "format", "file", "stored JSON", "import ms", "export 1st ms", "export ms", "exported"], rows,
          "<<>>>>>>")
    print(f"import ms = median of {N_IO} models.import_model (parse + store: serialise, sha256, fsync'd write, "
          f"row);\nexport 1st = the first export (loads the stored JSON into the cache); export ms = median of "
          f"{N_IO} (incl. the first).")


# ----------------------------------------------------------------------------------------------
# 5. server memory with 500 stored models


def section_rss(ctx: Context) -> None:
    heading("5. Server RSS with 500 stored models (gem-flux serve, stdio)")
    state = ctx.tmp / "state-rss"
    with Store(state) as store:
        per_model = add_textbooks(store, ctx.textbook(), 0, 500)
    print(f"  stored 500 textbook models: {per_model:.1f} ms per model", flush=True)
    # 50 models spread over the 500 (as asked), then 150 others to show where RSS is heading
    ids = [f"textbook_{i:04d}.draft" for i in range(0, 500, 10)][:N_GET_MODEL]
    ids += [f"textbook_{i:04d}.draft" for offset in (5, 3, 7) for i in range(offset, 500, 10)]
    checkpoints = {1, 8, 16, 17, 25, 35, N_GET_MODEL, 100, 150, len(ids)}

    async def session() -> tuple[list[list[str]], list[float], int]:
        rows: list[list[str]] = []
        async with served(ctx.server_env(state), ctx.errlog) as (client, pid):
            rss, hwm = memory_kib(pid)
            start_rss = rss
            rows.append(["after start-up (initialize + tools/list)", mib(rss), mib(hwm), ""])
            started = time.perf_counter()
            listed = await call(client, "list_models", {})
            list_ms = (time.perf_counter() - started) * 1000
            assert listed["total_models"] == 500, listed["total_models"]
            rss, hwm = memory_kib(pid)
            rows.append(["after list_models (500)", mib(rss), mib(hwm), f"{rss / 1024 - start_rss / 1024:+.1f}"])
            loads: list[float] = []
            for n, model_id in enumerate(ids, start=1):
                started = time.perf_counter()
                got = await call(client, "get_model", {"model_id": model_id})
                loads.append((time.perf_counter() - started) * 1000)
                assert got["model_id"] == model_id
                if n in checkpoints:
                    rss, hwm = memory_kib(pid)
                    rows.append([f"after get_model × {n} (distinct models)", mib(rss), mib(hwm),
                                 f"{rss / 1024 - start_rss / 1024:+.1f}"])
            loads.insert(0, list_ms)
            return rows, loads, pid

    rows, times, _pid = anyio.run(session)
    print()
    table(["stage", "VmRSS MiB", "VmHWM MiB", "Δ RSS MiB"], rows)
    rss_at = {int(r[0].split("× ")[1].split()[0]): float(r[1]) for r in rows if "get_model ×" in r[0]}
    print(f"list_models (500) over MCP: {times[0]:.0f} ms; get_model (each a cache miss: loads a model file): median "
          f"{median(times[1:]):.1f} ms, p95 {p95(times[1:]):.1f} ms")
    first_load = float(rows[2][1]) - float(rows[1][1])
    spans = [(16, N_GET_MODEL), (N_GET_MODEL, 100), (100, len(ids))]
    rates = [(rss_at[b] - rss_at[a]) / (b - a) for a, b in spans]
    flat = rates[-1] < 0.02
    ctx.findings["rss"] = {"rate": rates[-1], "flat": flat}
    print(f"RSS from 16 cached models to {N_GET_MODEL} loaded: {rss_at[N_GET_MODEL] - rss_at[16]:+.1f} MiB; "
          "per further load: " + ", ".join(f"{a}→{b} {r:.2f} MiB" for (a, b), r in zip(spans, rates, strict=True))
          + " (the cache holds at most 16 models)\n→ " + ("flat." if flat else "NOT flat: see the causes below."))
    print(f"The first get_model adds {first_load:+.0f} MiB: the server imports COBRApy (and pandas, optlang, "
          f"sympy, swiglpk)\nonly when a tool first needs a model; {cobra_import_cost()}.")
    print()
    print("Why RSS keeps growing after the cache is full: what a model leaves behind once it is discarded")
    leak_rows: list[list[str]] = []
    worst: dict[str, float] = {}
    for name, model, n in (("textbook", ctx.textbook(), 30), (IJO, ctx.ijo(), 3)):
        doc = cobra.io.to_json(model)
        kept = kept_per_discarded_model(doc, n, delete_problem=False)
        deleted = kept_per_discarded_model(doc, n, delete_problem=True)
        pinned = pinned_by_sympy(ctx.model_file(name, "json"), n)
        leak_rows.append([name, str(n), "-" if kept is None else f"{kept:.3f}",
                          "-" if deleted is None else f"{deleted:.3f}",
                          "-" if pinned is None else f"{pinned['per_model']:.2f}",
                          "-" if pinned is None else f"{pinned['alive']} → {pinned['alive_after_clear']}",
                          "-" if pinned is None else f"{pinned['max_pinned']:.0f} models"])
        if pinned is not None:
            worst[name] = pinned["per_model"] * pinned["max_pinned"]
    table(["model", "N", "GLPK: kept MiB/model", "with glp_delete_prob", "summarize: RSS MiB/model",
           "optlang problems alive → after sympy clear_cache", "pinned at most"], leak_rows)
    print("GLPK columns: glibc malloc'd memory (mallinfo2) still in use per cobra.io.from_json + del + gc.collect(). "
          "summarize columns:\nin a fresh interpreter, RSS growth per from_json + model_io.summarize (what get_model "
          "and import_model do) + del,\nwith the GLPK problem deleted, and how many optlang problems stay alive.")
    print("Cause 1 (unbounded): optlang's GLPK interface never frees a model's GLPK problem (its __del__ is "
          "commented out): every\nmodel the cache evicts, every model.copy() and every parsed import leaves it "
          "behind; swiglpk.glp_delete_prob before\ndropping the model returns the memory.")
    print("Cause 2 (bounded by sympy's LRU caches, SYMPY_CACHE_SIZE = 1,000 entries per cached function): "
          "model_io.summarize\nreads Reaction.objective_coefficient, whose sympy expressions land in sympy's "
          "caches and keep each discarded model's\nwhole optlang problem (variables, constraints) alive; "
          "sympy.core.cache.clear_cache() releases them."
          + (" Pinned at most = cache size ÷ entries each summary adds;\nworst case at that bound: "
             + ", ".join(f"{name} ≈ {mib_total / 1024:.1f} GiB" for name, mib_total in worst.items())
             + " (extrapolated from the per-model growth, not measured)." if worst else ""))


PIN_PROBE = """
import gc, json, sys
import cobra, optlang.interface, swiglpk
import sympy.core.cache as sympy_cache
from gem_flux_mcp.modeling.model_io import summarize

def rss_mib():
    with open('/proc/self/status') as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith('VmRSS')) / 1024

def optlang_problems():
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, optlang.interface.Model))

path, n = sys.argv[1], int(sys.argv[2])
with open(path, encoding='utf-8') as handle:
    doc = handle.read()

def load_summarize_drop():
    model = cobra.io.from_json(doc)
    summarize(model)
    swiglpk.glp_delete_prob(model.solver.problem)  # take the GLPK leak out of this measurement

load_summarize_drop()
gc.collect()
before = rss_mib()
for _ in range(n):
    load_summarize_drop()
gc.collect()
after = rss_mib()
alive = optlang_problems()

def entries():
    return [(f.cache_info().currsize, f.cache_info().maxsize) for f in sympy_cache.CACHE]

start = entries()
load_summarize_drop()
grown = [(now, size - was) for (was, _), (size, now) in zip(start, entries()) if size > was]
# a discarded model stays pinned until every cache entry referring to it has been pushed out
bound = max(((maxsize / step) if maxsize else float('inf') for maxsize, step in grown), default=0)
sympy_cache.clear_cache()
print(json.dumps({'per_model': (after - before) / n, 'alive': alive, 'alive_after_clear': optlang_problems(),
                  'entries_per_model': sum(step for _, step in grown), 'max_pinned': bound}))
"""


def pinned_by_sympy(path: Path, n: int) -> dict[str, Any] | None:
    """Run PIN_PROBE in a fresh interpreter (so RSS growth means something); None if it fails."""
    if "glpk" not in cobra.Configuration().solver.__name__:
        return None
    try:
        out = subprocess.run([sys.executable, "-c", PIN_PROBE, str(path), str(n)], capture_output=True, text=True,
                             check=True, timeout=300).stdout
        return dict(json.loads(out.strip().splitlines()[-1]))
    except (subprocess.SubprocessError, OSError, ValueError, IndexError) as exc:
        print(f"  (sympy pinning probe failed: {exc})")
        return None


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def malloc_in_use_mib() -> float | None:
    """Memory handed out by glibc malloc (small + mmapped blocks), MiB; None where mallinfo2 is missing."""
    try:
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        return None
    mallinfo2.restype = MallInfo2
    gc.collect()
    info = mallinfo2()
    return float(info.uordblks + info.hblkhd) / 2**20


def kept_per_discarded_model(doc: str, n: int, delete_problem: bool) -> float | None:
    """MiB of malloc'd memory that stays in use per model parsed from `doc` and dropped again."""
    if "glpk" not in cobra.Configuration().solver.__name__:
        return None
    import swiglpk

    cobra.io.from_json(doc)  # one untimed round: caches, interned strings
    before = malloc_in_use_mib()
    for _ in range(n):
        model = cobra.io.from_json(doc)
        if delete_problem:
            swiglpk.glp_delete_prob(model.solver.problem)
        del model
    after = malloc_in_use_mib()
    return None if before is None or after is None else (after - before) / n


def cobra_import_cost() -> str:
    """RSS of a fresh interpreter after importing the server app, then after importing cobra."""
    code = ("import gem_flux_mcp.server.app\n"
            "def rss():\n"
            "    return [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmRSS')][0]\n"
            "a = rss()\nimport cobra\nprint(a, rss())\n")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             timeout=120).stdout.split()
    except (subprocess.SubprocessError, OSError) as exc:
        return f"import cost not measured ({exc})"
    before, after = (int(v) for v in out[-2:])
    return (f"in a fresh interpreter `import cobra` after the server app alone takes RSS from {mib(before)} to "
            f"{mib(after)} MiB")


# ----------------------------------------------------------------------------------------------
# decision and main


def decision(ctx: Context) -> None:
    if not ctx.findings:
        return
    heading("Decision")

    def pick(times: dict[str, float]) -> str:
        best = min(times, key=lambda s: times[s])
        others = ", ".join(f"{s} {v:.1f} ms" for s, v in times.items() if s != best)
        return f"{best} ({times[best]:.1f} ms vs {others})" if others else f"{best} ({times[best]:.1f} ms)"

    found = ctx.findings.get("solvers")
    if found:
        holds = found["holds_gil"]
        parts = [f"FBA: {pick(found['fba'])}",
                 f"FBA after a bound change: {pick(found['fba_changed'])}",
                 f"pFBA: {pick(found['pfba'])}",
                 "GLPK holds the GIL: " + ("yes" if holds.get("glpk") else "no")]
        if "hybrid" in holds:
            parts.append("HiGHS holds the GIL: " + ("yes" if holds["hybrid"] else "no"))
        print("Decision: " + "; ".join(parts) + ".")
        if found["native"]:
            print(f"  From scratch the native solvers compare as {pick(found['native'])}, and without a basis "
                  f"{pick(found['fba_cold'])}:\n  HiGHS itself is the faster LP code, but through COBRApy's hybrid "
                  f"interface every solve rebuilds the LP and starts\n  cold, so the warm-started GLPK wins every "
                  f"repeated solve.")
        if found["switch"] or len(found["load"]) > 1:
            print("  One-time costs of HiGHS: "
                  + ", ".join(f"switching a loaded model to {s} {v:.0f} ms" for s, v in found["switch"].items())
                  + "; loading the store's JSON: " + ", ".join(f"{s} {v:.0f} ms" for s, v in found["load"].items())
                  + "; the first pFBA on a model: "
                  + ", ".join(f"{s} {v:.0f} ms" for s, v in found["pfba_first"].items()) + ".")
        if holds.get("glpk"):
            print("  GLPK keeps the GIL for a whole solve, so a solve in a worker thread still freezes the server's "
                  "event loop\n  (and every other request) for that long: run long solves (pFBA, gapfilling) in a "
                  "worker process.")
    run_fba = ctx.findings.get("run_fba")
    if run_fba:
        print(f"  run_fba (warm fba {run_fba['warm']:.0f} ms): the GLPK re-solve is {run_fba['slim']:.0f} ms, "
              f"building cobra's Solution {run_fba['solution']:.0f} ms, gem-flux's own work "
              f"{run_fba['warm'] - run_fba['slim'] - run_fba['solution']:.0f} ms.")
    memory = ctx.findings.get("rss")
    if memory and memory["flat"]:
        print("  Memory: flat once the 16-model cache is full.")
    elif memory:
        print(f"  Memory: with the 16-model cache full the server still grew {memory['rate']:.2f} MiB per further "
              f"textbook load: GLPK problems are never\n  freed (fix: glp_delete_prob on eviction) and sympy's caches "
              f"pin discarded optlang problems (clear_cache on eviction).")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--solvers", action="store_true", help="1. GLPK vs HiGHS FBA/pFBA latency, GIL")
    parser.add_argument("--run-fba", action="store_true", help="2. services.fba.run_fba on iJO1366")
    parser.add_argument("--list", action="store_true", help="3. list_models with 100 / 1,000 models")
    parser.add_argument("--io", action="store_true", help="4. import/export time")
    parser.add_argument("--rss", action="store_true", help="5. server RSS with 500 stored models")
    parser.add_argument("--cache-dir", help="index cache folder (default: $GEMFLUX_CACHE_DIR, else a temp folder)")
    args = parser.parse_args()
    chosen = [s for s in SECTIONS if getattr(args, s)] or list(SECTIONS)
    data_dir = require_data_dir()

    config = cobra.Configuration()
    print("gem-flux store, FBA and solver benchmark (issue 3)")
    print(f"date {dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z} | {platform.node()} | {os.cpu_count()} CPUs | "
          f"Python {platform.python_version()} | cobra {cobra.__version__} | "
          f"optlang {importlib.metadata.version('optlang')} | swiglpk {importlib.metadata.version('swiglpk')} | "
          f"highspy {importlib.metadata.version('highspy')}")
    print(f"data {data_dir} | sections: {', '.join(chosen)} | COBRApy default solver: "
          f"{config.solver.__name__.split('.')[-1]}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gemflux-store-fba-") as tmp_name:
        tmp = Path(tmp_name)
        cache = args.cache_dir or os.environ.get("GEMFLUX_CACHE_DIR") or str(tmp / "cache")
        with (tmp / "servers-stderr.log").open("w", encoding="utf-8") as errlog:
            ctx = Context(tmp, data_dir, Path(cache).expanduser().resolve(), errlog)
            sections: dict[str, Callable[[Context], None]] = {
                "solvers": section_solvers, "run_fba": section_run_fba, "list": section_list,
                "io": section_io, "rss": section_rss,
            }
            try:
                for name in chosen:
                    section_started = time.perf_counter()
                    sections[name](ctx)
                    print(f"[section {name}: {time.perf_counter() - section_started:.0f} s]", flush=True)
            except Exception:
                errlog.flush()
                lines = (tmp / "servers-stderr.log").read_text(encoding="utf-8").splitlines()
                if lines:
                    print("server stderr (last 40 lines):\n" + "\n".join(lines[-40:]), file=sys.stderr)
                raise
            decision(ctx)
    print(f"\nTotal wall time {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
