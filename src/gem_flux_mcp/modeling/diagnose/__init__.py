"""A quality report on a metabolic model, each check a plain function on a COBRApy model.

- Balance: `Reaction.check_mass_balance` on every reaction but boundary and biomass-like ones
  (id `bio…`, > 20 metabolites, or making biomass `cpd11416`); a metabolite without formula makes
  its reactions "unknown", not imbalanced.
- Dead ends: metabolites nothing can consume (only produced) or produce (only consumed), with
  directions from the bounds, boundary reactions included; "isolated": no reaction, or one
  reversible reaction only (which then cannot carry flux).
- Blocked reactions: COBRApy's `find_blocked_reactions` set with far fewer solves. (1) Every
  direction that makes or uses a dead-end metabolite is closed, repeatedly (S·v = 0 forces it to 0).
  (2) FASTCC's LP (Vlassis et al. 2014) on one warm HiGHS problem: max Σ z_j, 0 ≤ z_j ≤ 1,
  z_j ≤ v_j over one-way reactions not yet seen carrying flux; each flux of the answer is not
  blocked, and an optimum of 0 proves all the rest blocked at once; the same backwards. (3) Each
  two-way reaction left on its own. Models with constraints beyond S·v = 0 go to COBRApy.
- Energy-generating cycles (Fritzemeier et al. 2017): uptakes closed (boundary reactions only
  secrete, forced fluxes relaxed to 0), the largest flux through a dissipation reaction (ATP, GTP,
  NADH, NADPH); above 1e-6 energy comes from nothing, and the cycle reported is the least total
  flux that dissipates 1 unit (pFBA): the loop, not the rest of a flux distribution.
- Missing biomass precursors: on the medium as applied, a temporary demand for each substrate of
  the biomass reaction, maximised in turn on one solver problem (warm starts). One not made is
  tried again with the biomass reaction's own products supplied (apo-ACP, peptidoglycan n-1): made
  then, it is "recycled", not missing. A missing one made by a single reaction (protein from
  aminoacyl-tRNAs) has that reaction's inputs tested too, with what it gives back supplied (the
  tRNAs); an input made only by loading such a carrier (the aminoacyl-tRNA) is followed to what is
  loaded, so the answer names the amino acid.
Every function leaves the model as it found it (changes are made inside `with model:`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling.diagnose.blocked import blocked_reactions
from gem_flux_mcp.modeling.diagnose.energy_cycles import energy_generating_cycles
from gem_flux_mcp.modeling.diagnose.precursors import growth, missing_biomass_precursors
from gem_flux_mcp.modeling.diagnose.records import (
    BIOMASS_COMPOUND,
    CARRIERS,
    PRODUCIBLE,
    Balance,
    DeadEnds,
    Diagnosis,
    EnergyCycle,
    Precursors,
)
from gem_flux_mcp.modeling.diagnose.structure import (
    dead_end_metabolites,
    imbalanced_reactions,
    is_biomass_like,
    is_boundary,
    reactions_without_genes,
)
from gem_flux_mcp.modeling.energy import atp_making_directions_open

__all__ = ["BIOMASS_COMPOUND", "CARRIERS", "PRODUCIBLE", "Balance", "DeadEnds", "Diagnosis", "EnergyCycle",
           "Precursors", "blocked_reactions", "dead_end_metabolites", "diagnose", "energy_generating_cycles",
           "growth", "imbalanced_reactions", "is_biomass_like", "is_boundary", "missing_biomass_precursors",
           "reactions_without_genes"]

if TYPE_CHECKING:
    import cobra


def diagnose(model: cobra.Model, biomass: str = "bio1", open_exchanges: bool = True) -> Diagnosis:
    """Every check above on `model` as it is (medium applied), each part timed."""
    timings: dict[str, float] = {}

    def timed(name: str, run: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        try:
            return run()
        finally:
            timings[name] = round(time.perf_counter() - started, 4)

    return Diagnosis(
        growth=timed("growth", lambda: growth(model, biomass)),
        balance=timed("imbalanced_reactions", lambda: imbalanced_reactions(model)),
        dead_ends=timed("dead_end_metabolites", lambda: dead_end_metabolites(model)),
        blocked=timed("blocked_reactions", lambda: blocked_reactions(model, open_exchanges)),
        energy_cycles=timed("energy_generating_cycles", lambda: energy_generating_cycles(model)),
        without_genes=timed("reactions_without_genes", lambda: reactions_without_genes(model)),
        precursors=timed("missing_biomass_precursors", lambda: missing_biomass_precursors(model, biomass)),
        reactions=len(model.reactions), metabolites=len(model.metabolites), timings=timings,
        atp_transport_backwards=timed("atp_driven_transport", lambda: sorted(atp_making_directions_open(model))),
    )
