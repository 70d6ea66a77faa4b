"""Gapfilling in the library, on drafts built from the real E. coli and B. subtilis proteomes.

Results are checked with COBRApy directly (not with the module's own checks): growth on the
medium, none without a carbon source, no ATP with every uptake closed; plus known E. coli
phenotypes (grows aerobically and anaerobically on glucose).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cobra
import numpy as np
import pytest

import models
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.media_library import load_media_library
from gem_flux_mcp.errors import InfeasibilityError, LibraryError, TimeoutError_
from gem_flux_mcp.modeling import fluxlp
from gem_flux_mcp.modeling import gapfill as gf
from gem_flux_mcp.modeling.fluxlp import Column, FluxLP, SolverDeadline
from gem_flux_mcp.modeling.gapfill import steps
from gem_flux_mcp.modeling.gapfill.run import _stage_errors
from gem_flux_mcp.services.gapfill import reactions_page as page
from models import apply_exchange_medium, build_genome, medium_of

ATP_HYDROLYSIS = {"cpd00002_c0": -1, "cpd00001_c0": -1, "cpd00008_c0": 1, "cpd00009_c0": 1, "cpd00067_c0": 1}


def cobra_growth(model: cobra.Model, medium: dict[str, tuple[float, float]]) -> float:
    """bio1 optimum with COBRApy, the medium applied by hand (exchanges are `cpd_e0 <=>`)."""
    with model:
        apply_exchange_medium(model, medium)
        model.objective = "bio1"
        value = model.slim_optimize(error_value=0.0)
    return max(float(value), 0.0)


def cobra_atp_from_nothing(model: cobra.Model) -> float:
    with model:
        for reaction in model.boundary:
            if next(iter(reaction.metabolites.values())) < 0:
                reaction.lower_bound = max(reaction.lower_bound, 0.0)
            else:
                reaction.upper_bound = min(reaction.upper_bound, 0.0)
        test = cobra.Reaction("atp_test", lower_bound=0, upper_bound=1000)
        test.add_metabolites({model.metabolites.get_by_id(m): c for m, c in ATP_HYDROLYSIS.items()})
        model.add_reactions([test])
        model.objective = "atp_test"
        return max(float(model.slim_optimize(error_value=0.0)), 0.0)


# ------------------------------------------------------------------------------ the LP engine


def test_flux_lp_agrees_with_cobrapy_on_the_textbook_model() -> None:
    model = cobra.io.load_model("textbook")
    columns = [Column(r.id, {m.id: c for m, c in r.metabolites.items()}, r.lower_bound, r.upper_bound)
               for r in model.reactions]
    lp = FluxLP(columns, SolverDeadline(60))
    biomass = lp.index["Biomass_Ecoli_core"]
    assert lp.maximize(biomass, lp.lower, lp.upper) == pytest.approx(model.slim_optimize(), rel=1e-6)


def test_bound_prices_bound_the_rise_of_the_maximum() -> None:
    """The most biomass is concave in the bounds: re-opening a closed column raises it by at most
    the column's price times its bound (each checked by solving again); where re-opening helps,
    the price says so."""
    model = cobra.io.load_model("textbook")
    columns = [Column(r.id, {m.id: c for m, c in r.metabolites.items()}, r.lower_bound, r.upper_bound)
               for r in model.reactions]
    lp = FluxLP(columns, SolverDeadline(60))
    biomass = lp.index["Biomass_Ecoli_core"]
    lower = lp.lower.copy()
    lower[lp.index["ATPM"]] = 0.0  # feasible with the closed columns below
    closed = [lp.index[r] for r in ("CS", "ATPS4r", "NADH16")]
    upper = lp.upper.copy()
    upper[closed] = 0.0
    most, prices = lp.maximize_with_bound_prices(biomass, lower, upper)
    assert prices is not None
    rises = {}
    for j in closed:
        reopened = upper.copy()
        reopened[j] = lp.upper[j]
        rises[j] = lp.maximize(biomass, lower, reopened) - most
        assert rises[j] <= prices[j] * lp.upper[j] + 1e-6
    assert rises[lp.index["CS"]] > 0.1 and prices[lp.index["CS"]] > 0  # the TCA cycle's entry


def test_several_maxima_at_once_are_those_asked_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """`maximize_many` shares its questions with a second solving thread (HiGHS lets go of the
    interpreter lock while it solves): the answers are those of asking in turn on another LP; with
    GEMFLUX_LP_THREADS=1 every solve stays on the caller's thread; a failed solve on either thread
    is the caller's error."""
    model = cobra.io.load_model("textbook")
    columns = [Column(r.id, {m.id: c for m, c in r.metabolites.items()}, r.lower_bound, r.upper_bound)
               for r in model.reactions]
    biomass = [c.id for c in columns].index("Biomass_Ecoli_core")
    in_turn = FluxLP(columns, SolverDeadline(60))
    bounds = []
    for j in range(len(columns)):  # each reaction closed in turn (ATPM's closing is infeasible: 0.0)
        upper, lower = in_turn.upper.copy(), in_turn.lower.copy()
        upper[j] = lower[j] = 0.0
        bounds.append((lower, upper))
    expected = [in_turn.maximize(biomass, lower, upper) for lower, upper in bounds]
    assert 0.0 in expected and len(set(np.round(expected, 6))) > 5
    for threads, side in (("2", True), ("1", False)):
        monkeypatch.setenv(fluxlp.ENV_LP_THREADS, threads)
        lp = FluxLP(columns, SolverDeadline(60))
        assert lp.maximize_many(biomass, bounds) == pytest.approx(expected, abs=1e-9)
        with_prices = lp.maximize_many_with_bound_prices(biomass, bounds[:7])
        assert [most for most, _ in with_prices] == pytest.approx(expected[:7], abs=1e-9)
        assert bool(lp._side_instances) == side and lp.solves == len(bounds) + 7
        # the first test over the limit, asked two at a time, is the one asking in turn finds
        limit = float(np.median(expected))
        first = next(k for k, most in enumerate(expected) if most > limit * (1 + 1e-6) + 1e-9)
        found = steps.first_failing(SimpleNamespace(lp=lp), biomass, [(lo, up, limit) for lo, up in bounds])
        assert found is not None and found[0] == first and found[1] == pytest.approx(expected[first])
        assert steps.first_failing(SimpleNamespace(lp=lp), biomass, [(lo, up, 10.0) for lo, up in bounds]) is None
    monkeypatch.setenv(fluxlp.ENV_LP_THREADS, "2")
    late = FluxLP(columns, SolverDeadline(0.0))
    with pytest.raises(TimeoutError_):
        late.maximize_many(biomass, bounds[:4])
    assert FluxLP(columns, SolverDeadline(60)).maximize_many(biomass, bounds[:4]) == pytest.approx(expected[:4])


