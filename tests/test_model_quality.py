"""What the built models predict, checked with COBRApy on the gapfilled E. coli K-12 model:
protein is made from charged tRNAs, so a tRNA synthetase with one gene is essential on glucose
minimal medium and one with two isozymes is not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import cobra
import pytest

from gem_flux_mcp.data.templates import load_template
from gem_flux_mcp.modeling import gapfill as gf
from gem_flux_mcp.modeling.translation import CHARGING_NOTE, PROTEIN, trna_ligases
from models import apply_exchange_medium, medium_of

AMINO_ACIDS = {"cpd00023", "cpd00033", "cpd00035", "cpd00039", "cpd00041", "cpd00051", "cpd00053", "cpd00054",
               "cpd00060", "cpd00065", "cpd00066", "cpd00069", "cpd00084", "cpd00107", "cpd00119", "cpd00129",
               "cpd00132", "cpd00156", "cpd00161", "cpd00322"}

# the test proteome's RefSeq ids: leucine--tRNA ligase, lysine--tRNA ligase (lysS, and the
# heat-inducible lysU)
LEUS, LYSS, LYSU = "NP_415175.1", "NP_417366.1", "NP_418579.2"
PHOA = "NP_414917.2"  # alkaline phosphatase


def growth_without(model: cobra.Model, data_dir: Path, genes: list[str]) -> tuple[float, float]:
    """(wild type, with the genes knocked out) on glucose minimal medium, in COBRApy."""
    with model:
        apply_exchange_medium(model, medium_of(data_dir, "glucose_minimal_aerobic"))
        model.objective = "bio1"
        wild = model.slim_optimize(error_value=0.0)
        for gene in genes:
            model.genes.get_by_id(gene).knock_out()
        return wild, model.slim_optimize(error_value=0.0)


@pytest.mark.parametrize("template", ["GramNegative", "GramPositive"])
def test_templates_charge_every_amino_acid(data_dir: Path, template: str) -> None:
    ligases = trna_ligases(load_template(data_dir, template))
    assert set(ligases) == AMINO_ACIDS
    assert ligases["cpd00322"].reaction == "rxn06440_c" and ligases["cpd00039"].reaction == "rxn08857_c"
    assert len({c.trna for c in ligases.values()}) == 20


def test_protein_is_made_from_charged_trnas(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]], data_dir: Path) -> None:
    """No free amino acid goes into protein; the tRNA ligases carry it, so leucyl-tRNA
    synthetase (leuS) is essential while lysyl-tRNA synthetase has two genes (lysS, lysU) and
    neither alone is; the biomass costs as much ATP as before."""
    model = ecoli_run[0].model
    protein = model.metabolites.get_by_id(f"{PROTEIN}_c0")
    synthesis = next(r for r in protein.reactions if r.id != "bio1")
    assert CHARGING_NOTE in synthesis.notes
    used = {m.id.rsplit("_", 1)[0]: c for m, c in synthesis.metabolites.items() if c < 0}
    assert not AMINO_ACIDS & set(used)
    assert "cpd12256" in used and synthesis.metabolites[model.metabolites.get_by_id("cpd11915_c0")] == -used["cpd12256"]

    assert model.reactions.get_by_id("rxn08857_c0").gene_reaction_rule == f"{LYSS} or {LYSU}"
    wild, without_leu = growth_without(model, data_dir, [LEUS])
    assert wild > 0.5 and without_leu < 1e-6
    assert growth_without(model, data_dir, [LYSS])[1] > 0.9 * wild
    assert growth_without(model, data_dir, [LYSS, LYSU])[1] < 1e-6

    # charging costs 2 ATP per amino acid; the biomass hydrolyses that many ATP fewer than the template's 40
    bio1 = model.reactions.get_by_id("bio1")
    per_gram = 2 * sum(-used[c] for c in used if c.startswith("cpd1")) * -bio1.metabolites[protein]
    atp = -bio1.metabolites[model.metabolites.get_by_id("cpd00002_c0")]
    assert atp + per_gram == pytest.approx(40.0, abs=1e-6) and per_gram > 5


def test_organic_phosphates_are_hydrolysed_outside(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]],
                                                   data_dir: Path) -> None:
    """E. coli's periplasmic glucose-1-phosphatase and 5'-nucleotidase run in e0 in the model
    (no cytosolic copy comes from them), so glucose-1-phosphate or AMP can replace phosphate as the
    phosphorus source on glucose minimal medium (Biolog PM4: both grow); with no phosphorus
    source there is no growth. Checked with COBRApy."""
    model = ecoli_run[0].model
    for rid, substrate in (("rxn00221_e0", "cpd00089_e0"), ("rxn00132_e0", "cpd00018_e0")):
        reaction = model.reactions.get_by_id(rid)
        assert reaction.genes and {m.compartment for m in reaction.metabolites} == {"e0"}
        assert model.metabolites.get_by_id(substrate) in reaction.reactants
    medium = medium_of(data_dir, "glucose_minimal_aerobic")
    without_p = {cpd: bounds for cpd, bounds in medium.items() if cpd != "cpd00009"}
    assert len(without_p) == len(medium) - 1

    def growth(extra: dict[str, tuple[float, float]]) -> float:
        with model:
            apply_exchange_medium(model, {**without_p, **extra})
            model.objective = "bio1"
            return float(model.slim_optimize(error_value=0.0))

    assert growth({}) < 1e-6
    assert growth({"cpd00089": (-10.0, 1000.0)}) > 0.1
    assert growth({"cpd00018": (-10.0, 1000.0)}) > 0.1
    # an ester no reference model lists for PhoA comes with its broad specificity (outside_enzymes.py):
    # 2-phosphoglycerate (Biolog PM4: grows); dTMP's outside hydrolysis comes from UshA and AphA
    # by homology; both hydrolysed in e0 and never made there
    assert PHOA in {g.id for g in model.reactions.rxn01282_e0.genes}
    for rid, ester in (("rxn01282_e0", "cpd00482"), ("rxn01145_e0", "cpd00298")):
        reaction = model.reactions.get_by_id(rid)
        assert reaction.genes and reaction.compartments == {"e0"} and growth({ester: (-10.0, 1000.0)}) > 0.1
        ester_side = reaction.metabolites[model.metabolites.get_by_id(f"{ester}_e0")]
        assert (reaction.upper_bound if ester_side > 0 else reaction.lower_bound) == 0.0


def test_sulfur_from_cysteine_or_glutathione(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]], data_dir: Path) -> None:
    """Sulfate is no biomass component (biomass_needs.py), so cysteine or glutathione can replace
    it as the sulfur source (Biolog PM4: both grow); with no sulfur source there is no growth.
    Checked with COBRApy."""
    model = ecoli_run[0].model
    assert "cpd00048_c0" not in {m.id for m in model.reactions.bio1.metabolites}
    medium = medium_of(data_dir, "glucose_minimal_aerobic")
    without_s = {cpd: bounds for cpd, bounds in medium.items() if cpd != "cpd00048"}
    assert len(without_s) == len(medium) - 1

    def growth(extra: dict[str, tuple[float, float]]) -> float:
        with model:
            apply_exchange_medium(model, {**without_s, **extra})
            model.objective = "bio1"
            return float(model.slim_optimize(error_value=0.0))

    assert growth({}) < 1e-6
    assert growth({"cpd00048": (-10.0, 1000.0)}) > 0.5
    assert growth({"cpd00084": (-10.0, 1000.0)}) > 0.1
    assert growth({"cpd00042": (-10.0, 1000.0)}) > 0.1


def test_the_biomass_needs_kdo2_lipid_iva_not_the_full_lps_core(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]],
                                                                data_dir: Path) -> None:
    """The GramNegative biomass asks for Kdo2-lipid IVA in the mass the template gives the full
    LPS core: knocking out the genes of heptosyltransferase I (waaC, rxn08710) leaves E. coli
    growing, as deep-rough mutants do, while those of LpxC (rxn03146, lipid A) and of WaaA
    (rxn03182, the Kdo transferase) stop it. Checked with COBRApy."""
    from gem_flux_mcp.modeling.biomass_needs import ENVELOPE_NOTE, ESSENTIAL_LPS, FULL_CORE

    model = ecoli_run[0].model
    bio1 = model.reactions.get_by_id("bio1")
    assert bio1.notes[ENVELOPE_NOTE] == f"{FULL_CORE} -> {ESSENTIAL_LPS}"
    assert f"{FULL_CORE}_c0" not in {m.id for m in bio1.metabolites}
    assert bio1.metabolites[model.metabolites.get_by_id(f"{ESSENTIAL_LPS}_c0")] < 0

    def genes_of(rid: str) -> list[str]:
        genes = [g.id for g in model.reactions.get_by_id(rid).genes]
        assert genes, rid
        return genes

    wild = growth_without(model, data_dir, [])[0]
    assert growth_without(model, data_dir, genes_of("rxn08710_c0"))[1] > 0.9 * wild
    assert growth_without(model, data_dir, genes_of("rxn03146_c0"))[1] < 1e-6
    assert growth_without(model, data_dir, genes_of("rxn03182_c0"))[1] < 1e-6


def test_kdo2_lipid_iva_takes_the_full_cores_mass(data_dir: Path) -> None:
    """Gram for gram: the biomass's grams of LPS (coefficient x molar mass) stay the same, and a
    second call changes nothing."""
    from gem_flux_mcp.modeling.biomass_needs import ESSENTIAL_LPS, FULL_CORE, require_essential_lps

    template = load_template(data_dir, "GramNegative")
    model = cobra.Model("lps")
    core = template.compcompounds.get_by_id(f"{FULL_CORE}_c").to_metabolite("0")
    biomass = cobra.Reaction("bio1")
    model.add_reactions([biomass])
    biomass.add_metabolites({core: -0.025})
    assert require_essential_lps(model, template)
    essential = model.metabolites.get_by_id(f"{ESSENTIAL_LPS}_c0")
    assert core not in biomass.metabolites
    assert biomass.metabolites[essential] * essential.formula_weight == pytest.approx(-0.025 * core.formula_weight)
    assert biomass.metabolites[essential] < 2 * -0.025  # a smaller molecule: more of it per gram
    assert not require_essential_lps(model, template)


@pytest.mark.parametrize("template_name", ["GramNegative", "GramPositive"])
def test_dispensable_cofactors_leave_the_biomass_and_their_mass_stays(data_dir: Path, template_name: str) -> None:
    """A biomass with the template's cofactors in equal moles, as ModelSEEDpy writes it:
    glutathione, spermidine, putrescine, cobamide (with the two by-products the template links
    to it) and sulfate leave, and ubiquinone-8 and siroheme too on GramPositive; the other
    cofactors share the same grams in equal moles; a second call changes nothing."""
    from gem_flux_mcp.modeling.biomass_needs import DISPENSABLE, drop_dispensable_cofactors
    gram_positive_only = {"cpd15560", "cpd00557"}  # ubiquinone-8, siroheme

    template = load_template(data_dir, template_name)
    model = cobra.Model("cofactors")
    biomass = cobra.Reaction("bio1")
    model.add_reactions([biomass])
    stoichiometry: dict[cobra.Metabolite, float] = {}
    for component in template.biomasses[0].templateBiomassComponents:
        if component.comp_class == "cofactor":
            stoichiometry[component.metabolite.to_metabolite("0")] = -0.003
            for linked, link in component.linked_metabolites.items():
                stoichiometry[linked.to_metabolite("0")] = -0.003 * link
    biomass.add_metabolites(stoichiometry)
    before = {m.id: c for m, c in biomass.metabolites.items()}

    def grams(reaction: cobra.Reaction) -> float:
        """What the biomass takes from the cell, per mmol, by its atoms (R groups must cancel)."""
        from cobra.core.formula import elements_and_molecular_weights as weights

        counts: dict[str, float] = {}
        for metabolite, coefficient in reaction.metabolites.items():
            for element, number in metabolite.elements.items():
                counts[element] = counts.get(element, 0.0) - coefficient * number
        assert abs(counts.get("R", 0.0)) < 1e-12
        return sum(n * weights[e] for e, n in counts.items() if e != "R")

    mass = grams(biomass)
    dropped = drop_dispensable_cofactors(model, template, gram_positive=template_name == "GramPositive")
    expected = set(DISPENSABLE) | (gram_positive_only if template_name == "GramPositive" else set())
    assert set(dropped) == expected
    after = {m.id: c for m, c in biomass.metabolites.items()}
    assert not {f"{c}_c0" for c in expected} & set(after)
    assert "cpd01997_c0" not in after and "cpd03422_c0" not in after  # cobamide's by-products
    assert all((f"{c}_c0" in after) == (template_name == "GramNegative") for c in gram_positive_only)
    kept = {mid: c for mid, c in after.items() if c < 0}
    assert len(kept) == len([c for c in before.values() if c < 0]) - len(expected)
    assert len({round(c, 12) for c in kept.values()}) == 1 and next(iter(kept.values())) < -0.003
    assert grams(biomass) == pytest.approx(mass, rel=1e-9)
    assert drop_dispensable_cofactors(model, template, gram_positive=True) == []


@pytest.mark.parametrize("template_name", ["GramNegative", "GramPositive"])
def test_branched_lipids_give_way_to_straight_chains_without_the_dehydrogenase(data_dir: Path,
                                                                                 template_name: str) -> None:
    """The template biomass's lipid and lipoteichoic-acid species in equal moles, as ModelSEEDpy
    writes them: without a gene for the branched-chain 2-oxo acid dehydrogenase every iso- and
    anteiso-heptadecanoyl species is replaced by the stearoyl species of its class, the biomass
    keeps its grams; with one (a gene on rxn01207), nothing changes."""
    from gem_flux_mcp.modeling.biomass_needs import STRAIGHT_CHAIN, straight_chain_lipids

    template = load_template(data_dir, template_name)

    def lipid_biomass(with_dehydrogenase: bool) -> tuple[cobra.Model, cobra.Reaction]:
        model = cobra.Model("lipids")
        biomass = cobra.Reaction("bio1")
        model.add_reactions([biomass])
        biomass.add_metabolites({c.metabolite.to_metabolite("0"): -0.001
                                 for c in template.biomasses[0].templateBiomassComponents
                                 if c.comp_class in ("lipid", "cellwall") and c.metabolite.id[:8] in
                                 {*STRAIGHT_CHAIN, *STRAIGHT_CHAIN.values()}})
        if with_dehydrogenase:
            dehydrogenase = cobra.Reaction("rxn01207_c0")
            model.add_reactions([dehydrogenase])
            dehydrogenase.gene_reaction_rule = "bkdA1 and bkdA2"
        return model, biomass

    def grams(reaction: cobra.Reaction) -> float:
        return -sum(c * m.formula_weight for m, c in reaction.metabolites.items())

    model, biomass = lipid_biomass(with_dehydrogenase=False)
    branched = {m.id[:8] for m in biomass.metabolites} & set(STRAIGHT_CHAIN)
    assert len(branched) == (6 if template_name == "GramNegative" else 14)
    mass = grams(biomass)
    assert set(straight_chain_lipids(model, template)) == branched
    left = {m.id[:8]: c for m, c in biomass.metabolites.items() if c < 0}
    assert not branched & set(left) and set(left) == {STRAIGHT_CHAIN[b] for b in branched}
    assert grams(biomass) == pytest.approx(mass, rel=1e-9)
    assert straight_chain_lipids(model, template) == []  # once only
    model, biomass = lipid_biomass(with_dehydrogenase=True)
    before = dict(biomass.metabolites)
    assert straight_chain_lipids(model, template) == [] and dict(biomass.metabolites) == before


def biomass_only(template: Any, wanted: Callable[[Any], bool]) -> cobra.Model:
    """A model of one reaction, bio1, asking for 0.001 of each template biomass component `wanted`
    takes (its objective)."""
    model = cobra.Model("biomass")
    biomass = cobra.Reaction("bio1", upper_bound=1000.0)
    model.add_reactions([biomass])
    biomass.add_metabolites({c.metabolite.to_metabolite("0"): -0.001
                             for c in template.biomasses[0].templateBiomassComponents if wanted(c)})
    model.objective = biomass
    return model


def assert_pools_keep_grams(fillers: list[cobra.Reaction]) -> None:
    """A pool's grams are the same whichever species fills it, and only the biomass takes it."""
    for filler in fillers:
        (source, amount), = ((m, -c) for m, c in filler.metabolites.items() if c < 0)
        (pool, _), = ((m, c) for m, c in filler.metabolites.items() if c > 0)
        assert amount * source.formula_weight == pytest.approx(pool.formula_weight, rel=1e-9)
        assert [r.id for r in pool.reactions if r.id not in (f.id for f in fillers)] == ["bio1"]


