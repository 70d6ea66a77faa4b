"""Exported models are valid and complete: libsbml finds no error in the SBML of every kind of
model the server holds (imported ModelSEEDpy JSON with "null" formulas, COBRApy's textbook and
iJO1366, a built draft, a gapfilled and a revised model); COBRApy reads them back without a
warning, with the same reactions, notes and evidence, and with identifiers.org annotations and
SBO terms; COBRApy JSON round-trips exactly; an export that would lose content is an error."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cobra
import libsbml
import pytest
from cobra.io import load_json_model, load_model, save_json_model, to_json

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import LibraryError
from gem_flux_mcp.modeling import model_io, revise
from gem_flux_mcp.modeling.sbml import group_checks, validate
from gem_flux_mcp.modeling.sbml.annotations import merge_annotation, model_annotations
from gem_flux_mcp.modeling.sbml.sanitize import is_chemical_formula
from mcp_client import call, in_process_client
from models import modelseed_core_model

if TYPE_CHECKING:
    from gem_flux_mcp.modeling import gapfill as gf

IGNORED_CATEGORIES = {libsbml.LIBSBML_CAT_UNITS_CONSISTENCY, libsbml.LIBSBML_CAT_MODELING_PRACTICE}


def libsbml_issues(path: Path) -> tuple[list[str], list[str]]:
    """(errors, warnings) of libsbml reading `path` and running its consistency checks, except
    the units and modelling-practice checks (species units, initial amounts: nothing FBA uses,
    and nothing COBRApy writes; on iJO1366 they are two thirds of the checking time and found
    only warnings of that kind)."""
    document = libsbml.readSBMLFromFile(str(path))
    for category in IGNORED_CATEGORIES:
        document.setConsistencyChecks(category, False)
    document.checkConsistency()
    errors, warnings = [], []
    for i in range(document.getNumErrors()):
        issue = document.getError(i)
        text = f"{issue.getErrorId()} {' '.join(issue.getMessage().split())[:300]}"
        if issue.getSeverity() >= libsbml.LIBSBML_SEV_ERROR:
            errors.append(text)
        elif issue.getSeverity() == libsbml.LIBSBML_SEV_WARNING and issue.getCategory() not in IGNORED_CATEGORIES:
            warnings.append(text)
    return errors, warnings


def cobra_records(records: list[logging.LogRecord]) -> list[str]:
    return [f"{r.levelname} {r.getMessage()}" for r in records
            if r.name.startswith("cobra") and r.levelno >= logging.WARNING]


def notes_of(model: cobra.Model) -> dict[str, dict[str, str]]:
    return {r.id: {k: str(v) for k, v in r.notes.items()} for r in model.reactions if r.notes}


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def cobra_warnings() -> Iterator[list[logging.LogRecord]]:
    """What COBRApy's loggers say at WARNING or above during the block (as caplog would see it,
    usable from a module-scoped fixture too)."""
    handler = _Records()
    logger = logging.getLogger("cobra")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(min(level or logging.WARNING, logging.WARNING))
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def export_and_check(model: cobra.Model, path: Path,
                     biochem: BiochemIndex | None) -> tuple[cobra.Model, model_io.WrittenModel]:
    """Export `model` as export_model does; check the file with libsbml and COBRApy; return the
    model read back (notes decoded, as import_model reads it) and the export's answer."""
    before = to_json(model)
    annotations = model_annotations(model, biochem)  # SBO terms only when biochem is None
    written = model_io.export_model_file(model, path, "sbml", annotations)
    assert to_json(model) == before, "exporting must not change the model"
    errors, warnings = libsbml_issues(path)
    assert errors == [] and warnings == [], (errors[:5], warnings[:5])
    with cobra_warnings() as records:
        back = model_io.read_model(path, "sbml")  # COBRApy's reader, notes' XML escaping undone
    assert cobra_records(records) == []
    assert libsbml.SyntaxChecker.isValidSBMLSId(back.id)
    assert len(back.reactions) == len(model.reactions)
    assert {r.id for r in back.reactions} == {r.id for r in model.reactions}
    assert notes_of(back) == notes_of(model)
    for reaction in model.reactions:
        assert back.reactions.get_by_id(reaction.id).bounds == pytest.approx(reaction.bounds)
        assert back.reactions.get_by_id(reaction.id).gpr.to_string() == reaction.gpr.to_string()
    assert not list(path.parent.glob(".*.tmp"))
    return back, written


