"""Transporters beyond the template (modeling/database_transport.py): the database's transport
reactions matched to homology-evidenced BiGG transports that no template reaction has, added only
where the draft has the compound inside and nothing moving it across, and only importers. Checked
against the real ModelSEED database and COBRApy."""

from __future__ import annotations

from typing import Any

import cobra
import pytest

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling.annotate import HomologyEvidence
from gem_flux_mcp.modeling.bigg_match import stoichiometry_key
from gem_flux_mcp.modeling.database_transport import add_database_transporters, imports, transport_index

MELIBIOSE, RAFFINOSE, GLUTATHIONE, GLUCOSE, DALADALA = "cpd03198", "cpd00382", "cpd00042", "cpd00027", "cpd00731"
ATP, ADP, PI, H2O, H = "cpd00002", "cpd00008", "cpd00009", "cpd00001", "cpd00067"


def abc_import(cargo: str) -> dict[tuple[str, str], float]:
    """A BiGG ABC importer (`MELIBabc`) as bigg_match writes it in ModelSEED compounds."""
    return {(ATP, "c"): -1, (H2O, "c"): -1, (cargo, "e"): -1, (ADP, "c"): 1, (PI, "c"): 1, (H, "c"): 1,
            (cargo, "c"): 1}


def evidence(gene: str, bigg: str) -> HomologyEvidence:
    return HomologyEvidence({frozenset({frozenset({gene})})}, gene, f"ref.{gene}", 55.0, {bigg})


def draft(*inside: str) -> cobra.Model:
    """A draft with each compound in the cytosol, used by a reaction with a gene; glucose also
    outside, with its transporter."""
    model = cobra.Model("draft")
    reactions = []
    for compound in (*inside, GLUCOSE):
        metabolite = cobra.Metabolite(f"{compound}_c0", compartment="c0")
        use = cobra.Reaction(f"use_{compound}", lower_bound=0.0, upper_bound=1000.0)
        use.add_metabolites({metabolite: -1})
        use.gene_reaction_rule = f"g_{compound}"
        reactions.append(use)
    glucose_out = cobra.Metabolite(f"{GLUCOSE}_e0", compartment="e0")
    carrier = cobra.Reaction("rxn05226_c0", lower_bound=-1000.0, upper_bound=1000.0)
    carrier.add_metabolites({glucose_out: -1, model_metabolite(reactions, f"{GLUCOSE}_c0"): 1})
    model.add_reactions([*reactions, carrier])
    return model


def model_metabolite(reactions: list[cobra.Reaction], mid: str) -> cobra.Metabolite:
    return next(m for r in reactions for m in r.metabolites if m.id == mid)


@pytest.fixture(scope="module")
def index(biochem: BiochemIndex) -> dict[Any, Any]:
    return transport_index(biochem.transport_reactions())


def test_an_evidenced_abc_importer_is_added_where_nothing_moves_the_compound(biochem: BiochemIndex,
                                                                             index: dict[Any, Any]) -> None:
    model = draft(MELIBIOSE, RAFFINOSE, GLUTATHIONE)
    unmatched = {"MELIBabc": evidence("g1", "MELIBabc"), "RAFFabc": evidence("g2", "RAFFabc"),
                 "GLCabc": evidence("g3", "GLCabc")}
    converted = {"MELIBabc": abc_import(MELIBIOSE), "RAFFabc": abc_import(RAFFINOSE), "GLCabc": abc_import(GLUCOSE)}
    added = add_database_transporters(model, unmatched, converted, index, biochem)
    # glucose already has a transporter: none added for it
    assert set(added) == {"rxn18574_c0", "rxn18495_c0"}
    assert added["rxn18574_c0"].bigg_reactions == {"MELIBabc"}
    melibiose = model.reactions.get_by_id("rxn18574_c0")
    record = biochem.get_reaction("rxn18574")
    assert melibiose.bounds == (0.0, 1000.0) and record["reversibility_symbol"] == ">"
    outside = model.metabolites.get_by_id(f"{MELIBIOSE}_e0")
    compound = biochem.get_compound(MELIBIOSE)
    assert outside.compartment == "e0" and outside.formula == compound["formula"]
    assert outside.charge == compound["charge"] and outside.name.startswith(compound["name"])
    assert melibiose.metabolites[outside] == -1
    assert melibiose.metabolites[model.metabolites.get_by_id(f"{ATP}_c0")] == -1
    # COBRApy: with an exchange, melibiose enters through it (and only into the cell)
    model.add_boundary(outside, type="exchange", lb=-10.0)
    model.objective = f"use_{MELIBIOSE}"
    regenerate = cobra.Reaction("make_ATP", lower_bound=0.0, upper_bound=1000.0)  # ATP from ADP, for the test
    regenerate.add_metabolites({model.metabolites.get_by_id(f"{m}_c0"): v for m, v in
                                ((ADP, -1), (PI, -1), (H, -1), (ATP, 1), (H2O, 1))})
    model.add_reactions([regenerate])
    assert model.slim_optimize() == pytest.approx(10.0)
    with model:
        model.objective = {model.reactions.get_by_id(f"EX_{MELIBIOSE}_e0"): 1}  # secretion
        model.reactions.get_by_id(f"use_{MELIBIOSE}").upper_bound = 0.0
        assert model.slim_optimize() == pytest.approx(0.0)


def test_nothing_is_added_for_a_compound_not_inside_made_by_the_cell_or_exported(biochem: BiochemIndex,
                                                                                 index: dict[Any, Any]) -> None:
    model = draft(GLUTATHIONE, DALADALA)
    ligase = cobra.Reaction("ddl", lower_bound=0.0, upper_bound=1000.0)  # the cell makes its D-Ala-D-Ala
    ligase.add_metabolites({model.metabolites.get_by_id(f"{GLUCOSE}_c0"): -1,
                            model.metabolites.get_by_id(f"{DALADALA}_c0"): 1})
    ligase.gene_reaction_rule = "ddl"
    model.add_reactions([ligase])
    before = {r.id for r in model.reactions}
    exporter = {(ATP, "c"): -1, (H2O, "c"): -1, (GLUTATHIONE, "c"): -1, (ADP, "c"): 1, (PI, "c"): 1, (H, "c"): 1,
                (GLUTATHIONE, "e"): 1}
    unmatched = {b: evidence("g1", b) for b in ("MELIBabc", "GTHRDout", "DALADALAabcpp")}
    converted = {"MELIBabc": abc_import(MELIBIOSE), "GTHRDout": exporter, "DALADALAabcpp": abc_import(DALADALA)}
    assert any(t.reaction_id == "rxn08098" for t in index[stoichiometry_key(converted["DALADALAabcpp"])])
    added = add_database_transporters(model, unmatched, converted, index, biochem)
    # no melibiose inside; glutathione's is an exporter; D-Ala-D-Ala is made by a ligase with a gene
    assert added == {} and {r.id for r in model.reactions} == before
    ligase.gene_reaction_rule = ""  # made, but by no enzyme of the genome: the transporter may come
    assert set(add_database_transporters(model, unmatched, converted, index, biochem)) == {"rxn08098_c0"}
    found = index[next(k for k, ts in index.items() if any(t.reaction_id == "rxn08675" for t in ts))]
    assert not imports(next(t for t in found if t.reaction_id == "rxn08675"))  # glutathione out, ATP-driven
