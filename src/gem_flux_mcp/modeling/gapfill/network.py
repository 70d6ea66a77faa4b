"""Gapfilling inputs and the network: options, reaction facts, the ATP test media, and the
model plus candidate template reactions as one sparse LP (`Network`)."""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gem_flux_mcp.modeling.acyl_coa_dehydrogenases import acyl_coa_oxidation_sign
from gem_flux_mcp.modeling.decarboxylation import decarboxylating_sign
from gem_flux_mcp.modeling.energy import driven_transport_sign, moves_solute, nucleotide_making_sign
from gem_flux_mcp.modeling.fluxlp import Column, FluxLP, SolverDeadline
from gem_flux_mcp.modeling.hydrolysis import hydrolysis_sign
from gem_flux_mcp.modeling.oxygen import oxygen_consuming_sign
from gem_flux_mcp.modeling.phosphorylation import phosphorylating_sign

if TYPE_CHECKING:
    import cobra

Medium = Mapping[str, tuple[float, float]]  # ModelSEED compound id -> (lower, upper)
NamedMedia = Mapping[str, Medium]  # medium name -> medium
Progress = Callable[[str, float, str], None]

MODES = ("full", "atp_only", "genomescale_only")
ATP_CORRECTION_MODES = ("full", "atp_only")  # the modes that run stage 1
ATP_TEST = "gemflux_atp_test"  # ATP + H2O -> ADP + Pi + H+, added to the LP only: every model has it
ATP_HYDROLYSIS = {"cpd00002_c0": -1.0, "cpd00001_c0": -1.0, "cpd00008_c0": 1.0, "cpd00009_c0": 1.0,
                  "cpd00067_c0": 1.0}
MIN_ATP = 0.01  # ModelSEEDpy's default minimum objective on the ATP media
EMPTY_THRESHOLD = 1e-5  # "no ATP": the solver's tolerance, as in ModelSEEDpy's tests
ATP_MULTIPLIER = {"Glc": 2.0}
DEFAULT_ATP_MULTIPLIER = 1.2
MAX_CORE_GAPFILL = 10  # more missing core reactions than this: the organism does not use that medium
CORE_GAPFILL_DELTA = 0.0  # as ModelSEEDpy: only the media with the smallest core gap are used
WEAK_EVIDENCE_FACTOR = 0.5  # cost multiplier for reactions the genome supports weakly
FLUX_MAX = 1000.0
ACTIVE = 1e-7
MAX_BAN_ROUNDS = 40
MAX_OFFENDER_TRIALS = 12
INTEGER_PASS_LIMIT_S = 30.0
RXN_ID = re.compile(r"^(rxn\d{5})_([a-z])(\d+)$")
CARBON_ATOM = re.compile(r"C(?![a-z])")


# ---- inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GapfillOptions:
    target_growth: float = 0.01
    mode: str = "full"
    integer_pass: bool = True
    exclude_imbalanced: bool = True
    time_limit_s: float = 600.0
    medium_uptake: bool = True  # stage 3: a transporter for each medium compound the model cannot take up


@dataclass(frozen=True)
class ReactionFacts:
    """What the ModelSEED database says about reactions (ids without compartment, e.g. rxn00148)."""

    imbalanced: frozenset[str] = frozenset()  # mass-imbalanced (status MI)
    reversibility: Mapping[str, str] = field(default_factory=dict)  # thermodynamic estimate: > < = ?
    linked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # obsolete <-> replacement ids
    deltag: Mapping[str, float] = field(default_factory=dict)  # standard ΔG'° (kcal/mol) where estimated


@dataclass(frozen=True)
class AtpTest:
    medium: str
    threshold: float  # ATP flux above this fails


def load_atp_media(path: Path) -> dict[str, dict[str, tuple[float, float]]]:
    """ModelSEEDpy's ATP test media: donors at uptake 1, acceptors at 1000, plus H2O and H+."""
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    names = rows[0][1:]
    result: dict[str, dict[str, tuple[float, float]]] = {
        name: {"cpd00001": (-1000.0, 1000.0), "cpd00067": (-1000.0, 1000.0)} for name in names}
    for row in rows[1:]:
        match = re.match(r"EX_(cpd\d{5})_e0$", row[0])
        if not match:
            continue
        for name, value in zip(names, row[1:], strict=False):
            uptake = float(value or 0)
            if uptake > 0:
                result[name][match.group(1)] = (-uptake, 1000.0)
    return result