def test_integer_pass_keeps_the_cheapest_route() -> None:
    # A can become B directly (cost 5) or through C (1 + 1); the LP may mix routes, the integer
    # pass must keep exactly the two cheap steps
    columns = [Column("in", {"A": 1}, 0, 10), Column("out", {"B": -1}, 0, 10),
               Column("direct", {"A": -1, "B": 1}, 0, 0), Column("a_c", {"A": -1, "C": 1}, 0, 0),
               Column("c_b", {"C": -1, "B": 1}, 0, 0)]
    lp = FluxLP(columns, SolverDeadline(60))
    lower, upper = lp.lower.copy(), lp.upper.copy()
    lower[1] = 1.0
    upper[2:] = 1000.0
    costs = {2: 5.0, 3: 1.0, 4: 1.0}
    assert sorted(lp.cheapest_subset([2, 3, 4], costs, lower, upper, 10)) == [3, 4]
    upper[3] = 0.0  # without a_c only the direct route is left
    assert lp.cheapest_subset([2, 4], costs, lower, upper, 10) == [2]


# ------------------------------------------------------------------------------ several media at once

S1, S2, MIDDLE, X = "cpd90001", "cpd90002", "cpd90003", "cpd90004"


def toy_template(direct_cost: float) -> Any:
    """A ModelSEED template with two substrates: each can be taken up (cost 1) and made into the
    biomass precursor X directly (`direct_cost` each), or both through one shared intermediate
    (1 + 1, and 2 for the shared step); X itself can be taken up too (cost 1)."""
    return models.toy_template({
        "rxn90001": ({f"{S1}_e": -1, f"{S1}_c": 1}, 1, ">"), "rxn90002": ({f"{S2}_e": -1, f"{S2}_c": 1}, 1, ">"),
        "rxn90003": ({f"{S1}_c": -1, f"{X}_c": 1}, direct_cost, ">"),
        "rxn90004": ({f"{S2}_c": -1, f"{X}_c": 1}, direct_cost, ">"),
        "rxn90005": ({f"{S1}_c": -1, f"{MIDDLE}_c": 1}, 1, ">"),
        "rxn90006": ({f"{S2}_c": -1, f"{MIDDLE}_c": 1}, 1, ">"),
        "rxn90007": ({f"{MIDDLE}_c": -1, f"{X}_c": 1}, 2, ">"), "rxn90008": ({f"{X}_e": -1, f"{X}_c": 1}, 1, ">"),
    }, (S1, S2, MIDDLE, X))


