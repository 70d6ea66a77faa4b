"""What an organism secretes, and energy-coupled transport that cannot run backwards.

Fast tests on hand-written reactions and a toy template; then the real E. coli draft gapfilled on
the fermentation medium FT and a Z. mobilis build, checked with COBRApy directly (pFBA, FVA,
reaction bounds) against the known products: E. coli makes acetate, formate and ethanol
anaerobically; Z. mobilis makes ethanol; B. thetaiotaomicron makes acetate, propionate and H2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import cobra
import pytest
from cobra.flux_analysis import flux_variability_analysis, pfba

import models
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import gapfill as gf
from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.energy import (
    atp_coupled_sign,
    atp_driven_transporters,
    atp_hydrolysis_sign,
    orient_atp_coupled_reactions,
    orient_atp_driven_transport,
    pts_sign,
)
from gem_flux_mcp.modeling.fermentation import check_observed, fermentation_products
from gem_flux_mcp.modeling.fluxlp import SolverDeadline
from gem_flux_mcp.modeling.gapfill.network import Network
from gem_flux_mcp.modeling.inputs import read_proteins_file
from gem_flux_mcp.modeling.reconstruct import reconstruct
from gem_flux_mcp.rules.catalog import MIN_RATIO_RULE
from models import apply_exchange_medium

# ModelSEED reactions as the database writes them (c0 inside, e0 outside)
ALANINE_ABC = {"cpd00001_c0": -1, "cpd00002_c0": -1, "cpd00035_e0": -1, "cpd00008_c0": 1, "cpd00009_c0": 1,
               "cpd00035_c0": 1, "cpd00067_c0": 1}  # rxn10170
ATP_SYNTHASE = {"cpd00008_c0": -1, "cpd00009_c0": -1, "cpd00067_e0": -4, "cpd00001_c0": 1, "cpd00002_c0": 1,
                "cpd00067_c0": 3}  # rxn08173
ACETATE_SYMPORT = {"cpd00029_e0": -1, "cpd00067_e0": -1, "cpd00029_c0": 1, "cpd00067_c0": 1}  # rxn05488
ACETATE, FORMATE, ETHANOL, PROPIONATE, H2 = "cpd00029", "cpd00047", "cpd00363", "cpd00141", "cpd11640"


def test_atp_driven_transporters_are_told_from_atp_synthase_and_symports() -> None:
    assert atp_hydrolysis_sign(ALANINE_ABC) == 1
    assert atp_hydrolysis_sign({m: -c for m, c in ALANINE_ABC.items()}) == -1  # written the other way round
    assert atp_hydrolysis_sign(ATP_SYNTHASE) is None  # moves only protons: making ATP is its job
    assert atp_hydrolysis_sign(ACETATE_SYMPORT) is None
    assert atp_hydrolysis_sign({"cpd00002_c0": -1, "cpd00001_c0": -1, "cpd00008_c0": 1, "cpd00009_c0": 1}) is None


def test_an_abc_transporter_never_runs_backwards() -> None:
    model = cobra.Model("abc")
    mets = {m: cobra.Metabolite(m, compartment=m.rsplit("_", 1)[1]) for m in ALANINE_ABC}
    abc = cobra.Reaction("rxn10170_c0", lower_bound=-1000, upper_bound=1000)
    abc.add_metabolites({mets[m]: c for m, c in ALANINE_ABC.items()})
    model.add_reactions([abc])
    assert atp_driven_transporters(model) == {"rxn10170_c0": 1}
    assert orient_atp_driven_transport(model) == ["rxn10170_c0"]
    assert model.reactions.rxn10170_c0.bounds == (0.0, 1000.0)
    assert orient_atp_driven_transport(model) == []  # nothing left to change


FRUCTOSE_PTS = {"cpd00061_c0": -1, "cpd00082_e0": -1, "cpd00020_c0": 1, "cpd00072_c0": 1}  # rxn10175
PYRUVATE_KINASE = {"cpd00061_c0": -1, "cpd00008_c0": -1, "cpd00067_c0": -1, "cpd00020_c0": 1, "cpd00002_c0": 1}


def test_a_phosphotransferase_system_never_runs_backwards_to_make_pep() -> None:
    """Run backwards, a PTS exports the sugar and makes phosphoenolpyruvate from pyruvate: a cell
    given pyruvate and fructose-6-phosphate would have PEP for nothing. Once oriented, it has none."""
    assert pts_sign(FRUCTOSE_PTS) == 1
    assert pts_sign({m: -c for m, c in FRUCTOSE_PTS.items()}) == -1
    assert pts_sign(PYRUVATE_KINASE) is None  # no solute crosses: a kinase, not a transporter
    assert pts_sign(ACETATE_SYMPORT) is None and atp_hydrolysis_sign(FRUCTOSE_PTS) is None

    model = cobra.Model("pts")
    mets = {m: cobra.Metabolite(m, compartment=m.rsplit("_", 1)[1]) for m in FRUCTOSE_PTS}
    pts = cobra.Reaction("rxn10175_c0", lower_bound=-1000, upper_bound=1000)
    pts.add_metabolites({mets[m]: c for m, c in FRUCTOSE_PTS.items()})
    model.add_reactions([pts])
    model.add_boundary(mets["cpd00020_c0"], type="sink", lb=-10, ub=0)  # pyruvate given
    model.add_boundary(mets["cpd00072_c0"], type="sink", lb=-10, ub=0)  # and fructose-6-phosphate
    model.add_boundary(mets["cpd00082_e0"], type="exchange", lb=0, ub=1000)  # fructose may leave
    pep_demand = model.add_boundary(mets["cpd00061_c0"], type="demand")
    model.objective = pep_demand
    assert model.slim_optimize() == pytest.approx(10.0)  # PEP from pyruvate, by exporting fructose
    assert atp_driven_transporters(model) == {"rxn10175_c0": 1}
    assert orient_atp_driven_transport(model) == ["rxn10175_c0"]
    assert model.reactions.rxn10175_c0.bounds == (0.0, 1000.0)
    assert "phosphoenolpyruvate" in model.reactions.rxn10175_c0.notes["gemflux_direction"]
    assert model.slim_optimize(error_value=0.0) == pytest.approx(0.0, abs=1e-9)


def toy_template(abc_cost: float) -> Any:
    """Alanine (S) taken up by a reversible proton symport (cost 2) or an ABC transporter
    (`abc_cost`), both offered by the template in both directions; S makes the biomass precursor."""
    return models.toy_template({
        "rxn10170": ({m[:-1]: c for m, c in ALANINE_ABC.items()}, abc_cost, "="),  # cpd00035_c0 -> cpd00035_c
        "rxn05179": ({"cpd00035_e": -1, "cpd00067_e": -1, "cpd00035_c": 1, "cpd00067_c": 1}, 2.0, "="),
    }, ("cpd00001", "cpd00002", "cpd00008", "cpd00009", "cpd00035", "cpd00067"), formula="C3H7NO2")


def toy_model() -> cobra.Model:
    """Biomass from alanine and a proton; exchanges for alanine and protons outside."""
    model = cobra.Model("toy")
    biomass = cobra.Reaction("bio1", lower_bound=0, upper_bound=1000)
    biomass.add_metabolites({cobra.Metabolite("cpd00035_c0", compartment="c0"): -1,
                             cobra.Metabolite("cpd00067_c0", compartment="c0"): -1})
    model.add_reactions([biomass])
    for cpd in ("cpd00035", "cpd00067"):
        exchange = cobra.Reaction(f"EX_{cpd}_e0", lower_bound=-1000, upper_bound=1000)
        exchange.add_metabolites({cobra.Metabolite(f"{cpd}_e0", compartment="e0"): -1})
        model.add_reactions([exchange])
    model.objective = "bio1"
    return model


def model_of_database_reactions(biochem: BiochemIndex, reaction_ids: list[str]) -> cobra.Model:
    """Database reactions as the database writes them, every one open both ways (as templates list them)."""
    model = cobra.Model("db")
    for rid in reaction_ids:
        left, right = re.split(r"\s*<?=>?\s*", biochem.get_reaction(rid)["equation_with_ids"])
        reaction = cobra.Reaction(f"{rid}_c0", lower_bound=-1000, upper_bound=1000)
        model.add_reactions([reaction])
        for side, sign in ((left, -1), (right, 1)):
            for coefficient, compound in re.findall(r"\(([\d.]+)\) (cpd\d{5})\[0\]", side):
                if f"{compound}_c0" not in model.metabolites:
                    model.add_metabolites([cobra.Metabolite(f"{compound}_c0", compartment="c0")])
                reaction.add_metabolites({model.metabolites.get_by_id(f"{compound}_c0"): sign * float(coefficient)})
    return model


def test_an_atp_driven_reaction_the_database_calls_irreversible_never_makes_atp(biochem: BiochemIndex) -> None:
    # acetyl-CoA carboxylase (rxn00533, '>') and pyruvate carboxylase (rxn00250, '>') hydrolyse ATP
    # only; phosphoglycerate kinase (rxn01100) and acetate kinase (rxn00225) are reversible in the
    # database and make ATP in glycolysis and fermentation; adenylate kinase makes and spends ATP
    ids = ["rxn00533", "rxn00250", "rxn01100", "rxn00225", "rxn00097"]
    model = model_of_database_reactions(biochem, ids)
    details = biochem.reaction_details(set(ids))
    assert [details[rid]["reversibility"] for rid in ("rxn00533", "rxn00250")] == [">", ">"]
    assert atp_coupled_sign({m.id: c for m, c in model.reactions.rxn00533_c0.metabolites.items()}) == 1
    changed = orient_atp_coupled_reactions(model, {k: d["reversibility"] for k, d in details.items()})
    assert changed == ["rxn00533_c0", "rxn00250_c0"]
    assert model.reactions.rxn00533_c0.bounds == (0.0, 1000.0)
    assert all(model.reactions.get_by_id(f"{rid}_c0").bounds == (-1000.0, 1000.0)
               for rid in ("rxn01100", "rxn00225", "rxn00097"))
    assert orient_atp_coupled_reactions(model, {k: d["reversibility"] for k, d in details.items()}) == []


def test_gapfilling_offers_no_atp_making_direction_and_keeps_a_symport_reversible() -> None:
    template = toy_template(abc_cost=5.0)
    net = Network(toy_model(), template, SolverDeadline(60))
    assert ("rxn10170_c0", 1) in net.col and ("rxn10170_c0", -1) not in net.col
    assert {("rxn05179_c0", 1), ("rxn05179_c0", -1)} <= set(net.col)
    medium = {"cpd00035": (-10.0, 1000.0), "cpd00067": (-1000.0, 1000.0)}
    model = toy_model()
    result = gf.gapfill_genome_scale(model, template, [medium], "bio1", 0.1, [], {}, [{}], gf.GapfillOptions(),
                                     set(), {}, SolverDeadline(60), lambda *_: None)
    assert result is not None and result.both_ways == ["rxn05179_c0"]
    symport = model.reactions.get_by_id("rxn05179_c0")
    assert symport.bounds == (-1000.0, 1000.0)  # added for uptake, kept for export too
    # COBRApy: with alanine made inside (a source added by hand) the symport can export it
    with model:
        source = cobra.Reaction("make_ala", lower_bound=0, upper_bound=5)
        source.add_metabolites({model.metabolites.get_by_id("cpd00035_c0"): 1,
                                model.metabolites.get_by_id("cpd00067_c0"): 1})
        model.add_reactions([source])
        apply_exchange_medium(model, {"cpd00067": (-1000.0, 1000.0)})
        span = flux_variability_analysis(model, ["rxn05179_c0"], fraction_of_optimum=0.0)
        assert span.at["rxn05179_c0", "minimum"] < -1.0


def test_observed_products_and_the_ratio_are_checked() -> None:
    assert check_observed(["acetic acid", "H2"]) == {"acetate": True, "formate": False, "ethanol": False,
                                                     "butyrate": False, "propionate": False, "lactate": False,
                                                     "succinate": False, "acetone": False, "H2": True}
    assert check_observed({"cpd00221": True, "cpd00100": False}) == {"lactate": True, "cpd00100": False}
    with pytest.raises(ValidationError) as refused:
        check_observed(["acetate", "vinegar"])
    assert refused.value.details["unknown"] == ["vinegar"]
    for bad in (0, -1, True, "0.25", 1e6):
        with pytest.raises(ValidationError):
            MIN_RATIO_RULE.check(bad)


# ------------------------------------------------------------------------------ real genomes


def ft_medium(data_dir: Path) -> dict[str, tuple[float, float]]:
    raw = json.loads((data_dir / "fermentation" / "FT.json").read_text())["compounds"]
    return {cpd: (float(v["bounds"][0]), float(v["bounds"][1])) for cpd, v in raw.items()}


def secreted_by_cobrapy(model: cobra.Model, medium: dict[str, tuple[float, float]]) -> tuple[float, dict[str, float]]:
    """Growth and every secretion (> 0) of COBRApy's own pFBA at the optimum, medium set by hand."""
    with model:
        apply_exchange_medium(model, medium)
        model.objective = "bio1"
        solution = pfba(model)
        growth = float(solution.fluxes["bio1"])
        out = {r.id.split("_")[1]: float(solution.fluxes[r.id]) for r in model.exchanges
               if solution.fluxes[r.id] > 1e-9}
    return growth, out


