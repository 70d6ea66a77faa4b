"""Two-stage gapfilling that never creates energy from nothing.

Modules: `network` (inputs, the sparse LP of model + template), `steps` (shared solve steps),
`joint` (the stage-2 LP on one medium or several at once),
`atp` (stage 1), `genome_scale` (stage 2), `uptake` (stage 3), `changes` (edits to the COBRApy model), `checks`
(COBRApy quality checks), `run` (the whole run), `report` (a run as gapfill_model answers it; not imported
here, so the answer's helpers load without the solver stack).

Stage 1, ATP correction (the idea of ModelSEEDpy's MSATPCorrection): restricted to its core
metabolism (reactions of the Core-V5.2 template), the draft should make ATP on the ATP test media
(ModelSEEDpy's 54), except where that needs many missing reactions (the organism does not use
that substrate). Small core gaps are filled from the Core template. The core model's ATP yields,
times a tolerance, become tests; genome-scale reactions of the draft that break a test (ATP above
what core metabolism explains, or any ATP with nothing to eat) lose the offending direction.

Stage 2, genome-scale: the cheapest set of template reactions (template base cost plus direction
penalty; weakly genome-supported reactions cheaper; mass-imbalanced ones left out) that lets the
objective reach the target on the medium, or on every one of several media at once: a weighted
LP, then an integer pass that keeps the cheapest subset of the LP's reactions. Existing
irreversible reactions may be reversed. The answer is checked against the ATP tests and a
no-carbon-growth test; a reaction that breaks one is banned and the problem solved again.

Stage 3, medium uptake: each medium compound the model still cannot take up gets the cheapest
template transporter, unless it breaks an ATP or no-carbon test (a rich medium's amino acids and
vitamins are used, not made).

The stages run on one sparse LP per network (fluxlp.py). The final model is checked with
COBRApy: growth on the medium, no growth without carbon, no ATP with all uptakes closed.
"""

from gem_flux_mcp.modeling.gapfill.atp import AtpCorrection, core_reference_yields, correct_atp
from gem_flux_mcp.modeling.gapfill.changes import apply_changes, block_directions, evidence_discounts
from gem_flux_mcp.modeling.gapfill.checks import atp_with_nothing, carbon_free, growth_on, quality_checks
from gem_flux_mcp.modeling.gapfill.genome_scale import GenomeScaleResult, gapfill_genome_scale
from gem_flux_mcp.modeling.gapfill.network import (
    ATP_CORRECTION_MODES,
    MODES,
    AtpTest,
    GapfillOptions,
    Medium,
    NamedMedia,
    Network,
    ReactionFacts,
    atp_media_path,
    load_atp_media,
    named_media,
)
from gem_flux_mcp.modeling.gapfill.run import (
    GapfillRun,
    correct_atp_ahead,
    gapfill,
    gapfill_from_data,
    load_shared_inputs,
    pick_objective,
    reaction_facts,
)
from gem_flux_mcp.modeling.gapfill.uptake import UptakeResult, complete_uptake

__all__ = [
    "ATP_CORRECTION_MODES",
    "MODES",
    "AtpCorrection",
    "AtpTest",
    "GapfillOptions",
    "GapfillRun",
    "GenomeScaleResult",
    "Medium",
    "NamedMedia",
    "Network",
    "ReactionFacts",
    "UptakeResult",
    "apply_changes",
    "atp_media_path",
    "atp_with_nothing",
    "block_directions",
    "carbon_free",
    "complete_uptake",
    "core_reference_yields",
    "correct_atp",
    "correct_atp_ahead",
    "evidence_discounts",
    "gapfill",
    "gapfill_from_data",
    "gapfill_genome_scale",
    "growth_on",
    "load_atp_media",
    "load_shared_inputs",
    "named_media",
    "pick_objective",
    "quality_checks",
    "reaction_facts",
]
