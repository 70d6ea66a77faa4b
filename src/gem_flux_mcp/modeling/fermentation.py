"""Fermentation products: what a model secretes at its optimal growth on a medium.

The protocol of the gapseq paper's fermentation test (Zimmermann et al. 2021, Genome Biology
22:81): growth optimal, the minimal-total-flux solution at that optimum (COBRApy `pfba`), and a
compound counts as a product when its secretion in that solution is at least `min_ratio` (0.25)
times the growth rate (mmol/gDW/h per 1/h). Each product also gets its flux range at the optimum
(COBRApy FVA at 100 % of the optimum: can the model make it, must it?) and the pathway that makes
it, traced back from its exchange through the reactions that produce each intermediate most.

The caller applies the medium (inside `with model:`), as for run_fba.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.energy import reversed_atp_transport
from gem_flux_mcp.modeling.media import ExchangeInfo
from gem_flux_mcp.rules.catalog import MIN_RATIO

if TYPE_CHECKING:
    import cobra

MIN_GROWTH = 1e-6  # at or below this the model does not grow and secretes nothing worth a call
PATHWAY_STEPS = 8

# The nine products the gapseq paper scores (lactate's two enantiomers count once), by name
SCORED_PRODUCTS: dict[str, tuple[str, ...]] = {
    "acetate": ("cpd00029",), "formate": ("cpd00047",), "ethanol": ("cpd00363",), "butyrate": ("cpd00211",),
    "propionate": ("cpd00141",), "lactate": ("cpd00159", "cpd00221"), "succinate": ("cpd00036",),
    "acetone": ("cpd00178",), "H2": ("cpd11640",),
}
PRODUCT_OF = {cpd: name for name, ids in SCORED_PRODUCTS.items() for cpd in ids}
# Fermentation end products that cross membranes by diffusion, no protein needed: gases and small
# uncharged molecules (ModelSEED ids; broader than the nine scored). Gapfilling lets each out of
# the cell wherever the model makes it (gapfill/uptake.py).
DIFFUSIBLE_END_PRODUCTS = frozenset({
    "cpd00363", "cpd01269", "cpd03662", "cpd01618", "cpd01947", "cpd01949", "cpd00361",  # alcohols, diols, acetoin
    "cpd00178", "cpd11640", "cpd00011", "cpd01024",  # acetone, H2, CO2, methane
})
# other names people use for them (organic acids by acid name, as papers list them)
SYNONYMS = {"acetic acid": "acetate", "formic acid": "formate", "butyric acid": "butyrate",
            "propionic acid": "propionate", "lactic acid": "lactate", "dl-lactic acid": "lactate",
            "l-lactate": "lactate", "d-lactate": "lactate", "succinic acid": "succinate", "hydrogen": "H2"}

# cofactors and inorganic compounds a pathway trace walks past (ModelSEED ids)
CURRENCY = frozenset({
    "cpd00001", "cpd00067", "cpd00002", "cpd00008", "cpd00018", "cpd00009", "cpd00012", "cpd00003", "cpd00004",
    "cpd00005", "cpd00006", "cpd00010", "cpd00011", "cpd00013", "cpd00015", "cpd00982", "cpd00971", "cpd00205",
    "cpd11620", "cpd11621", "cpd15560", "cpd15561", "cpd15499", "cpd15500", "cpd00038", "cpd00031", "cpd00007",
    "cpd00025", "cpd00242", "cpd00052", "cpd00096", "cpd00062", "cpd00014", "cpd00068", "cpd00115", "cpd00177",
    "cpd00356", "cpd00357", "cpd00358", "cpd00206", "cpd00297", "cpd00091", "cpd00126", "cpd00046",
})
_MET_ID = re.compile(r"^(cpd\d{5})_([a-z])\d*$")
_CARBON = re.compile(r"C(\d*)(?![a-z])")


def product_key(name: str) -> str | None:
    """A scored product's name for a product name, synonym or ModelSEED id; another compound id as
    it is; None for a name that is neither."""
    text = name.strip()
    if text in PRODUCT_OF:
        return PRODUCT_OF[text]
    if re.fullmatch(r"cpd\d{5}", text):
        return text
    lowered = text.lower()
    for product in SCORED_PRODUCTS:
        if product.lower() == lowered:
            return product
    return SYNONYMS.get(lowered)


def check_observed(observed: object) -> dict[str, bool] | None:
    """Observed products as {product: secreted in vivo}: a list names the products seen (every
    other scored product counts as not seen), a mapping says it per product; keys are product
    names, synonyms ('acetic acid') or ModelSEED compound ids."""
    if observed is None:
        return None
    if isinstance(observed, list) and all(isinstance(v, str) for v in observed):
        pairs = [(name, True) for name in observed]
        base = {name: False for name in SCORED_PRODUCTS}
    elif isinstance(observed, dict) and all(isinstance(k, str) and isinstance(v, bool) for k, v in observed.items()):
        pairs, base = list(observed.items()), {}
    else:
        raise ValidationError(ErrorCode.INVALID_ARGUMENTS,
                              "observed must be a list of product names or a mapping {product: true/false}.",
                              details={"provided": repr(observed)[:80]})
    unknown = [name for name, _ in pairs if product_key(name) is None]
    if unknown:
        raise ValidationError(
            ErrorCode.INVALID_ARGUMENTS, f"Unknown product names in observed: {', '.join(unknown[:10])}.",
            details={"unknown": unknown[:50], "valid_names": list(SCORED_PRODUCTS)},
            suggestions=["Use a scored product name (acetate, formate, ethanol, butyrate, propionate, lactate, "
                         "succinate, acetone, H2) or a ModelSEED compound id (cpd00029)."])
    return {**base, **{str(product_key(name)): seen for name, seen in pairs}}


@dataclass(frozen=True)
class PathwayStep:
    reaction_id: str
    name: str
    flux: float  # in the reaction's own direction: < 0 runs in reverse
    substrate: str  # the metabolite this step consumes that the trace follows ('' at the end)
    gene_rule: str
    source: str  # how the reaction entered the model (build/gapfill notes), '' when unknown


@dataclass(frozen=True)
class Product:
    compound_id: str
    exchange_id: str
    name: str
    flux: float  # secretion in the minimal-total-flux solution (mmol/gDW/h, > 0)
    per_growth: float  # flux / growth rate
    fva_min: float | None  # secretion range at the optimum (None when not computed)
    fva_max: float | None
    in_medium: bool  # the medium offers it too (a product that is also a substrate)
    scored_as: str | None  # one of SCORED_PRODUCTS, or None
    pathway: tuple[PathwayStep, ...] = ()


@dataclass
class FermentationResult:
    growth: float
    products: list[Product]  # secreted at >= min_ratio x growth, most first
    minor: list[Product]  # secreted below that, most first
    min_ratio: float
    predicted: dict[str, bool] = field(default_factory=dict)  # each scored product: made or not
    # ATP-driven transporters run in their ATP-making direction in the solution (should be none)
    reversed_atp_transport: list[tuple[str, float]] = field(default_factory=list)


def fermentation_products(model: cobra.Model, exchanges: Sequence[ExchangeInfo], medium: Mapping[str, object], *,
                          min_ratio: float = MIN_RATIO, variability: bool = True,
                          pathways: bool = True) -> FermentationResult:
    """Products at optimal growth (the model's objective), with the medium already applied."""
    from cobra.flux_analysis import flux_variability_analysis, pfba

    growth = model.slim_optimize(error_value=float("nan"))
    if math.isnan(growth) or growth <= MIN_GROWTH:
        return FermentationResult(0.0 if math.isnan(growth) else max(growth, 0.0), [], [], min_ratio,
                                  {name: False for name in SCORED_PRODUCTS})
    fluxes = {str(k): float(v) for k, v in pfba(model, fraction_of_optimum=1.0).fluxes.items()}
    secreted: list[tuple[ExchangeInfo, float]] = []
    for info in exchanges:
        value = float(fluxes[info.reaction_id]) * (1 if info.sign < 0 else -1)  # > 0: leaves the cell
        if value > 1e-9:
            secreted.append((info, value))
    ranges: dict[str, tuple[float, float]] = {}
    wanted = [info.reaction_id for info, value in secreted if value >= min_ratio * growth]
    if variability and wanted:
        table = flux_variability_analysis(model, wanted, fraction_of_optimum=1.0)
        for info, _ in secreted:
            if info.reaction_id in table.index:
                low, high = float(table.at[info.reaction_id, "minimum"]), float(table.at[info.reaction_id, "maximum"])
                ranges[info.reaction_id] = (low, high) if info.sign < 0 else (-high, -low)
    products: list[Product] = []
    minor: list[Product] = []
    for info, value in sorted(secreted, key=lambda item: -item[1]):
        metabolite = model.metabolites.get_by_id(info.metabolite_id)
        cpd = info.compound_id or info.metabolite_id
        major = value >= min_ratio * growth
        low_high = ranges.get(info.reaction_id)
        product = Product(cpd, info.reaction_id, metabolite.name or cpd, round(value, 6), round(value / growth, 4),
                          round(low_high[0], 6) if low_high else None, round(low_high[1], 6) if low_high else None,
                          cpd in medium, PRODUCT_OF.get(cpd),
                          trace_pathway(model, fluxes, info.metabolite_id) if pathways and major else ())
        (products if major else minor).append(product)
    made = {p.scored_as for p in products if p.scored_as}
    return FermentationResult(round(float(growth), 6), products, minor, min_ratio,
                              {name: name in made for name in SCORED_PRODUCTS},
                              reversed_atp_transport(model, fluxes))


def trace_pathway(model: cobra.Model, fluxes: Mapping[str, float], metabolite_id: str,
                  steps: int = PATHWAY_STEPS) -> tuple[PathwayStep, ...]:
    """From a secreted metabolite back towards central metabolism: at each metabolite, the
    reaction that makes most of it in the flux solution, then that reaction's main substrate
    (the consumed non-currency metabolite with the most carbon atoms); stops at a metabolite
    already visited, a currency metabolite, or after `steps` reactions."""
    trace: list[PathwayStep] = []
    seen_reactions: set[str] = set()
    seen = {metabolite_id}
    current = model.metabolites.get_by_id(metabolite_id)
    for _ in range(steps):
        best: tuple[float, cobra.Reaction] | None = None
        for reaction in current.reactions:
            if reaction.boundary or reaction.id in seen_reactions:
                continue
            made = float(fluxes[reaction.id]) * reaction.metabolites[current]
            if made > 1e-9 and (best is None or made > best[0]):
                best = (made, reaction)
        if best is None:
            break
        reaction = best[1]
        seen_reactions.add(reaction.id)
        flux = float(fluxes[reaction.id])
        consumed = [m for m, c in reaction.metabolites.items() if c * flux < 0 and _base(m.id) not in CURRENCY]
        following = max(consumed, key=lambda m: (_carbons(m.formula), -len(m.id), m.id), default=None)
        stop = following is None or following.id in seen
        trace.append(PathwayStep(reaction.id, reaction.name or reaction.id, round(flux, 6),
                                 "" if following is None else following.id, reaction.gene_reaction_rule,
                                 str(reaction.notes.get("gemflux_sources") or "")))
        if stop or following is None:
            break
        seen.add(following.id)
        current = following
    return tuple(trace)


def _base(metabolite_id: str) -> str:
    match = _MET_ID.match(metabolite_id)
    return match.group(1) if match else metabolite_id


def _carbons(formula: str | None) -> int:
    total = 0
    for match in _CARBON.finditer(formula or ""):
        total += int(match.group(1) or 1)
    return total