def modelseedpy_json(data_dir: Path, path: Path) -> None:
    """A model as ModelSEEDpy/KBase write it: ModelSEED ids, a biomass reaction making cpd11416
    (Biomass) and mRNA cpd11462, formula "null" on both, a model id with dots."""
    model = modelseed_core_model(data_dir)
    model.id = "kbase_model.draft.gf"
    mrna = cobra.Metabolite("cpd11462_c0", name="mRNA", formula="C9H10N2O8PR", compartment="c0")
    biomass = cobra.Metabolite("cpd11416_c0", name="Biomass", formula="C0", compartment="c0")
    atp, adp = model.metabolites.cpd00002_c0, model.metabolites.cpd00008_c0
    bio1 = cobra.Reaction("bio1", name="Biomass", lower_bound=0, upper_bound=1000)
    bio1.add_metabolites({atp: -40.0, mrna: -0.01, adp: 40.0, biomass: 1.0})
    rna = cobra.Reaction("rxn99991_c0", name="mRNA synthesis", lower_bound=0, upper_bound=1000)
    rna.add_metabolites({atp: -1.0, mrna: 1.0, adp: 1.0})
    rna.notes = {"gemflux_atp_filtered": "<", "gemflux_evidence": json.dumps({"roles": ["a & b"], "x": "5'-P"}),
                 # text that reads like an annotation
                 "comment": '<rdf:li rdf:resource="https://identifiers.org/chebi/CHEBI:17234"/>'}
    model.add_reactions([bio1, rna])
    model.add_boundary(biomass, type="sink", reaction_id="SK_cpd11416_c0", lb=0, ub=1000)
    model.objective = "bio1"
    save_json_model(model, str(path))
    raw = json.loads(path.read_text())
    for metabolite in raw["metabolites"]:
        if metabolite["id"] in ("cpd11416_c0", "cpd11462_c0"):
            metabolite["formula"] = "null"
    path.write_text(json.dumps(raw))


