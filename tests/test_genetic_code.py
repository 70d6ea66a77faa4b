"""The genetic code of a genome: translation table 11 or 4 chosen from the genome ('auto'), or
named. The table-4 genome is pyrodigal's 870 kb E. coli contig recoded as a Mycoplasma reads
its genes: every in-frame tryptophan codon TGG becomes TGA and every TGA stop becomes TAA, so
only table 4 (TGA = tryptophan) translates its genes back to E. coli's proteins."""

from __future__ import annotations

import gzip
from pathlib import Path

import pyrodigal
import pytest

from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.inputs import Protein, parse_fasta
from gem_flux_mcp.modeling.inputs.genome import call_genes
from gem_flux_mcp.rules.catalog import TRANSLATION_TABLE
from models import recoded_to_table_4

CONTIG = Path(pyrodigal.__file__).parent / "tests" / "data" / "MIIJ01000039.fna.gz"


@pytest.fixture(scope="module")
def contig() -> Protein:
    (record,) = parse_fasta(gzip.decompress(CONTIG.read_bytes()).decode())
    return Protein(record.id, record.sequence.upper())


def stop_site(protein: Protein) -> tuple[str, str]:
    begin, end, strand = protein.description.lstrip("# ").split(" # ")[:3]
    return strand, end if strand == "+" else begin


def found_back(original: list[Protein], called: list[Protein]) -> int:
    """Original genes with a called gene ending at the same stop and the same C-terminal sequence
    (start choices may differ; the first residue is always M)."""
    by_stop = {stop_site(p): p.sequence[1:] for p in called}
    return sum(1 for p in original if (other := by_stop.get(stop_site(p))) is not None
               and (other.endswith(p.sequence[1:]) or p.sequence[1:].endswith(other)))


def test_a_table_4_genome_is_detected_and_read_with_table_4(contig: Protein) -> None:
    original = call_genes([contig], "single", 11).proteins
    recoded = recoded_to_table_4(contig)
    auto = call_genes([recoded], "single")
    assert auto.translation_tables == [4] and "table 4" in auto.translation_table_reason
    asked = call_genes([recoded], "single", 4)
    assert [(p.id, p.sequence) for p in auto.proteins] == [(p.id, p.sequence) for p in asked.proteins]
    assert found_back(original, auto.proteins) >= 0.9 * len(original)
    broken = call_genes([recoded], "single", 11)  # what a fixed table 11 makes of it: fragments
    assert len(broken.proteins) > 2 * len(original) and found_back(original, broken.proteins) < 0.5 * len(original)
    assert auto.report()["coding_density"] > broken.report()["coding_density"] + 0.05


def test_a_table_11_genome_stays_table_11(contig: Protein) -> None:
    called = call_genes([contig], "single")
    assert called.translation_tables == [11]
    assert "table 11" in called.translation_table_reason and "table 4" in called.translation_table_reason
    assert [p.sequence for p in called.proteins] == [p.sequence for p in call_genes([contig], "single", 11).proteins]


def test_meta_mode_keeps_the_profiles_of_the_table_asked_for(contig: Protein) -> None:
    piece = Protein("piece", contig.sequence[:60_000])  # 50 % GC
    assert call_genes([piece], "meta").translation_tables == [11]
    eleven = call_genes([piece], "meta", 11)
    assert eleven.translation_tables == [11] and len(eleven.proteins) > 40
    # the three table-4 profiles are Mycoplasmas (29-40 % GC): none fits, so no genes
    assert call_genes([piece], "meta", 4).proteins == []
    with pytest.raises(ValidationError) as error:
        call_genes([piece], "meta", 25)  # Prodigal has no pre-trained table-25 profile
    assert error.value.code == "INVALID_TRANSLATION_TABLE" and "single" in " ".join(error.value.suggestions)


@pytest.mark.parametrize("given, expected", [("auto", "auto"), (4, 4), ("11", 11), (25, 25), (4.0, 4)])
def test_translation_table_values(given: object, expected: object) -> None:
    assert TRANSLATION_TABLE.check(given) == expected


@pytest.mark.parametrize("given", [1, 7, "four", True, None, 4.5])
def test_other_translation_tables_are_refused(given: object) -> None:
    with pytest.raises(ValidationError) as error:
        TRANSLATION_TABLE.check(given)
    assert error.value.code == "INVALID_TRANSLATION_TABLE" and error.value.details["allowed"] == ["auto", 4, 11, 25]