@pytest.fixture(scope="module")
def ecoli_on_ft(ecoli: cobra.Model, data_dir: Path, biochem: BiochemIndex) -> gf.GapfillRun:
    return gf.gapfill_from_data(ecoli, ft_medium(data_dir), gf.GapfillOptions(), template_name="GramNegative",
                                data_dir=data_dir, biochem=biochem)


@pytest.mark.slow
def test_ecoli_ferments_to_acetate_formate_and_ethanol(ecoli_on_ft: gf.GapfillRun, data_dir: Path,
                                                       biochem: BiochemIndex) -> None:
    model, medium = ecoli_on_ft.model, ft_medium(data_dir)
    assert ecoli_on_ft.quality["all_passed"] and ecoli_on_ft.quality["no_atp_driven_transport_backwards"]["passed"]
    growth, secreted = secreted_by_cobrapy(model, medium)
    for product in (ACETATE, FORMATE, ETHANOL):  # the protocol's call, computed by COBRApy alone
        assert secreted.get(product, 0.0) >= 0.25 * growth, product
    with model:
        exchanges, _ = media_ops.put_on_medium(model, medium, biochem)
        found = fermentation_products(model, exchanges, medium)
    assert found.growth == pytest.approx(growth, abs=5e-7)  # the answer rounds to 6 decimals
    assert {name for name, made in found.predicted.items() if made} >= {"acetate", "formate", "ethanol"}
    assert not found.reversed_atp_transport
    for product in found.products:
        assert product.flux == pytest.approx(secreted[product.compound_id], rel=1e-4, abs=1e-6)
        assert product.fva_min is not None and product.fva_max is not None
        assert product.fva_min - 1e-6 <= product.flux <= product.fva_max + 1e-6
    formate = next(p for p in found.products if p.compound_id == FORMATE)
    assert formate.pathway and not formate.in_medium  # traced back from its exchange
    # COBRApy: no ATP-driven transporter of the gapfilled model can carry flux in its ATP-making direction
    abc = atp_driven_transporters(model)
    assert len(abc) > 20
    with model:
        apply_exchange_medium(model, medium)
        span = flux_variability_analysis(model, list(abc), fraction_of_optimum=0.0, processes=1)
    for rid, sign in abc.items():
        least = span.at[rid, "minimum"] if sign > 0 else -span.at[rid, "maximum"]
        assert least >= -1e-9, rid
    # transporters gapfilling added for uptake keep their export direction where the database says reversible
    both = (ecoli_on_ft.uptake.both_ways if ecoli_on_ft.uptake else []) + \
        (ecoli_on_ft.genome_scale.both_ways if ecoli_on_ft.genome_scale else [])
    assert both
    reversibility = {k: d["reversibility"] for k, d in biochem.reaction_details(r.split("_")[0] for r in both).items()}
    for rid in both:
        assert model.reactions.get_by_id(rid).bounds == (-1000.0, 1000.0) and reversibility[rid[:8]] in "=?"


