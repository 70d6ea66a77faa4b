"""Write `src/gem_flux_mcp/data/markers.faa.gz` and `markers.json`: the universal single-copy
marker genes behind the completeness and contamination estimate (modeling/completeness.py).

Source: the development proteomes only (E. coli K-12 and the other seven bacteria of
`fermentation/`, and B. subtilis 168 from `genomes/`; RefSeq protein FASTA files in the reference
data folder). Candidates are gene families bacteria carry once almost without exception
(ribosomal proteins, aminoacyl-tRNA synthetases, RNA polymerase, translation factors, …); their
proteins are found by RefSeq product name in each proteome. A candidate is kept when the counting
the build does (search against the other organisms' marker proteins, leaving the organism's own
out) finds it exactly once in at least KEEP_IF_SINGLE of the nine organisms and never three times
or more: a family with paralogs that draw its hits, or that names miss, is left out.

Usage: GEMFLUX_DATA_DIR=... python scripts/make_markers.py [--check]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import tempfile
from pathlib import Path

from gem_flux_mcp.config import Settings
from gem_flux_mcp.modeling import align
from gem_flux_mcp.modeling.completeness import MarkerSet, count_markers, marker_set_without

OUT = Path(__file__).resolve().parents[1] / "src" / "gem_flux_mcp" / "data"
KEEP_IF_SINGLE = 8  # of the nine organisms

_AMINO_ACIDS = {"Ala": "alan", "Arg": "argin", "Asn": "asparagin", "Asp": "aspart", "Cys": "cystein",
                "Glu": "glutam(?:ate|yl)", "Gly": "glyc", "His": "histid", "Ile": "isoleuc", "Leu": "leuc",
                "Lys": "lys", "Met": "methion", "Phe": "phenylalan", "Pro": "prol", "Ser": "ser",
                "Thr": "threon", "Trp": "tryptoph", "Tyr": "tyros", "Val": "val"}


def candidate_families() -> dict[str, tuple[str, list[str]]]:
    """family → (description, product-name patterns, matched whole on lower-case names)."""
    families: dict[str, tuple[str, list[str]]] = {}
    for n in [*range(1, 7), *range(9, 25), 27, 28, 29, 30, 31, 32, 33, 34, 35, 36]:
        families[f"rpL{n}"] = (f"50S ribosomal protein L{n}", [rf"50s ribosomal (?:subunit )?protein l{n}"])
    for n in range(2, 22):
        families[f"rpS{n}"] = (f"30S ribosomal protein S{n}", [rf"30s ribosomal (?:subunit )?protein s{n}"])
    synthetase = r"(?:--trna ligase|-trna synthetase)"
    for code, stem in _AMINO_ACIDS.items():
        if code in ("Phe", "Gly"):
            for sub in ("alpha", "beta"):
                families[f"{code}RS_{sub}"] = (f"{code}-tRNA synthetase {sub} subunit", [
                    rf"{stem}\w*{synthetase},? \(?(?:subunit )?{sub}(?: subunit)?\)?"])
        else:
            families[f"{code}RS"] = (f"{code}-tRNA synthetase", [rf"{stem}\w*{synthetase}"])
    polymerase = r"(?:dna-directed )?rna polymerase(?: subunit)? {}(?: subunit)?"
    others = {
        "rpoA": ("RNA polymerase subunit alpha", [polymerase.format("alpha")]),
        "rpoB": ("RNA polymerase subunit beta", [polymerase.format("beta")]),
        "rpoC": ("RNA polymerase subunit beta'", [polymerase.format("beta'")]),
        "rpoZ": ("RNA polymerase subunit omega", [polymerase.format("omega")]),
        "infA": ("translation initiation factor IF-1", [r"(?:translation )?initiation factor if-(?:1|i)"]),
        "infB": ("translation initiation factor IF-2", [r"(?:translation )?initiation factor if-2"]),
        "infC": ("translation initiation factor IF-3", [r"(?:translation )?initiation factor if-3"]),
        "tsf": ("elongation factor Ts", [r"(?:protein chain |translation )?elongation factor (?:ef-)?ts"]),
        "efp": ("elongation factor P", [r"(?:translation )?elongation factor p"]),
        "frr": ("ribosome-recycling factor", [r"ribosome[- ]recycling factor"]),
        "prfA": ("peptide chain release factor 1", [r"peptide chain release factor 1"]),
        "secY": ("preprotein translocase subunit SecY",
                 [r"(?:preprotein translocase subunit|sec translocon subunit) secy"]),
        "ffh": ("signal recognition particle protein", [r"signal recognition particle protein(?: component)?"]),
        "ftsY": ("signal recognition particle receptor FtsY", [r"signal recognition particle[- ]docking protein ftsy"]),
        "nusA": ("transcription termination/antitermination protein NusA",
                 [r"transcription termination/antitermination protein nusa"]),
        "nusG": ("transcription termination/antitermination protein NusG",
                 [r"transcription termination/antitermination protein nusg"]),
        "smpB": ("SsrA-binding protein", [r"ssra-binding protein"]),
        "pth": ("peptidyl-tRNA hydrolase", [r"(?:aminoacyl-trna hydrolase|peptidyl-trna hydrolase)"]),
        "fmt": ("methionyl-tRNA formyltransferase", [r"methionyl-trna formyltransferase"]),
        "trmD": ("tRNA (guanine-N1)-methyltransferase", [r"trna \(guanine-n\(?1\)?-?\)-methyltransferase"]),
        "rnhB": ("ribonuclease HII", [r"ribonuclease hii"]),
        "rnc": ("ribonuclease III", [r"ribonuclease iii"]),
        "obgE": ("GTPase Obg", [r"gtpase obge"]),
        "hflX": ("GTPase HflX", [r"gtpase hflx"]),
        "era": ("GTPase Era", [r"gtpase era"]),
        "der": ("ribosome biogenesis GTPase Der", [r"ribosome biogenesis gtpase der|gtpase der"]),
        "rbfA": ("ribosome-binding factor A", [r"30s ribosome-binding factor rbfa|ribosome-binding factor a"]),
        "ruvB": ("Holliday junction DNA helicase RuvB",
                 [r"holliday junction (?:branch migration )?dna helicase ruvb"]),
        "ruvA": ("Holliday junction branch migration protein RuvA",
                 [r"holliday junction branch migration protein ruva"]),
        "recA": ("recombinase RecA", [r"recombinase reca|protein reca"]),
        "dnaN": ("DNA polymerase III subunit beta", [r"dna polymerase iii subunit beta"]),
        "gyrA": ("DNA gyrase subunit A", [r"dna gyrase subunit a"]),
        "gyrB": ("DNA gyrase subunit B", [r"dna (?:topoisomerase \(atp-hydrolyzing\) subunit b|gyrase subunit b)"]),
        "grpE": ("nucleotide exchange factor GrpE", [r"nucleotide exchange factor grpe"]),
        "clpX": ("ATP-dependent Clp protease ATP-binding subunit ClpX",
                 [r"atp-dependent clp protease atp-binding subunit clpx"]),
        "rimM": ("ribosome maturation factor RimM", [r"ribosome maturation factor rimm"]),
        "truB": ("tRNA pseudouridine(55) synthase TruB", [r"trna pseudouridine\(55\) synthase trub"]),
        "lepA": ("elongation factor 4", [r"elongation factor 4"]),
        "uvrB": ("excinuclease ABC subunit B", [r"excinuclease abc subunit (?:uvr)?b"]),
        "prmA": ("50S ribosomal protein L11 methyltransferase", [r"50s ribosomal protein l11 methyltransferase"]),
        "mnmG": ("tRNA uridine 5-carboxymethylaminomethyl modification enzyme MnmG",
                 [r"trna uridine-5-carboxymethylaminomethyl\(34\) synthesis enzyme mnmg"]),
        "rsmH": ("16S rRNA methyltransferase RsmH", [r"16s rrna \(cytosine\(1402\)-n\(4\)\)-methyltransferase rsmh"]),
        "rsmA": ("16S rRNA dimethyltransferase RsmA",
                 [r"16s rrna \(adenine\(1518\)-n\(6\)/adenine\(1519\)-n\(6\)\)-dimethyltransferase rsma"]),
        "tig": ("trigger factor", [r"trigger factor"]),
        "dnaG": ("DNA primase", [r"dna primase"]),
        "ychF": ("redox-regulated ATPase YchF", [r"redox-regulated atpase ychf"]),
        "ligA": ("NAD-dependent DNA ligase LigA", [r"nad-dependent dna ligase liga"]),
        "mutL": ("DNA mismatch repair protein MutL", [r"dna mismatch repair (?:endonuclease|protein) mutl"]),
        "ybeY": ("rRNA maturation RNase YbeY", [r"rrna maturation rnase ybey"]),
    }
    families.update(others)
    return families


def proteomes(data_dir: Path) -> dict[str, Path]:
    """organism (assembly accession) → its protein FASTA; E. coli once."""
    found = {path.name.split("_protein")[0].rsplit("_", 1)[0]: path
             for path in sorted((data_dir / "fermentation").glob("GCF_*_protein.faa.gz"))}
    found = {"_".join(name.split("_")[:2]): path for name, path in found.items()}
    found["bsubtilis_168"] = data_dir / "genomes" / "bsubtilis_168.faa"
    return found


def read_named(path: Path) -> list[tuple[str, str, str]]:
    """(protein id, product name, sequence) of a (gzipped) RefSeq protein FASTA."""
    records: list[tuple[str, str, list[str]]] = []
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(">"):
                pid, _, rest = line[1:].partition(" ")
                records.append((pid, re.sub(r"\s*\[[^\]]*\]$", "", rest), []))
            elif records:
                records[-1][2].append(line)
    return [(pid, name, "".join(seq).rstrip("*")) for pid, name, seq in records]


def seeds(organisms: dict[str, Path], families: dict[str, tuple[str, list[str]]]) -> dict[str, str]:
    """Reference id ("family|organism|protein") → sequence, for proteins named as a family."""
    patterns = {family: [re.compile(p) for p in pats] for family, (_, pats) in families.items()}
    found: dict[str, str] = {}
    for organism, path in organisms.items():
        for pid, name, sequence in read_named(path):
            key = re.sub(r"^multispecies: ", "", name.lower().strip())
            for family, compiled in patterns.items():
                if any(p.fullmatch(key) for p in compiled):
                    found[f"{family}|{organism}|{pid}"] = sequence
    return found


def select(organisms: dict[str, Path], candidates: dict[str, str], descriptions: dict[str, str],
           work: Path) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Leave-one-out counts per organism and family, and the families kept."""
    fasta = work / "candidates.faa"
    align.write_fasta(candidates.items(), fasta)
    everything = MarkerSet(fasta=fasta, families=descriptions, proteins={rid: rid.split("|")[0] for rid in candidates})
    aligner = align.choose_aligner()
    counts: dict[str, dict[str, int]] = {}
    for organism, path in organisms.items():
        markers = marker_set_without(everything, [organism], work)
        proteins = {pid: seq for pid, _, seq in read_named(path)}
        result = count_markers(align.search(proteins, markers.fasta, aligner), markers)
        counts[organism] = {family: len(genes) for family, genes in result.found.items()}
        print(f"{organism}: {result.verdict()}", file=sys.stderr)
    kept = [family for family in descriptions
            if sum(1 for c in counts.values() if c[family] == 1) >= KEEP_IF_SINGLE
            and all(c[family] < 3 for c in counts.values())]
    return counts, kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when the files differ from what would be written")
    args = parser.parse_args()
    data_dir = Settings.resolve().data_dir
    organisms = proteomes(data_dir)
    families = candidate_families()
    candidates = seeds(organisms, families)
    with tempfile.TemporaryDirectory() as tmp:
        counts, kept = select(organisms, candidates, {f: d for f, (d, _) in families.items()}, Path(tmp))
    fasta = "".join(f">{rid}\n{seq}\n" for rid, seq in sorted(candidates.items()) if rid.split("|")[0] in kept)
    description = {
        "source": "development proteomes (RefSeq): " + ", ".join(sorted(organisms)),
        "rule": f"exactly one copy in at least {KEEP_IF_SINGLE} of {len(organisms)} organisms, never three, "
                "counted as the build counts, each organism against the others' marker proteins",
        "families": {f: families[f][0] for f in kept},
        "single_copy_in": {f: sum(1 for c in counts.values() if c[f] == 1) for f in kept},
        "left_out": {f: [counts[o][f] for o in organisms] for f in families if f not in kept},
    }
    text = json.dumps(description, indent=1, sort_keys=True) + "\n"
    if args.check:
        current = json.loads((OUT / "markers.json").read_text())
        same = current == description and gzip.decompress((OUT / "markers.faa.gz").read_bytes()).decode() == fasta
        print("markers up to date" if same else "markers differ: run scripts/make_markers.py")
        return 0 if same else 1
    (OUT / "markers.json").write_text(text)
    (OUT / "markers.faa.gz").write_bytes(gzip.compress(fasta.encode(), mtime=0))
    print(f"{len(kept)} of {len(families)} families kept; {fasta.count('>')} proteins", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
