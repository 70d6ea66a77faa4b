"""Shared fixtures: the real reference data, a shared index cache, real server processes, a real
PostgreSQL server."""

from __future__ import annotations

import fcntl
import os
import pickle
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from gem_flux_mcp.data.biochem import BiochemIndex
from postgres import PostgresCluster, find_bin_dir

if TYPE_CHECKING:
    import cobra

    from gem_flux_mcp.modeling import gapfill as gf

REPO = Path(__file__).resolve().parents[1]
# The suite starts ~40 servers: none warms a worker at start-up for a build that never comes
# (~5 s of CPU and ~0.5 GB each); tests/test_workers.py turns it on where it checks it.
os.environ.setdefault("GEMFLUX_WORKER_AT_START", "0")
sys.path.insert(0, str(REPO / "scripts"))  # repository scripts the tests check (tool_docs.py)
GEM_FLUX = str(Path(sys.executable).with_name("gem-flux"))
CliRun = Callable[..., tuple[int, str, str]]  # the cli_in_process fixture: args -> (exit code, stdout, stderr)


# Fixtures that build a genome, start a browser or a PostgreSQL server: every test that uses one
# (directly or through another fixture) is marked `slow` at collection, so the fast tier
# (`./dev.sh test-fast`: -m "not slow") stays fast without anyone remembering to mark it. Tests
# that build a genome or start a Dask cluster themselves carry the mark in their module.
HEAVY_FIXTURES = frozenset({"ecoli", "ecoli_run", "postgres", "postgres_url", "chromium", "browser", "driver", "lab",
                            "subset_draft"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HEAVY_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _no_shared_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests keep their state in their own folders (or the PostgreSQL database they ask for),
    whatever GEMFLUX_DATABASE_URL the shell running them has."""
    monkeypatch.delenv("GEMFLUX_DATABASE_URL", raising=False)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    value = os.environ.get("GEMFLUX_DATA_DIR")
    if not value:
        pytest.fail("GEMFLUX_DATA_DIR must point at the reference data (CI: ../shared/data)")
    path = Path(value).resolve()
    assert (path / "modelseed" / "compounds.tsv").is_file(), f"no ModelSEED data under {path}"
    return path


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One index cache for the whole run: the index is built once (~15 s), then reused. With
    GEMFLUX_TEST_CACHE_DIR (set by `./dev.sh test-fast`) it is kept between runs: the index is
    rebuilt only when the reference data changes (its hash is checked on opening)."""
    kept = os.environ.get("GEMFLUX_TEST_CACHE_DIR")
    if kept:
        path = Path(kept).resolve()
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def biochem(data_dir: Path, cache_dir: Path) -> BiochemIndex:
    return BiochemIndex.open(data_dir, cache_dir)


T = TypeVar("T")


def once_per_run(name: str, tmp_path_factory: pytest.TempPathFactory, make: Callable[[], T]) -> T:
    """`make()` once per test run, however many pytest-xdist workers ask for it: the first to ask
    makes it and leaves it pickled in the run's temporary folder (shared by the workers, new for
    each run); the others wait for that, under a file lock, and load it (~1 s for the E. coli
    model instead of a build or gapfill of 30-100 s on a busy machine)."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return make()
    folder = tmp_path_factory.getbasetemp().parent  # pytest-N/, above each worker's popen-gwK/
    target = folder / f"{name}.pickle"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_file():
            value: T = pickle.loads(target.read_bytes())
            return value
        value = make()
        partial = folder / f"{name}.pickle.tmp"
        partial.write_bytes(pickle.dumps(value))
        partial.replace(target)
        return value


@pytest.fixture(scope="session")
def ecoli(data_dir: Path, biochem: BiochemIndex, cache_dir: Path,
          tmp_path_factory: pytest.TempPathFactory) -> cobra.Model:
    """The E. coli K-12 draft (GramNegative), built once per run. Tests that change it do so
    inside `with model:`."""
    from models import build_genome

    return once_per_run("ecoli_draft", tmp_path_factory, lambda: build_genome(
        data_dir, biochem, cache_dir, "ecoli_k12_mg1655.faa", "GramNegative"))


@pytest.fixture(scope="session")
def ecoli_run(ecoli: cobra.Model, data_dir: Path, biochem: BiochemIndex,
              tmp_path_factory: pytest.TempPathFactory) -> tuple[gf.GapfillRun, dict[str, Any]]:
    """The draft gapfilled on glucose_minimal_aerobic (run.model), and its report."""
    from gem_flux_mcp.modeling import gapfill as gf
    from gem_flux_mcp.modeling.gapfill.report import describe
    from models import medium_of

    def gapfill() -> tuple[gf.GapfillRun, dict[str, Any]]:
        before = {r.id: r.bounds for r in ecoli.reactions}
        run = gf.gapfill_from_data(ecoli, medium_of(data_dir, "glucose_minimal_aerobic"), gf.GapfillOptions(),
                                   template_name="GramNegative", data_dir=data_dir, biochem=biochem)
        assert {r.id: r.bounds for r in ecoli.reactions} == before  # the draft itself is not changed
        return run, describe(run, biochem.reaction_details, 0.01)

    return once_per_run("ecoli_gapfilled", tmp_path_factory, gapfill)


def server_environment(data_dir: Path, cache_dir: Path, folder: Path) -> dict[str, str]:
    """Environment for a `gem-flux serve` subprocess keeping its state in `folder`/state."""
    env = dict(os.environ)
    env.update(
        GEMFLUX_DATA_DIR=str(data_dir),
        GEMFLUX_CACHE_DIR=str(cache_dir),
        GEMFLUX_STATE_DIR=str(folder / "state"),
        GEMFLUX_ALLOWED_ROOTS=str(folder),
    )
    return env


@pytest.fixture()
def server_env(data_dir: Path, cache_dir: Path, tmp_path: Path, biochem: BiochemIndex) -> dict[str, str]:
    """Environment for a `gem-flux serve` subprocess (index already built by `biochem`)."""
    return server_environment(data_dir, cache_dir, tmp_path)


@pytest.fixture()
def cli_in_process(server_env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> CliRun:
    """`gem-flux ARGS` run in this process with the environment `server_env` gives a subprocess:
    (exit code, stdout, stderr). For what a command refuses before any work, where starting a
    Python that imports COBRApy (~4 s) for each refusal would be most of the test; a test of a
    result the user gets runs the installed console script (GEM_FLUX)."""
    from gem_flux_mcp.cli.main import main

    for key, value in server_env.items():
        if key.startswith("GEMFLUX_"):
            monkeypatch.setenv(key, value)

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(args))
        said = capsys.readouterr()
        return code, said.out, said.err

    return run


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_http_server(env: dict[str, str], log_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start `gem-flux serve --transport http` and wait until it accepts connections."""
    port = free_port()
    log = log_path.open("ab")
    proc = subprocess.Popen(
        [GEM_FLUX, "serve", "--transport", "http", "--port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    log.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited early:\n{log_path.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    pytest.fail("HTTP server did not start within 60 s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """One throwaway PostgreSQL server for the run (tests/postgres.py); skipped when Debian's
    postgresql package (or initdb on PATH) is missing: `./dev.sh test` installs it."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries not found (apt-get install postgresql; ./dev.sh test does it as root)")
    cluster = PostgresCluster(bin_dir)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture()
def postgres_url(postgres: PostgresCluster) -> str:
    """The URL (with its password) of a fresh, empty PostgreSQL database for this test."""
    return postgres.new_database()


@pytest.fixture()
def http_server(server_env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    """A real `gem-flux serve --transport http` process; yields its base URL."""
    proc, url = start_http_server(server_env, tmp_path / "http-server.log")
    try:
        yield url
    finally:
        stop_server(proc)
