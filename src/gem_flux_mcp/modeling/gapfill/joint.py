"""The genome-scale search as one LP, on one medium or on several at once.

On several media (what CarveMe's `carve -g M9,LB` and KBase's multi-media gapfilling ask for) the
LP holds one copy of the network's fluxes per medium, each with that medium's bounds and the
growth target, and one shared "use" column u per gapfill column: v_k ≤ u for every medium k
(written v_k − u + s_k = 0 with a slack s_k ≥ 0, so every row stays S·x = 0). The gapfilling
costs sit on u only, so a reaction pays once however many media use it, and the integer pass
switches u on or off: the answer is one cheapest set of additions with which the model reaches
the target on every medium, not the union of one gapfill per medium.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from gem_flux_mcp.modeling.fluxlp import FluxLP
from gem_flux_mcp.modeling.gapfill.network import FLUX_MAX, Medium, Network


@dataclass
class Search:
    """What cheapest_completion needs (lp, costs, bounds, candidates, target column), and the
    translation between its columns and the network's gapfill columns."""

    lp: FluxLP
    costs: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    candidates: np.ndarray  # bool per LP column: the columns that cost
    target_column: int  # the objective's column (of the first medium's copy)
    network_column: np.ndarray  # per LP candidate column, the network column it stands for (-1: none)
    _search_column: dict[int, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._search_column = {int(self.network_column[c]): int(c) for c in np.flatnonzero(self.candidates)}

    def to_network(self, columns: Iterable[int]) -> list[int]:
        return [int(self.network_column[c]) for c in columns]

    def to_search(self, network_columns: Iterable[int]) -> set[int]:
        return {self._search_column[i] for i in network_columns if i in self._search_column}


def search_on(net: Network, media: Sequence[Medium], target_column: int, target: float) -> Search:
    """The search on one medium (the network's own LP) or on several (a stacked LP)."""
    bounds = [net.bounds(medium) for medium in media]
    for lower, _ in bounds:
        lower[target_column] = max(lower[target_column], target)
    if len(bounds) == 1:
        lower, upper = bounds[0]
        network_column = np.where(net.gapfill_columns, np.arange(len(net.fluxes)), -1)
        return Search(net.lp, net.costs, lower, upper, net.gapfill_columns.copy(), target_column, network_column)
    return _stacked(net, bounds, target_column)


def _stacked(net: Network, bounds: list[tuple[np.ndarray, np.ndarray]], target_column: int) -> Search:
    n, copies = len(net.fluxes), len(bounds)
    gap = np.flatnonzero(net.gapfill_columns)
    g = len(gap)
    links = copies * g  # one row v_k,i - u_i + s_k,i = 0 per medium and gapfill column
    rows = np.arange(links)
    flux_part = sp.csc_matrix((np.ones(links), (rows, np.repeat(np.arange(copies), g) * n + np.tile(gap, copies))),
                              shape=(links, copies * n))
    use_part = sp.csc_matrix((-np.ones(links), (rows, np.tile(np.arange(g), copies))), shape=(links, g))
    networks = sp.block_diag([net.lp.matrix] * copies, format="csc")
    matrix = sp.vstack([
        sp.hstack([networks, sp.csc_matrix((networks.shape[0], g + links))]),
        sp.hstack([flux_part, use_part, sp.identity(links, format="csc")]),
    ]).tocsc()
    ids = [f"{flux_id}@{k}" for k in range(copies) for flux_id in net.lp.ids]
    ids += [f"use:{net.lp.ids[i]}" for i in gap] + [f"slack:{k}:{net.lp.ids[i]}" for k in range(copies) for i in gap]
    lower = np.concatenate([b[0] for b in bounds] + [np.zeros(g + links)])
    upper = [b[1].copy() for b in bounds]
    for u in upper:
        u[gap] = FLUX_MAX  # each copy may use any gapfill column; its use column decides
    upper_all = np.concatenate([*upper, np.full(g + links, FLUX_MAX)])
    total = copies * n + g + links
    use_columns = np.arange(copies * n, copies * n + g)
    candidates = np.zeros(total, dtype=bool)
    candidates[use_columns] = True
    costs = np.zeros(total)
    costs[use_columns] = net.costs[gap]
    network_column = np.full(total, -1)
    network_column[use_columns] = gap
    upper_all[use_columns] = 0.0  # closed until cheapest_completion opens the candidates
    lp = FluxLP.from_matrix(ids, matrix, lower, upper_all, net.lp.deadline)
    return Search(lp, costs, lower, upper_all, candidates, target_column, network_column)
