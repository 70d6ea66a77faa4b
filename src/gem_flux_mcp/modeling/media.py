"""Growth media: validation of a requested medium and applying one to a COBRApy model.

Applying honours both bounds of every medium compound (uptake and secretion), closes uptake of
everything else, and works on models in any namespace by resolving each exchange metabolite to a
ModelSEED compound id (id pattern, `seed.compound` annotation, or BiGG id through the database).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.rules.catalog import COMPOUNDS, DEFAULT_UPTAKE

if TYPE_CHECKING:  # COBRApy takes ~2 s to import; modules import it where first used
    import cobra

CPD_ID = re.compile(r"^cpd\d{5}$")
_MODEL_CPD = re.compile(r"^(cpd\d{5})(?:_[a-z]+\d*)?$")
RICH_THRESHOLD = 50  # fewer than 50 compounds is "minimal", else "rich"
DEFAULT_SECRETION = 100.0


def media_type(num_compounds: int) -> Literal["minimal", "rich"]:
    return "minimal" if num_compounds < RICH_THRESHOLD else "rich"


def validate_media_request(
    compounds: object,
    default_uptake: object,
    custom_bounds: object,
    known: Callable[[list[str]], set[str]],
) -> dict[str, tuple[float, float]]:
    """The medium as {cpd: (lower, upper)} in input order, or a ValidationError naming every
    offending entry. `known` returns which of the given ids exist in the database."""
    normalized = check_compound_ids(COMPOUNDS.check(compounds), known)
    uptake = DEFAULT_UPTAKE.check(default_uptake)
    medium = {cpd: (-uptake, DEFAULT_SECRETION) for cpd in normalized}
    for cpd, bounds in _custom_bounds(custom_bounds, normalized).items():
        medium[cpd] = bounds
    return medium


def check_compound_ids(compounds: Sequence[object], known: Callable[[list[str]], set[str]],
                       allow_duplicates: bool = False) -> list[str]:
    """ModelSEED compound ids, normalised (trimmed, lower case), in input order; every malformed,
    repeated or unknown one reported at once."""
    normalized: list[str] = []
    malformed: list[Any] = []
    for raw in compounds:
        value = raw.strip().lower() if isinstance(raw, str) else raw
        if not isinstance(value, str) or not CPD_ID.match(value):
            malformed.append(raw)
        normalized.append(value if isinstance(value, str) else repr(value))
    if malformed:
        raise ValidationError(
            ErrorCode.INVALID_COMPOUND_IDS,
            f"{len(malformed)} compound id(s) are not ModelSEED ids (cpd + 5 digits): "
            f"{', '.join(map(str, malformed[:10]))}.",
            details={"malformed_ids": malformed[:50], "total_provided": len(compounds)},
            suggestions=["ModelSEED compound ids look like 'cpd00027' (D-Glucose); names must be looked up first."],
        )
    duplicates = sorted({c for c in normalized if normalized.count(c) > 1})
    if duplicates and not allow_duplicates:
        raise ValidationError(
            ErrorCode.DUPLICATE_COMPOUND_IDS,
            f"Compound ids appear more than once: {', '.join(duplicates)}.",
            details={"duplicate_ids": duplicates},
            suggestions=["List each compound once; set its bounds with custom_bounds."],
        )
    normalized = list(dict.fromkeys(normalized))
    existing = known(normalized)
    missing = [c for c in normalized if c not in existing]
    if missing:
        raise ValidationError(
            ErrorCode.INVALID_COMPOUND_IDS,
            f"{len(missing)} compound id(s) are not in the ModelSEED database: {', '.join(missing[:10])}.",
            details={"invalid_ids": missing, "valid_ids": [c for c in normalized if c in existing],
                     "total_provided": len(normalized), "total_invalid": len(missing)},
            suggestions=["Check the ids: they must exist in the ModelSEED database."],
        )
    return normalized


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _custom_bounds(raw: object, compounds: list[str]) -> dict[str, tuple[float, float]]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValidationError(ErrorCode.INVALID_BOUNDS_FORMAT,
                              "custom_bounds must be an object {cpd id: [lower, upper]}.",
                              details={"provided": repr(raw)[:80]})
    result: dict[str, tuple[float, float]] = {}
    not_listed: list[Any] = []
    bad_format: list[Any] = []
    out_of_order: list[dict[str, Any]] = []
    for key, value in raw.items():
        cpd = key.strip().lower() if isinstance(key, str) else str(key)
        if cpd not in compounds:
            not_listed.append(key)
            continue
        pair = list(value) if isinstance(value, list | tuple) else None
        numbers = [_number(v) for v in pair] if pair is not None else []
        if pair is None or len(pair) != 2 or any(n is None for n in numbers):
            bad_format.append(key)
            continue
        lower, upper = (float(n) for n in numbers if n is not None)
        if lower > upper:
            out_of_order.append({"compound": cpd, "bounds": [lower, upper]})
            continue
        result[cpd] = (lower, upper)
    if not_listed:
        raise ValidationError(
            ErrorCode.COMPOUND_NOT_IN_LIST,
            f"custom_bounds names compounds that are not in `compounds`: {', '.join(map(str, not_listed))}.",
            details={"compounds_not_in_list": not_listed},
            suggestions=["Add them to `compounds`, or remove them from custom_bounds."],
        )
    if bad_format:
        raise ValidationError(
            ErrorCode.INVALID_BOUNDS_FORMAT,
            f"custom_bounds entries must be [lower, upper] numbers: {', '.join(map(str, bad_format))}.",
            details={"invalid_entries": bad_format},
            suggestions=["Write bounds as two numbers, e.g. [-5, 100] (uptake up to 5, secretion up to 100)."],
                    )
    if out_of_order:
        raise ValidationError(
            ErrorCode.BOUNDS_OUT_OF_ORDER,
            "custom_bounds has lower > upper for: " + ", ".join(str(e["compound"]) for e in out_of_order) + ".",
            details={"invalid_entries": out_of_order},
            suggestions=["Negative lower = uptake limit, positive upper = secretion limit; lower <= upper."],
                    )
    return result


# ----------------------------------------------------------------------------------------------
# applying a medium


@dataclass
class ExchangeInfo:
    reaction_id: str
    metabolite_id: str
    compound_id: str | None  # ModelSEED id when it could be resolved
    sign: int  # coefficient of the metabolite: -1 for the usual `met <=>` orientation


@dataclass
class MediumReport:
    applied: list[tuple[str, str]] = field(default_factory=list)  # (cpd, reaction id)
    missing: list[str] = field(default_factory=list)  # medium compounds with no exchange
    closed: int = 0  # exchanges whose uptake was closed


def exchange_reactions(model: cobra.Model) -> list[cobra.Reaction]:
    """Exchanges: boundary reactions with one metabolite (COBRApy's `boundary`), which covers
    EX_ reactions of any namespace; sinks and demands named SK_/DM_ are left alone."""
    return [r for r in model.boundary if len(r.metabolites) == 1 and not r.id.startswith(("SK_", "DM_"))]


def resolve_exchanges(
    model: cobra.Model, bigg_to_seed: Callable[[Iterable[str]], dict[str, str]] | None = None
) -> list[ExchangeInfo]:
    """Exchange reactions with the ModelSEED id of their metabolite.

    Order of trust: a `cpd#####_e0` metabolite id; else the BiGG id (annotation or id) mapped
    through ModelSEED's own aliases; else the model's `seed.compound` annotations (oldest id
    first: in ModelSEED that is the canonical core compound). Model annotations are often wrong
    or ambiguous (COBRApy's textbook annotates O2 as cpd00532, superoxide).
    """
    infos: list[ExchangeInfo] = []
    pending: dict[str, list[tuple[ExchangeInfo, list[str]]]] = {}
    for reaction in exchange_reactions(model):
        metabolite, coefficient = next(iter(reaction.metabolites.items()))
        match = _MODEL_CPD.match(metabolite.id)
        info = ExchangeInfo(reaction.id, metabolite.id, match.group(1) if match else None,
                            -1 if coefficient < 0 else 1)
        infos.append(info)
        if info.compound_id is None:
            bigg = metabolite.annotation.get("bigg.metabolite") or _strip_compartment(metabolite.id)
            key = bigg[0] if isinstance(bigg, list) else str(bigg)
            pending.setdefault(key, []).append((info, _annotated_seed_ids(metabolite)))
    mapping = bigg_to_seed(list(pending)) if pending and bigg_to_seed is not None else {}
    for key, entries in pending.items():
        for info, annotated in entries:
            info.compound_id = mapping.get(key) or (min(annotated) if annotated else None)
    return infos


class CompoundAliases(Protocol):
    def compound_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, str]: ...


def exchanges_of(model: cobra.Model, aliases: CompoundAliases) -> list[ExchangeInfo]:
    """`resolve_exchanges` with BiGG ids mapped through `aliases` (the biochemistry index)."""
    return resolve_exchanges(model, lambda ids: aliases.compound_ids_for_external("BiGG", ids))


def put_on_medium(model: cobra.Model, medium: Mapping[str, tuple[float, float]], aliases: CompoundAliases
                  ) -> tuple[list[ExchangeInfo], MediumReport]:
    """The model's exchanges resolved (`exchanges_of`) and the medium applied to them."""
    exchanges = exchanges_of(model, aliases)
    return exchanges, apply_medium(model, medium, exchanges)


def _annotated_seed_ids(metabolite: cobra.Metabolite) -> list[str]:
    annotated = metabolite.annotation.get("seed.compound")
    values = annotated if isinstance(annotated, list) else [annotated] if annotated else []
    return [v for v in values if isinstance(v, str) and CPD_ID.match(v)]


def _strip_compartment(metabolite_id: str) -> str:
    return re.sub(r"_[a-z]\d?$", "", metabolite_id)


def apply_medium(model: cobra.Model, medium: Mapping[str, tuple[float, float]],
                 exchanges: list[ExchangeInfo]) -> MediumReport:
    """Set exchange bounds for the medium (call inside `with model:` to make it temporary)."""
    report = MediumReport()
    seen: set[str] = set()
    for info in exchanges:
        reaction = model.reactions.get_by_id(info.reaction_id)
        if info.compound_id is not None and info.compound_id in medium:
            lower, upper = medium[info.compound_id]
            seen.add(info.compound_id)
            report.applied.append((info.compound_id, info.reaction_id))
        else:
            # not in the medium: no uptake; secretion stays as the model allows
            lower, upper = 0.0, max(reaction.upper_bound if info.sign < 0 else -reaction.lower_bound, 0.0)
            report.closed += 1
        if info.sign < 0:
            reaction.bounds = (lower, upper)
        else:  # written as `<=> met`: positive flux is uptake, so mirror the bounds
            reaction.bounds = (-upper, -lower)
    report.missing = [c for c in medium if c not in seen]
    return report
