"""The store on PostgreSQL: a real server started by the test suite (tests/postgres.py), the same
behaviour as on SQLite, and several processes writing to one database.

The engine-neutral tests of test_store.py and test_activity.py run here again, with `open_store`
and `db_location` pointing at a fresh PostgreSQL database per test.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import sqlalchemy as sa
from cobra.io import save_json_model

from conftest import start_http_server, stop_server
from gem_flux_mcp.config import Settings
from gem_flux_mcp.errors import DatabaseError
from gem_flux_mcp.store import Store
from gem_flux_mcp.store.activity import ActivityRecorder
from gem_flux_mcp.store.db import Database
from gem_flux_mcp.store.row_mapping import RESULTS_KEPT_PER_KIND
from gem_flux_mcp.store.schema import MIGRATIONS
from mcp_client import call, http_client, structured
from models import textbook as load_textbook
from postgres import PASSWORD, PostgresCluster
from test_activity import (  # noqa: F401  (fixtures and tests, collected again here)
    _event,
    _identity,
    db,
    test_a_restart_closes_sessions_left_active_by_a_crash,
    test_idle_sessions_close_and_stateless_clients_start_a_new_session_after_the_gap,
    test_long_responses_are_truncated_with_the_full_size_noted,
    test_recording_never_raises_into_the_caller,
    test_retention_keeps_the_newest_100_sessions_with_their_calls,
    test_sessions_of_a_server_elsewhere_close_only_when_its_heartbeat_stops,
    test_validation_rules_are_enforced_by_the_database,
)
from test_store import (  # noqa: F401  (fixtures and tests, collected again here)
    WS,
    OpenStore,
    add_tiny,
    state_dir,
    store,
    test_a_model_and_its_file_are_written_together,
    test_add_get_list_delete_model,
    test_cache_count_bound_is_lru,
    test_closed_store_refuses,
    test_communities_and_their_results,
    test_concurrent_inserts_of_one_id_give_one_clean_error,
    test_concurrent_writers_and_readers,
    test_corrupt_or_missing_model_file,
    test_derived_ids,
    test_list_models_order_and_rows_only,
    test_media_crud,
    test_model_id_rules,
    test_not_found_details_and_suggestions,
    test_repeatable_results_are_pruned_history_is_not,
    test_restart_keeps_everything,
    test_results_newest_first,
    test_workspace_isolation,
    textbook,
)


@pytest.fixture()
def open_store(state_dir: Path, postgres_url: str) -> OpenStore:  # noqa: F811
    def open_(**kwargs: Any) -> Store:
        return Store(state_dir, database_url=postgres_url, **kwargs)

    return open_


@pytest.fixture()
def db_location(postgres_url: str) -> str:
    return postgres_url


def _columns(database: Database) -> dict[tuple[str, str], tuple[str, str | None, str]]:
    with database.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT table_name, column_name, data_type, collation_name, is_identity FROM information_schema.columns "
            "WHERE table_schema = 'public'")).all()
    return {(str(r[0]), str(r[1])): (str(r[2]), r[3], str(r[4])) for r in rows}


def test_migrations_run_once_when_servers_open_a_fresh_database_together(postgres_url: str) -> None:
    opened: list[Database] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def open_database() -> None:
        barrier.wait()
        try:
            opened.append(Database(postgres_url))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_database) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == [] and len(opened) == 4
        applied = opened[0].applied_migrations()
        assert [v for v, _, _ in applied] == [m.version for m in MIGRATIONS]  # each exactly once
        # the SQLite-typed migrations, as PostgreSQL got them (engine.translate_ddl)
        columns = _columns(opened[0])
        assert columns[("media", "default_uptake")][0] == "double precision"  # not 4-byte REAL
        assert columns[("results", "id")] == ("bigint", None, "YES")  # identity: ids never reused
        assert columns[("model_files", "data")][0] == "bytea"
        assert columns[("tool_calls", "response_json")][0] == "bytea"
        assert columns[("models", "model_id")][:2] == ("text", "C")  # byte-wise order, as in SQLite
    finally:
        for database in opened:
            database.close()


def test_a_newer_database_is_refused(postgres_url: str) -> None:
    Database(postgres_url).close()
    with sa.create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://")).begin() as conn:
        conn.execute(sa.text("INSERT INTO schema_migrations VALUES (999, 'future', '2099-01-01T00:00:00.000000Z')"))
    with pytest.raises(DatabaseError) as info:
        Database(postgres_url)
    assert info.value.code == "STATE_DB_TOO_NEW" and info.value.details["db_version"] == 999
    assert PASSWORD not in f"{info.value.message} {info.value.details}"


def test_values_round_trip_exactly(store: Store) -> None:  # noqa: F811
    from test_store import medium

    compounds = {"cpd00027": (-0.1, 1e-7), "cpd00007": (-1 / 3, 1000.0)}
    row = store.add_media(medium(media_id="exact", compounds=compounds, default_uptake=0.1))
    assert store.get_media(WS, "exact") == row
    assert store.get_media(WS, "exact").compounds == compounds and row.default_uptake == 0.1
    for name in ("b", "B", "_x", "a-1", "a_1"):  # byte-wise order, the same as SQLite's
        add_tiny(store, f"{name}.draft")
    assert store.db.model_ids_with_prefix(WS, "a") == ["a-1.draft", "a_1.draft"]
    assert store.db.model_ids_with_prefix(WS, "a_") == ["a_1.draft"]  # `_` is no wildcard


def test_the_password_is_never_shown(postgres: PostgresCluster, postgres_url: str, state_dir: Path,  # noqa: F811
                                     caplog: pytest.LogCaptureFixture) -> None:
    assert PASSWORD in postgres_url
    with Store(state_dir, database_url=postgres_url) as store:  # noqa: F811
        assert store.location == postgres_url.replace(PASSWORD, "***")
        assert PASSWORD not in repr(Settings.resolve(database_url=postgres_url))
    wrong = postgres_url.replace(PASSWORD, "not-" + PASSWORD)
    for url, reason in ((wrong, "password authentication failed"),
                        (postgres.url("no_such_database"), "does not exist"),
                        (postgres_url.replace(f":{postgres.port}/", ":1/"), "failed")):
        with pytest.raises(DatabaseError) as info:
            Store(state_dir, database_url=url)
        shown = f"{info.value.message} {info.value.details} {info.value.suggestions}"
        assert info.value.code == "STATE_DB_OPEN_FAILED" and reason in shown, shown
        assert PASSWORD not in shown and "***" in shown, shown
    for url in ("mysql://u:" + PASSWORD + "@h/db", "postgresql://u:" + PASSWORD + "@h", "not a url"):
        with pytest.raises(DatabaseError) as info:
            Store(state_dir, database_url=url)
        assert info.value.code == "STATE_DB_OPEN_FAILED" and PASSWORD not in str(info.value.message)
    assert PASSWORD not in caplog.text


def test_the_database_url_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from gem_flux_mcp.cli.main import build_parser

    monkeypatch.delenv("GEMFLUX_DATABASE_URL", raising=False)
    assert Settings.resolve(state_dir=tmp_path).database_url is None  # unset: SQLite in the state folder
    monkeypatch.setenv("GEMFLUX_DATABASE_URL", "postgresql://u@h/from_env")
    assert Settings.resolve().database_url == "postgresql://u@h/from_env"
    assert Settings.resolve(database_url="postgresql://u@h/explicit").database_url == "postgresql://u@h/explicit"
    for command in ("serve", "dashboard"):
        args = build_parser().parse_args([command, "--database-url", "postgresql://u@h/opt"])
        assert args.database_url == "postgresql://u@h/opt"


def test_two_stores_prune_results_to_exactly_the_kept_number(open_store: OpenStore) -> None:
    """Two processes recording FBA results of one model at once: each insert prunes, one after the
    other (the model's row is locked), so exactly RESULTS_KEPT_PER_KIND stay."""
    stores = [open_store(), open_store()]
    add_tiny(stores[0], "a.draft")
    per_store = RESULTS_KEPT_PER_KIND // 2 + 30
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def record(store: Store, n: int) -> None:  # noqa: F811
        barrier.wait()
        try:
            for i in range(per_store):
                store.add_result(WS, "a.draft", "fba", None, {"store": n, "i": i})
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=record, args=(s, n)) for n, s in enumerate(stores)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        assert stores[1].db.count_results(WS, "a.draft") == RESULTS_KEPT_PER_KIND
        kept = stores[1].list_results(WS, "a.draft", limit=1000)
        assert {r.summary["i"] for r in kept if r.summary["store"] == 0} >= {per_store - 1}  # the newest stay
    finally:
        for s in stores:
            s.close()


