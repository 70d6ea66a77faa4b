"""The media library shipped with the package: every file valid, in ModelSEED ids, with its
provenance; list_media's filters over MCP; and what a real E. coli model does on the media."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import make_media_library
from conftest import REPO
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.media_library import load_media_library, package_media
from gem_flux_mcp.data.panels import load_panels
from gem_flux_mcp.modeling.media import put_on_medium
from mcp_client import call, in_process_client

LIBRARY = REPO / "src" / "gem_flux_mcp" / "data" / "media"
ROLES = {"carbon_source", "nitrogen_source", "phosphorus_source", "sulfur_source", "electron_acceptor", "mineral",
         "water", "proton", "amino_acid", "nucleobase", "trace", "vitamin"}
O2, GLUCOSE = "cpd00007", "cpd00027"
DATA_FOLDER_IDS = ["glucose_minimal_aerobic", "glucose_minimal_anaerobic", "pyruvate_minimal_aerobic",
                   "pyruvate_minimal_anaerobic"]


def _files() -> dict[str, dict[str, Any]]:
    """The shipped media read straight from their JSON files (independently of gem-flux)."""
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(LIBRARY.glob("*.json"))}


def _bounds(raw: dict[str, Any]) -> dict[str, tuple[float, float]]:
    return {cpd: (float(e["bounds"][0]), float(e["bounds"][1])) for cpd, e in raw["compounds"].items()}


def test_every_shipped_medium_loads_with_its_provenance() -> None:
    files = _files()
    assert len(files) >= 60
    loaded = package_media()
    assert list(loaded) == list(files)
    for media_id, raw in files.items():
        assert raw["name"] == media_id
        assert raw["description"].strip() and raw["source"].strip() and raw["category"].strip(), media_id
        medium = loaded[media_id]
        assert medium.origin == "package" and medium.source == raw["source"]
        assert medium.compounds == _bounds(raw) and medium.compounds, media_id
        for cpd, entry in raw["compounds"].items():
            lower, upper = entry["bounds"]
            assert entry["role"] in ROLES and entry["comment"].strip(), (media_id, cpd)
            assert lower < 0 < upper, (media_id, cpd)
            if entry["role"] in ("trace", "vitamin"):  # never a main carbon or nitrogen source
                assert lower >= -0.1, (media_id, cpd, lower)


def test_every_compound_is_a_current_modelseed_compound(biochem: BiochemIndex) -> None:
    files = _files()
    used = {cpd for raw in files.values() for cpd in raw["compounds"]}
    records = biochem.compounds_by_ids(used)
    assert sorted(used - set(records)) == []
    assert [c for c in sorted(used) if records[c]["is_obsolete"]] == []
    for raw in files.values():  # the names written in the files are ModelSEED's
        assert {c: e["name"] for c, e in raw["compounds"].items()} == {c: records[c]["name"] for c in raw["compounds"]}


def test_the_files_are_what_the_script_writes(biochem: BiochemIndex) -> None:
    expected = make_media_library.expected_files(biochem)
    assert sorted(expected) == sorted(p.name for p in LIBRARY.glob("*.json"))
    stale = [name for name, text in expected.items() if (LIBRARY / name).read_text(encoding="utf-8") != text]
    assert stale == [], "run `python scripts/make_media_library.py`"


def test_the_library_holds_m9_pairs_lb_and_the_biolog_bases() -> None:
    files = _files()
    media = {media_id: _bounds(raw) for media_id, raw in files.items()}
    carbon = ["glucose", "acetate", "succinate", "glycerol", "pyruvate", "lactate", "fructose", "maltose",
              "xylose", "gluconate", "citrate"]
    for source in carbon:
        aerobic, anaerobic = media[f"m9_{source}_aerobic"], media[f"m9_{source}_anaerobic"]
        assert O2 in aerobic and {c: b for c, b in aerobic.items() if c != O2} == anaerobic, source
        roles = {e["role"] for e in files[f"m9_{source}_aerobic"]["compounds"].values()}
        assert {"carbon_source", "nitrogen_source", "phosphorus_source", "sulfur_source", "trace"} <= roles
    # every aerobic M9 medium has its anaerobic pair
    aerobic_ids = {m.removesuffix("_aerobic") for m in media if m.startswith("m9_") and m.endswith("_aerobic")}
    assert all(f"{m}_anaerobic" in media for m in aerobic_ids)
    assert O2 in media["lb_aerobic"] and O2 not in media["lb_anaerobic"] and len(media["lb_aerobic"]) >= 60
    lb_roles = {e["role"] for e in files["lb_aerobic"]["compounds"].values()}
    assert {"amino_acid", "nucleobase", "vitamin", "trace", "mineral"} <= lb_roles
    # the Biolog bases: M9 glucose (aerobic) without the panel's reference sources (panels.json)
    _, panels = load_panels()
    for element, panel in panels.items():
        base = media[f"biolog_base_{element}_free"]
        expected = {c: b for c, b in media["m9_glucose_aerobic"].items() if c not in panel.reference_sources}
        assert base == expected and len(base) < len(media["m9_glucose_aerobic"]), element
    assert not any(e["role"] == "carbon_source" for e in files["biolog_base_carbon_free"]["compounds"].values())


def test_data_folder_media_keep_their_ids_and_win_a_clash(data_dir: Path, tmp_path: Path) -> None:
    library = load_media_library(data_dir)
    assert list(library)[:4] == DATA_FOLDER_IDS
    assert all(library[m].origin == "data" for m in DATA_FOLDER_IDS)
    assert set(library) == set(DATA_FOLDER_IDS) | set(_files())
    # a data folder that defines a library id: its medium is the one served
    (tmp_path / "media").mkdir()
    mine = {"name": "m9_glucose_aerobic", "description": "our own M9",
            "compounds": {GLUCOSE: {"bounds": [-3, 100]}, O2: {"bounds": [-7, 100]}}}
    (tmp_path / "media" / "m9_glucose_aerobic.json").write_text(json.dumps(mine), encoding="utf-8")
    clash = load_media_library(tmp_path)
    assert clash["m9_glucose_aerobic"].origin == "data" and clash["m9_glucose_aerobic"].description == "our own M9"
    assert clash["m9_glucose_aerobic"].compounds == {GLUCOSE: (-3.0, 100.0), O2: (-7.0, 100.0)}
    assert len(clash) == len(_files())


def _containing(compounds: set[str], data_dir: Path) -> set[str]:
    """Ids of the predefined media that list any of `compounds`, from the files themselves."""
    paths = [*sorted((data_dir / "media").glob("*.json")), *sorted(LIBRARY.glob("*.json"))]
    return {p.stem for p in paths if compounds & set(json.loads(p.read_text(encoding="utf-8"))["compounds"])}


@pytest.mark.anyio
async def test_list_media_filters_by_name_and_compound(server_env: dict[str, str], data_dir: Path) -> None:
    async def ids(**args: Any) -> tuple[set[str], dict[str, Any]]:
        body = await call(client, "list_media", {"limit": 500, **args})
        assert body["matched_media"] == len(body["media"]) == sum(body["media_by_category"].values())
        return {m["media_id"] for m in body["media"]}, body

    async with in_process_client(server_env) as client:
        everything = await call(client, "list_media", {})
        assert everything["total_media"] == everything["matched_media"] == 4 + len(_files())
        assert len(everything["media"]) == 25 and everything["next_offset"] == 25  # one compact page
        assert any("list_media(offset=25)" in step for step in everything["next_steps"])
        assert list(everything["media_by_category"].items())[:1] == [("reference data folder", 4)]
        found, _ = await ids(name="M9 Glucose aerobic")
        assert found == {"m9_glucose_aerobic", "m9_glucose_vitamins_aerobic", "biolog_base_nitrogen_free",
                         "biolog_base_phosphorus_free", "biolog_base_sulfur_free"}
        found, _ = await ids(name="lb")
        assert found == {"lb_aerobic", "lb_anaerobic"}
        found, _ = await ids(name="biolog_base")  # '_' is a space
        assert found == {f"biolog_base_{e}_free" for e in ("carbon", "nitrogen", "phosphorus", "sulfur")} | {
            "biolog_base_shewanella_carbon_free", "biolog_base_shewanella_nitrogen_free"}
        aerobic, _ = await ids(name="aerobic")  # words start with it: not the anaerobic media
        assert "m9_glucose_aerobic" in aerobic and not any("anaerobic" in m for m in aerobic)
        found, body = await ids(compound="cpd00036")
        assert found == _containing({"cpd00036"}, data_dir) == {"m9_succinate_aerobic", "m9_succinate_anaerobic"}
        assert body["resolved_compounds"] == [{"id": "cpd00036", "name": "Succinate"}]
        by_name, body = await ids(compound="succinate")
        assert by_name == found and body["resolved_compounds"][0]["id"] == "cpd00036"
        found, body = await ids(compound="glucose")
        assert found == _containing({GLUCOSE}, data_dir) and "glucose_minimal_aerobic" in found
        found, body = await ids(compound="lactate")  # D- and L-lactate by their names' words
        assert {"cpd00159", "cpd00221"} <= {c["id"] for c in body["resolved_compounds"]}
        assert found == _containing({"cpd00159", "cpd00221"}, data_dir)
        found, _ = await ids(compound="cpd00007_e0", name="anaerobic")  # no anaerobic medium has O2
        assert found == set()
        found, _ = await ids(compound=GLUCOSE, name="anaerobic")
        assert found == {m for m in _containing({GLUCOSE}, data_dir) if "anaerobic" in m}
        # combined with paging: pages of 2 cover the matches exactly once, in order
        all_glucose = await call(client, "list_media", {"compound": GLUCOSE, "limit": 500})
        pages, offset = [], 0
        while offset is not None:
            page = await call(client, "list_media", {"compound": GLUCOSE, "offset": offset, "limit": 2})
            pages += [m["media_id"] for m in page["media"]]
            offset = page["next_offset"]
        assert pages == [m["media_id"] for m in all_glucose["media"]]
        # media built by you are listed and filtered too, first
        await call(client, "build_media", {"compounds": [GLUCOSE, "cpd00013"], "media_name": "my_glucose_mix"})
        mine = await call(client, "list_media", {"compound": "D-glucose"})
        assert mine["media"][0]["media_id"] == "my_glucose_mix" and mine["media"][0]["category"] == "built by you"
        found, _ = await ids(name="my glucose")
        assert found == {"my_glucose_mix"}


@pytest.mark.anyio
async def test_bad_filters_get_clear_error_codes(server_env: dict[str, str]) -> None:
    async with in_process_client(server_env) as client:
        for args, code in [({"name": ""}, "INVALID_MEDIA_FILTER"), ({"name": "   "}, "INVALID_MEDIA_FILTER"),
                           ({"name": "x" * 101}, "INVALID_MEDIA_FILTER"), ({"name": "-_-"}, "INVALID_MEDIA_FILTER"),
                           ({"compound": ""}, "INVALID_MEDIA_FILTER"), ({"compound": "cpd123"}, "INVALID_MEDIA_FILTER"),
                           ({"compound": "cpd99999"}, "COMPOUND_NOT_FOUND"),
                           ({"compound": "no such compound xyzzy"}, "COMPOUND_NOT_FOUND"),
                           ({"name": 5}, "INVALID_ARGUMENTS"), ({"limit": 0}, "INVALID_LIMIT"),
                           ({"offset": -1}, "INVALID_OFFSET")]:
            body = await call(client, "list_media", args, error=code)
            assert body["message"] and (body["suggestions"] or body["example_call"]), body
            if code == "INVALID_MEDIA_FILTER":
                assert body["details"]["argument"] in args and body["valid_next_steps"], body


@pytest.mark.anyio
async def test_get_media_tells_the_source(server_env: dict[str, str]) -> None:
    raw = _files()["lb_aerobic"]
    async with in_process_client(server_env) as client:
        lb = await call(client, "get_media", {"media_id": "lb_aerobic"})
        assert lb["source"] == raw["source"] and "CarveMe" in lb["source"] and lb["media_type"] == "rich"
        assert {c["id"]: tuple(c["bounds"]) for c in lb["compounds"]} == _bounds(raw)
        data = await call(client, "get_media", {"media_id": "glucose_minimal_aerobic"})
        assert data["source"] == "reference data folder, media/glucose_minimal_aerobic.json"


def test_ecoli_grows_on_m9_glucose_less_anaerobically_and_not_without_carbon(
        ecoli_run: tuple[Any, dict[str, Any]], biochem: BiochemIndex) -> None:
    """COBRApy directly on the gapfilled E. coli draft, each medium applied as the server does."""
    model = ecoli_run[0].model
    growth: dict[str, float] = {}
    for media_id in ("m9_glucose_aerobic", "m9_glucose_anaerobic", "biolog_base_carbon_free", "lb_aerobic"):
        with model:
            _, report = put_on_medium(model, _bounds(_files()[media_id]), biochem)
            assert report.applied, media_id
            growth[media_id] = model.slim_optimize(error_value=0.0)
    assert growth["m9_glucose_aerobic"] > 0.1
    assert growth["m9_glucose_anaerobic"] < growth["m9_glucose_aerobic"]
    assert abs(growth["biolog_base_carbon_free"]) < 1e-6
    assert growth["lb_aerobic"] > growth["m9_glucose_aerobic"]