def test_imported_modelseedpy_json_with_null_formulas(data_dir: Path, biochem: BiochemIndex, tmp_path: Path) -> None:
    modelseedpy_json(data_dir, tmp_path / "kbase.json")
    model = model_io.read_model(tmp_path / "kbase.json", "json")
    assert model.metabolites.cpd11416_c0.formula == "null"
    back, written = export_and_check(model, tmp_path / "kbase.xml", biochem)
    # the invalid formulas are left out and said so; valid ones are kept
    assert back.metabolites.cpd11416_c0.formula is None and back.metabolites.cpd11462_c0.formula is None
    assert back.metabolites.cpd00027_e0.formula == model.metabolites.cpd00027_e0.formula
    assert any("cpd11416_c0" in w and "cpd11462_c0" in w for w in written.warnings), written.warnings
    # the id is an SBML SId; the original is the name
    assert back.id == "kbase_model_draft_gf" and back.name == "kbase_model.draft.gf"
    # notes with '<', '&' and quotes survive
    assert back.reactions.rxn99991_c0.notes == model.reactions.rxn99991_c0.notes
    glucose = back.metabolites.cpd00027_e0.annotation
    assert glucose["seed.compound"] == "cpd00027" and "C00031" in str(glucose["kegg.compound"])
    assert glucose["sbo"] == "SBO:0000247" and glucose["inchikey"]
    assert back.reactions.bio1.annotation["sbo"] == "SBO:0000629"
    assert back.reactions.SK_cpd11416_c0.annotation["sbo"] == "SBO:0000628"  # one-way: a demand
    assert back.reactions.EX_cpd00027_e0.annotation["sbo"] == "SBO:0000627"
    assert back.reactions.ATPM_c0.annotation["sbo"] == "SBO:0000630"
    text = (tmp_path / "kbase.xml").read_text()
    assert "https://identifiers.org/seed.compound:cpd00027" in text and "https://identifiers.org/CHEBI:" in text
    # annotations are compacted, a note that reads like one is the user's text and is kept as written
    assert "https://identifiers.org/seed.compound/" not in text and "identifiers.org/chebi/CHEBI:17234" in text

    # COBRApy JSON round-trips exactly, with the same annotations as the SBML
    annotations = model_annotations(model, biochem)
    written_json = model_io.export_model_file(model, tmp_path / "kbase_out.json", "json", annotations)
    assert written_json.warnings == []
    again = load_json_model(str(tmp_path / "kbase_out.json"))
    assert [r.id for r in again.reactions] == [r.id for r in model.reactions]
    for reaction in model.reactions:
        other = again.reactions.get_by_id(reaction.id)
        assert (other.bounds, other.gene_reaction_rule, other.notes, other.subsystem) == (
            reaction.bounds, reaction.gene_reaction_rule, reaction.notes, reaction.subsystem)
        assert {m.id: c for m, c in other.metabolites.items()} == {m.id: c for m, c in reaction.metabolites.items()}
        assert other.annotation == merge_annotation(reaction.annotation, annotations.reactions[reaction.id])
    assert again.metabolites.cpd11416_c0.formula == "null"  # JSON keeps what the model has
    assert again.reactions.rxn99991_c0.annotation["sbo"] == "SBO:0000176"
    assert again.metabolites.cpd00027_e0.annotation == back.metabolites.cpd00027_e0.annotation


def modelseedpy_built(data_dir: Path) -> cobra.Model:
    """A draft ModelSEEDpy's MSBuilder assembles itself from the E. coli proteome, roles matched
    from the headers' product names: its gene rules nest alternatives, e.g.
    '(NP_415345.2 or NP_415422.1) or (NP_415344.1 or NP_415423.1)'."""
    from modelseedpy.core.msbuilder import MSBuilder
    from modelseedpy.core.msgenome import MSFeature, MSGenome

    from gem_flux_mcp.data.templates import load_template
    from gem_flux_mcp.modeling.annotate import RoleMatcher, roles_from_functions
    from gem_flux_mcp.modeling.inputs import product_from_description, read_proteins_file

    template = load_template(data_dir, "GramNegative")
    proteins = read_proteins_file(data_dir / "genomes" / "ecoli_k12_mg1655.faa", "proteins").proteins
    names = {role.id: role.name for role in template.roles}
    products = {p.id: [name] for p in proteins if (name := product_from_description(p.description))}
    roles = roles_from_functions(products, RoleMatcher(names.items()))
    genome = MSGenome()
    features = []
    for protein in proteins:
        feature = MSFeature(protein.id, protein.sequence)
        for match in roles.get(protein.id, []):
            feature.add_ontology_term("RAST", names[match.role_id])
        features.append(feature)
    genome.add_features(features)
    return MSBuilder(genome, template).build("msb", "0", allow_all_non_grp_reactions=True, annotate_with_rast=False)


def same_boolean_function(rule: cobra.core.gene.GPR, other: cobra.core.gene.GPR, genes: set[str]) -> bool:
    """The two rules agree with every single gene knocked out and with every gene left alone."""
    cases = [{g} for g in genes] + [genes - {g} for g in genes] + [set(), set(genes)]
    return all(rule.eval(knocked) == other.eval(knocked) for knocked in cases)