def test_two_recorders_keep_exactly_the_newest_sessions(postgres_url: str) -> None:
    databases = [Database(postgres_url), Database(postgres_url)]
    recorders = [ActivityRecorder(d, max_sessions=40) for d in databases]
    try:
        for n in range(60):
            for r, recorder in enumerate(recorders):
                recorder.record(_event(_identity(f"conn-{r}-{n}")))
        for recorder in recorders:
            assert recorder.flush(30)
        assert databases[0].count_sessions() == 40
        kept = databases[0].recent_sessions(None, 100)
        assert all(s.tool_call_count == 1 for s in kept)
        assert databases[0].count_calls() == 40  # pruned sessions took their calls with them
        assert len(databases[0].server_processes()) == 2
    finally:
        for recorder in recorders:
            recorder.stop()
        assert databases[0].server_processes() == []  # a clean stop unregisters
        for d in databases:
            d.close()


# ---- two real `gem-flux serve --transport http` processes on one database


async def _poll(check: Callable[[], bool], seconds: float = 20) -> None:
    with anyio.fail_after(seconds):
        while not check():
            await anyio.sleep(0.2)


@pytest.mark.anyio
async def test_two_servers_on_one_database(server_env: dict[str, str], tmp_path: Path, postgres_url: str) -> None:
    save_json_model(load_textbook(), str(tmp_path / "textbook.json"))
    envs = [{**server_env, "GEMFLUX_DATABASE_URL": postgres_url, "GEMFLUX_STATE_DIR": str(tmp_path / f"state_{n}")}
            for n in "ab"]  # no folder in common: everything shared is in the database
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    # both start at the same moment on a fresh database: migrations run once
    started: list[tuple[subprocess.Popen[bytes], str] | None] = [None, None]
    async with anyio.create_task_group() as group:
        for n in range(2):
            async def start(n: int = n) -> None:
                started[n] = await anyio.to_thread.run_sync(start_http_server, envs[n], logs[n])
            group.start_soon(start)
    procs = [s[0] for s in started if s is not None]
    urls = [s[1] for s in started if s is not None]
    assert len(urls) == 2
    clients = 8
    named, auto = 12, 4
    outcomes: dict[str, list[str]] = {"contested": [], "import": []}
    built: list[str] = []
    failures: list[str] = []
    try:
        async def client_run(n: int) -> None:
            url, mode = urls[n % 2], ("legacy" if n % 4 < 2 else "2026-07-28")
            async with http_client(url, mode, name=f"client-{n}") as client:
                contested = await client.call_tool("build_media", {"compounds": ["cpd00027"],
                                                                   "media_name": "contested"})
                outcomes["contested"].append(structured(contested).get("error_code", "stored"))
                if n < 2:  # one client on each server imports under the same name at once
                    result = await client.call_tool("import_model", {"file_path": str(tmp_path / "textbook.json"),
                                                                     "model_name": "shared"})
                    outcomes["import"].append(structured(result).get("error_code", "stored"))
                for i in range(named + auto):
                    args: dict[str, Any] = {"compounds": ["cpd00027", "cpd00009"]}
                    if i < named:
                        args["media_name"] = f"c{n}_{i}"
                    result = await client.call_tool("build_media", args)
                    if result.is_error:
                        failures.append(str(structured(result)))
                    else:
                        built.append(structured(result)["media_id"])

        async with anyio.create_task_group() as group:
            for n in range(clients):
                group.start_soon(client_run, n)

        assert failures == []
        assert sorted(outcomes["contested"]) == ["DUPLICATE_NAME"] * (clients - 1) + ["stored"]
        assert sorted(outcomes["import"])[-1] == "stored" and sorted(outcomes["import"])[0] in {
            "DUPLICATE_NAME", "MODEL_ID_EXISTS"}, outcomes["import"]
        assert len(built) == len(set(built)) == clients * (named + auto)  # no id collided, nothing lost
        for url in urls:  # each server sees every medium and the model, whichever server stored them
            async with http_client(url, "legacy", name="checker") as check:
                media = await call(check, "list_media", {"limit": 500})
                mine = {m["media_id"] for m in media["media"] if not m["is_predefined"]}
                assert mine == {*built, "contested"}
                model = await call(check, "get_model", {"model_id": "shared.draft"})
                assert model["num_reactions"] == 95
                fba = await call(check, "run_fba", {"model_id": "shared.draft", "media_id": "contested",
                                                    "objective": "Biomass_Ecoli_core"})
                assert "objective_value" in fba

        # both servers recorded their clients' sessions and calls in the one database
        database = Database(postgres_url)
        try:
            def recorded() -> bool:
                sessions = [s for s in database.recent_sessions(None, 100)
                            if (s.client_name or "").startswith("client-")]
                return sum(s.tool_call_count for s in sessions) == clients * (1 + named + auto) + 2
            await _poll(recorded)
            with database.connect() as conn:
                owners = conn.execute(sa.text("SELECT COUNT(DISTINCT server_id) FROM mcp_sessions")).scalar()
            assert owners == 2
            assert len(database.server_processes()) == 2
            async with httpx.AsyncClient(base_url=urls[0], timeout=30) as http:  # one dashboard shows both
                sessions = (await http.get("/api/sessions", params={"limit": 100})).json()["sessions"]
                names = {s["client_name"] for s in sessions}
                assert {f"client-{n}" for n in range(clients)} <= names
                page = (await http.get("/")).text
                assert PASSWORD not in page
        finally:
            database.close()
    finally:
        for proc in procs:
            stop_server(proc)
    for log in logs:
        text = log.read_text()
        assert PASSWORD not in text
        assert "state in postgresql://gemflux:***@" in text, text[-2000:]
    database = Database(postgres_url)
    try:
        assert database.active_sessions() == []  # each server closed its own sessions on the way out
        assert database.server_processes() == []
        assert [v for v, _, _ in database.applied_migrations()] == [m.version for m in MIGRATIONS]
    finally:
        database.close()