def named_media(media: Medium | NamedMedia) -> dict[str, Medium]:
    """One medium (compound -> (lower, upper)) as {"medium": it}, or several by name as they are."""
    values = list(media.values())
    if values and all(isinstance(v, Mapping) for v in values):
        return {str(name): medium for name, medium in media.items()}  # type: ignore[misc]
    return {"medium": media}  # type: ignore[dict-item]


def atp_media_path() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("modelseedpy")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("modelseedpy is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "atp_medias.tsv"


# ---- the network ------------------------------------------------------------------------------


@dataclass
class Flux:
    """One direction of one reaction in the network."""

    reaction: str  # model reaction id, e.g. rxn00148_c0
    direction: int  # +1 forward, -1 reverse
    kind: str  # "model" (already allowed), "reverse" (reversal of a model reaction), "template", "exchange"
    cost: float = 0.0


class Network:
    """The model's reactions and the template reactions it could gain, one column per direction.

    An ATP-driven transporter is never offered in the direction that would make ATP (energy.py);
    `transport` holds the reactions that move something between compartments, for which the
    database's reversibility decides whether gapfilling adds both directions (directions.py)."""

    def __init__(self, model: cobra.Model, template: Any, deadline: SolverDeadline, *,
                 excluded: AbstractSet[str] = frozenset(), discounts: Mapping[str, float] | None = None,
                 reversibility: Mapping[str, str] | None = None, deltag: Mapping[str, float] | None = None) -> None:
        discounts = discounts or {}
        reversibility = reversibility or {}
        deltag = deltag or {}
        self.fluxes: list[Flux] = []
        columns: list[Column] = []

        def add(flux: Flux, stoichiometry: Mapping[str, float], lower: float, upper: float) -> None:
            self.fluxes.append(flux)
            sign = flux.direction
            columns.append(Column(f"{flux.reaction}#{'f' if sign > 0 else 'r'}",
                                  {m: sign * c for m, c in stoichiometry.items()}, lower, upper))

        self.model_reactions: set[str] = set()
        self.reversibility = reversibility
        self.transport: set[str] = set()
        self.exchange_compound: dict[str, str] = {}  # reaction id -> cpd id (uptake = reverse column)
        self.sinks: set[str] = set()
        self.uptake_sign: dict[str, int] = {}  # boundary reaction -> direction that takes mass in
        # in id order, so one model gives one LP (and one answer among equal-cost ones) however its
        # reactions and metabolites happen to be ordered (a JSON round trip reorders them)
        for reaction in sorted(model.reactions, key=lambda r: r.id):
            stoich = {m.id: c for m, c in sorted(reaction.metabolites.items(), key=lambda item: item[0].id)}
            self.model_reactions.add(reaction.id)
            if len(stoich) == 1 and reaction.boundary:
                (met, coefficient), = stoich.items()
                match = re.match(r"^(cpd\d{5})_e\d+$", met)
                self.uptake_sign[reaction.id] = -1 if coefficient < 0 else 1
                if reaction.id.startswith(("SK_", "DM_")) or not match:
                    self.sinks.add(reaction.id)
                else:
                    self.exchange_compound[reaction.id] = match.group(1)
            lower, upper = reaction.lower_bound, reaction.upper_bound
            template_reaction = find_template_reaction(template, reaction.id)
            gapfill_dir = getattr(template_reaction, "GapfillDirection", "=") if template_reaction else ""
            offered = _offered_directions(gapfill_dir, stoich, reversibility.get(reaction.id.split("_")[0], "?"),
                                          deltag.get(reaction.id.split("_")[0]),
                                          acyl_coa_oxidation_sign(reaction.metabolites))
            self._note_transport(reaction.id, stoich)
            for sign in (1, -1):
                top = upper if sign > 0 else -lower
                bottom = lower if sign > 0 else -upper
                if top > 0:
                    add(Flux(reaction.id, sign, "model"), stoich, max(bottom, 0.0), top)
                elif template_reaction is not None and reaction.id not in excluded and sign in offered:
                    cost = _direction_cost(template_reaction, sign) * discounts.get(reaction.id, 1.0)
                    add(Flux(reaction.id, sign, "reverse", cost), stoich, 0.0, 0.0)
        new_extracellular: set[str] = set()
        for template_reaction in template.reactions:
            rid = f"{template_reaction.id}0"
            if rid in self.model_reactions or rid in excluded or template_reaction.type == "biomass":
                continue
            stoich = {f"{m.id}0": c for m, c in template_reaction.metabolites.items()}
            if not stoich:
                continue
            self._note_transport(rid, stoich)
            for sign in _offered_directions(template_reaction.GapfillDirection, stoich,
                                            reversibility.get(template_reaction.id.split("_")[0], "?"),
                                            deltag.get(template_reaction.id.split("_")[0]),
                                            acyl_coa_oxidation_sign(template_reaction.metabolites)):
                cost = _direction_cost(template_reaction, sign) * discounts.get(rid, 1.0)
                add(Flux(rid, sign, "template", cost), stoich, 0.0, 0.0)
            new_extracellular.update(m for m in stoich if re.match(r"^cpd\d{5}_e0$", m))
        model_mets = {m.id for m in model.metabolites}
        for met in sorted(new_extracellular - model_mets):
            rid = f"EX_{met}"
            if rid in self.model_reactions:
                continue
            self.exchange_compound[rid] = met.split("_")[0]
            self.uptake_sign[rid] = -1
            for sign in (1, -1):
                add(Flux(rid, sign, "exchange"), {met: -1.0}, 0.0, 0.0)
        add(Flux(ATP_TEST, 1, "test"), ATP_HYDROLYSIS, 0.0, 0.0)
        self.lp = FluxLP(columns, deadline)
        self.base_lower = self.lp.lower.copy()
        self.base_upper = self.lp.upper.copy()
        self.costs = np.array([f.cost for f in self.fluxes])
        self.gapfill_columns = np.array([f.kind in ("template", "reverse") for f in self.fluxes])
        self.col = {(f.reaction, f.direction): i for i, f in enumerate(self.fluxes)}
        # directions ModelSEED's thermodynamic estimate says a reaction cannot run
        self.disfavored = np.array([
            reversibility.get(f.reaction.split("_")[0]) == ("<" if f.direction > 0 else ">") for f in self.fluxes])
        # standard ΔG'° in the column's direction (NaN if unknown): an energy-generating cycle
        # needs at least one step that runs uphill
        self.uphill = np.array([f.direction * deltag.get(f.reaction.split("_")[0], np.nan) for f in self.fluxes])
        self.atp_column = self.col[(ATP_TEST, 1)]
        # the columns bounds() sets per medium, found once (a network has 10,000+ columns)
        self._boundary = [(i, cpd, f.direction == self.uptake_sign[f.reaction], f.kind == "exchange")
                          for i, f in enumerate(self.fluxes)
                          if (cpd := self.exchange_compound.get(f.reaction)) is not None]
        self._sink_uptake = np.array([i for i, f in enumerate(self.fluxes)
                                      if f.reaction in self.sinks and f.reaction not in self.exchange_compound
                                      and f.direction == self.uptake_sign[f.reaction]], dtype=int)
        self._model_columns = [(i, f.reaction) for i, f in enumerate(self.fluxes) if f.kind == "model"]

    def _note_transport(self, reaction_id: str, stoichiometry: Mapping[str, float]) -> None:
        if moves_solute(stoichiometry):
            self.transport.add(reaction_id)

    def reversible_in_database(self, reaction_id: str) -> bool:
        """ModelSEED's reversibility estimate allows both directions ('=', or '?' unknown)."""
        return self.reversibility.get(reaction_id.split("_")[0], "?") in ("=", "?")

    # -- bounds for a question --------------------------------------------------------------------

    def bounds(self, medium: Medium, *, allowed: Iterable[int] = (), atp_test: bool = False,
               only_core: set[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Column bounds on a medium: gapfill columns closed except `allowed` (opened to
        FLUX_MAX); uptake only of medium compounds. For an ATP test, sinks take nothing in and
        the ATP hydrolysis test column is open."""
        lower, upper = self.base_lower.copy(), self.base_upper.copy()
        if atp_test:
            upper[self.atp_column] = FLUX_MAX
        for i in allowed:
            upper[i] = FLUX_MAX
        if atp_test:  # after `allowed`: an ATP test never lets a sink take anything in
            upper[self._sink_uptake] = lower[self._sink_uptake] = 0.0
        for i, cpd, uptake, new_exchange in self._boundary:
            if cpd in medium:
                low, up = medium[cpd]
                upper[i] = max(-low, 0.0) if uptake else max(up, 0.0)
                lower[i] = max(-up, 0.0) if uptake else max(low, 0.0)
            elif uptake:
                upper[i] = lower[i] = 0.0
            elif new_exchange:
                upper[i], lower[i] = FLUX_MAX, 0.0
        if only_core is not None:
            outside = [i for i, reaction in self._model_columns if reaction not in only_core]
            lower[outside] = upper[outside] = 0.0
        return lower, upper


def find_template_reaction(template: Any, reaction_id: str) -> Any:
    match = RXN_ID.match(reaction_id)
    if not match:
        return None
    try:
        return template.reactions.get_by_id(f"{match.group(1)}_{match.group(2)}")
    except KeyError:
        return None


def _offered_directions(gapfill_direction: str, stoichiometry: Mapping[str, float],
                        database: str = "?", deltag: float | None = None,
                        oxidation: int | None = None) -> tuple[int, ...]:
    """The directions gapfilling may add: those the template allows, less the direction
    ModelSEED's thermodynamic estimate rules out (`database` '>' or '<': e.g. nitric oxide
    dioxygenase run backwards would make O2 from nitrate), the ATP-making direction of an
    ATP-driven transporter, the CO2-fixing direction of a decarboxylation (decarboxylation.py), the
    bond-making direction of a hydrolysis (hydrolysis.py), the direction of a pyruvate or
    carbamate kinase that spends a triphosphate (energy.py), the direction of a kinase that
    remakes ATP or PEP from a phosphate ester (phosphorylation.py) and the O2-making direction of
    a reaction written as consuming O2 (oxygen.py). An acyl-CoA dehydrogenase the
    template allows both ways is offered as the oxidation only, `oxidation` being that direction
    (acyl_coa_dehydrogenases.py); a template direction that is a reduction only stays."""
    allowed = {"=": (1, -1), ">": (1,), "<": (-1,)}.get(gapfill_direction, ())
    if oxidation is not None and len(allowed) == 2:
        allowed = (oxidation,)
    possible = {">": (1,), "<": (-1,)}.get(database, (1, -1))
    required = _required_signs(tuple(stoichiometry.items()), deltag)
    return tuple(s for s in allowed if s in possible and all(s == sign for sign in required))


@functools.lru_cache(maxsize=1 << 16)
def _required_signs(stoichiometry: tuple[tuple[str, float], ...], deltag: float | None) -> tuple[int, ...]:
    """The directions a reaction's chemistry allows it (see `_offered_directions`). A function of
    the stoichiometry and ΔG'° alone, asked of every template reaction each time a network is
    built (twice per gapfill over the whole template): found once per process."""
    stoich = dict(stoichiometry)
    signs = (driven_transport_sign(stoich), decarboxylating_sign(stoich, deltag),
             nucleotide_making_sign(stoich), hydrolysis_sign(stoich, deltag), phosphorylating_sign(stoich, deltag),
             oxygen_consuming_sign(stoich))
    return tuple(sign for sign in signs if sign is not None)


def _direction_cost(template_reaction: Any, sign: int) -> float:
    penalty = template_reaction.forward_penalty if sign > 0 else template_reaction.reverse_penalty
    return max(float(template_reaction.base_cost or 0) + float(penalty or 0), 0.1)