@pytest.mark.slow  # ModelSEEDpy builds a draft of the whole E. coli proteome (~7 s)
def test_an_imported_modelseedpy_model_exports_to_sbml(data_dir: Path, tmp_path: Path) -> None:
    """A user's ModelSEEDpy model, brought in as COBRApy JSON, exports to SBML: a rule written
    with other nesting is the same rule, not a loss (it was refused before)."""
    save_json_model(modelseedpy_built(data_dir), str(tmp_path / "msb.json"))
    model = model_io.read_model(tmp_path / "msb.json", "json")
    nested = [r for r in model.reactions if ") or (" in r.gene_reaction_rule]
    assert len(nested) >= 5  # the case: rules whose text the SBML writer flattens (6-11, with the hash seed)
    written = model_io.export_model_file(model, tmp_path / "msb.xml", "sbml")
    assert written.size_bytes > 0 and written.warnings == []
    assert libsbml_issues(tmp_path / "msb.xml") == ([], [])
    with cobra_warnings() as records:
        back = model_io.read_model(tmp_path / "msb.xml", "sbml")
    assert cobra_records(records) == []
    assert {r.id for r in back.reactions} == {r.id for r in model.reactions}
    flattened = 0
    for reaction in model.reactions:
        other = back.reactions.get_by_id(reaction.id)
        assert other.bounds == pytest.approx(reaction.bounds)
        assert {m.id: c for m, c in other.metabolites.items()} == pytest.approx(
            {m.id: c for m, c in reaction.metabolites.items()})
        genes = {g.id for g in reaction.genes}
        assert {g.id for g in other.genes} == genes
        assert same_boolean_function(reaction.gpr, other.gpr, genes), reaction.id
        flattened += other.gene_reaction_rule != reaction.gene_reaction_rule
    assert flattened >= len(nested)  # the text did change; the rules did not


def test_rules_and_names_are_compared_by_meaning() -> None:
    """Nesting, repeats and order of a gene rule, and whitespace in a name, are not losses; a
    changed rule or name is."""
    from gem_flux_mcp.modeling.sbml.content import content_differences, model_content

    model = load_model("textbook")
    model.reactions.PGI.gene_reaction_rule = "(b4025 or b1101) or (b4025 or b1101) or b2417"
    model.reactions.PFK.name = "  Phosphofructokinase "
    same = model.copy()
    same.reactions.PGI.gene_reaction_rule = "b2417 or b1101 or b4025"
    same.reactions.PFK.name = "Phosphofructokinase"
    assert content_differences(model_content(model, sbml=False), model_content(same, sbml=False)) == []
    changed = model.copy()
    changed.reactions.PGI.gene_reaction_rule = "(b4025 and b1101) or b2417"
    changed.reactions.PFK.name = "Phosphofructokinase 2"
    problems = content_differences(model_content(model, sbml=False), model_content(changed, sbml=False))
    assert any(p.startswith("reactions: gene rule differs for 1 (PGI)") for p in problems), problems
    assert any(p.startswith("reactions: name differs for 1 (PFK)") for p in problems), problems


@pytest.mark.parametrize("name", ["textbook", pytest.param("iJO1366", marks=pytest.mark.slow)])
def test_cobrapy_models(name: str, tmp_path: Path) -> None:
    model = load_model(name)
    back, written = export_and_check(model, tmp_path / f"{name}.xml", None)
    # their own annotations are kept, SBO terms added
    for original, read in ((model.metabolites[0], back.metabolites[0]), (model.reactions[0], back.reactions[0])):
        for collection, value in original.annotation.items():
            if collection == "sbo":
                continue
            assert sorted(value if isinstance(value, list) else [value]) == sorted(
                read.annotation[collection] if isinstance(read.annotation[collection], list)
                else [read.annotation[collection]]), collection
    assert back.metabolites[0].annotation["sbo"] == "SBO:0000247"
    assert back.genes[0].annotation["sbo"] == "SBO:0000243"
    assert {r.id: r.subsystem for r in back.reactions if r.subsystem} == {
        r.id: r.subsystem for r in model.reactions if r.subsystem}
    assert written.warnings == []  # their ids are SBML ids already
    if name == "iJO1366":
        assert model.notes and back.notes == model.notes  # its XHTML notes come back as they were read


