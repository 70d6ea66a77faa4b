"""The persistent store: rows, stored model files, ids, migrations, cache, crash safety, concurrency.

The engine-neutral tests here also run on PostgreSQL (test_store_postgres.py imports them and
gives them its own `open_store`)."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cobra
import pytest

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError, NotFoundError, ValidationError
from gem_flux_mcp.fsutil import atomic_write_bytes
from gem_flux_mcp.server.hints import add_hints
from gem_flux_mcp.store import MediaRow, ModelRow, Store
from gem_flux_mcp.store.db import DB_FILE_NAME
from gem_flux_mcp.store.row_mapping import RESULTS_KEPT_PER_KIND
from gem_flux_mcp.store.schema import MIGRATIONS, split_sql
from gem_flux_mcp.store.store import MODEL_BYTES_PER_JSON_BYTE

WS = "local"
AUTO_MODEL_ID = re.compile(r"^model_\d{8}_\d{6}_[a-z0-9]{6}\.draft$")
AUTO_MEDIA_ID = re.compile(r"^media_\d{8}_\d{6}_[a-z0-9]{6}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


# ---- fixtures and helpers


@pytest.fixture(scope="module")
def textbook() -> cobra.Model:
    """E. coli core (ships with COBRApy). Shared: tests must not change it."""
    return cobra.io.load_model("textbook")


def tiny_model(name: str = "tiny") -> cobra.Model:
    """A 4-reaction model: uptake of a, transport, a -> b (two genes), drain of b as objective."""
    model = cobra.Model(name)
    a_e = cobra.Metabolite("a_e", compartment="e")
    a_c = cobra.Metabolite("a_c", compartment="c")
    b_c = cobra.Metabolite("b_c", compartment="c")
    ex = cobra.Reaction("EX_a_e", lower_bound=-10, upper_bound=1000)
    ex.add_metabolites({a_e: -1})
    transport = cobra.Reaction("T_a", lower_bound=0, upper_bound=1000)
    transport.add_metabolites({a_e: -1, a_c: 1})
    r1 = cobra.Reaction("R1", lower_bound=0, upper_bound=1000)
    r1.add_metabolites({a_c: -1, b_c: 1})
    r1.gene_reaction_rule = "g1 or g2"
    bio = cobra.Reaction("BIO", lower_bound=0, upper_bound=1000)
    bio.add_metabolites({b_c: -1})
    model.add_reactions([ex, transport, r1, bio])
    model.objective = "BIO"
    return model


@pytest.fixture()
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


OpenStore = Callable[..., Store]


@pytest.fixture()
def open_store(state_dir: Path) -> OpenStore:
    """Opens a Store on this test's database: a SQLite file in the state folder here, a PostgreSQL
    database in test_store_postgres.py. Keyword arguments go to Store."""

    def open_(**kwargs: Any) -> Store:
        return Store(state_dir, **kwargs)

    return open_


@pytest.fixture()
def store(open_store: OpenStore) -> Iterator[Store]:
    s = open_store()
    yield s
    s.close()


def add_tiny(store: Store, model_id: str, workspace: str = WS, **kwargs: object) -> ModelRow:
    options: dict[str, object] = {"model_name": None, "source": "built", "template": None, "derived_from": None}
    options.update(kwargs)
    return store.add_model(workspace, model_id, tiny_model(), **options)  # type: ignore[arg-type]


def stored_json(store: Store, workspace: str, model_id: str) -> bytes:
    """The model's JSON as the database holds it (gzip-compressed in model_files), unverified."""
    found = store.db.get_model(workspace, model_id)
    assert found is not None
    packed = store.db.model_file(workspace, found[1])
    assert packed is not None, "no stored file"
    return gzip.decompress(packed)


def replace_stored_file(store: Store, workspace: str, model_id: str, packed: bytes | None) -> None:
    """Overwrite (or, with None, delete) a model's stored file behind the store's back."""
    found = store.db.get_model(workspace, model_id)
    assert found is not None
    key = {"ws": workspace, "name": found[1]}
    with store.db.transaction() as conn:
        if packed is None:
            store.db._run(conn, "DELETE FROM model_files WHERE workspace = :ws AND file_name = :name", key)
        else:
            store.db._run(conn, "UPDATE model_files SET data = :data WHERE workspace = :ws AND file_name = :name",
                          {**key, "data": packed})


def medium(workspace: str = WS, media_id: str = "glc", **kwargs: object) -> MediaRow:
    values: dict[str, object] = {
        "workspace": workspace,
        "media_id": media_id,
        "media_name": media_id,
        "compounds": {"cpd00027": (-5.0, 100.0), "cpd00007": (-10.0, 100.0), "cpd00001": (-100.0, 100.0)},
        "default_uptake": 100.0,
        "created_at": "",
        "description": "test medium",
    }
    values.update(kwargs)
    return MediaRow(**values)  # type: ignore[arg-type]


# ---- models