@pytest.mark.parametrize("template_name", ["GramNegative", "GramPositive"])
def test_with_the_dehydrogenase_the_biomass_takes_branched_or_straight_chains(data_dir: Path,
                                                                              template_name: str) -> None:
    """With a gene for the branched-chain 2-oxo acid dehydrogenase each branched species becomes a
    pool filled by it or by the straight-chain species of its class, gram for gram: the biomass
    grows on straight chains alone (as bkd mutants do) and on branched ones alone; without the
    gene, nothing is pooled (the species were replaced, above)."""
    from cobra.flux_analysis import flux_variability_analysis

    from gem_flux_mcp.modeling.biomass_needs import BIOMASS_PART, STRAIGHT_CHAIN, either_chain_lipids
    from gem_flux_mcp.modeling.diagnose.structure import imbalanced_reactions, is_biomass_like

    template = load_template(data_dir, template_name)
    species = {*STRAIGHT_CHAIN, *STRAIGHT_CHAIN.values()}

    def lipid_model(with_dehydrogenase: bool) -> cobra.Model:
        model = biomass_only(template, lambda c: c.comp_class in ("lipid", "cellwall")
                             and c.metabolite.id[:8] in species)
        for metabolite in list(model.reactions.bio1.metabolites):  # every species can be supplied
            model.add_boundary(metabolite, type="sink", lb=-1000.0, ub=0.0)
        if with_dehydrogenase:
            dehydrogenase = cobra.Reaction("rxn01207_c0")
            model.add_reactions([dehydrogenase])
            dehydrogenase.gene_reaction_rule = "bkdA1 and bkdA2"
        return model

    assert either_chain_lipids(lipid_model(with_dehydrogenase=False), template) == []
    model = lipid_model(with_dehydrogenase=True)
    biomass = model.reactions.bio1
    branched = {m.id[:8] for m in biomass.metabolites} & set(STRAIGHT_CHAIN)

    def growth_with_only(kept: set[str]) -> float:
        with model:
            for reaction in model.boundary:
                if reaction.id[3:11] in set(STRAIGHT_CHAIN) - kept:  # SK_cpd#####_c0
                    reaction.lower_bound = 0.0
            return float(model.slim_optimize(error_value=0.0))

    assert growth_with_only(set()) == pytest.approx(0.0, abs=1e-9)  # branched species required
    assert set(either_chain_lipids(model, template)) == branched
    assert either_chain_lipids(model, template) == []  # once only
    assert not branched & {m.id[:8] for m in biomass.metabolites}
    assert growth_with_only(set()) > 1.0 and growth_with_only(branched) > 1.0
    fillers = [r for r in model.reactions if BIOMASS_PART in r.notes]
    assert len(fillers) == 2 * len(branched) and all(is_biomass_like(r) for r in fillers)
    assert not set(imbalanced_reactions(model).imbalanced) & {r.id for r in fillers}
    assert_pools_keep_grams(fillers)
    assert flux_variability_analysis(model, reaction_list=fillers, fraction_of_optimum=1.0)["maximum"].max() > 0