@pytest.mark.slow
def test_zymomonas_secretes_ethanol(data_dir: Path, biochem: BiochemIndex, cache_dir: Path) -> None:
    proteins = read_proteins_file(data_dir / "fermentation" / "GCF_000175255.2_ASM17525v2_protein.faa.gz",
                                  "proteins").proteins
    medium = ft_medium(data_dir)
    built = reconstruct("zmob", proteins, {"FT": medium}, template="auto", data_dir=data_dir,
                        cache_dir=cache_dir, biochem=biochem)
    growth, secreted = secreted_by_cobrapy(built.model, medium)
    assert growth > 0.01 and secreted.get(ETHANOL, 0.0) >= 0.25 * growth


@pytest.mark.slow
def test_bacteroides_makes_h2_through_its_own_bifurcating_hydrogenase(data_dir: Path, biochem: BiochemIndex,
                                                                     cache_dir: Path) -> None:
    """B. thetaiotaomicron ferments to acetate, propionate and H2. Its model oxidises pyruvate
    with ferredoxin and makes H2 from ferredoxin and NADH with the bifurcating hydrogenase that
    homology to C. ljungdahlii's HydABC brings (a gene rule, no gapfilling); COBRApy's pFBA secretes
    all three at the protocol's ratio."""
    proteins = read_proteins_file(data_dir / "fermentation" / "GCF_000011065.1_ASM1106v1_protein.faa.gz",
                                  "proteins").proteins
    medium = ft_medium(data_dir)
    model = reconstruct("btheta", proteins, {"FT": medium}, template="auto", data_dir=data_dir,
                        cache_dir=cache_dir, biochem=biochem).model
    growth, secreted = secreted_by_cobrapy(model, medium)
    assert growth > 0.01
    for product in (H2, ACETATE, PROPIONATE):
        assert secreted.get(product, 0.0) >= 0.25 * growth, product
    with model:
        apply_exchange_medium(model, medium)
        fluxes = pfba(model).fluxes
    hydrogenase = model.reactions.get_by_id("rxn16350_c0")
    assert hydrogenase.gene_reaction_rule and "homology" in hydrogenase.notes["gemflux_sources"]
    assert fluxes["rxn16350_c0"] < -1e-6  # 2 H2 made from NADH + reduced ferredoxin
    assert fluxes["rxn05938_c0"] < -1e-6  # pyruvate -> acetyl-CoA + CO2, ferredoxin reduced


