"""The model quality checks (modeling/diagnose/), compared with COBRApy called directly."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cobra
import pytest
from cobra.flux_analysis import find_blocked_reactions

from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import diagnose as dg
from models import apply_exchange_medium, medium_of, textbook

ATP_HYDROLYSIS = {"cpd00002_c0": -1, "cpd00001_c0": -1, "cpd00008_c0": 1, "cpd00009_c0": 1, "cpd00067_c0": 1}
GLUTAMINE_SYNTHETASE = "rxn00187_c0"  # ATP + NH3 + L-glutamate -> ADP + Pi + L-glutamine (irreversible)
HISTIDINOL_DEHYDROGENASE = "rxn00859_c0"  # L-histidinol + 2 NAD -> L-histidine: the last step to histidine
HISTIDINE, PROTEIN = "cpd00119_c0", "cpd11463_c0"


@pytest.fixture(scope="module")
def gapfilled(ecoli_run: tuple[Any, dict[str, Any]]) -> cobra.Model:
    """A copy of the gapfilled E. coli model, so planted faults stay out of the shared one."""
    return ecoli_run[0].model.copy()


@pytest.fixture(scope="module")
def on_glucose(gapfilled: cobra.Model, data_dir: Path) -> cobra.Model:
    model = gapfilled.copy()
    apply_exchange_medium(model, medium_of(data_dir, "glucose_minimal_aerobic"))
    return model


def snapshot(model: cobra.Model) -> tuple[Any, ...]:
    return (
        [(r.id, r.bounds, r.reaction, r.gene_reaction_rule) for r in model.reactions],
        [(m.id, m.formula, m.charge) for m in model.metabolites],
        str(model.objective.expression), model.objective_direction, len(model.variables), len(model.constraints),
    )


def max_atp_with_uptakes_closed(model: cobra.Model) -> float:
    """The reference answer, written with COBRApy only."""
    with model:
        for reaction in model.boundary:
            reaction.lower_bound = 0.0  # every boundary reaction here is `met <=>`: negative = uptake
        for reaction in model.reactions:
            reaction.lower_bound = min(reaction.lower_bound, 0.0)
        hydrolysis = cobra.Reaction("test_atp_hydrolysis", upper_bound=1000.0)
        model.add_reactions([hydrolysis])
        hydrolysis.add_metabolites({model.metabolites.get_by_id(m): c for m, c in ATP_HYDROLYSIS.items()})
        model.objective = hydrolysis
        return float(model.slim_optimize(error_value=0.0))


def max_demand(model: cobra.Model, met_id: str) -> float:
    with model:
        demand = model.add_boundary(model.metabolites.get_by_id(met_id), type="demand")
        model.objective = demand
        return float(model.slim_optimize(error_value=0.0))


# -- the gapfilled E. coli model -----------------------------------------------------------------------

def test_blocked_reactions_equal_cobrapys(gapfilled: cobra.Model) -> None:
    started = time.perf_counter()
    ours = dg.blocked_reactions(gapfilled)
    ours_s = time.perf_counter() - started
    started = time.perf_counter()
    theirs = find_blocked_reactions(gapfilled, open_exchanges=True)
    theirs_s = time.perf_counter() - started
    print(f"blocked: {len(ours)} in {ours_s:.2f} s; COBRApy {len(theirs)} in {theirs_s:.2f} s")
    assert 0 < len(ours) < len(gapfilled.reactions)
    assert set(ours) == set(theirs)
    assert len(ours) == len(set(ours))


def test_no_atp_from_nothing_in_the_gapfilled_model(gapfilled: cobra.Model) -> None:
    assert max_atp_with_uptakes_closed(gapfilled) <= 1e-6
    [atp] = dg.energy_generating_cycles(gapfilled, carriers=["ATP"])
    assert atp.carrier == "ATP" and not atp.found and atp.members == {}


def test_a_reversed_irreversible_step_makes_an_energy_generating_cycle(gapfilled: cobra.Model) -> None:
    with gapfilled:
        gapfilled.reactions.get_by_id(GLUTAMINE_SYNTHETASE).lower_bound = -1000.0  # ATP made from glutamine
        assert max_atp_with_uptakes_closed(gapfilled) > 1e-6
        before = snapshot(gapfilled)
        [atp] = dg.energy_generating_cycles(gapfilled, carriers=["ATP"])
        assert snapshot(gapfilled) == before
        assert atp.found and atp.max_flux == pytest.approx(max_atp_with_uptakes_closed(gapfilled), rel=1e-6)
        assert GLUTAMINE_SYNTHETASE in atp.members and atp.members[GLUTAMINE_SYNTHETASE] < 0
        assert len(atp.members) < 10  # the loop, not the whole flux distribution
        # the members and one unit of ATP hydrolysis form a steady state
        fluxes = {**atp.members, **({atp.reaction: 1.0} if atp.reaction else {})}
        net: dict[str, float] = {}
        for rid, flux in fluxes.items():
            for met, coefficient in gapfilled.reactions.get_by_id(rid).metabolites.items():
                net[met.id] = net.get(met.id, 0.0) + coefficient * flux
        if atp.reaction is None:
            for met_id, coefficient in ATP_HYDROLYSIS.items():
                net[met_id] = net.get(met_id, 0.0) + coefficient
        assert all(abs(v) < 1e-6 for v in net.values())


def test_an_added_atp_synthesis_reaction_is_found(gapfilled: cobra.Model) -> None:
    with gapfilled:
        planted = cobra.Reaction("planted_atp", upper_bound=1000.0)
        gapfilled.add_reactions([planted])
        planted.add_metabolites({gapfilled.metabolites.get_by_id(m): -c for m, c in ATP_HYDROLYSIS.items()})
        [atp] = dg.energy_generating_cycles(gapfilled, carriers=["ATP"])
        assert atp.found and atp.members == {"planted_atp": pytest.approx(1.0)}


def test_missing_precursor_is_named(on_glucose: cobra.Model) -> None:
    model = on_glucose
    assert model.slim_optimize() > 0.1
    assert max_demand(model, HISTIDINE) > 1e-6
    healthy = dg.missing_biomass_precursors(model)
    # every substrate of the biomass is tested (39 for E. coli, its lipids straight-chain)
    substrates = sorted(m.id for m, c in model.reactions.get_by_id("bio1").metabolites.items() if c < 0)
    assert healthy.missing == [] and healthy.tested == substrates and len(substrates) > 30
    with model:
        model.reactions.get_by_id(HISTIDINOL_DEHYDROGENASE).knock_out()
        assert model.slim_optimize(error_value=0.0) <= 1e-6
        assert max_demand(model, HISTIDINE) <= 1e-6
        before = snapshot(model)
        started = time.perf_counter()
        found = dg.missing_biomass_precursors(model)
        print(f"precursors: {found.solves} solves in {time.perf_counter() - started:.2f} s")
        assert snapshot(model) == before
    assert found.missing == [PROTEIN]  # histidine is a substrate of protein synthesis, not of biomass
    assert found.missing_parts == {PROTEIN: [HISTIDINE]}
    assert set(found.recycled) == set(healthy.recycled)


def test_an_unknown_biomass_reaction_is_rejected(on_glucose: cobra.Model) -> None:
    for check in (dg.missing_biomass_precursors, dg.growth, dg.diagnose):
        with pytest.raises(ValidationError) as error:
            check(on_glucose, "no_such_reaction")
        assert error.value.code == "INVALID_REACTION" and "bio1" in error.value.details["candidates"]


def test_imbalance_planted_in_a_copy(gapfilled: cobra.Model) -> None:
    balance = dg.imbalanced_reactions(gapfilled)
    expected = {r.id for r in gapfilled.reactions if not dg.is_boundary(r) and not dg.is_biomass_like(r)
                and r.id not in balance.unknown and r.check_mass_balance()}
    assert set(balance.imbalanced) == expected
    balanced = next(r for r in gapfilled.reactions if r.id.startswith("rxn") and r.id not in expected
                    and r.id not in balance.unknown and not dg.is_biomass_like(r))
    with gapfilled:
        balanced.add_metabolites({gapfilled.metabolites.get_by_id("cpd00001_c0"): 1.0})  # one water too many
        planted = dg.imbalanced_reactions(gapfilled)
    assert planted.imbalanced[balanced.id] == {"H": 2.0, "O": 1.0}
    assert balanced.id in planted.mass_imbalanced and balanced.id not in planted.charge_imbalanced
    assert dg.imbalanced_reactions(gapfilled).imbalanced == balance.imbalanced


def test_diagnose_runs_every_check_and_leaves_the_model_alone(on_glucose: cobra.Model) -> None:
    before = snapshot(on_glucose)
    started = time.perf_counter()
    report = dg.diagnose(on_glucose)
    print(f"diagnose: {time.perf_counter() - started:.2f} s {report.timings}")
    assert snapshot(on_glucose) == before
    assert report.growth == pytest.approx(on_glucose.slim_optimize(), rel=1e-6)
    assert set(report.timings) == {"growth", "imbalanced_reactions", "dead_end_metabolites", "blocked_reactions",
                                   "energy_generating_cycles", "reactions_without_genes",
                                   "missing_biomass_precursors", "atp_driven_transport"}
    counts = report.counts()
    # gapfilled: no ABC transporter or P-type ATPase may run backwards (energy.py; checked in test_fermentation)
    assert counts["atp_driven_transport_backwards"] == len(report.atp_transport_backwards) == 0
    assert counts["blocked_reactions"] == len(report.blocked) > 0
    assert counts["missing_biomass_precursors"] == 0
    dead = report.dead_ends
    assert counts["dead_end_metabolites"] == len(dead.only_produced) + len(dead.only_consumed) > 0
    assert counts["isolated_metabolites"] == len(dead.isolated) and len(dead.all) == sum(
        map(len, (dead.only_produced, dead.only_consumed, dead.isolated)))
    assert {c.carrier for c in report.energy_cycles} == set(dg.CARRIERS)
    assert not next(c for c in report.energy_cycles if c.carrier == "ATP").found
    assert report.without_genes == [r.id for r in on_glucose.reactions if not dg.is_boundary(r)
                                    and not dg.is_biomass_like(r) and not r.genes]


# -- small models ----------------------------------------------------------------------------------------

def tiny_model() -> cobra.Model:
    """A_e <=> (exchange); A_e -> A_c -> B_c -> C_c (C only made); D_c -> B_c (D only used);
    B_c <=> E_c (E touched by one reversible reaction); B_c -> F_c, F_c has no formula."""
    model = cobra.Model("tiny")
    mets = {name: cobra.Metabolite(name, formula="CH2O", charge=0, compartment=name[-1] + "0")
            for name in ("A_e", "A_c", "B_c", "C_c", "D_c", "E_c")}
    mets["F_c"] = cobra.Metabolite("F_c", compartment="c0")

    def add(rid: str, stoichiometry: dict[str, float], bounds: tuple[float, float] = (0.0, 1000.0)) -> None:
        reaction = cobra.Reaction(rid, lower_bound=bounds[0], upper_bound=bounds[1])
        model.add_reactions([reaction])
        reaction.add_metabolites({mets[m]: c for m, c in stoichiometry.items()})

    add("EX_A_e", {"A_e": -1}, (-10.0, 1000.0))
    add("T_A", {"A_e": -1, "A_c": 1})
    add("R1", {"A_c": -1, "B_c": 1})
    add("R2", {"B_c": -1, "C_c": 1})
    add("R3", {"D_c": -1, "B_c": 1})
    add("R4", {"B_c": -1, "E_c": 1}, (-1000.0, 1000.0))
    add("R5", {"B_c": -1, "F_c": 1})
    add("R6", {"B_c": -2, "A_c": 1}, (-1000.0, 1000.0))  # imbalanced: C2H4O2 -> CH2O
    model.reactions.R1.gene_reaction_rule = "g1"
    return model


def test_dead_ends_on_a_tiny_model() -> None:
    model = tiny_model()
    dead = dg.dead_end_metabolites(model)
    assert sorted(dead.only_produced) == ["C_c", "F_c"]
    assert dead.only_consumed == ["D_c"]
    assert dead.isolated == ["E_c"]
    assert dead.all == ["C_c", "D_c", "E_c", "F_c"]
    model.add_boundary(model.metabolites.C_c, type="demand")  # a demand consumes C
    assert "C_c" not in dg.dead_end_metabolites(model).all


def test_balance_genes_and_blocked_on_a_tiny_model() -> None:
    model = tiny_model()
    balance = dg.imbalanced_reactions(model)
    assert balance.unknown == ["R5"]
    assert balance.imbalanced == {"R6": {"C": -1.0, "H": -2.0, "O": -1.0}}  # products minus substrates
    assert balance.checked == 6  # T_A, R1-R6 but R5; the exchange is left out
    assert dg.reactions_without_genes(model) == ["T_A", "R2", "R3", "R4", "R5", "R6"]
    blocked = dg.blocked_reactions(model)
    assert sorted(blocked) == sorted(find_blocked_reactions(model, open_exchanges=True, processes=1))
    assert set(blocked) == {"R2", "R3", "R4", "R5"}


def test_blocked_reactions_on_textbook_with_closed_exchanges() -> None:
    model = textbook()
    model.reactions.EX_glc__D_e.lower_bound = 0.0
    model.reactions.ATPM.lower_bound = 0.0
    for open_exchanges in (False, True):
        assert sorted(dg.blocked_reactions(model, open_exchanges)) == sorted(
            find_blocked_reactions(model, open_exchanges=open_exchanges, processes=1))


def test_extra_constraints_go_to_cobrapy() -> None:
    model = textbook()
    model.add_cons_vars(model.problem.Constraint(model.reactions.PGI.flux_expression, ub=0.0, name="no_pgi"))
    theirs = find_blocked_reactions(model, open_exchanges=True, processes=1)
    assert sorted(dg.blocked_reactions(model)) == sorted(theirs)