def test_built_draft(ecoli: cobra.Model, biochem: BiochemIndex, tmp_path: Path) -> None:
    back, _ = export_and_check(ecoli, tmp_path / "draft.xml", biochem)
    with_evidence = [r.id for r in ecoli.reactions if "gemflux_evidence" in r.notes]
    assert with_evidence and all(back.reactions.get_by_id(r).notes["gemflux_evidence"]
                                 == ecoli.reactions.get_by_id(r).notes["gemflux_evidence"] for r in with_evidence)
    annotated = [r for r in back.reactions if "seed.reaction" in r.annotation]
    assert len(annotated) > 0.9 * sum(r.id.startswith("rxn") for r in ecoli.reactions)
    refseq = [g for g in back.genes if g.id.startswith("NP_")]
    assert refseq and all(g.annotation.get("refseq") == g.id and g.annotation["sbo"] == "SBO:0000243"
                          for g in refseq)
    assert all(m.annotation.get("sbo") == "SBO:0000247" for m in back.metabolites)


@pytest.fixture(scope="module")
def gapfilled_back(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]], biochem: BiochemIndex,
                   tmp_path_factory: pytest.TempPathFactory) -> cobra.Model:
    """The gapfilled E. coli model exported and checked (export_and_check) once for the tests
    below, and read back."""
    back, _ = export_and_check(ecoli_run[0].model, tmp_path_factory.mktemp("gapfilled") / "gapfilled.xml", biochem)
    return back


def test_gapfilled_keeps_atp_correction_notes(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]],
                                              gapfilled_back: cobra.Model, tmp_path: Path) -> None:
    model = ecoli_run[0].model
    filtered = [r.id for r in model.reactions if r.notes.get("gemflux_atp_filtered") == "<"]
    assert filtered, "the gapfilled model has reactions the ATP correction turned off backwards"
    back = gapfilled_back
    for rid in filtered:
        assert back.reactions.get_by_id(rid).notes == model.reactions.get_by_id(rid).notes
    transport = [r for r in back.reactions if len(r.compartments) > 1 and len(r.metabolites) > 1]
    assert transport and all(r.annotation["sbo"] == "SBO:0000185" for r in transport)

    # COBRApy JSON round-trips exactly
    model_io.export_model_file(model, tmp_path / "gapfilled.json", "json")
    again = load_json_model(str(tmp_path / "gapfilled.json"))
    assert [(r.id, r.bounds, r.gene_reaction_rule, r.notes, r.annotation) for r in again.reactions] == [
        (r.id, r.bounds, r.gene_reaction_rule, r.notes, r.annotation) for r in model.reactions]