@pytest.mark.parametrize("template_name", ["GramNegative", "GramPositive"])
def test_with_menA_for_heptaprenyl_the_biomass_takes_mk8_or_mk7(data_dir: Path, template_name: str) -> None:
    """With a gene for 1,4-dihydroxy-2-naphthoate heptaprenyltransferase (B. subtilis' MenA),
    menaquinone-8 and 2-demethylmenaquinone-8 become pools filled by them or by their MK-7 forms,
    gram for gram: the biomass grows on MK-7 alone, as B. subtilis does; without the gene nothing
    changes."""
    from gem_flux_mcp.modeling.biomass_needs import BIOMASS_PART, MENAQUINONE_7, either_chain_menaquinones

    template = load_template(data_dir, template_name)

    def quinone_model(with_mena: bool) -> cobra.Model:
        model = biomass_only(template, lambda c: c.metabolite.id[:8] in MENAQUINONE_7)
        for cid in (*MENAQUINONE_7, *MENAQUINONE_7.values()):  # every species can be supplied
            metabolite = template.compcompounds.get_by_id(f"{cid}_c").to_metabolite("0")
            model.add_metabolites([metabolite])
            model.add_boundary(model.metabolites.get_by_id(metabolite.id), type="sink", lb=-1000.0, ub=0.0)
        if with_mena:
            mena = cobra.Reaction("rxn05267_c0")
            model.add_reactions([mena])
            mena.gene_reaction_rule = "menA"
        return model

    def growth_without(closed: set[str]) -> float:
        with model:
            for cid in closed:
                model.reactions.get_by_id(f"SK_{cid}_c0").lower_bound = 0.0
            return float(model.slim_optimize(error_value=0.0))

    model = quinone_model(with_mena=False)
    assert {m.id[:8] for m in model.reactions.bio1.metabolites} == set(MENAQUINONE_7)
    assert either_chain_menaquinones(model, template) == []
    model = quinone_model(with_mena=True)
    assert growth_without(set(MENAQUINONE_7)) == pytest.approx(0.0, abs=1e-9)  # MK-8 species required
    assert set(either_chain_menaquinones(model, template)) == set(MENAQUINONE_7)
    assert either_chain_menaquinones(model, template) == []  # once only
    assert growth_without(set(MENAQUINONE_7)) > 1.0 and growth_without(set(MENAQUINONE_7.values())) > 1.0
    fillers = [r for r in model.reactions if BIOMASS_PART in r.notes]
    assert len(fillers) == 4
    assert_pools_keep_grams(fillers)


