"""A kinase's other phosphoryl donors (modeling/kinase_donors.py), on the real GramPositive template
and the ModelSEED database's EC numbers: pyruvate kinase's GTP/UTP/... reactions come with the
ATP reaction's genes, and a cell without nucleoside-diphosphate kinase can then make UTP."""

from __future__ import annotations

import csv
from pathlib import Path

import cobra
import pytest

from gem_flux_mcp.data.templates import load_template
from gem_flux_mcp.modeling.kinase_donors import NOTE, add_donor_variants, donor_variants


@pytest.fixture(scope="module")
def ec_numbers(data_dir: Path) -> dict[str, list[str]]:
    with (data_dir / "modelseed" / "reactions.tsv").open(newline="") as handle:
        return {row["id"]: [n for n in (row["ec_numbers"] or "").split("|") if n and n != "null"]
                for row in csv.DictReader(handle, delimiter="\t")}


def test_pyruvate_kinase_takes_the_other_nucleotides_and_an_atpase_does_not(data_dir: Path,
                                                                           ec_numbers: dict[str, list[str]]) -> None:
    template = load_template(data_dir, "GramPositive")
    variants = donor_variants(template, ec_numbers)
    pyruvate_kinase = {rid for rid, _ in variants["rxn00148_c"]}
    # GTP, CTP, UTP, ITP, dATP, dGTP: the template files these under galacturonokinase
    assert {"rxn00304_c", "rxn00411_c", "rxn00460_c", "rxn00517_c", "rxn00840_c", "rxn01354_c"} <= pyruvate_kinase
    assert "rxn00062_c" not in variants  # ATP phosphohydrolase (EC 3.6.1.-): not a phosphotransferase
    # nucleoside-diphosphate kinase (ATP + UDP <=> ADP + UTP) already holds another nucleotide
    assert "rxn00117_c" not in variants


def test_a_cell_without_ndk_makes_utp_with_pyruvate_kinase(data_dir: Path,
                                                           ec_numbers: dict[str, list[str]]) -> None:
    template = load_template(data_dir, "GramPositive")
    model = cobra.Model("pyk")
    pyk = template.reactions.get_by_id("rxn00148_c").to_reaction(model, "0")
    pyk.bounds = (-1000.0, 0.0)  # as the database writes it: ATP + pyruvate <-- ADP + PEP + H+
    pyk.gene_reaction_rule = "pykA or pykF"
    model.add_reactions([pyk])
    added = add_donor_variants(model, template, ec_numbers)
    assert added["rxn00460_c0"] == "rxn00148_c0"  # UTP:pyruvate 2-O-phosphotransferase
    utp_kinase = model.reactions.rxn00460_c0
    assert utp_kinase.gene_reaction_rule == "pykA or pykF" and utp_kinase.notes[NOTE] == "rxn00148_c0"
    metabolites = model.metabolites
    for compound in ("cpd00061", "cpd00014", "cpd00067"):  # PEP, UDP and protons given
        model.add_boundary(metabolites.get_by_id(f"{compound}_c0"), type="sink", lb=-10, ub=0)
    model.add_boundary(metabolites.get_by_id("cpd00020_c0"), type="demand")  # pyruvate leaves
    model.objective = model.add_boundary(metabolites.get_by_id("cpd00062_c0"), type="demand")  # UTP
    assert model.slim_optimize() == pytest.approx(10.0)
    with model:
        model.genes.pykA.knock_out()
        model.genes.pykF.knock_out()
        assert model.slim_optimize(error_value=0.0) == pytest.approx(0.0, abs=1e-9)
    # the ATP reaction's direction, whichever way round the variant is written: no PEP from UTP
    assert utp_kinase.bounds in {(-1000.0, 0.0), (0.0, 1000.0)}
    assert add_donor_variants(model, template, ec_numbers) == {}  # present already
