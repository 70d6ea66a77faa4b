"""Predictions against observations: the confusion numbers every analysis answer shares."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

PAGE = 50


def compare(predicted: Collection[str], tested: Sequence[str], observed: Mapping[str, bool], label: str
            ) -> dict[str, Any]:
    """`predicted`: the tested ids called positive (e.g. essential, growth); `observed`: {id: positive
    in vivo}. Scored over the ids both have; mismatches named `predicted_<label>`/`observed_<label>`."""
    positive = set(predicted)
    shared = [i for i in tested if i in observed]
    tp = sum(1 for i in shared if i in positive and observed[i])
    fp = sum(1 for i in shared if i in positive and not observed[i])
    fn = sum(1 for i in shared if i not in positive and observed[i])
    tn = len(shared) - tp - fp - fn
    denominator = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    metrics = {"tp": tp, "fp": fp, "tn": tn, "fn": fn, "compared": len(shared),
               "accuracy": round((tp + tn) / len(shared), 4) if shared else None,
               "mcc": round((tp * tn - fp * fn) / denominator, 4) if denominator else 0.0}
    mismatches = [{"id": i, f"predicted_{label}": i in positive, f"observed_{label}": observed[i]}
                  for i in shared if (i in positive) != observed[i]]
    return {"metrics": metrics, "mismatches": mismatches[:PAGE], "mismatches_total": len(mismatches),
            "not_in_model": sorted(set(observed) - set(tested))[:PAGE]}