def positive_masses_exist(model: cobra.Model, leave_out: set[str]) -> bool:
    """Whether every metabolite of the internal reactions (more than one metabolite, not in
    `leave_out`) can get a mass >= 1 that each of them conserves: m >= 1 with S_internal^T m = 0
    (Gevorgyan et al. 2008, what MEMOTE's stoichiometric consistency asks). Solved as a sparse LP
    with SciPy's HiGHS."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.optimize import linprog

    internal = [r for r in model.reactions if len(r.metabolites) > 1 and r.id not in leave_out]
    column = {m.id: i for i, m in enumerate(model.metabolites)}
    rows, cols, values = [], [], []
    for row, reaction in enumerate(internal):
        for metabolite, coefficient in reaction.metabolites.items():
            rows.append(row)
            cols.append(column[metabolite.id])
            values.append(float(coefficient))
    balance = sp.csr_matrix((values, (rows, cols)), shape=(len(internal), len(column)))
    result = linprog(np.ones(len(column)), A_eq=balance, b_eq=np.zeros(len(internal)), bounds=(1, None),
                     method="highs")
    assert result.status in (0, 2), result.message  # optimal, or infeasible
    return bool(result.status == 0)


def test_gapfilled_model_conserves_mass(gapfilled_back: cobra.Model, data_dir: Path) -> None:
    """The exported gapfilled E. coli model is stoichiometrically consistent: no set of its
    internal reactions (biomass told by its SBO term, boundaries by their one metabolite) makes
    or destroys a metabolite. The template reactions left out as unsound are what made it fail:
    with one of them back, it does."""
    from gem_flux_mcp.data.template_fixes import UNSOUND_REACTIONS
    from gem_flux_mcp.data.templates import template_path

    back = gapfilled_back.copy()  # changed below; the fixture's model is shared
    biomass = {r.id for r in back.reactions if r.annotation.get("sbo") == "SBO:0000629"}
    assert biomass == {"bio1"}
    assert positive_masses_exist(back, biomass)

    # rxn08939 (murein3p3p -> 2 anhgm3p + H2O) back, as the template file has it: water from nothing
    raw = json.loads(template_path(data_dir, "GramNegative").read_text())
    unsound = next(r for r in raw["reactions"] if r["id"] == "rxn08939_c")
    assert "rxn08939" in UNSOUND_REACTIONS and "rxn08939_c0" not in back.reactions
    reaction = cobra.Reaction("rxn08939_c0")
    back.add_reactions([reaction])
    reaction.add_metabolites({back.metabolites.get_by_id(item["templatecompcompound_ref"].split("/")[-1] + "0"):
                              item["coefficient"] for item in unsound["templateReactionReagents"]})
    assert not positive_masses_exist(back, biomass)


def test_revised(ecoli_run: tuple[gf.GapfillRun, dict[str, Any]], biochem: BiochemIndex, tmp_path: Path) -> None:
    revised = ecoli_run[0].model.copy()

    def lookup(rid: str) -> dict[str, Any] | None:
        try:
            return biochem.get_reaction(rid)
        except Exception:
            return None

    add = next(rid for rid in ("rxn00062_c0", "rxn00011_c0", "rxn00016_c0", "rxn00020_c0")
               if rid not in revised.reactions)
    remove = next(r.id for r in revised.reactions if "gemflux_evidence" in r.notes)
    gene = next(g.id for g in revised.genes if len(g.reactions) == 1 and remove not in {r.id for r in g.reactions})
    plan = revise.validate_plan(revised, [add], [remove], {"ATPM_c0": [0, 5]}, [gene], lookup)
    revise.apply_plan(revised, plan, lookup, biochem.compound_names)
    back, _ = export_and_check(revised, tmp_path / "revised.xml", biochem)
    assert add in back.reactions and remove not in back.reactions
    assert back.reactions.get_by_id(add).annotation["seed.reaction"] == add.split("_")[0]
    assert back.reactions.ATPM_c0.bounds == (0, 5)


def test_notes_with_markup_characters_survive(tmp_path: Path) -> None:
    model = load_model("textbook")
    model.reactions.PGI.notes = {"gemflux_atp_filtered": "<", "direction": "a -> b <= c", "odd": "x & y; 'q' \"r\""}
    model.metabolites.glc__D_e.notes = {"comment": "<b>not markup</b>"}
    back, _ = export_and_check(model, tmp_path / "notes.xml", None)
    assert back.reactions.PGI.notes == model.reactions.PGI.notes
    assert back.metabolites.glc__D_e.notes == model.metabolites.glc__D_e.notes


def test_ids_that_are_not_sbml_ids(tmp_path: Path) -> None:
    model = load_model("textbook")
    model.id = "lab.model.v2"
    for metabolite in model.metabolites:
        if metabolite.compartment == "e":
            metabolite.compartment = "ext.1"
    model.compartments = {"ext.1": "extracellular"}
    back, written = export_and_check(model, tmp_path / "ids.xml", None)
    assert (back.id, back.name) == ("lab_model_v2", "lab.model.v2")
    assert back.compartments == {"c": "cytosol", "ext_1": "extracellular"}
    assert back.metabolites.glc__D_e.compartment == "ext_1"
    assert len(written.warnings) == 2 and "'ext.1' -> 'ext_1'" in written.warnings[1], written.warnings


def test_an_export_that_would_lose_content_is_an_error(tmp_path: Path) -> None:
    model = load_model("textbook")
    # COBRApy's SBML notes are 'key: value' paragraphs: a key holding ':' cannot come back whole
    model.reactions.PGI.notes = {"source: curated": "yes"}
    target = tmp_path / "lost.xml"
    target.write_text("previous export")
    with pytest.raises(LibraryError) as raised:
        model_io.export_model_file(model, target, "sbml")
    assert raised.value.code == ErrorCode.MODEL_EXPORT_LOST_CONTENT
    assert any("notes" in p and "PGI" in p for p in raised.value.details["problems"]), raised.value.details
    assert target.read_text() == "previous export"  # the file in place is not touched
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_checker_finds_what_a_file_lacks(tmp_path: Path) -> None:
    model = load_model("textbook")
    model.reactions.PGI.notes = {"evidence": "curated"}
    path = tmp_path / "complete.xml"
    model_io.export_model_file(model, path, "sbml")
    assert validate.sbml_file_problems(path, model) == []
    document = libsbml.readSBMLFromFile(str(path))
    document.getModel().getReaction("R_PGI").unsetNotes()
    document.getModel().getSpecies("M_glc__D_e").getPlugin("fbc").unsetChemicalFormula()
    document.getModel().removeReaction("R_PFK")
    damaged = tmp_path / "damaged.xml"
    libsbml.writeSBMLToFile(document, str(damaged))
    problems = validate.sbml_file_problems(damaged, model)
    assert any(p.startswith("reactions: 1 missing") and "PFK" in p for p in problems), problems
    assert any(p.startswith("reactions: notes differs") and "PGI" in p for p in problems), problems
    assert any(p.startswith("metabolites: formula differs") and "glc__D_e" in p for p in problems), problems
    error = validate.lost_content_error(problems, damaged, "sbml")
    assert error.code == ErrorCode.MODEL_EXPORT_LOST_CONTENT and error.details["num_problems"] == len(problems)


def references_checked_here(path: Path) -> bool:
    document = libsbml.readSBMLFromFile(str(path))  # kept alive while its model is used
    return group_checks.group_references_checked_here(document.getModel())


def test_group_members_are_checked_as_libsbml_checks_them(tmp_path: Path) -> None:
    """The exported file's groups are checked from an index of the model's ids instead of
    libsbml's walk of the model for each member: on a sound file and on files with each kind of
    broken member, the checker finds a problem exactly when libsbml's own full check does."""
    model = load_model("textbook")
    for n, reaction in enumerate(model.reactions):  # subsystems are written as SBML groups
        reaction.subsystem = ("glycolysis", "respiration", "")[n % 3]
    path = tmp_path / "textbook.xml"
    model_io.export_model_file(model, path, "sbml")
    assert validate.libsbml_problems(path) == [] and libsbml_issues(path) == ([], [])
    assert references_checked_here(path)

    def planted(name: str, change: Callable[[Any], None]) -> Path:
        document = libsbml.readSBMLFromFile(str(path))
        change(document.getModel().getPlugin("groups"))
        target = tmp_path / f"{name}.xml"
        libsbml.writeSBMLToFile(document, str(target))
        return target

    def dangling(plugin: Any) -> None:
        plugin.getGroup(0).getMember(0).setIdRef("R_no_such_reaction")

    def dangling_meta(plugin: Any) -> None:
        plugin.getGroup(0).getMember(0).unsetIdRef()
        plugin.getGroup(0).getMember(0).setMetaIdRef("no_such_metaid")

    def own_group(plugin: Any) -> None:
        plugin.getGroup(0).createMember().setIdRef(plugin.getGroup(0).getId())

    def both(plugin: Any) -> None:
        plugin.getGroup(0).getMember(0).setMetaIdRef(plugin.getParentSBMLObject().getSpecies(0).getMetaId())

    def each_other(plugin: Any) -> None:  # groups containing each other: sound for libsbml
        first, second = plugin.getGroup(0), plugin.getGroup(1)
        first.createMember().setIdRef(second.getId())
        second.createMember().setIdRef(first.getId())

    def by_metaid(plugin: Any) -> None:  # a member naming a species by its metaid: sound
        member = plugin.getGroup(0).createMember()
        member.setMetaIdRef(plugin.getParentSBMLObject().getSpecies(0).getMetaId())

    expected = {"dangling": "'R_no_such_reaction' names no element", "dangling_meta": "'no_such_metaid' names no",
                "own_group": "naming its own group", "both": "both idRef and metaIdRef", "each_other": None,
                "by_metaid": None}
    for change in (dangling, dangling_meta, own_group, both, each_other, by_metaid):
        broken = planted(change.__name__, change)
        problems = validate.libsbml_problems(broken)
        errors, warnings = libsbml_issues(broken)  # libsbml's own full check
        theirs = errors + warnings
        if expected[change.__name__] is None:
            assert problems == [] and theirs == [], (change.__name__, problems, theirs)
        else:
            assert len(problems) == 1 and expected[change.__name__] in problems[0], (change.__name__, problems)
            assert len(theirs) == 1, (change.__name__, theirs)  # libsbml's own check finds the same one

    # lists of members with SBO terms: libsbml's whole check, as before
    sbo = planted("sbo", lambda plugin: plugin.getGroup(0).getListOfMembers().setSBOTerm("SBO:0000633"))
    assert not references_checked_here(sbo)
    # members with ids of their own (which members may name): libsbml's whole check too
    named = planted("named", lambda plugin: plugin.getGroup(0).getMember(0).setId("first_member"))
    assert not references_checked_here(named)


