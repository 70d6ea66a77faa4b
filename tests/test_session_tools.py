"""Media, models and FBA over a real MCP client (stdio subprocess), checked against COBRApy."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import libsbml
import pytest
from cobra.io import save_json_model, write_sbml_model

from conftest import REPO
from mcp_client import call, in_process_client, stdio_client
from models import TEXTBOOK_MEDIUM, apply_medium_directly, modelseed_core_model, predefined_medium, textbook

GLUCOSE_AEROBIC = "glucose_minimal_aerobic"


@pytest.mark.anyio
async def test_media_round_trip(server_env: dict[str, str], data_dir: Path) -> None:
    async with in_process_client(server_env) as client:
        listed = await call(client, "list_media", {"limit": 500})
        predefined = {m["media_id"] for m in listed["media"] if m["is_predefined"]}
        # the data folder's media and the library shipped with the package
        assert predefined == {p.stem for p in (data_dir / "media").glob("*.json")} | {
            p.stem for p in (REPO / "src" / "gem_flux_mcp" / "data" / "media").glob("*.json")}
        assert listed["user_created_media"] == 0
        built = await call(client, "build_media", {
            "compounds": ["cpd00027", " CPD00007 ", "cpd00001"], "default_uptake": 10,
            "custom_bounds": {"cpd00027": [-5, 50]}})
        assert built["media_id"].startswith("media_") and len(built["media_id"]) == 28
        assert [c["id"] for c in built["compounds"]] == ["cpd00027", "cpd00007", "cpd00001"]
        assert built["compounds"][0]["name"] == "D-Glucose" and built["compounds"][0]["bounds"] == [-5, 50]
        assert built["compounds"][1]["bounds"] == [-10, 100]
        assert built["media_type"] == "minimal" and built["custom_bounds_applied"] == 1
        named = await call(client, "build_media", {"compounds": ["cpd00027"], "media_name": "just_glucose"})
        assert named["media_id"] == "just_glucose"
        listed = await call(client, "list_media", {})
        assert listed["user_created_media"] == 2 and listed["total_media"] == len(predefined) + 2
        assert [m["media_id"] for m in listed["media"][:2]] == [built["media_id"], "just_glucose"]  # yours first
        mine = listed["media"][0]
        assert mine["compounds_preview"][0] == {"id": "cpd00027", "name": "D-Glucose"}
        assert mine["is_predefined"] is False and mine["media_name"] is None and mine["category"] == "built by you"
        stamps = [m["created_at"] for m in listed["media"] if not m["is_predefined"]]
        assert stamps == sorted(stamps)
        await call(client, "delete_media", {"media_id": GLUCOSE_AEROBIC}, error="PREDEFINED_MEDIA_IMMUTABLE")
        await call(client, "delete_media", {"media_id": "just_glucose"})
        await call(client, "delete_media", {"media_id": "just_glucose"}, error="MEDIA_NOT_FOUND")
        await call(client, "build_media", {"compounds": ["cpd00027"], "media_name": GLUCOSE_AEROBIC},
                    error="DUPLICATE_NAME")


@pytest.mark.anyio
async def test_get_media_lists_every_compound_with_its_bounds(server_env: dict[str, str], data_dir: Path) -> None:
    expected = predefined_medium(data_dir, GLUCOSE_AEROBIC)  # read from the file, not through gem-flux
    async with in_process_client(server_env) as client:
        whole = await call(client, "get_media", {"media_id": GLUCOSE_AEROBIC})
        assert whole["is_predefined"] is True and whole["num_compounds"] == len(expected)
        assert {c["id"]: tuple(c["bounds"]) for c in whole["compounds"]} == expected
        assert [c["id"] for c in whole["compounds"]] == list(expected) and whole["next_offset"] is None
        glucose = next(c for c in whole["compounds"] if c["id"] == "cpd00027")
        assert glucose["name"] == "D-Glucose" and glucose["formula"] == "C6H12O6"
        pages = [await call(client, "get_media", {"media_id": GLUCOSE_AEROBIC, "offset": o, "limit": 5})
                 for o in range(0, len(expected), 5)]
        assert [c["id"] for p in pages for c in p["compounds"]] == list(expected)
        assert pages[0]["next_offset"] == 5 and pages[-1]["next_offset"] is None
        await call(client, "build_media", {"compounds": ["cpd00027", "cpd00007"], "media_name": "mine",
                                           "custom_bounds": {"cpd00027": [-5, 50]}})
        mine = await call(client, "get_media", {"media_id": "mine"})
        assert mine["is_predefined"] is False and mine["media_name"] == "mine"
        assert [(c["id"], c["bounds"]) for c in mine["compounds"]] == [("cpd00027", [-5, 50]),
                                                                       ("cpd00007", [-100, 100])]
        await call(client, "get_media", {"media_id": "nope"}, error="MEDIA_NOT_FOUND")
        # a misspelt id: the few predefined ids like it, not all of them
        typo = await call(client, "get_media", {"media_id": "m9_glucos_aerobic"}, error="MEDIA_NOT_FOUND")
        assert typo["details"]["similar_predefined_media"][0] == "m9_glucose_aerobic"
        assert typo["details"]["num_predefined_media"] >= 75 and len(json.dumps(typo)) < 3000
        await call(client, "get_media", {"media_id": "mine", "limit": 0}, error="INVALID_LIMIT")


BUILD_MEDIA_ERRORS: list[tuple[dict[str, Any], str]] = [
    ({"compounds": []}, "EMPTY_COMPOUNDS_LIST"),
    ({"compounds": ["glucose"]}, "INVALID_COMPOUND_IDS"),
    ({"compounds": ["cpd00027", "cpd99999", "cpd99998"]}, "INVALID_COMPOUND_IDS"),
    ({"compounds": ["cpd00027", "cpd00027"]}, "DUPLICATE_COMPOUND_IDS"),
    ({"compounds": ["cpd00027"], "default_uptake": 0}, "NEGATIVE_UPTAKE"),
    ({"compounds": ["cpd00027"], "default_uptake": 5000}, "INVALID_DEFAULT_UPTAKE"),
    ({"compounds": ["cpd00027"], "custom_bounds": {"cpd00007": [-1, 1]}}, "COMPOUND_NOT_IN_LIST"),
    ({"compounds": ["cpd00027"], "custom_bounds": {"cpd00027": [-1]}}, "INVALID_BOUNDS_FORMAT"),
    ({"compounds": ["cpd00027"], "custom_bounds": {"cpd00027": [5, -5]}}, "BOUNDS_OUT_OF_ORDER"),
    ({"compounds": "cpd00027"}, "INVALID_ARGUMENTS"),
    ({"compounds": ["cpd00027"], "media_name": "media_x"}, "INVALID_MEDIA_NAME"),
]


@pytest.mark.anyio
async def test_build_media_errors(server_env: dict[str, str]) -> None:
    async with in_process_client(server_env) as client:
        for args, code in BUILD_MEDIA_ERRORS:
            body = await call(client, "build_media", args, error=code)
            assert body["suggestions"] or body["example_call"], body
            if code == "INVALID_COMPOUND_IDS" and "cpd99999" in args["compounds"]:
                assert body["details"]["invalid_ids"] == ["cpd99999", "cpd99998"]
                assert body["details"]["valid_ids"] == ["cpd00027"]
        listed = await call(client, "list_media", {})
        assert listed["user_created_media"] == 0, "a failed build_media must store nothing"


@pytest.mark.anyio
async def test_import_and_fba_equal_cobrapy_on_textbook(server_env: dict[str, str], tmp_path: Path) -> None:
    model = textbook()
    sbml, js = tmp_path / "textbook.xml", tmp_path / "textbook.json"
    write_sbml_model(model, str(sbml))
    save_json_model(model, str(js))
    # the reference optimum: COBRApy on the model's own default medium
    reference = textbook()
    expected = reference.slim_optimize()
    expected_medium = dict(reference.medium)
    async with in_process_client(server_env) as client:
        imported = await call(client, "import_model", {"file_path": str(sbml), "model_name": "ecoli_core"})
        assert imported["model_id"] == "ecoli_core.draft" and imported["format"] == "sbml"
        assert imported["num_reactions"] == len(model.reactions)
        as_json = await call(client, "import_model", {"file_path": "textbook.json"})  # relative to the root
        assert as_json["model_id"].startswith("model_") and as_json["format"] == "json"
        uptake = {cpd: (-expected_medium[ex], 1000.0) for ex, cpd in TEXTBOOK_MEDIUM.items()}
        media = await call(client, "build_media", {
            "compounds": list(uptake), "custom_bounds": {c: list(b) for c, b in uptake.items()}})
        for model_id in (imported["model_id"], as_json["model_id"]):
            fba = await call(client, "run_fba", {"model_id": model_id, "media_id": media["media_id"],
                                                  "objective": "Biomass_Ecoli_core"})
            assert fba["objective_value"] == pytest.approx(expected, abs=1e-6)
            glucose = next(u for u in fba["uptake_fluxes"] if u["compound_id"] == "cpd00027")
            assert glucose["compound_name"] == "D-Glucose" and glucose["flux"] == pytest.approx(-10, abs=1e-6)
            assert glucose["reaction_id"] == "EX_glc__D_e"
            assert fba["interpretation"]["metabolism_type"] == "Aerobic respiration"
            assert fba["solver"] in {"glpk", "highs", "hybrid"}
            assert abs(sum(abs(v) for v in fba["fluxes"].values()) - fba["total_flux"]) < 1e-3
        pfba = await call(client, "run_fba", {"model_id": imported["model_id"], "media_id": media["media_id"],
                                               "objective": "Biomass_Ecoli_core", "pfba": True})
        assert pfba["method"] == "pfba" and pfba["objective_value"] == pytest.approx(expected, abs=1e-6)
        fba_total = (await call(client, "run_fba", {"model_id": imported["model_id"], "media_id": media["media_id"],
                                                     "objective": "Biomass_Ecoli_core"}))["total_flux"]
        assert pfba["total_flux"] <= fba_total + 1e-6
        detail = await call(client, "get_model", {"model_id": imported["model_id"], "include_predictions": True})
        assert detail["last_media_id"] == media["media_id"]
        assert [p["kind"] for p in detail["predictions"]] == ["fba", "fba", "fba"]
        assert detail["predictions"][1]["summary"]["method"] == "pfba"  # newest first
        assert detail["num_genes"] == len(model.genes) and detail["source"] == "imported"


@pytest.mark.slow
@pytest.mark.anyio
async def test_modelseed_namespace_model_matches_cobrapy(server_env: dict[str, str], data_dir: Path,
                                                          tmp_path: Path) -> None:
    model = modelseed_core_model(data_dir)
    path = tmp_path / "ms_core.json"
    save_json_model(model, str(path))
    medium = predefined_medium(data_dir, GLUCOSE_AEROBIC)
    reference = modelseed_core_model(data_dir)
    apply_medium_directly(reference, medium, {r.id: r.id[3:11] for r in reference.exchanges})
    expected = reference.slim_optimize()
    assert expected > 1  # a real ATP yield from 5 mmol glucose
    async with stdio_client(server_env, "2026-07-28") as client:
        imported = await call(client, "import_model", {"file_path": str(path), "model_name": "ms_core"})
        fba = await call(client, "run_fba", {"model_id": imported["model_id"], "media_id": GLUCOSE_AEROBIC,
                                              "objective": "ATPM_c0"})
        assert fba["objective_value"] == pytest.approx(expected, abs=1e-6)
        assert {u["compound_id"] for u in fba["uptake_fluxes"]} >= {"cpd00027", "cpd00007"}
        anaerobic = await call(client, "run_fba", {"model_id": imported["model_id"],
                                                    "media_id": "glucose_minimal_anaerobic", "objective": "ATPM_c0"})
        assert anaerobic["objective_value"] < fba["objective_value"]
        assert anaerobic["interpretation"]["metabolism_type"] == "Anaerobic/fermentation"
        # secretion limits hold: cap CO2 secretion and the optimum must respect it
        capped = await call(client, "build_media", {
            "compounds": [*medium, "cpd00011"],
            "custom_bounds": {**{c: list(b) for c, b in medium.items()}, "cpd00011": [0, 1]}})
        limited = await call(client, "run_fba", {"model_id": imported["model_id"], "media_id": capped["media_id"],
                                                  "objective": "ATPM_c0"})
        co2 = [s for s in limited["secretion_fluxes"] if s["compound_id"] == "cpd00011"]
        assert not co2 or co2[0]["flux"] <= 1 + 1e-6


@pytest.mark.anyio
async def test_model_listing_filtering_and_errors(server_env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "textbook.json"
    save_json_model(textbook(), str(path))
    async with in_process_client(server_env) as client:
        empty = await call(client, "list_models", {})
        assert empty["total_models"] == 0 and empty["models_by_state"] == {"draft": 0, "gapfilled": 0}
        first = await call(client, "import_model", {"file_path": str(path), "model_name": "first"})
        second = await call(client, "import_model", {"file_path": str(path)})
        await call(client, "import_model", {"file_path": str(path), "model_name": "first"}, error="DUPLICATE_NAME")
        await call(client, "import_model", {"file_path": str(path), "model_name": "bad.name"},
                    error="INVALID_MODEL_NAME")
        listed = await call(client, "list_models", {"filter_state": "DRAFT"})
        assert [m["model_id"] for m in listed["models"]] == [first["model_id"], second["model_id"]]
        assert listed["models"][0]["model_name"] == "first" and listed["models"][1]["model_name"] is None
        assert (await call(client, "list_models", {"filter_state": "gapfilled"}))["total_models"] == 0
        bad = await call(client, "list_models", {"filter_state": "old"}, error="INVALID_FILTER_STATE")
        assert bad["details"]["valid_values"] == ["all", "draft", "gapfilled"]
        missing = await call(client, "delete_model", {"model_id": "nope.draft"}, error="MODEL_NOT_FOUND")
        assert set(missing["details"]["available_models"]) == {first["model_id"], second["model_id"]}
        await call(client, "get_model", {"model_id": "nope.draft"}, error="MODEL_NOT_FOUND")
        await call(client, "delete_model", {"model_id": ""}, error="INVALID_MODEL_ID")
        await call(client, "delete_model", {"model_id": first["model_id"]})
        after = await call(client, "list_models", {})
        assert [m["model_id"] for m in after["models"]] == [second["model_id"]]
        await call(client, "import_model", {"file_path": "/etc/passwd"}, error="PATH_NOT_ALLOWED")
        await call(client, "import_model", {"file_path": str(tmp_path / "none.json")}, error="FILE_NOT_FOUND")
        (tmp_path / "broken.json").write_text("{not json")
        await call(client, "import_model", {"file_path": str(tmp_path / "broken.json")}, error="MODEL_PARSE_ERROR")
        (tmp_path / "model.txt").write_text("x")
        await call(client, "import_model", {"file_path": str(tmp_path / "model.txt")}, error="UNSUPPORTED_FORMAT")


@pytest.mark.anyio
async def test_run_fba_errors(server_env: dict[str, str], data_dir: Path, tmp_path: Path) -> None:
    model = modelseed_core_model(data_dir)
    model.reactions.get_by_id("ATPM_c0").lower_bound = 50  # needs energy: infeasible without a carbon source
    path = tmp_path / "ms.json"
    save_json_model(model, str(path))
    async with in_process_client(server_env) as client:
        mid = (await call(client, "import_model", {"file_path": str(path), "model_name": "ms"}))["model_id"]
        bad = await call(client, "run_fba", {"model_id": mid, "media_id": GLUCOSE_AEROBIC},
                          error="INVALID_OBJECTIVE")  # default bio1 is not in this model
        assert "ATPM_c0" in bad["details"]["suggested_objectives"]
        await call(client, "run_fba", {"model_id": mid, "media_id": "no_such_media", "objective": "ATPM_c0"},
                    error="MEDIA_NOT_FOUND")
        await call(client, "run_fba", {"model_id": "x.draft", "media_id": GLUCOSE_AEROBIC}, error="MODEL_NOT_FOUND")
        await call(client, "run_fba", {"model_id": mid, "media_id": GLUCOSE_AEROBIC, "objective": "ATPM_c0",
                                        "flux_threshold": -1}, error="INVALID_FLUX_THRESHOLD")
        water = await call(client, "build_media", {"compounds": ["cpd00001"]})
        infeasible = await call(client, "run_fba", {"model_id": mid, "media_id": water["media_id"],
                                                     "objective": "ATPM_c0"}, error="MODEL_INFEASIBLE")
        assert infeasible["error_type"] == "infeasibility_error" and infeasible["details"]["num_variables"] > 0
        odd = await call(client, "build_media", {"compounds": ["cpd00098"]})  # choline: no exchange here
        await call(client, "run_fba", {"model_id": mid, "media_id": odd["media_id"], "objective": "ATPM_c0"},
                    error="MEDIA_INCOMPATIBLE")
        # the failed calls recorded nothing and changed nothing
        detail = await call(client, "get_model", {"model_id": mid, "include_predictions": True})
        assert detail["predictions"] == [] and detail["last_media_id"] is None


@pytest.mark.anyio
async def test_export_sbml_validates_and_json_round_trips(server_env: dict[str, str], data_dir: Path,
                                                          tmp_path: Path) -> None:
    path = tmp_path / "ms.json"
    save_json_model(modelseed_core_model(data_dir), str(path))
    async with in_process_client(server_env) as client:
        mid = (await call(client, "import_model", {"file_path": str(path), "model_name": "ms"}))["model_id"]
        out = await call(client, "export_model", {"model_id": mid, "file_path": str(tmp_path / "out" / "ms.xml")})
        assert out["format"] == "sbml" and out["size_bytes"] > 0
        await call(client, "export_model", {"model_id": mid, "file_path": str(tmp_path / "ms_out.json")})
        await call(client, "export_model", {"model_id": mid, "file_path": "/tmp/../etc/x.xml"},
                    error="PATH_NOT_ALLOWED")
        again = await call(client, "import_model", {"file_path": str(tmp_path / "ms_out.json"), "model_name": "ms2"})
        assert again["num_reactions"] == (await call(client, "get_model", {"model_id": mid}))["num_reactions"]
    document = libsbml.readSBMLFromFile(str(tmp_path / "out" / "ms.xml"))
    document.checkConsistency()
    errors = [document.getError(i) for i in range(document.getNumErrors())
              if document.getError(i).getSeverity() >= libsbml.LIBSBML_SEV_ERROR]
    assert errors == [], [e.getMessage() for e in errors[:5]]
    assert document.getLevel() == 3 and document.getModel().getPlugin("fbc") is not None
    assert not list(tmp_path.glob("**/.*.tmp")), "no temp files may remain"



def test_unbounded_objective_is_an_infeasibility_error() -> None:
    """Model files cannot carry infinite bounds through COBRApy's readers (they become +-1000),
    so this state is only reachable in the library; it must still be a clear error."""
    import math

    import cobra

    from gem_flux_mcp.errors import InfeasibilityError
    from gem_flux_mcp.modeling import fba, media

    model = cobra.Model("unbounded")
    water = cobra.Metabolite("cpd00001_c0", compartment="c0")
    free = cobra.Reaction("FREE_c0", lower_bound=-math.inf, upper_bound=math.inf)  # water from nothing
    free.add_metabolites({water: 1})
    biomass = cobra.Reaction("bio1", lower_bound=0, upper_bound=math.inf)
    biomass.add_metabolites({water: -1})
    model.add_reactions([free, biomass])
    names = fba.NameLookup(lambda ids: {}, lambda ids: {})
    with pytest.raises(InfeasibilityError) as info:
        fba.run_fba(model, model_id="m", media_id="x", objective="bio1", maximize=True, flux_threshold=1e-6,
                    pfba=False, exchanges=media.resolve_exchanges(model), names=names, is_draft=False)
    assert info.value.code == "MODEL_UNBOUNDED"
    assert info.value.envelope("run_fba")["error_type"] == "infeasibility_error"


@pytest.mark.anyio
async def test_what_if_fba_equals_cobrapy_and_changes_nothing(server_env: dict[str, str], tmp_path: Path) -> None:
    """Knockouts and bounds for one run_fba call: the same optimum as COBRApy with the same
    changes made by hand, and the stored model unchanged afterwards."""
    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    reference = textbook()
    medium = {cpd: (-dict(reference.medium)[ex], 1000.0) for ex, cpd in TEXTBOOK_MEDIUM.items()}
    cases: list[tuple[dict[str, Any], Any]] = [
        ({"knockout_reactions": ["PGI"]}, lambda m: m.reactions.PGI.knock_out()),
        ({"knockout_genes": ["b1852"]}, lambda m: m.genes.b1852.knock_out()),  # zwf: G6PDH2r
        ({"reaction_bounds": {"EX_glc__D_e": [-4, 1000], "ATPM": [20, 1000]}},
         lambda m: (setattr(m.reactions.EX_glc__D_e, "bounds", (-4, 1000)),
                    setattr(m.reactions.ATPM, "bounds", (20, 1000)))),
    ]
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        built = await call(client, "build_media", {"compounds": list(medium),
                                                   "custom_bounds": {c: list(b) for c, b in medium.items()}})
        base = {"model_id": "tb.draft", "media_id": built["media_id"], "objective": "Biomass_Ecoli_core"}
        plain = await call(client, "run_fba", base)
        for arguments, by_hand in cases:
            with reference:
                by_hand(reference)
                expected = reference.slim_optimize()
            answer = await call(client, "run_fba", {**base, **arguments})
            assert answer["objective_value"] == pytest.approx(expected, abs=1e-6), arguments
            assert answer["objective_value"] < plain["objective_value"] - 1e-3, arguments  # each change matters
            assert answer["what_if"]["knocked_out_reactions"] == arguments.get("knockout_reactions", [])
        gene = (await call(client, "run_fba", {**base, "knockout_genes": ["b1852"]}))["what_if"]
        assert gene["reactions_blocked_by_genes"] == {"b1852": ["G6PDH2r"]}
        again = await call(client, "run_fba", base)  # the stored (and cached) model is unchanged
        assert again["objective_value"] == pytest.approx(plain["objective_value"], abs=1e-9)
        assert "what_if" not in again
        body = await call(client, "run_fba", {**base, "knockout_reactions": ["NOPE", "PGI", "ALSO_NOPE"]},
                          error="INVALID_REACTION")
        assert set(body["details"]["invalid_reactions"]) == {"NOPE", "ALSO_NOPE"}
        await call(client, "run_fba", {**base, "knockout_genes": ["b9999"]}, error="INVALID_GENE")
        await call(client, "run_fba", {**base, "reaction_bounds": {"PGI": [5, 1]}}, error="INVALID_REACTION")
        recorded = await call(client, "get_model", {"model_id": "tb.draft", "include_predictions": True})
        assert any(p["summary"].get("what_if", {}).get("knocked_out_reactions") == ["PGI"]
                   for p in recorded["predictions"])


@pytest.mark.anyio
async def test_predict_gene_essentiality_equals_cobrapy_on_textbook(server_env: dict[str, str],
                                                                    tmp_path: Path) -> None:
    from cobra.flux_analysis import single_gene_deletion, single_reaction_deletion

    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    reference = textbook()  # its own medium is the one built below
    wild = reference.slim_optimize()
    genes = single_gene_deletion(reference, processes=1)
    expected = {next(iter(i)): 0.0 if math.isnan(g) else g for i, g in zip(genes["ids"], genes["growth"], strict=True)}
    essential = {g for g, v in expected.items() if v < 0.1 * wild}
    medium = {cpd: (-dict(reference.medium)[ex], 1000.0) for ex, cpd in TEXTBOOK_MEDIUM.items()}
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        built = await call(client, "build_media", {"compounds": list(medium),
                                                   "custom_bounds": {c: list(b) for c, b in medium.items()}})
        base = {"model_id": "tb.draft", "media_id": built["media_id"], "objective": "Biomass_Ecoli_core"}
        observed = {"b1779": True, "b2416": False, "b0008": True, "nonexistent_gene": True}  # gapA, ptsI, talB
        answer = await call(client, "predict_gene_essentiality", {**base, "observed": observed})
        assert answer["summary"]["tested"] == len(expected) == len(reference.genes)
        assert set(answer["essential"]) == essential and answer["summary"]["essential"] == len(essential)
        rows = list(answer["rows"])
        while answer["next_offset"] is not None:
            answer = await call(client, "predict_gene_essentiality",
                                {**base, "observed": observed, "offset": answer["next_offset"]})
            rows += answer["rows"]
        assert {r["id"]: r["growth"] for r in rows} == pytest.approx(expected, abs=1e-6)
        assert [r["growth_ratio"] for r in rows] == sorted(r["growth_ratio"] for r in rows)
        metrics = answer["comparison"]["metrics"]
        predicted = {g: g in essential for g in ("b1779", "b2416", "b0008")}
        assert metrics["compared"] == 3 and answer["comparison"]["not_in_model"] == ["nonexistent_gene"]
        assert metrics["tp"] == sum(predicted[g] and observed[g] for g in predicted)
        assert metrics["fp"] == sum(predicted[g] and not observed[g] for g in predicted)
        assert answer["comparison"]["mismatches_total"] == sum(predicted[g] != observed[g] for g in predicted)
        # reactions
        reactions = single_reaction_deletion(reference, processes=1)
        by_reaction = {next(iter(i)): 0.0 if math.isnan(g) else g
                       for i, g in zip(reactions["ids"], reactions["growth"], strict=True)}
        answer = await call(client, "predict_gene_essentiality", {**base, "target": "reactions",
                                                                  "genes": ["PGK", "PGI", "EX_glc__D_e"]})
        assert {r["id"]: r["growth"] for r in answer["rows"]} == pytest.approx(
            {r: by_reaction[r] for r in ("PGK", "PGI", "EX_glc__D_e")}, abs=1e-6)
        recorded = await call(client, "get_model", {"model_id": "tb.draft", "include_predictions": True})
        assert {p["kind"] for p in recorded["predictions"]} >= {"gene_essentiality", "reaction_essentiality"}
        body = await call(client, "predict_gene_essentiality", {**base, "genes": ["b9999", "b1779", "x"]},
                          error="INVALID_GENE")
        assert body["details"]["invalid_genes"] == ["b9999", "x"]
        await call(client, "predict_gene_essentiality", {**base, "threshold": 1.5}, error="INVALID_THRESHOLD")
