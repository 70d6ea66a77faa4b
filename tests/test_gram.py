"""The template `auto` picks: outer-membrane protein names and lipopolysaccharide enzymes, read
from the development proteomes themselves and from drafts with the marker reactions."""

from __future__ import annotations

import gzip
from pathlib import Path

import cobra
import pytest

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling.gram import (
    LPS_MARKERS,
    MIN_NAMED,
    gram_from_draft,
    gram_from_names,
    outer_membrane_names,
)
from gem_flux_mcp.modeling.inputs import Protein, parse_fasta

ZYMOMONAS = "GCF_000175255.2_ASM17525v2"  # Gram-negative; 2 of 8 lipid A enzymes found by homology
ENTEROCOCCUS = "GCF_000392875.1_Ente_faec_ATCC_19433_V1"  # Gram-positive; a KdsB-like hit


def proteome(data_dir: Path, assembly: str) -> list[Protein]:
    with gzip.open(data_dir / "fermentation" / f"{assembly}_protein.faa.gz", "rt") as handle:
        return parse_fasta(handle.read())


def draft_with_markers(biochem: BiochemIndex, enzymes: set[str]) -> cobra.Model:
    """A model whose lipopolysaccharide marker reactions are present, those of `enzymes` with a gene."""
    model = cobra.Model("draft")
    for bigg, ids in biochem.reaction_ids_for_external("BiGG", LPS_MARKERS).items():
        for rid in sorted(ids):
            reaction = cobra.Reaction(f"{rid}_c0")
            model.add_reactions([reaction])
            if LPS_MARKERS[bigg] in enzymes:
                reaction.gene_reaction_rule = f"gene_{LPS_MARKERS[bigg]}"
    return model


def test_named_proteomes_tell_an_outer_membrane(data_dir: Path) -> None:
    zymomonas = outer_membrane_names(proteome(data_dir, ZYMOMONAS))
    assert zymomonas.says_outer_membrane and not zymomonas.says_none
    assert any("TonB" in name for name in zymomonas.outer_membrane)
    enterococcus = outer_membrane_names(proteome(data_dir, ENTEROCOCCUS))
    assert enterococcus.says_none and enterococcus.named > 2000
    call = gram_from_names(enterococcus)
    assert call is not None and call.template == "GramPositive" and not call.unsure
    assert "0 of" in call.reason and "no outer membrane" in call.reason
    assert gram_from_names(zymomonas) is None  # the Gram-negative draft is built and weighed


def test_names_without_functions_are_not_read() -> None:
    called = [Protein(f"contig_{i}", "MKV", f"# {i} # {i + 300} # 1 # ID=1_{i}") for i in range(MIN_NAMED + 10)]
    names = outer_membrane_names(called)
    assert names.named == 0 and not names.readable and gram_from_names(names) is None
    few = outer_membrane_names([Protein("p1", "MKV", "outer membrane protein A [E. coli]")])
    assert not few.readable and not few.says_outer_membrane  # one name out of one: too few to read


def test_outer_membrane_names_outweigh_missing_lipid_a_genes(data_dir: Path, biochem: BiochemIndex) -> None:
    names = outer_membrane_names(proteome(data_dir, ZYMOMONAS))
    two = draft_with_markers(biochem, {"LpxA", "KdsB"})  # what homology finds in Z. mobilis
    call = gram_from_draft(two, biochem, names)
    assert call.template == "GramNegative" and not call.unsure
    assert call.markers_found == ("KdsB", "LpxA") and "outer-membrane proteins" in call.reason
    without = gram_from_draft(two, biochem)  # no names: the enzymes alone are too few to tell
    assert without.template == "GramPositive" and without.unsure
    none = gram_from_draft(draft_with_markers(biochem, set()), biochem, names)
    assert none.template == "GramNegative" and none.unsure  # outer membrane, no lipid A pathway: say so


@pytest.mark.parametrize("enzymes, template, unsure", [
    ({"LpxA", "LpxC", "LpxD", "LpxK"}, "GramNegative", True),  # names say none, enzymes say yes: unsure
    ({"KdsB"}, "GramPositive", False),  # a stray KdsB-like hit with no outer-membrane names
])
def test_names_that_see_no_outer_membrane_against_the_enzymes(data_dir: Path, biochem: BiochemIndex,
                                                               enzymes: set[str], template: str,
                                                               unsure: bool) -> None:
    names = outer_membrane_names(proteome(data_dir, ENTEROCOCCUS))
    call = gram_from_draft(draft_with_markers(biochem, enzymes), biochem, names)
    assert (call.template, call.unsure) == (template, unsure)