def test_formula_rule_is_libsbmls() -> None:
    for formula in ("H2O", "C6H12O6", "C10H12N5O7PR", "R", "Fe"):
        assert is_chemical_formula(formula), formula
    for formula in ("null", "(C6H10O5)n", "C6H11O9P.H2O", "h2o", "C2 H4", "Fe+2", ""):
        assert not is_chemical_formula(formula), formula


@pytest.mark.anyio
async def test_export_model_tool_writes_valid_annotated_sbml(server_env: dict[str, str], data_dir: Path,
                                                             tmp_path: Path) -> None:
    modelseedpy_json(data_dir, tmp_path / "kbase.json")
    odd = json.loads((tmp_path / "kbase.json").read_text())
    odd["reactions"][0]["notes"] = {"source: curated": "yes"}
    (tmp_path / "odd.json").write_text(json.dumps(odd))
    async with in_process_client(server_env) as client:
        mid = (await call(client, "import_model", {"file_path": str(tmp_path / "kbase.json"),
                                                   "model_name": "kbase"}))["model_id"]
        out = await call(client, "export_model", {"model_id": mid, "file_path": str(tmp_path / "out" / "kbase.xml")})
        assert out["format"] == "sbml" and out["size_bytes"] > 0
        assert any("cpd11416_c0" in w for w in out["warnings"]), out["warnings"]
        odd_id = (await call(client, "import_model", {"file_path": str(tmp_path / "odd.json"),
                                                      "model_name": "odd"}))["model_id"]
        lost = await call(client, "export_model", {"model_id": odd_id, "file_path": str(tmp_path / "odd.xml")},
                          error="MODEL_EXPORT_LOST_CONTENT")
        assert lost["details"]["problems"] and not (tmp_path / "odd.xml").exists()
        json_out = await call(client, "export_model", {"model_id": odd_id, "file_path": str(tmp_path / "odd.json2"),
                                                       "format": "json"})
        assert json_out["warnings"] == []
    errors, warnings = libsbml_issues(tmp_path / "out" / "kbase.xml")
    assert errors == [] and warnings == []
    assert "https://identifiers.org/seed.reaction:rxn" in (tmp_path / "out" / "kbase.xml").read_text()