def test_add_get_list_delete_model(store: Store, textbook: cobra.Model) -> None:
    row = store.add_model(WS, "Ecoli.draft", textbook, model_name="Ecoli", source="imported",
                          template="GramNegative", derived_from=None, extra={"annotation": {"rast": 0}})
    assert (row.model_id, row.model_name, row.state, row.source, row.template) == (
        "Ecoli.draft", "Ecoli", "draft", "imported", "GramNegative")
    assert (row.num_reactions, row.num_metabolites, row.num_genes) == (95, 72, 137)
    assert row.num_exchanges == 20
    assert row.compartments == ["c", "e"]
    assert row.objective == "Biomass_Ecoli_core"
    assert row.extra == {"annotation": {"rast": 0}}
    assert row.last_media_id is None and row.derived_from is None
    assert TIMESTAMP.match(row.created_at)
    data = stored_json(store, WS, "Ecoli.draft")
    assert row.file_size == len(data) and row.file_sha256 == hashlib.sha256(data).hexdigest()
    assert json.loads(data)["id"] == textbook.id

    assert store.get_model_row(WS, "Ecoli.draft") == row
    assert store.list_models(WS) == [row]
    with store.checkout(WS, "Ecoli.draft") as model:
        assert len(model.reactions) == 95
        assert model.slim_optimize() == pytest.approx(textbook.slim_optimize(), rel=1e-6)

    store.set_last_media(WS, "Ecoli.draft", "glc")
    assert store.get_model_row(WS, "Ecoli.draft").last_media_id == "glc"

    stored = store.db.get_model(WS, "Ecoli.draft")
    assert stored is not None and (WS, stored[1]) in store.db.stored_files()
    deleted = store.delete_model(WS, "Ecoli.draft")
    assert deleted.model_id == "Ecoli.draft" and store.db.stored_files() == set()  # the file went with it
    assert store.list_models(WS) == []
    assert store.cache_stats()["entries"] == 0
    for call in (
        lambda: store.get_model_row(WS, "Ecoli.draft"),
        lambda: store.delete_model(WS, "Ecoli.draft"),
        lambda: store.set_last_media(WS, "Ecoli.draft", "glc"),
    ):
        with pytest.raises(NotFoundError) as info:
            call()
        assert info.value.code == "MODEL_NOT_FOUND"
    with pytest.raises(NotFoundError), store.checkout(WS, "Ecoli.draft"):
        pass


def test_not_found_details_and_suggestions(store: Store) -> None:
    for i in range(3):
        add_tiny(store, f"m{i}.draft")
    with pytest.raises(NotFoundError) as info:
        store.get_model_row(WS, "m1.drft")
    err = info.value
    assert err.details == {"model_id": "m1.drft", "available_models": ["m0.draft", "m1.draft", "m2.draft"],
                           "num_available": 3, "did_you_mean": ["m1.draft", "m2.draft", "m0.draft"]}
    assert err.suggestions == ["Did you mean 'm1.draft', 'm2.draft', 'm0.draft'?"]  # the store names no tools
    assert err.valid_next_steps == [] and err.example_call is None
    # the server's boundary adds what to call next (server/hints.py)
    hinted = add_hints(err)
    assert hinted.suggestions[0].startswith("Did you mean 'm1.draft'")
    assert any("list_models" in s for s in hinted.suggestions)
    assert hinted.valid_next_steps and hinted.example_call == {"tool": "list_models", "arguments": {}}