def toy_model() -> cobra.Model:
    model = cobra.Model("toy")
    biomass = cobra.Reaction("bio1", lower_bound=0, upper_bound=1000)
    biomass.add_metabolites({cobra.Metabolite(f"{X}_c0", compartment="c0"): -1})
    model.add_reactions([biomass])
    model.objective = "bio1"
    return model


def toy_gapfill(model: cobra.Model, template: Any, media: list[dict[str, tuple[float, float]]]
                ) -> gf.GenomeScaleResult:
    result = gf.gapfill_genome_scale(model, template, media, "bio1", 0.1, [], {}, [{} for _ in media],
                                     gf.GapfillOptions(), set(), {}, SolverDeadline(60), lambda *_: None)
    assert result is not None
    return result


def test_several_media_at_once_share_the_cheapest_additions() -> None:
    # alone, each medium is cheapest through its own direct step (1 + 2.5); one medium after the
    # other that costs 7. Together the shared route (1 + 1 + 1 + 1 + 2 = 6) is cheaper.
    template = toy_template(direct_cost=2.5)
    one, two = {S1: (-10.0, 1000.0)}, {S2: (-10.0, 1000.0)}
    in_turn = toy_model()
    costs = [toy_gapfill(in_turn, template, [medium]).cost for medium in (one, two)]
    together = toy_model()
    joint = toy_gapfill(together, template, [one, two])
    assert sum(costs) == pytest.approx(7.0) and joint.cost == pytest.approx(6.0) and joint.integer_pass
    assert sorted(r for r, _ in joint.added) == [f"rxn9000{i}_c0" for i in (1, 2, 5, 6, 7)]
    for medium in (one, two):  # COBRApy: the model grows on each medium, and on neither without it
        assert cobra_growth(together, medium) > 0.1 - 1e-9
    assert cobra_growth(together, {}) < 1e-9
    # when the direct steps are cheap, together takes them too: a joint answer is never dearer
    cheap = toy_gapfill(toy_model(), toy_template(direct_cost=1.0), [one, two])
    assert cheap.cost == pytest.approx(4.0)


def test_a_medium_compound_the_model_makes_gets_a_transporter() -> None:
    # the model takes up S1 and makes X from it; the medium also offers X
    template = toy_template(direct_cost=2.5)
    model = toy_model()
    gf.apply_changes(model, template, [("rxn90001_c0", 1), ("rxn90003_c0", 1)], source="test")
    medium = {S1: (-10.0, 1000.0), X: (-10.0, 1000.0)}

    def run(medium_uptake: bool, of: cobra.Model = model, inplace: bool = False) -> gf.GapfillRun:
        return gf.gapfill(of, medium, gf.GapfillOptions(mode="genomescale_only", medium_uptake=medium_uptake),
                          genome_template=template, core_template=template, atp_media={"empty": {}},
                          formulas={S1: "C6H12O6", X: "C6H12O6"}, facts=gf.ReactionFacts(), inplace=inplace)

    plain, completed = run(False), run(True)
    assert plain.genome_scale is None and plain.uptake is None  # it grows already: nothing to add
    assert completed.uptake is not None and completed.uptake.added == [("rxn90008_c0", 1)]
    assert completed.uptake.compounds == [X] and completed.quality["all_passed"]
    # COBRApy: without its own X synthesis the completed model still grows (X from the medium)
    for gapfilled, grows in ((plain.model, False), (completed.model, True)):
        with gapfilled:
            gapfilled.reactions.get_by_id("rxn90003_c0").knock_out()
            assert (cobra_growth(gapfilled, medium) > 1.0) is grows
    assert "rxn90008_c0" not in model.reactions  # the argument is not changed
    owned = model.copy()  # unless the caller gives it away (a worker's job): the same answer, in it
    given = run(True, owned, inplace=True)
    assert given.model is owned and given.uptake is not None and given.uptake.added == completed.uptake.added
    assert "rxn90008_c0" in owned.reactions


