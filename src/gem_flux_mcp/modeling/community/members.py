"""The members of a community: their relative abundances, the checks a member must pass, and the
adapter from our COBRApy models to a `micom.Community`.

Why an adapter: `micom.Community` reads its members from a taxonomy table whose `file` column
names model files (SBML, COBRApy JSON, pickle) or from a model database; it takes no model
objects. We keep models in the store as COBRApy JSON, so each member's JSON is written into a
private temporary folder as `<taxon>.json`, the table points at those files, and the folder is
gone once MICOM has read them. Nothing else of MICOM's building is changed."""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.media import exchange_reactions

if TYPE_CHECKING:
    import cobra
    import micom

# A ModelSEED extracellular metabolite (`cpd00027_e0`): MICOM joins members' exchanged metabolites
# by id, so members that name them otherwise would share nothing.
SEED_EXTERNAL = re.compile(r"^cpd\d{5}_e\d*$")
SOLVER = "hybrid"  # HiGHS for the linear programs, OSQP for the quadratic step; installed with COBRApy
MAX_LISTED = 10


@dataclass(frozen=True)
class Member:
    """One member: its id (our model id), its relative abundance and its COBRApy JSON."""

    model_id: str
    abundance: float
    model_json: str


def relative_abundances(abundances: object, count: int) -> list[float]:
    """Relative abundances of `count` members: equal without `abundances`, else the given positive
    numbers divided by their sum. INVALID_ABUNDANCES for a list of another length or a number
    that is not finite and positive."""
    if abundances is None:
        return [1.0 / count] * count
    hint = ["Give one positive number per member, in the order of model_ids (e.g. [0.7, 0.3]); they are "
            "divided by their sum. Leave abundances out for equal ones."]
    if not isinstance(abundances, list | tuple) or len(abundances) != count:
        size = len(abundances) if isinstance(abundances, list | tuple) else None
        raise ValidationError(ErrorCode.INVALID_ABUNDANCES,
                              f"abundances must be a list of {count} numbers, one per member; got {size}.",
                              details={"members": count, "provided": size}, suggestions=hint)
    bad = [i for i, a in enumerate(abundances)
           if isinstance(a, bool) or not isinstance(a, int | float) or not math.isfinite(a) or a <= 0]
    if bad:
        raise ValidationError(ErrorCode.INVALID_ABUNDANCES,
                              "Every abundance must be a finite number greater than 0 (remove a member instead "
                              "of giving it 0).",
                              details={"invalid_positions": bad[:MAX_LISTED],
                                       "invalid_values": [repr(abundances[i])[:20] for i in bad[:MAX_LISTED]]},
                              suggestions=hint)
    values = [float(a) for a in abundances]
    total = math.fsum(values)
    return [v / total for v in values]


def check_member(model_id: str, model: cobra.Model) -> None:
    """A member must exchange metabolites with the medium, in the ModelSEED namespace
    (`cpd#####_e0`): COMMUNITY_NAMESPACE_MISMATCH otherwise."""
    exchanges = exchange_reactions(model)
    if not exchanges:
        raise ValidationError(ErrorCode.COMMUNITY_NAMESPACE_MISMATCH,
                              f"Model '{model_id}' has no exchange reactions, so it can share nothing with the "
                              "other members.", details={"model_id": model_id, "exchanges": 0},
                              suggestions=["Gapfill the model on a medium first (gapfill_model)."])
    foreign = [r.id for r in exchanges if not SEED_EXTERNAL.match(next(iter(r.metabolites)).id)]
    if foreign:
        raise ValidationError(
            ErrorCode.COMMUNITY_NAMESPACE_MISMATCH,
            f"Model '{model_id}' exchanges metabolites outside the ModelSEED namespace ({len(foreign)} of "
            f"{len(exchanges)} exchanges); members share metabolites by their ModelSEED ids (cpd00027_e0).",
            details={"model_id": model_id, "foreign_exchanges": foreign[:MAX_LISTED], "num_foreign": len(foreign),
                     "num_exchanges": len(exchanges)},
            suggestions=["Use models built or gapfilled by gem-flux, or a model in ModelSEED ids."])


def taxon_ids(model_ids: Sequence[str]) -> list[str]:
    """MICOM's member ids (letters, digits, `_`; it rewrites anything else), one per model id,
    kept distinct when two model ids clean to the same text."""
    taxa: list[str] = []
    for model_id in model_ids:
        base = re.sub(r"[^A-Za-z0-9_]+", "_", model_id)
        taxon, n = base, 2
        while taxon in taxa:
            taxon, n = f"{base}_{n}", n + 1
        taxa.append(taxon)
    return taxa


def build_micom_community(members: Sequence[Member], community_id: str, solver: str = SOLVER
                          ) -> tuple[micom.Community, dict[str, str]]:
    """(the MICOM community of `members`, {MICOM taxon id: our model id})."""
    import micom
    import pandas as pd

    taxa = taxon_ids([m.model_id for m in members])
    with tempfile.TemporaryDirectory(prefix="gemflux-community-") as folder:
        files = []
        for taxon, member in zip(taxa, members, strict=True):
            path = Path(folder) / f"{taxon}.json"
            path.write_text(member.model_json, encoding="utf-8")
            files.append(str(path))
        table = pd.DataFrame({"id": taxa, "file": files, "abundance": [m.abundance for m in members]})
        community = micom.Community(table, id=re.sub(r"[^A-Za-z0-9_]+", "_", community_id), solver=solver,
                                    progress=False)
    return community, dict(zip(taxa, (m.model_id for m in members), strict=True))


def medium_exchange_id(compound_id: str) -> str:
    """The community's exchange of a compound with the medium (MICOM: `EX_<metabolite>_m`)."""
    return f"EX_{compound_id}_m"


def put_community_on_medium(community: micom.Community, medium: Mapping[str, tuple[float, float]]
                            ) -> tuple[list[str], list[str]]:
    """The medium on the community's exchanges with the environment, as MICOM's `medium` setter
    does (uptake of each compound in the medium up to -lower, no uptake of anything else), plus
    each compound's secretion limit (upper). Returns (compounds applied, compounds no member
    exchanges)."""
    present = {r.id for r in community.exchanges}
    applied = [c for c in medium if medium_exchange_id(c) in present]
    community.medium = {medium_exchange_id(c): -medium[c][0] for c in applied if medium[c][0] < 0}
    for compound in applied:
        reaction = community.reactions.get_by_id(medium_exchange_id(compound))
        reaction.upper_bound = max(medium[compound][1], 0.0)
    return applied, [c for c in medium if c not in applied]


def compound_of(metabolite_id: str) -> str:
    """`cpd00027` of `cpd00027_e0` or `cpd00027_m`."""
    return metabolite_id.rsplit("_", 1)[0]


def names_of(community: micom.Community) -> dict[str, str]:
    """{compound id: name} of the community's medium metabolites (without a ModelSEED compartment
    tag such as ' [e0]': MICOM copies the first member's metabolite, whose tag may name another
    compartment)."""
    return {compound_of(m.id): re.sub(r"\s*\[[a-z]+\d*\]$", "", m.name or "") or compound_of(m.id)
            for m in community.metabolites if m.compartment == "m"}


def json_safe(value: float) -> float:
    return round(float(value), 9) if math.isfinite(value) else 0.0


def as_dict(series: Any) -> dict[str, float]:
    return {str(k): float(v) for k, v in series.items()}