def test_list_models_order_and_rows_only(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [f"m{i:03d}.draft" for i in range(100)]
    for model_id in reversed(ids):  # insertion order differs from alphabetical order
        add_tiny(store, model_id)
    rows = store.list_models(WS)
    assert [r.model_id for r in rows] == list(reversed(ids))
    assert [r.created_at for r in rows] == sorted(r.created_at for r in rows)
    assert len({r.created_at for r in rows}) == 100
    # Listing is rows only: it still answers when no model file can be read. (Its speed, with
    # 1,000 models on both backends, is measured in benchmarks/store_backends.py: a wall-clock
    # bound here failed on two busy test workers.)
    def no_file(*_: object) -> bytes:
        raise AssertionError("list_models read a model file")

    monkeypatch.setattr(store.db, "model_file", no_file)
    assert [r.model_id for r in store.list_models(WS)] == list(reversed(ids))
    with pytest.raises(AssertionError, match="read a model file"):
        store.model_data(WS, ids[0])  # the stand-in does bite where a file is read


def test_workspace_isolation(store: Store) -> None:
    add_tiny(store, "same.draft", workspace="alice")
    add_tiny(store, "only_alice.draft", workspace="alice")
    add_tiny(store, "same.draft", workspace="bob")  # same id, other workspace: allowed
    store.add_media(medium("alice", "glc"))
    store.add_result("alice", "same.draft", "fba", "glc", {"growth": 1.0})

    assert [r.model_id for r in store.list_models("bob")] == ["same.draft"]
    assert store.list_media("bob") == []
    assert store.list_results("bob", "same.draft") == []
    assert len(store.list_results("alice", "same.draft")) == 1
    with pytest.raises(NotFoundError) as info:
        store.get_model_row("bob", "only_alice.draft")
    assert info.value.details["available_models"] == ["same.draft"]
    with pytest.raises(NotFoundError):
        store.get_media("bob", "glc")
    with pytest.raises(NotFoundError):
        store.delete_model("bob", "only_alice.draft")
    assert store.new_model_id("bob", "only_alice", "draft") == "only_alice.draft"
    store.delete_model("bob", "same.draft")
    assert store.get_model_row("alice", "same.draft").workspace == "alice"
    for bad in ("", "../x", ".hidden", "a/b", "x" * 200):
        with pytest.raises(ValidationError) as err:
            store.list_models(bad)
        assert err.value.code == "INVALID_WORKSPACE"


def test_model_id_rules(store: Store) -> None:
    auto = store.new_model_id(WS, None, "draft")
    assert AUTO_MODEL_ID.match(auto), auto
    assert store.new_model_id(WS, None, "gapfilled").endswith(".gf")
    assert store.new_model_id(WS, "E_coli-K12", "draft") == "E_coli-K12.draft"

    for bad in ("", "a.b", "a b", "x" * 65, "model_mine", "émile", "a/b"):
        with pytest.raises(ValidationError) as info:
            store.new_model_id(WS, bad, "draft")
        assert info.value.code == "INVALID_MODEL_NAME", bad
        assert info.value.suggestions
    with pytest.raises(ValidationError) as info:
        store.new_model_id(WS, "x", "final")
    assert info.value.code == "INVALID_STATE"

    add_tiny(store, "E_coli.draft", model_name="E_coli")
    with pytest.raises(ValidationError) as info:
        store.new_model_id(WS, "E_coli", "draft")
    assert info.value.code == "DUPLICATE_NAME"
    assert info.value.details["name"] == "E_coli"
    assert info.value.details["existing_model_id"] == "E_coli.draft"
    assert info.value.suggestions
    # "_" in the base is not a wildcard: E_coli does not block Ex.coli-like names
    assert store.new_model_id(WS, "EXcoli", "draft") == "EXcoli.draft"

    with pytest.raises(ValidationError) as info:
        add_tiny(store, "E_coli.draft")
    assert info.value.code == "MODEL_ID_EXISTS"
    with pytest.raises(ValidationError) as info:
        add_tiny(store, "bad id.draft")
    assert info.value.code == "INVALID_MODEL_ID"
    with pytest.raises(ValidationError) as info:
        add_tiny(store, "ok.draft", source="downloaded")
    assert info.value.code == "INVALID_SOURCE"


def test_derived_ids(store: Store) -> None:
    add_tiny(store, "X.draft")
    first = store.derived_model_id(WS, "X.draft")
    assert first == "X.draft.gf"
    row = add_tiny(store, first, source="gapfilled", derived_from="X.draft")
    assert row.state == "gapfilled" and row.derived_from == "X.draft"
    second = store.derived_model_id(WS, "X.draft")
    assert second == "X.draft.gf.v2"
    add_tiny(store, second, source="gapfilled", derived_from="X.draft")
    assert store.derived_model_id(WS, "X.draft") == "X.draft.gf.v3"
    assert store.get_model_row(WS, second).state == "gapfilled"
    # gapfilling a gapfilled model, and a parent without .draft
    assert store.derived_model_id(WS, "X.draft.gf") == "X.draft.gf.gf"
    assert store.derived_model_id(WS, "Y") == "Y.gf"
    # revisions keep the parent's state
    assert store.derived_model_id(WS, "X.draft", suffix="rev") == "X.draft.rev"
    assert add_tiny(store, "X.draft.rev", source="revised").state == "draft"
    with pytest.raises(ValidationError):
        store.derived_model_id(WS, "X.draft", suffix="g.f")


def test_ids_reserved_for_running_jobs(store: Store) -> None:
    """Two gapfills of one model started together are promised different ids, each stores its
    model under the id it was promised, and an id given up is offered again."""
    add_tiny(store, "X.draft")
    first = store.reserve_derived_model_id(WS, "X.draft")
    second = store.reserve_derived_model_id(WS, "X.draft")
    assert (first, second) == ("X.draft.gf", "X.draft.gf.v2")
    assert store.derived_model_id(WS, "X.draft") == "X.draft.gf.v3"  # a revision now would not take them
    add_tiny(store, second, source="gapfilled", derived_from="X.draft")  # the second job finished first
    store.release_model_id(WS, second)
    store.release_model_id(WS, first)  # the first one failed
    assert store.reserve_derived_model_id(WS, "X.draft") == "X.draft.gf"
    assert store.reserve_derived_model_id("other_ws", "X.draft") == "X.draft.gf"  # per workspace


# ---- media


def test_media_crud(store: Store) -> None:
    compounds = {f"cpd{i:05d}": (-float(i), 1000.0) for i in range(30, 0, -1)}  # non-sorted order
    row = store.add_media(medium(media_id="rich", compounds=compounds, default_uptake=None))
    assert TIMESTAMP.match(row.created_at)
    assert list(row.compounds) == list(compounds)
    got = store.get_media(WS, "rich")
    assert got == row and list(got.compounds) == list(compounds)
    assert got.compounds["cpd00005"] == (-5.0, 1000.0)
    assert got.default_uptake is None

    fixed = store.add_media(medium(media_id="glucose_minimal_aerobic", created_at="2025-10-27T00:00:00Z"))
    assert fixed.created_at == "2025-10-27T00:00:00Z"
    auto_id = store.new_media_id(WS)
    assert AUTO_MEDIA_ID.match(auto_id) and len(auto_id) == 28
    store.add_media(medium(media_id=auto_id, media_name=None))
    assert [m.media_id for m in store.list_media(WS)] == ["glucose_minimal_aerobic", "rich", auto_id]
    assert len({store.new_media_id(WS) for _ in range(50)}) == 50

    with pytest.raises(ValidationError) as info:
        store.add_media(medium(media_id="rich"))
    assert info.value.code == "DUPLICATE_NAME" and info.value.suggestions
    with pytest.raises(ValidationError):
        store.add_media(medium(media_id="bad", compounds={"cpd00027": (10.0, -10.0)}))
    with pytest.raises(ValidationError):
        store.add_media(medium(media_id="bad", compounds={"cpd00027": (float("nan"), 1.0)}))
    with pytest.raises(ValidationError):
        store.add_media(medium(media_id="a/b"))

    assert store.delete_media(WS, "rich").media_id == "rich"
    with pytest.raises(NotFoundError) as nf:
        store.get_media(WS, "rich")
    assert nf.value.code == "MEDIA_NOT_FOUND"
    assert nf.value.details["media_id"] == "rich"
    assert nf.value.details["available_media"] == ["glucose_minimal_aerobic", auto_id]
    with pytest.raises(NotFoundError):
        store.delete_media(WS, "rich")


# ---- results


def test_results_newest_first(store: Store) -> None:
    add_tiny(store, "a.draft")
    add_tiny(store, "b.draft")
    for i in range(30):
        store.add_result(WS, "a.draft", "fba", "glc", {"i": i, "growth": i / 10})
    store.add_result(WS, "b.draft", "gapfill", None, {"added": ["rxn00001"]})
    results = store.list_results(WS, "a.draft")
    assert len(results) == 20
    assert [r.summary["i"] for r in results] == list(range(29, 9, -1))
    assert [r.summary["i"] for r in store.list_results(WS, "a.draft", limit=3)] == [29, 28, 27]
    assert results[0].kind == "fba" and results[0].media_id == "glc" and TIMESTAMP.match(results[0].created_at)
    only_b = store.list_results(WS, "b.draft")
    assert [(r.kind, r.media_id, r.summary) for r in only_b] == [("gapfill", None, {"added": ["rxn00001"]})]

    with pytest.raises(ValidationError):
        store.list_results(WS, "a.draft", limit=0)
    with pytest.raises(NotFoundError):
        store.add_result(WS, "nope.draft", "fba", None, {})
    with pytest.raises(ValidationError):
        store.add_result(WS, "a.draft", "fba", None, {"x": object()})
    store.delete_model(WS, "a.draft")
    assert store.list_results(WS, "a.draft") == []
    assert store.db.count_results(WS) == 1


def test_repeatable_results_are_pruned_history_is_not(store: Store) -> None:
    add_tiny(store, "a.draft")
    for i in range(RESULTS_KEPT_PER_KIND + 25):
        store.add_result(WS, "a.draft", "fba", "glc", {"i": i})
        if i % 50 == 0:
            store.add_result(WS, "a.draft", "revision", None, {"i": i})
    kept = store.list_results(WS, "a.draft", limit=1000)
    fba = [r.summary["i"] for r in kept if r.kind == "fba"]
    assert fba == list(range(RESULTS_KEPT_PER_KIND + 24, 24, -1))  # the newest, newest first
    assert [r.summary["i"] for r in kept if r.kind == "revision"] == [200, 150, 100, 50, 0]


# ---- persistence and migrations


def test_restart_keeps_everything(open_store: OpenStore, textbook: cobra.Model) -> None:
    with open_store() as first:
        first.add_model(WS, "Ecoli.draft", textbook, model_name="Ecoli", source="built", template="Core",
                        derived_from=None)
        add_tiny(first, "t.draft.gf", source="gapfilled", derived_from="Ecoli.draft")
        first.add_media(medium())
        first.add_result(WS, "Ecoli.draft", "fba", "glc", {"growth": 0.87})
        models, media = first.list_models(WS), first.list_media(WS)
        results = first.list_results(WS, "Ecoli.draft")
    with open_store() as second:
        assert second.list_models(WS) == models
        assert second.list_media(WS) == media
        assert second.list_results(WS, "Ecoli.draft") == results
        with second.checkout(WS, "Ecoli.draft") as model:
            assert model.slim_optimize() == pytest.approx(textbook.slim_optimize(), rel=1e-6)
        assert second.cache_stats()["misses"] == 1


def test_migrations(state_dir: Path) -> None:
    with Store(state_dir) as store:
        assert store.db.schema_version() == MIGRATIONS[-1].version
        applied = store.db.applied_migrations()
        assert [v for v, _, _ in applied] == [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    with Store(state_dir) as store:  # reopen: nothing re-applied
        assert store.db.applied_migrations() == applied

    with sqlite3.connect(state_dir / DB_FILE_NAME) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', '2099-01-01T00:00:00.000000Z')")
    with pytest.raises(DatabaseError) as info:
        Store(state_dir)
    assert info.value.code == "STATE_DB_TOO_NEW"
    assert info.value.details["db_version"] == 999 and info.value.details["code_version"] == MIGRATIONS[-1].version
    assert info.value.suggestions


def test_an_old_database_is_upgraded_in_place(state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gem_flux_mcp.store.db as db_module

    with monkeypatch.context() as patch:
        patch.setattr(db_module, "MIGRATIONS", MIGRATIONS[:1])  # the first release's schema
        with Store(state_dir) as old:
            assert old.db.schema_version() == 1
            old.add_media(MediaRow(workspace="ws", media_id="kept", media_name=None,
                                   compounds={"cpd00027": (-1.0, 1.0)}, default_uptake=1.0, created_at="",
                                   description=None))
    with Store(state_dir) as upgraded:
        assert upgraded.db.schema_version() == MIGRATIONS[-1].version
        assert upgraded.get_media("ws", "kept").compounds == {"cpd00027": (-1.0, 1.0)}
        assert upgraded.db.count_sessions() == 0  # the new tables exist


def test_split_sql_handles_comments_and_strings() -> None:
    script = "-- note; not a statement\nCREATE TABLE t (a TEXT DEFAULT 'x;y');\n\nINSERT INTO t VALUES ('1');\n"
    assert split_sql(script) == ["CREATE TABLE t (a TEXT DEFAULT 'x;y');", "INSERT INTO t VALUES ('1');"]
    assert len(split_sql(MIGRATIONS[0].sql)) == 8


def test_pragmas(store: Store) -> None:
    with store.db.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10000
    with store.db.transaction() as conn:  # writers take the write lock up front (BEGIN IMMEDIATE)
        assert conn.connection.dbapi_connection is not None
        assert conn.connection.dbapi_connection.in_transaction  # type: ignore[attr-defined]


def test_corrupt_or_missing_model_file(store: Store) -> None:
    add_tiny(store, "c.draft")
    damaged = stored_json(store, WS, "c.draft").replace(b'"R1"', b'"R2"')
    replace_stored_file(store, WS, "c.draft", gzip.compress(damaged))
    with pytest.raises(DatabaseError) as info, store.checkout(WS, "c.draft"):
        pass
    assert info.value.code == "MODEL_FILE_CORRUPT"
    assert info.value.details["model_id"] == "c.draft"
    hinted = add_hints(info.value)  # the recovery advice is added at the server boundary
    assert any("delete_model" in s for s in hinted.suggestions)
    assert hinted.example_call == {"tool": "delete_model", "arguments": {"model_id": "c.draft"}}
    assert store.cache_stats()["entries"] == 0  # the failed load leaves no empty slot
    replace_stored_file(store, WS, "c.draft", b"not gzip")
    with pytest.raises(DatabaseError) as info:
        store.model_data(WS, "c.draft")
    assert info.value.code == "MODEL_FILE_CORRUPT" and "decompress" in info.value.details["reason"]
    replace_stored_file(store, WS, "c.draft", None)
    with pytest.raises(DatabaseError) as info, store.checkout(WS, "c.draft"):
        pass
    assert info.value.code == "MODEL_FILE_CORRUPT"
    store.delete_model(WS, "c.draft")  # a damaged model can still be deleted


def _old_state_folder(state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[str, bytes]]:
    """A state folder as releases before the model_files table left it: schema version 2, each
    model's JSON in models/<workspace>/<uuid hex>.json (written atomically, as they did), a
    store.lock, and the leftovers their crash safety allowed (an unreferenced file, a temp file).
    Returns model id -> (workspace, JSON)."""
    import gem_flux_mcp.store.db as db_module

    with monkeypatch.context() as patch:
        patch.setattr(db_module, "MIGRATIONS", MIGRATIONS[:2])
        db_module.Database(state_dir / DB_FILE_NAME).close()
    models: dict[str, tuple[str, bytes]] = {}
    with sqlite3.connect(state_dir / DB_FILE_NAME) as conn:
        for workspace, model_id, model in (("local", "a.draft", tiny_model("a")), ("local", "b.draft", tiny_model("b")),
                                           ("lab", "a.draft", cobra.io.load_model("textbook"))):
            data = cobra.io.to_json(model).encode()
            file_name = f"{random.Random(model_id + workspace).getrandbits(128):032x}.json"
            atomic_write_bytes(state_dir / "models" / workspace / file_name, data)
            conn.execute("INSERT OR IGNORE INTO workspaces VALUES (?, ?)", (workspace, "2025-01-01T00:00:00.000000Z"))
            conn.execute(
                "INSERT INTO models VALUES (?, ?, NULL, 'draft', 'built', NULL, ?, ?, ?, 1, '[\"c\"]', NULL, NULL, "
                "?, ?, ?, ?, NULL, '{}')",
                (workspace, model_id, len(model.reactions), len(model.metabolites), len(model.genes),
                 f"2025-01-01T00:00:0{len(models)}.000000Z", file_name, len(data), hashlib.sha256(data).hexdigest()))
            models[f"{workspace}/{model_id}"] = (workspace, data)
        conn.execute("INSERT INTO results (workspace, model_id, kind, media_id, created_at, summary_json) "
                     "VALUES ('local', 'a.draft', 'fba', NULL, '2025-01-02T00:00:00.000000Z', '{\"growth\": 1}')")
    (state_dir / "models" / "local" / ("ab" * 16 + ".json")).write_text("{}")  # no row: an orphan
    (state_dir / "models" / "local" / ".0123.json.xyz.tmp").write_text("{")  # an interrupted write
    (state_dir / "store.lock").touch()
    return models


def test_an_old_state_folder_moves_its_model_files_into_the_database(
        state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    models = _old_state_folder(state_dir, monkeypatch)
    with Store(state_dir) as store:
        assert store.db.schema_version() == MIGRATIONS[-1].version
        assert not (state_dir / "models").exists() and not (state_dir / "store.lock").exists()
        assert len(store.db.stored_files()) == 3
        for key, (workspace, data) in models.items():
            model_id = key.split("/", 1)[1]
            assert stored_json(store, workspace, model_id) == data
            assert store.model_data(workspace, model_id) == data  # checksum verified
        with store.checkout("lab", "a.draft") as model:
            assert len(model.reactions) == 95
        assert [r.summary for r in store.list_results("local", "a.draft")] == [{"growth": 1}]
        assert store.delete_model("local", "b.draft").model_id == "b.draft"
        assert len(store.db.stored_files()) == 2
    with Store(state_dir) as again:  # nothing left to import; nothing lost
        assert [r.model_id for r in again.list_models("local")] == ["a.draft"]
        assert len(again.db.stored_files()) == 2


def test_an_interrupted_import_is_finished_at_the_next_open(state_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    models = _old_state_folder(state_dir, monkeypatch)
    (state_dir / "models" / "local" / "README.txt").write_text("not ours")
    import gem_flux_mcp.store.model_files as model_files

    def crash(_folder: Path) -> None:  # the files are in the table; the process dies before removing them
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(model_files, "_remove_legacy_folder", crash)
        with pytest.raises(KeyboardInterrupt):
            Store(state_dir)
    assert (state_dir / "models" / "lab").is_dir()
    with Store(state_dir) as store:
        assert len(store.db.stored_files()) == len(models) == 3
        assert store.model_data("lab", "a.draft") == models["lab/a.draft"][1]
        # only model files and temp files are removed: what is not ours stays, and so does its folder
        assert [p.name for p in (state_dir / "models").rglob("*")] == ["local", "README.txt"]


def test_a_model_and_its_file_are_written_together(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    add_tiny(store, "one.draft")

    def disk_full(*_args: object) -> int:
        raise DatabaseError(ErrorCode.DATABASE_ERROR, "disk full")

    with monkeypatch.context() as patch:  # the row is inserted, then storing its file fails
        patch.setattr(store.db, "insert_model_file", disk_full)
        with pytest.raises(DatabaseError):
            add_tiny(store, "two.draft")
    assert [r.model_id for r in store.list_models(WS)] == ["one.draft"]  # rolled back with it
    assert len(store.db.stored_files()) == 1
    # a file cannot exist without its model (foreign key), nor outlive it (ON DELETE CASCADE)
    with pytest.raises(DatabaseError) as info, store.db.transaction() as conn:
        store.db.insert_model_file(conn, WS, "0" * 32 + ".json", b"x")
    assert info.value.code == "DATABASE_ERROR" and "[SQL:" not in info.value.message
    store.delete_model(WS, "one.draft")
    assert store.db.stored_files() == set()


def test_concurrent_inserts_of_one_id_give_one_clean_error(open_store: OpenStore) -> None:
    """Each thread has its own Store (its own connections), as separate servers would."""
    stores = [open_store() for _ in range(6)]
    barrier = threading.Barrier(len(stores))
    outcomes: list[str] = []

    # built here, not in the threads: concurrent COBRApy rule parsing is kept apart by
    # modeling/gene_rules.py where the server loads models, not in a test's own model building
    model = tiny_model()
    options: dict[str, object] = {"model_name": None, "source": "built", "template": None, "derived_from": None}

    def insert(store: Store, kind: str) -> None:
        barrier.wait()
        try:
            if kind == "model":
                store.add_model(WS, "same.draft", model, **options)  # type: ignore[arg-type]
            else:
                store.add_media(medium(media_id="same"))
            outcomes.append("stored")
        except ValidationError as exc:
            outcomes.append(exc.code)

    try:
        for kind in ("model", "media"):
            outcomes.clear()
            threads = [threading.Thread(target=insert, args=(s, kind)) for s in stores]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            expected = "MODEL_ID_EXISTS" if kind == "model" else "DUPLICATE_NAME"
            assert sorted(outcomes) == sorted(["stored"] + [expected] * (len(stores) - 1)), outcomes
        assert [r.model_id for r in stores[0].list_models(WS)] == ["same.draft"]
        assert len(stores[0].db.stored_files()) == 1
        assert [m.media_id for m in stores[0].list_media(WS)] == ["same"]
    finally:
        for s in stores:
            s.close()


def test_closed_store_refuses(open_store: OpenStore) -> None:
    store = open_store()
    store.close()
    store.close()  # idempotent
    with pytest.raises(DatabaseError) as info:
        store.list_models(WS)
    assert info.value.code == "STORE_CLOSED"


# ---- cache


def test_cache_count_bound_is_lru(open_store: OpenStore) -> None:
    with open_store(cache_max_models=2) as store:
        for name in "abc":
            add_tiny(store, f"{name}.draft")
        for name in "aba":
            with store.checkout(WS, f"{name}.draft"):
                pass
        assert store.cached_model_ids(WS) == ["b.draft", "a.draft"]
        with store.checkout(WS, "c.draft"):
            pass
        assert store.cached_model_ids(WS) == ["a.draft", "c.draft"]  # b was least recently used
        stats = store.cache_stats()
        assert (stats["entries"], stats["hits"], stats["misses"], stats["evictions"]) == (2, 1, 3, 1)


def test_cache_byte_bound(open_store: OpenStore, textbook: cobra.Model) -> None:
    with open_store() as store:
        rows = [add_tiny(store, f"t{i}.draft") for i in range(4)]
        big = store.add_model(WS, "big.draft", textbook, model_name=None, source="built", template=None,
                              derived_from=None)
        estimate = MODEL_BYTES_PER_JSON_BYTE * rows[0].file_size
        store.cache_max_bytes = int(estimate * 2.5)  # two tiny models fit, not three
        for row in rows:
            with store.checkout(WS, row.model_id):
                pass
        assert store.cached_model_ids(WS) == ["t2.draft", "t3.draft"]
        assert store.cache_stats()["estimated_bytes"] == 2 * estimate
        # A model larger than the whole budget is served, then dropped with everything older.
        with store.checkout(WS, "big.draft") as model:
            assert len(model.reactions) == 95
            assert "big.draft" in store.cached_model_ids(WS)  # in use: never evicted
        assert big.file_size * MODEL_BYTES_PER_JSON_BYTE > store.cache_max_bytes
        assert store.cached_model_ids(WS) == []


def test_cache_idle_eviction_and_in_use(open_store: OpenStore) -> None:
    with open_store(cache_max_models=1, idle_seconds=60) as store:
        add_tiny(store, "a.draft")
        add_tiny(store, "b.draft")
        with store.checkout(WS, "a.draft"), store.checkout(WS, "b.draft"):
            assert store.cache_stats()["entries"] == 2  # both in use: the bound waits
            assert store.evict_idle(now=time.monotonic() + 3600) == 0
        # b was released first while a was still in use, so b was the one evictable entry
        assert store.cached_model_ids(WS) == ["a.draft"]
        assert store.evict_idle() == 0
        assert store.evict_idle(now=time.monotonic() + 30) == 0
        assert store.evict_idle(now=time.monotonic() + 61) == 1
        assert store.cache_stats()["entries"] == 0
        assert [r.model_id for r in store.list_models(WS)] == ["a.draft", "b.draft"]  # never deleted
        with store.checkout(WS, "a.draft") as model:
            assert model.reactions.R1.upper_bound == 1000


def test_checkout_lock_serializes_threads(store: Store) -> None:
    add_tiny(store, "shared.draft")
    barrier = threading.Barrier(2)
    spans: list[tuple[float, float]] = []
    seen: list[bool] = []
    errors: list[BaseException] = []

    def worker(bound: float) -> None:
        try:
            barrier.wait()
            with store.checkout(WS, "shared.draft") as model, model:
                start = time.monotonic()
                model.reactions.R1.upper_bound = bound
                model.reactions.EX_a_e.lower_bound = -bound
                time.sleep(0.1)  # give the other thread every chance to interfere
                seen.append(model.reactions.R1.upper_bound == bound and model.slim_optimize() == pytest.approx(bound))
                spans.append((start, time.monotonic()))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(b,)) for b in (3.0, 7.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and seen == [True, True]
    (_, first_end), (second_start, _) = sorted(spans)
    assert first_end <= second_start, "the two checkouts overlapped"
    with store.checkout(WS, "shared.draft") as model:
        assert model.reactions.R1.upper_bound == 1000
        assert model.reactions.EX_a_e.lower_bound == -10
        assert model.slim_optimize() == pytest.approx(10.0)


def test_checkout_reentrant_in_one_thread(store: Store) -> None:
    add_tiny(store, "r.draft")
    with store.checkout(WS, "r.draft") as outer, store.checkout(WS, "r.draft") as inner:
        assert outer is inner


# ---- crash safety

_WRITER = """
import sys
from pathlib import Path
import cobra
from gem_flux_mcp.store import MediaRow, Store

store = Store(Path(sys.argv[1]))
model = cobra.io.load_model("textbook")
print("ready", flush=True)
i = 0
while True:
    model_id = store.new_model_id("w", None, "draft")
    store.add_model("w", model_id, model, model_name=None, source="built", template=None, derived_from=None)
    store.add_result("w", model_id, "fba", None, {"i": i})
    media_id = store.new_media_id("w")
    store.add_media(MediaRow("w", media_id, None, {"cpd00027": (-1.0, 1.0)}, None, "", None))
    rows = store.list_models("w")
    if len(rows) > 8:  # keep deleting too, so kills also land inside delete_model
        store.delete_model("w", rows[0].model_id)
        store.delete_media("w", media_id)
    i += 1
"""


@pytest.mark.slow
def test_kill_9_never_leaves_a_broken_store(state_dir: Path) -> None:
    rng = random.Random(1234)
    loaded: set[str] = set()  # loading is ~60 ms per model: each one is loaded in the round it appears
    for round_ in range(5):
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(state_dir)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.strip() == b"ready", proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(rng.uniform(0.2, 1.0))
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        with Store(state_dir) as store:
            rows = store.list_models("w")
            assert rows, f"round {round_}: the writer stored nothing"
            for row in rows:
                data = stored_json(store, "w", row.model_id)
                assert hashlib.sha256(data).hexdigest() == row.file_sha256
                if row.model_id not in loaded:
                    with store.checkout("w", row.model_id) as model:
                        assert len(model.reactions) == 95
                    loaded.add(row.model_id)
            referenced = {("w", f) for f in (store.db.get_model("w", r.model_id)[1] for r in rows)}  # type: ignore[index]
            assert store.db.stored_files() == referenced, "a model without its file, or a file without its model"
            assert not (state_dir / "models").exists()
            assert store.db.count_results("w") >= len(rows) - 1
            store.list_media("w")


# ---- concurrency


def test_concurrent_writers_and_readers(store: Store) -> None:
    add_tiny(store, "target.draft")
    threads_n, ops_n = 10, 50
    barrier = threading.Barrier(threads_n)
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        model = tiny_model(f"t{t}")
        try:
            barrier.wait()
            for i in range(ops_n):
                op = i % 5
                if op == 0:
                    store.add_media(medium(media_id=f"m_{t}_{i}"))
                elif op == 1:
                    store.list_media(WS)
                elif op == 2:
                    store.add_result(WS, "target.draft", "fba", None, {"t": t, "i": i})
                elif op == 3:
                    store.list_models(WS)
                else:
                    store.add_model(WS, f"t{t}_{i}.draft", model, model_name=f"t{t}_{i}", source="built",
                                    template=None, derived_from=None)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    per_op = threads_n * ops_n // 5
    assert len(store.list_media(WS)) == per_op
    assert len(store.list_models(WS)) == per_op + 1
    assert store.db.count_results(WS, "target.draft") == per_op
    assert len(store.list_results(WS, "target.draft", limit=1000)) == per_op
    assert len(store.db.stored_files()) == per_op + 1


def test_communities_and_their_results(store: Store) -> None:
    """A community row (members as JSON) and the results recorded with it: one insert each, a
    taken id refused, results newest first and gone with their community."""
    from gem_flux_mcp.store.rows import CommunityRow

    members = [{"model_id": "a.draft", "abundance": 0.25, "file_sha256": "0" * 64, "exchange_compounds": ["cpd00027"]},
               {"model_id": "b.draft", "abundance": 0.75, "file_sha256": "1" * 64, "exchange_compounds": []}]
    named = store.add_community(CommunityRow(WS, "mix", "mix", members, ""))
    automatic = store.add_community(CommunityRow(WS, "", None, members[:1], ""))
    assert named.created_at and automatic.community_id.startswith("community_")
    assert store.get_community(WS, "mix") == named and store.get_community(WS, "mix").members == members
    with pytest.raises(ValidationError) as taken:
        store.add_community(CommunityRow(WS, "mix", "mix", members, ""))
    assert taken.value.code == "DUPLICATE_NAME"
    with pytest.raises(ValidationError) as bad:
        store.add_community(CommunityRow(WS, "no spaces", None, members, ""))
    assert bad.value.code == "INVALID_ID_FORMAT"
    with pytest.raises(NotFoundError) as missing:
        store.get_community(WS, "mixx")
    assert missing.value.code == "COMMUNITY_NOT_FOUND" and missing.value.details["did_you_mean"] == ["mix"]
    with pytest.raises(NotFoundError):
        store.get_community("elsewhere", "mix")  # workspaces do not see each other's communities
    store.add_community_result(WS, "mix", "community_growth", "m9", {"community_growth": 0.5})
    store.add_community_result(WS, "mix", "community_knockouts", "m9", {"pairs": 2})
    assert [r.kind for r in store.list_community_results(WS, "mix")] == ["community_knockouts", "community_growth"]
    with pytest.raises(NotFoundError):
        store.add_community_result(WS, "nope", "community_growth", None, {})
    assert store.community_result_counts(WS) == {"mix": 2}
    assert [c.community_id for c in store.list_communities(WS)] == ["mix", automatic.community_id]
    with pytest.raises(NotFoundError) as elsewhere:
        store.delete_community("elsewhere", "mix")  # nor delete them
    assert elsewhere.value.code == "COMMUNITY_NOT_FOUND"
    deleted, results_gone = store.delete_community(WS, "mix")
    assert deleted == named and results_gone == 2  # the community and its results, in one transaction
    assert store.list_community_results(WS, "mix") == [] and store.community_result_counts(WS) == {}
    with pytest.raises(NotFoundError) as again:
        store.delete_community(WS, "mix")
    assert again.value.code == "COMMUNITY_NOT_FOUND"
    assert [c.community_id for c in store.list_communities(WS)] == [automatic.community_id]