def test_ecoli_is_gapfilled_without_the_methyl_branched_fatty_acid_pathway(ecoli_run: Any) -> None:
    """E. coli has no branched-chain 2-oxo acid dehydrogenase: its biomass asks for straight-chain
    lipids, so gapfilling on glucose adds none of the ~60 gene-less reactions of iso- and
    anteiso-fatty acid synthesis it used to, and few reactions without evidence at all."""
    from gem_flux_mcp.modeling.biomass_needs import LIPIDS_NOTE

    run, report = ecoli_run
    assert LIPIDS_NOTE in run.model.reactions.get_by_id("bio1").notes
    names = [entry["name"].lower() for entry in report["reactions_added"]]
    assert not [n for n in names if "methyl" in n and "acp" in n], names
    contexts = report["additions_by_context"]
    assert contexts["without_evidence"] <= 25, contexts


def test_a_complex_keeps_a_subunit_found_only_near_best(ecoli_run: Any) -> None:
    """Phenylalanine-tRNA ligase is one enzyme of two subunits (pheS, pheT). When only one of them
    is a protein's best hit in the reference, the other comes from the genome's near-best hits, so
    the rule is "pheS and pheT", not "pheS or pheT": COBRApy's own knock-out of either subunit
    closes every reaction of the enzyme."""
    model = ecoli_run[0].model
    phe_s, phe_t = "NP_416229.1", "NP_416228.1"
    reactions = model.genes.get_by_id(phe_t).reactions
    assert reactions and all(phe_s in {g.id for g in r.genes} for r in reactions)
    for gene in (phe_s, phe_t):
        with model:
            model.genes.get_by_id(gene).knock_out()
            assert all(r.bounds == (0.0, 0.0) for r in reactions), gene