# ------------------------------------------------------------------------------ real drafts


def test_ecoli_gapfill_grows_without_energy_from_nothing(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]],
                                                          data_dir: Path, biochem: BiochemIndex) -> None:
    run, report = ecoli_run
    medium = medium_of(data_dir, "glucose_minimal_aerobic")
    model = run.model
    growth = cobra_growth(model, medium)
    assert growth >= 0.01 and growth == pytest.approx(run.growth_after, rel=1e-4)
    assert cobra_growth(model, {c: b for c, b in medium.items() if c != "cpd00027"}) < 1e-6
    assert cobra_atp_from_nothing(model) < 1e-6
    assert report["quality_checks"]["all_passed"]

    added = [e for e in report["reactions_added"] if e["source"] in ("template_gapfill", "atp_correction")]
    assert added and all(e["id"] in model.reactions for e in report["reactions_added"])
    statuses = biochem.reaction_details(e["id"].split("_")[0] for e in added)
    assert not [e["id"] for e in added if "MI" in statuses[e["id"].split("_")[0]]["status"]]
    assert report["num_reactions_added"] == len(report["reactions_added"])
    chunk = page(report["reactions_added"], 0, 10)
    assert len(chunk["reactions_added"]) == 10 and chunk["reactions_next_offset"] == 10
    assert len(json.dumps({**report, "reactions_added": page(report["reactions_added"], 0)["reactions_added"]})) \
        < 80_000


def test_atp_per_glucose_shows_respiration(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]]) -> None:
    """The gapfill report's ATP yield of glucose, against COBRApy by hand: E. coli respires
    (far more ATP with O2 than without), and the anaerobic yield is fermentation's few ATP."""
    run, report = ecoli_run
    model = run.model

    def by_hand(oxygen: bool) -> float:
        with model:
            for reaction in model.exchanges:
                cpd = next(iter(reaction.metabolites)).id.split("_")[0]
                opened = {"cpd00027": 1.0, "cpd00001": 1000.0, "cpd00067": 1000.0, "cpd00009": 1000.0,
                          **({"cpd00007": 1000.0} if oxygen else {})}
                reaction.lower_bound = -opened.get(cpd, 0.0)
            for reaction in model.boundary:
                if reaction not in model.exchanges:
                    reaction.lower_bound = max(reaction.lower_bound, 0.0)
            test = cobra.Reaction("atp_by_hand", lower_bound=0, upper_bound=1000)
            test.add_metabolites({model.metabolites.get_by_id(m): c for m, c in ATP_HYDROLYSIS.items()})
            model.add_reactions([test])
            model.objective = "atp_by_hand"
            return float(model.slim_optimize(error_value=0.0))

    yields = report["quality_checks"]["atp_per_glucose"]
    assert yields["aerobic"] == pytest.approx(by_hand(True), abs=1e-3)
    assert yields["anaerobic"] == pytest.approx(by_hand(False), abs=1e-3)
    assert yields["aerobic"] > 15 and 1 <= yields["anaerobic"] < 6, yields


def test_ecoli_atp_correction_is_reusable(ecoli: cobra.Model, ecoli_run: tuple[gf.GapfillRun, dict[str, Any]],
                                          data_dir: Path, biochem: BiochemIndex) -> None:
    run, _ = ecoli_run
    assert run.atp is not None and run.atp.tests[0].medium == "empty"
    stored = gf.AtpCorrection.from_json(json.loads(json.dumps(run.atp.to_json())))
    medium = medium_of(data_dir, "glucose_minimal_anaerobic")
    again = gf.gapfill_from_data(ecoli, medium, gf.GapfillOptions(), template_name="GramNegative",
                                 data_dir=data_dir, biochem=biochem, previous_atp=stored)
    assert again.atp_reused and again.atp is stored
    assert "atp_correction" in again.timings and again.timings["atp_correction"] < run.timings["atp_correction"]
    assert again.growth_after > 0.01  # E. coli grows anaerobically on glucose
    assert cobra_atp_from_nothing(again.model) < 1e-6
    assert cobra_growth(again.model, {c: b for c, b in medium.items() if c != "cpd00027"}) < 1e-6


