"""modeling/json_model.py reads COBRApy JSON into the very model COBRApy's own reader gives."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cobra
import pytest
from cobra.io import from_json, model_to_dict, read_sbml_model, to_json

from gem_flux_mcp.modeling.json_model import load_json_model, model_from_json
from models import modelseed_core_model, textbook


def _iml1515() -> cobra.Model:
    """The curated E. coli model COBRApy's wheel ships for its tests (2,712 reactions, 1,516 genes)."""
    spec = importlib.util.find_spec("cobra")
    assert spec is not None and spec.origin is not None
    path = Path(spec.origin).parents[1] / "tests" / "data" / "iML1515.xml.gz"
    if not path.is_file():
        pytest.skip("COBRApy's test data is not installed")
    return read_sbml_model(str(path))


def _annotated() -> cobra.Model:
    """Textbook with what a stored model carries besides stoichiometry: notes, annotations, a
    reaction of several metabolites written twice, a second objective term, a minimised objective."""
    model = textbook()
    model.notes = {"built_by": "test"}
    model.annotation = {"taxonomy": "562"}
    pgi = model.reactions.get_by_id("PGI")
    pgi.notes["gemflux_direction_from"] = "Core template"
    pgi.annotation["ec-code"] = ["5.3.1.9"]
    model.metabolites.get_by_id("atp_c").notes["charge_from"] = "ModelSEED"
    model.objective = {model.reactions.get_by_id("ATPM"): 1.0, model.reactions.get_by_id("PGK"): 0.5}
    model.objective_direction = "min"
    return model


def _same_model(ours: cobra.Model, theirs: cobra.Model) -> None:
    assert model_to_dict(ours) == model_to_dict(theirs)
    assert str(ours.objective.expression) == str(theirs.objective.expression)
    assert ours.objective.direction == theirs.objective.direction
    # every object belongs to the model read, and each knows the same reactions as COBRApy's
    for mine, reference in zip(ours.metabolites, theirs.metabolites, strict=True):
        assert mine.model is ours
        assert {r.id for r in mine.reactions} == {r.id for r in reference.reactions}
    for mine, reference in zip(ours.genes, theirs.genes, strict=True):
        assert mine.model is ours
        assert {r.id for r in mine.reactions} == {r.id for r in reference.reactions}
    for reaction in ours.reactions:
        assert all(m.model is ours and ours.metabolites.get_by_id(m.id) is m for m in reaction.metabolites)
        assert all(ours.genes.get_by_id(g.id) is g for g in reaction.genes)
    assert ours.slim_optimize() == pytest.approx(theirs.slim_optimize(), abs=1e-9)
    assert len(ours.constraints) == len(theirs.constraints) and len(ours.variables) == len(theirs.variables)


@pytest.mark.parametrize("make", [textbook, _annotated, _iml1515], ids=["textbook", "annotated", "iML1515"])
def test_a_json_model_reads_as_cobrapys_reader_reads_it(make) -> None:
    document = to_json(make())
    _same_model(model_from_json(document), from_json(document))


def test_a_modelseed_model_reads_the_same_from_a_file(data_dir: Path, tmp_path: Path) -> None:
    model = modelseed_core_model(data_dir)
    path = tmp_path / "core.json"
    path.write_text(to_json(model))
    _same_model(load_json_model(path), from_json(path.read_text()))


def test_a_reaction_is_not_given_copies_of_the_models_metabolites() -> None:
    """What makes it faster: the reactions are built from the metabolites the model then owns."""
    model = model_from_json(to_json(textbook()))
    atp = model.metabolites.get_by_id("atp_c")
    assert all(atp in reaction.metabolites for reaction in atp.reactions)
    assert model.reactions.get_by_id("ATPM").metabolites[atp] == -1.0


def test_a_document_without_reactions_is_refused_as_cobrapy_refuses_it() -> None:
    with pytest.raises(ValueError, match=r"no \.reactions"):
        model_from_json('{"id": "x", "metabolites": [], "genes": []}')