def test_a_gas_or_alcohol_the_model_makes_gets_a_way_out_and_an_acid_does_not() -> None:
    glucose, ethanol, acetate, x = "cpd00027", "cpd00363", "cpd00029", "cpd90004"
    template = models.toy_template({
        "rxn09683": ({f"{ethanol}_e": -1, f"{ethanol}_c": 1}, 1.0, "="),  # diffusion
        "rxn05488": ({f"{acetate}_e": -1, f"{acetate}_c": 1}, 1.0, "="),
    }, (glucose, ethanol, acetate, x))
    model = cobra.Model("toy")
    met = {m: cobra.Metabolite(m, compartment=m.rsplit("_", 1)[1]) for m in
           (f"{glucose}_e0", f"{glucose}_c0", f"{x}_c0", f"{ethanol}_c0", f"{acetate}_c0")}

    def reaction(rid: str, stoichiometry: dict[str, float], lower: float = 0.0) -> cobra.Reaction:
        made = cobra.Reaction(rid, lower_bound=lower, upper_bound=1000)
        made.add_metabolites({met[m]: c for m, c in stoichiometry.items()})
        return made

    model.add_reactions([reaction(f"EX_{glucose}_e0", {f"{glucose}_e0": -1}, -1000),
                         reaction("glc_t", {f"{glucose}_e0": -1, f"{glucose}_c0": 1}),
                         reaction("make_x", {f"{glucose}_c0": -1, f"{x}_c0": 1}),
                         reaction("make_ethanol", {f"{glucose}_c0": -1, f"{ethanol}_c0": 2}),
                         reaction("make_acetate", {f"{glucose}_c0": -1, f"{acetate}_c0": 2}),
                         reaction("bio1", {f"{x}_c0": -1})])
    model.objective = "bio1"
    run = gf.gapfill(model, {glucose: (-10.0, 1000.0)}, gf.GapfillOptions(mode="genomescale_only"),
                     genome_template=template, core_template=template, atp_media={"empty": {}},
                     formulas={glucose: "C6H12O6"}, facts=gf.ReactionFacts())
    assert run.uptake is not None and run.uptake.exported == [ethanol]
    assert sorted(run.uptake.export_added) == [("rxn09683_c0", -1), ("rxn09683_c0", 1)]
    assert "rxn05488_c0" not in run.model.reactions  # acetate: no transporter without genome evidence
    with run.model:  # COBRApy: ethanol now leaves the cell; acetate cannot
        apply_exchange_medium(run.model, {glucose: (-10.0, 1000.0)})
        run.model.objective = f"EX_{ethanol}_e0"
        assert run.model.slim_optimize() == pytest.approx(20.0)
    assert f"EX_{acetate}_e0" not in run.model.reactions