def test_modes(ecoli: cobra.Model, data_dir: Path, biochem: BiochemIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    from gem_flux_mcp.modeling.gapfill import atp as atp_stage
    from gem_flux_mcp.modeling.gapfill import steps

    # the ATP correction's re-open pass skips the tests whose last solution proves they still
    # pass, and asks first the test that closed each direction: solving every test, in their
    # own order, must re-open exactly the same directions
    same: list[bool] = []

    def both_ways(*args: Any, **kwargs: Any) -> set[int]:
        assert kwargs.get("origin")
        with_prices = steps.reopen_unneeded(*args, **kwargs)
        same.append(with_prices == steps.reopen_unneeded(*args, use_prices=False) and len(with_prices) < len(args[4]))
        return with_prices

    monkeypatch.setattr(atp_stage, "reopen_unneeded", both_ways)
    medium = medium_of(data_dir, "glucose_minimal_aerobic")
    atp_only = gf.gapfill_from_data(ecoli, medium, gf.GapfillOptions(mode="atp_only"), template_name="GramNegative",
                                    data_dir=data_dir, biochem=biochem)
    assert atp_only.atp is not None and atp_only.genome_scale is None
    assert same == [True] and atp_only.atp.blocked
    assert cobra_atp_from_nothing(atp_only.model) < 1e-6
    genome_only = gf.gapfill_from_data(ecoli, medium, gf.GapfillOptions(mode="genomescale_only"),
                                       template_name="GramNegative", data_dir=data_dir, biochem=biochem)
    assert genome_only.atp is None and genome_only.genome_scale is not None
    assert cobra_growth(genome_only.model, medium) >= 0.01
    # added reactions never make ATP from nothing, but without ATP correction the draft's own
    # cycles (reversible ABC transporters) stay, and the quality check says so
    loops = cobra_atp_from_nothing(genome_only.model)
    assert genome_only.quality["atp_with_all_uptakes_closed"]["passed"] == (loops < 1e-6)
    assert cobra_atp_from_nothing(ecoli) > 1e-6 and not genome_only.quality["all_passed"]


def test_no_nitrogen_source_is_infeasible_and_a_tiny_time_limit_times_out(ecoli: cobra.Model, data_dir: Path,
                                                                          biochem: BiochemIndex) -> None:
    medium = {c: b for c, b in medium_of(data_dir, "glucose_minimal_aerobic").items() if c != "cpd00013"}
    with pytest.raises(InfeasibilityError) as info:
        gf.gapfill_from_data(ecoli, medium, gf.GapfillOptions(mode="genomescale_only"),
                             template_name="GramNegative", data_dir=data_dir, biochem=biochem)
    assert info.value.code == "GAPFILL_INFEASIBLE" and info.value.details["original_model_preserved"]
    with pytest.raises(TimeoutError_) as timeout:
        gf.gapfill_from_data(ecoli, medium_of(data_dir, "glucose_minimal_aerobic"),
                             gf.GapfillOptions(time_limit_s=0.05), template_name="GramNegative",
                             data_dir=data_dir, biochem=biochem)
    assert timeout.value.code == "GAPFILL_TIMEOUT"


@pytest.mark.slow
def test_bsubtilis_gapfill_passes_the_quality_checks(data_dir: Path, biochem: BiochemIndex, tmp_path: Path) -> None:
    draft = build_genome(data_dir, biochem, tmp_path, "bsubtilis_168.faa", "GramPositive")
    medium = medium_of(data_dir, "glucose_minimal_aerobic")
    run = gf.gapfill_from_data(draft, medium, gf.GapfillOptions(), template_name="GramPositive",
                               data_dir=data_dir, biochem=biochem)
    assert run.quality["all_passed"], run.quality
    assert cobra_growth(run.model, medium) >= 0.01
    assert cobra_growth(run.model, {c: b for c, b in medium.items() if c != "cpd00027"}) < 1e-6
    assert cobra_atp_from_nothing(run.model) < 1e-6
    assert np.isfinite(run.timings["total"])

    # the draft on glucose and succinate at once: COBRApy finds growth on each, none on either
    # medium without its carbon source, and no ATP from nothing
    library = load_media_library(data_dir)
    carbon = {"glucose_minimal_aerobic": "cpd00027", "m9_succinate_aerobic": "cpd00036"}
    media = {name: dict(library[name].compounds) for name in carbon}
    joint = gf.gapfill_from_data(draft, media, gf.GapfillOptions(), template_name="GramPositive",
                                 data_dir=data_dir, biochem=biochem, previous_atp=run.atp)
    assert joint.quality["all_passed"], joint.quality
    assert set(joint.by_medium) == set(media) and joint.growth_after == min(a for _, a in joint.by_medium.values())
    for name, bounds in media.items():
        assert cobra_growth(joint.model, bounds) == pytest.approx(joint.by_medium[name][1], rel=1e-4)
        assert cobra_growth(joint.model, {c: b for c, b in bounds.items() if c != carbon[name]}) < 1e-6
    assert cobra_atp_from_nothing(joint.model) < 1e-6

    # on LB the glucose model grows already; it gains transporters for LB's other amino acids and
    # vitamins. Phenylalanine and tyrosine came with the draft: the database's ABC importers, with
    # the genes of their homologs (modeling/database_transport.py), so medium uptake adds none for
    # them; COBRApy finds it taking both up when it grows on LB
    assert {"rxn18584_c0", "rxn18579_c0"} <= {r.id for r in draft.reactions if r.genes}
    lb = dict(library["lb_aerobic"].compounds)
    rich = gf.gapfill_from_data(run.model, lb, gf.GapfillOptions(), template_name="GramPositive",
                                data_dir=data_dir, biochem=biochem, previous_atp=run.atp)
    assert rich.genome_scale is None and rich.uptake is not None and rich.quality["all_passed"]
    assert rich.uptake.compounds and not {"cpd00066", "cpd00069"} & set(rich.uptake.compounds)
    for reaction_id, _ in rich.uptake.added:
        assert rich.model.reactions.get_by_id(reaction_id).notes["gemflux_sources"] == "medium_uptake"
    with rich.model as model:
        apply_exchange_medium(model, lb)
        for cpd in ("cpd00066", "cpd00069"):
            exchange = model.reactions.get_by_id(f"EX_{cpd}_e0")
            model.objective = {exchange: 1.0}
            model.objective_direction = "min"
            assert model.slim_optimize() < -0.1  # it can import it (at most 0.5 in this medium)


def test_a_failure_inside_a_stage_gets_that_stages_error_code() -> None:
    with pytest.raises(LibraryError) as info, _stage_errors("ATP_CORRECTION_FAILED", "ATP correction"):
        raise KeyError("cpd99999_c0")
    assert info.value.code == "ATP_CORRECTION_FAILED" and info.value.details["exception_type"] == "KeyError"
    with pytest.raises(TimeoutError_), _stage_errors("GENOMESCALE_GAPFILL_FAILED", "Genome-scale gapfilling"):
        SolverDeadline(0.0).remaining()  # our own errors pass through unchanged


def test_essentiality_of_every_gene_equals_cobrapy(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]],
                                                   data_dir: Path) -> None:
    """Single-gene deletions of the gapfilled E. coli model on M9 glucose, ours against
    cobra.flux_analysis.single_gene_deletion on the same model and medium."""
    from cobra.flux_analysis import single_gene_deletion

    from gem_flux_mcp.modeling.essentiality import single_deletions

    model = ecoli_run[0].model
    medium = medium_of(data_dir, "glucose_minimal_aerobic")
    with model:
        apply_exchange_medium(model, medium)
        model.objective = "bio1"
        ours = single_deletions(model, "genes")
        reference = single_gene_deletion(model, processes=2)
    expected = {next(iter(ids)): (0.0 if math.isnan(g) else max(float(g), 0.0))
                for ids, g in zip(reference["ids"], reference["growth"], strict=True)}
    assert set(ours.growth) == set(expected) and len(expected) > 1000
    worst = max(abs(ours.growth[g] - expected[g]) for g in expected)
    assert worst <= 1e-6, worst
    wild = ours.wild_type_growth
    essential = {g for g, v in expected.items() if v < 0.1 * wild}
    assert {g for g, v in ours.growth.items() if v < 0.1 * wild} == essential and essential
    assert ours.solves < len(expected) / 2  # most deletions cannot change the optimum: no solve
