"""Oxygen is reduced, not made: a reaction that consumes O2 is offered to gapfilling forward only.

Reducing O2 is among the most downhill steps in biochemistry (E°' O2/H2O +0.82 V): oxidases
(cytochrome c and quinol oxidases, amino-acid and alcohol oxidases), oxygenases and hydroxylases
(O2 + NAD(P)H + substrate -> hydroxylated substrate + H2O) do not run backwards. Cells make O2 only
from reactive oxygen (catalase from H2O2, superoxide dismutase, chlorite dismutase) and in
photosystem II; ModelSEED writes those with O2 as a product. Yet the templates offered about 190
O2-consuming reactions to gapfilling in both directions where ModelSEED has no ΔG'° estimate
('?'): run backwards, cytochrome c oxidase turns water into O2 and reduces cytochrome c, which a
fit to B. subtilis' Biolog plate used as an extra electron source on pyruvate, acetate and other
wells, and B. subtilis' gapfill made stearoyl-CoA by running the desaturase backwards
(benchmarks/HISTORY.md, session 21). The rule: a reaction that, as ModelSEED writes it,
consumes O2 (net over its compartments, so O2 diffusion and exchanges are untouched) is offered
forward only. Reactions written as making O2 keep their template directions. A model's own
reactions keep their bounds: closing the reverse of drafts' oxidases too (iron(II) oxidase, nitric
oxide dioxygenase, ...) made B. subtilis' iron(II) transporter essential, the draft reducing Fe3+
only by making O2 from water with its Fe(II) oxidase backwards (no ferric reductase), so that
waits for one (benchmarks/HISTORY.md, session 21).
"""

from __future__ import annotations

from collections.abc import Mapping

from .energy import METABOLITE_ID

OXYGEN = "cpd00007"


def oxygen_consuming_sign(stoichiometry: Mapping[str, float]) -> int | None:
    """+1 for a reaction written as consuming O2 (its net O2 coefficient over its compartments is
    negative, and it has more than one metabolite), else None. Metabolite ids as in the templates
    and models: `cpd00007_c0`."""
    if len(stoichiometry) < 2:
        return None
    net = sum(c for met, c in stoichiometry.items() if (match := METABOLITE_ID.match(met)) and match.group(1) == OXYGEN)
    return 1 if net < 0 else None
