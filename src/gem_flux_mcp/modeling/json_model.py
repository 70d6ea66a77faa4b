"""COBRApy JSON models read as `cobra.io.from_json` reads them, in 0.66-0.76 of its time.

COBRApy's `model_from_dict` adds the model's metabolites first and then builds each reaction
from them; a reaction that is not yet in a model copies (deep-copies) every metabolite of another
model it is given, and `Model.add_reactions` then swaps each copy back for the model's own. An
E. coli draft (2,600 reactions) makes ~10,700 such copies (0.76 s -> 0.57 s without). Here the reactions
are built from the metabolites before the model owns them (nothing to copy), then the same
COBRApy calls assemble the model in the same order, so the result is the same model
(tests/test_json_model.py compares `model_to_dict`, the metabolite-reaction links and the
optimum with COBRApy's reader; benchmarks/model_read.py times both).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # COBRApy takes ~2 s to import; imported where first used
    import cobra


class _Unowned:
    """What COBRApy's reaction reader asks of a model: its metabolites by id. These belong to no
    model yet, so a reaction given them keeps them instead of copying them."""

    def __init__(self, metabolites: Any) -> None:
        self.metabolites = metabolites


def model_from_json(document: str | bytes) -> cobra.Model:
    """The model in COBRApy JSON `document`; the same model `cobra.io.from_json` gives."""
    return model_from_dict(json.loads(document))


def load_json_model(path: str | Path) -> cobra.Model:
    """The model in the COBRApy JSON file at `path` (as `cobra.io.load_json_model`)."""
    return model_from_json(Path(path).read_bytes())


def model_from_dict(obj: dict[str, Any]) -> cobra.Model:
    """`cobra.io.model_from_dict`, without a copy of each metabolite per reaction."""
    from cobra import Model
    from cobra.core import DictList
    from cobra.io.dict import _metabolite_from_dict, _reaction_from_dict, gene_from_dict
    from cobra.util.solver import set_objective

    from gem_flux_mcp.modeling.gene_rules import set_rule

    if "reactions" not in obj:
        raise ValueError("Object has no .reactions attribute. Cannot load.")
    metabolites = [_metabolite_from_dict(metabolite) for metabolite in obj["metabolites"]]
    unowned = _Unowned(DictList(metabolites))
    reactions = [_reaction_from_dict({k: v for k, v in reaction.items() if k != "gene_reaction_rule"}, unowned)
                 for reaction in obj["reactions"]]
    for built, reaction in zip(reactions, obj["reactions"], strict=True):
        if "gene_reaction_rule" in reaction:  # as COBRApy sets it, without its parser where not needed
            set_rule(built, reaction["gene_reaction_rule"])
    model = Model()
    model.add_metabolites(metabolites)
    model.genes.extend([gene_from_dict(gene) for gene in obj["genes"]])
    model.add_reactions(reactions)  # each reaction's metabolites are the model's own by now
    coefficients = {model.reactions.get_by_id(reaction["id"]): reaction["objective_coefficient"]
                    for reaction in obj["reactions"] if reaction.get("objective_coefficient", 0) != 0}
    set_objective(model, coefficients)
    for key, value in obj.items():
        if key in {"id", "name", "notes", "compartments", "annotation"}:
            setattr(model, key, value)
    return model
