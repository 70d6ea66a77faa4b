"""The homology reference: BiGG protein sequences and gene-reaction rules shipped by `carveme`.

Only carveme's data files are read; the package is never imported (importing it pulls in
reframed and a solver we do not use). A reference can leave out named BiGG models, so that a
benchmark can build an organism without its own curated model in the reference.
"""

from __future__ import annotations

import csv
import functools
import gzip
import hashlib
import importlib.util
import io
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gem_flux_mcp.error_codes import ErrorCode

from ..errors import DataError
from ..fsutil import atomic_write_text


@dataclass(frozen=True)
class GeneRule:
    """One way a reference gene takes part in a BiGG reaction: as a subunit of `subunits`."""

    model: str
    reaction: str  # BiGG id without the R_ prefix
    subunits: tuple[str, ...]  # reference gene ids "<model>.<gene>" forming one enzyme (AND)


def carveme_data_dir() -> Path:
    spec = importlib.util.find_spec("carveme")
    if spec is None or not spec.submodule_search_locations:
        raise DataError(
            ErrorCode.REFERENCE_NOT_INSTALLED,
            "The homology reference (Python package 'carveme') is not installed.",
            suggestions=["Install the project's locked dependencies (./dev.sh serve sets them up)."],
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "generated"
    for name in ("bigg_proteins.faa", "bigg_gprs.csv.gz"):
        if not (folder / name).is_file():
            raise DataError(ErrorCode.REFERENCE_INCOMPLETE, f"carveme's data file {name} is missing in {folder}.")
    return folder


class Reference:
    """BiGG reference proteins and rules, optionally without some models."""

    def __init__(self, folder: Path, exclude_models: Iterable[str] = ()) -> None:
        self.folder = folder
        self.excluded = tuple(sorted(set(exclude_models)))

    @classmethod
    def installed(cls, exclude_models: Iterable[str] = ()) -> Reference:
        return cls(carveme_data_dir(), exclude_models)

    @property
    def proteins_path(self) -> Path:
        return self.folder / "bigg_proteins.faa"

    def models(self) -> list[str]:
        """The BiGG models whose proteins are in the reference (before exclusion)."""
        with self.proteins_path.open() as handle:
            return sorted({line[1:].split(".", 1)[0] for line in handle if line.startswith(">")})

    def key(self) -> str:
        """Changes when the reference files or the exclusion change: names cached search inputs."""
        stat = self.proteins_path.stat()
        text = f"{self.proteins_path}|{stat.st_size}|{stat.st_mtime_ns}|{','.join(self.excluded)}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def filtered_fasta(self, cache_dir: Path) -> Path:
        """The reference FASTA without the excluded models (the full file when nothing is excluded).

        Exclusion must happen before the search: filtering hits afterwards would hide the
        second-best hits that a genome without its own model in the reference really gets.
        """
        if not self.excluded:
            return self.proteins_path
        target = cache_dir / "reference" / f"bigg_proteins-{self.key()}.faa"
        if target.is_file():
            return target
        unknown = set(self.excluded) - set(self.models())
        if unknown:
            raise DataError(
                ErrorCode.UNKNOWN_REFERENCE_MODEL,
                f"Not in the homology reference: {', '.join(sorted(unknown))}.",
                details={"unknown_models": sorted(unknown), "known_models": self.models()},
            )
        out = io.StringIO()
        keep = False
        with self.proteins_path.open() as handle:
            for line in handle:
                if line.startswith(">"):
                    keep = line[1:].split(".", 1)[0] not in self.excluded
                if keep:
                    out.write(line)
        atomic_write_text(target, out.getvalue())
        return target

    def reaction_stoichiometry(self, cache_dir: Path) -> dict[str, dict[str, float]]:
        """BiGG reaction id → {BiGG metabolite id with compartment (`g6p_p`): coefficient}, from
        carveme's BiGG universe (`bigg_universe.xml.gz`); {} when the file is absent. Parsed once
        (~4 s) and kept as JSON in the cache folder."""
        source = self.folder / "bigg_universe.xml.gz"
        if not source.is_file():
            return {}
        stat = source.stat()
        key = hashlib.sha256(f"{source}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
        return _load_stoichiometry(source, cache_dir / "reference" / f"bigg_universe-{key}.json")

    def rules(self) -> dict[str, list[GeneRule]]:
        """Reference gene id ("<model>.<gene>") → the reactions it takes part in, and with whom."""
        return _load_rules(self.folder / "bigg_gprs.csv.gz", self.excluded)


@functools.lru_cache(maxsize=4)
def _load_rules(path: Path, excluded: tuple[str, ...]) -> dict[str, list[GeneRule]]:
    # parsed once per process and exclusion: 0.6 s, and a worker builds many genomes
    rules: dict[str, list[GeneRule]] = defaultdict(list)
    with gzip.open(path, "rt", newline="") as handle:
        for row in csv.DictReader(handle):
            model = row["model"]
            if model in excluded:
                continue
            subunits = tuple(f"{model}.{gene}" for gene in row["protein"][2:].split("+"))
            rules[f"{model}.{row['gene'][2:]}"].append(GeneRule(model, row["reaction"][2:], subunits))
    return dict(rules)


_REACTION = re.compile(r'<reaction [^>]*\bid="R_([^"]+)"(.*?)</reaction>', re.S)
_SPECIES = re.compile(r'<speciesReference species="M_([^"]+)" stoichiometry="([^"]+)"')


@functools.lru_cache(maxsize=2)
def _load_stoichiometry(source: Path, cached: Path) -> dict[str, dict[str, float]]:
    if cached.is_file():
        loaded: dict[str, dict[str, float]] = json.loads(cached.read_text(encoding="utf-8"))
        return loaded
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        text = handle.read()
    reactions: dict[str, dict[str, float]] = {}
    for match in _REACTION.finditer(text):
        substrates, _, products = match.group(2).partition("<listOfProducts>")
        coefficients: dict[str, float] = {}
        for sign, part in ((-1.0, substrates), (1.0, products)):
            for species, value in _SPECIES.findall(part):
                coefficients[species] = coefficients.get(species, 0.0) + sign * float(value)
        reactions[match.group(1)] = coefficients
    atomic_write_text(cached, json.dumps(reactions))
    return reactions
