"""O2 is reduced, not made (modeling/oxygen.py): which reactions the rule takes, and that no
gapfilling network offers the O2-making direction of a reaction written as consuming O2."""

from __future__ import annotations

from pathlib import Path

import pytest

from gem_flux_mcp.data.templates import ATP_TEMPLATE, load_template
from gem_flux_mcp.modeling.gapfill.network import _offered_directions
from gem_flux_mcp.modeling.oxygen import oxygen_consuming_sign

O2_C, O2_E, H2O, H_C, H_E = "cpd00007_c0", "cpd00007_e0", "cpd00001_c0", "cpd00067_c0", "cpd00067_e0"
CYT_RED, CYT_OX = "cpd00110_c0", "cpd00109_c0"
# cytochrome-c oxidase, 2 protons translocated (rxn14416):
# 4 cyt c(red) + O2 + 8 H+(in) -> 4 cyt c(ox) + 2 H2O + 4 H+(out)
CYTOCHROME_OXIDASE = {CYT_RED: -4, O2_C: -1, H_C: -8, CYT_OX: 4, H2O: 2, H_E: 4}

CASES = {
    "cytochrome oxidase": (CYTOCHROME_OXIDASE, 1),
    # a hydroxylase: substrate + NADPH + O2 -> product + NADP + H2O
    "monooxygenase": ({"cpd00103_c0": -1, "cpd00005_c0": -1, O2_C: -1, H_C: -1,
                       "cpd00551_c0": 1, "cpd00006_c0": 1, H2O: 1}, 1),
    # catalase (rxn00006) makes O2 from H2O2 as written: the template decides
    "catalase": ({"cpd00025_c0": -2, H2O: 2, O2_C: 1}, None),
    # the cytochrome oxidase written backwards (making O2) is taken as written
    "written as making O2": ({k: -v for k, v in CYTOCHROME_OXIDASE.items()}, None),
    # O2 across the membrane: none consumed
    "diffusion": ({O2_E: -1, O2_C: 1}, None),
    # an exchange is no reaction
    "exchange": ({O2_E: -1}, None),
    "no oxygen": ({"cpd00027_c0": -1, "cpd00079_c0": 1}, None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_which_reactions_consume_oxygen(name: str) -> None:
    stoichiometry, expected = CASES[name]
    assert oxygen_consuming_sign(stoichiometry) == expected


def test_gapfilling_never_offers_an_oxidase_backwards() -> None:
    assert _offered_directions("=", CYTOCHROME_OXIDASE) == (1,)
    assert _offered_directions("<", CYTOCHROME_OXIDASE) == ()
    assert _offered_directions("=", CASES["catalase"][0]) == (1, -1)
    assert _offered_directions("=", CASES["diffusion"][0]) == (1, -1)


@pytest.mark.parametrize("name", ["GramNegative", "GramPositive", ATP_TEMPLATE])
def test_no_template_reaction_is_offered_making_o2_from_its_oxidation(data_dir: Path, name: str) -> None:
    """Every reaction a template writes as consuming O2 (about 190 of them were offered both ways
    where ModelSEED has no ΔG'° estimate) is offered forward only, whatever the database says;
    the ones written as making O2 (catalase, superoxide dismutase) are not the rule's."""
    template = load_template(data_dir, name)
    consuming = making = 0
    for reaction in template.reactions:
        stoichiometry = {f"{m.id}0": c for m, c in reaction.metabolites.items()}
        net = sum(c for m, c in stoichiometry.items() if m.startswith("cpd00007_"))
        if len(stoichiometry) < 2 or net == 0:
            continue
        for database in ("?", "="):
            offered = _offered_directions(reaction.GapfillDirection, stoichiometry, database)
            if net < 0:
                assert -1 not in offered, reaction.id
        consuming += net < 0
        making += net > 0
    assert consuming >= (3 if name == ATP_TEMPLATE else 500)
    assert making >= (0 if name == ATP_TEMPLATE else 5)
