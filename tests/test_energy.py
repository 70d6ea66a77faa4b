"""modeling/energy.py, kinases of phosphoryl donors above ATP: pyruvate and carbamate kinases only
make the triphosphate, in drafts, at the start of gapfilling and among gapfill candidates; other
kinases (acetate kinase, PEP carboxykinase) keep both directions."""

from __future__ import annotations

import cobra

from gem_flux_mcp.modeling.energy import nucleotide_making_sign, orient_nucleotide_making_kinases
from gem_flux_mcp.modeling.gapfill.network import _offered_directions

ATP, ADP, GTP, GDP, H = "cpd00002_c0", "cpd00008_c0", "cpd00038_c0", "cpd00031_c0", "cpd00067_c0"
PYR, PEP, CO2, NH3, CBP = "cpd00020_c0", "cpd00061_c0", "cpd00011_c0", "cpd00013_c0", "cpd00146_c0"
AC, ACP, OAA = "cpd00029_c0", "cpd00196_c0", "cpd00032_c0"

# as ModelSEED writes them (reactions.tsv)
PYRUVATE_KINASE = {ATP: -1, PYR: -1, ADP: 1, PEP: 1, H: 1}  # rxn00148, written uphill
GTP_PYRUVATE_KINASE = {PYR: -1, GTP: -1, GDP: 1, PEP: 1, H: 1}  # rxn00304
CARBAMATE_KINASE = {ATP: -1, CO2: -1, NH3: -1, ADP: 1, H: 2, CBP: 1}  # rxn00114
ACETATE_KINASE = {ATP: -1, AC: -1, ADP: 1, ACP: 1}  # rxn00225: near equilibrium, both ways
PEP_CARBOXYKINASE = {ATP: -1, OAA: -1, ADP: 1, CO2: 1, PEP: 1}  # rxn00247: a decarboxylation drives it


def test_the_triphosphate_making_direction_is_found() -> None:
    assert nucleotide_making_sign(PYRUVATE_KINASE) == -1
    assert nucleotide_making_sign(GTP_PYRUVATE_KINASE) == -1
    assert nucleotide_making_sign(CARBAMATE_KINASE) == -1
    assert nucleotide_making_sign({k: -v for k, v in CARBAMATE_KINASE.items()}) == 1
    assert nucleotide_making_sign(ACETATE_KINASE) is None
    assert nucleotide_making_sign(PEP_CARBOXYKINASE) is None
    assert nucleotide_making_sign({ATP.replace("_c0", "_e0"): -1, PYR: -1, ADP: 1, PEP: 1}) is None


def test_drafts_and_gapfill_candidates_keep_only_that_direction() -> None:
    model = cobra.Model("kinases")
    reactions = []
    for rid, stoichiometry in (("rxn00148_c0", PYRUVATE_KINASE), ("rxn00114_c0", CARBAMATE_KINASE),
                               ("rxn00225_c0", ACETATE_KINASE)):
        reaction = cobra.Reaction(rid, lower_bound=-1000, upper_bound=1000)
        reaction.add_metabolites({cobra.Metabolite(m, compartment="c0") if m not in model.metabolites
                                  else model.metabolites.get_by_id(m): c for m, c in stoichiometry.items()})
        model.add_reactions([reaction])
        reactions.append(reaction)
    assert sorted(orient_nucleotide_making_kinases(model)) == ["rxn00114_c0", "rxn00148_c0"]
    assert model.reactions.rxn00148_c0.bounds == (-1000, 0) and model.reactions.rxn00114_c0.bounds == (-1000, 0)
    assert "gemflux_direction" in model.reactions.rxn00114_c0.notes
    assert model.reactions.rxn00225_c0.bounds == (-1000, 1000)
    assert orient_nucleotide_making_kinases(model) == []

    # carbamoyl phosphate from ATP and carbamate is not offered to gapfilling, nor PEP from GTP
    assert _offered_directions("=", CARBAMATE_KINASE) == (-1,)
    assert _offered_directions("=", GTP_PYRUVATE_KINASE) == (-1,)
    assert _offered_directions(">", GTP_PYRUVATE_KINASE) == ()
    assert _offered_directions("=", ACETATE_KINASE) == (1, -1)
