"""A model's family: the draft it descends from and every model made from it (gapfills,
revisions), as a small left-to-right graph whose nodes link to their pages."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gem_flux_mcp.server.dashboard.html import e, model_href
from gem_flux_mcp.server.dashboard.svg import clip, svg, text
from gem_flux_mcp.store.rows import ModelRow

MAX_NODES = 60
SOURCE_COLOURS = {"built": "#4c78a8", "imported": "#9d755d", "gapfilled": "#e45756", "revised": "#f58518"}
NODE_W, NODE_H, GAP_X, GAP_Y = 200, 34, 70, 14


@dataclass
class Family:
    root: str
    rows: dict[str, ModelRow]  # the members still stored
    children: dict[str, list[str]] = field(default_factory=dict)

    def ancestors(self, model_id: str) -> list[ModelRow]:
        """The model and the stored models it descends from, itself first."""
        chain, seen = [], set()
        current = self.rows.get(model_id)
        while current is not None and current.model_id not in seen:
            seen.add(current.model_id)
            chain.append(current)
            current = self.rows.get(current.derived_from or "")
        return chain

    def revision_added(self, model_id: str) -> set[str]:
        """Reactions the revisions along the model's lineage added."""
        added: set[str] = set()
        for row in self.ancestors(model_id):
            revision = row.extra.get("revision")
            if isinstance(revision, dict):
                changes = revision.get("changes") or {}
                added |= {str(r.get("id")) for r in changes.get("added_reactions", []) if isinstance(r, dict)}
        return added


def family_of(rows: Iterable[ModelRow], model_id: str) -> Family:
    by_id = {r.model_id: r for r in rows}
    root, seen = model_id, {model_id}
    while root in by_id and by_id[root].derived_from and by_id[root].derived_from not in seen:
        root = str(by_id[root].derived_from)
        seen.add(root)
    children: dict[str, list[str]] = {}
    for row in by_id.values():
        if row.derived_from:
            children.setdefault(row.derived_from, []).append(row.model_id)
    members: dict[str, ModelRow] = {}
    queue = [root]
    while queue and len(members) < MAX_NODES:
        current = queue.pop(0)
        if current in members:
            continue
        if current in by_id:
            members[current] = by_id[current]
        queue.extend(sorted(children.get(current, []), key=lambda c: by_id[c].created_at))
    kept = {k: [c for c in v if c in members] for k, v in children.items() if k in members or k == root}
    return Family(root, members, kept)


def step_label(row: ModelRow) -> str:
    """How a model was made from its parent, in a few words."""
    gapfill = row.extra.get("gapfill")
    if isinstance(gapfill, dict):
        return f"gapfill on {gapfill.get('media_id', '?')}"
    revision = row.extra.get("revision")
    if isinstance(revision, dict):
        return f"revision: {revision.get('reason', '')}"
    return row.source


def lineage_svg(family: Family, current: str) -> str:
    """Nodes placed by depth (x) and leaf order (y); the current model outlined."""
    place: dict[str, tuple[float, float]] = {}
    next_row = [0]

    def lay(node: str, depth: int) -> float:
        kids = family.children.get(node, [])
        ys = [lay(child, depth + 1) for child in kids if child not in place]
        y = sum(ys) / len(ys) if ys else next_row[0] * (NODE_H + GAP_Y) + 8
        if not ys:
            next_row[0] += 1
        place[node] = (10 + depth * (NODE_W + GAP_X), y)
        return y

    lay(family.root, 0)
    body: list[str] = []
    for parent, kids in family.children.items():
        if parent not in place:
            continue
        px, py = place[parent]
        for child in kids:
            if child not in place:
                continue
            cx, cy = place[child]
            row = family.rows[child]
            body.append(f"<path d='M{px + NODE_W:.1f},{py + NODE_H / 2:.1f} C{px + NODE_W + GAP_X / 2:.1f},"
                        f"{py + NODE_H / 2:.1f} {cx - GAP_X / 2:.1f},{cy + NODE_H / 2:.1f} {cx:.1f},"
                        f"{cy + NODE_H / 2:.1f}' fill='none' stroke='#8a93a0' stroke-width='1.5' "
                        f"marker-end='url(#lineage-arrow)'><title>{e(step_label(row))}</title></path>")
    for node, (x, y) in place.items():
        member = family.rows.get(node)
        colour = SOURCE_COLOURS.get(member.source, "#bab0ac") if member else "#eeeeee"
        outline = "stroke='#1d2330' stroke-width='3'" if node == current else "stroke='#ffffff' stroke-width='1'"
        tip = (f"{node} ({member.source}, {member.num_reactions} reactions) — {step_label(member)}" if member
               else f"{node} (deleted)")
        second = f"{member.source} · {member.num_reactions} rxns" if member else "deleted"
        shape = (f"<rect x='{x:.1f}' y='{y:.1f}' width='{NODE_W}' height='{NODE_H}' rx='6' fill='{colour}' "
                 f"{outline}/>" + text(x + NODE_W / 2, y + 15, clip(node, 28), 12, "middle", "#fff", "600")
                 + text(x + NODE_W / 2, y + 28, second, 10, "middle", "#fff"))
        mark = f"<title>{e(tip)}</title>{shape}"
        body.append(f"<a href='{e(model_href(node))}' data-model='{e(node)}'>{mark}</a>" if member
                    else f"<g data-model='{e(node)}'>{mark}</g>")
    width = max(x for x, _ in place.values()) + NODE_W + 20
    height = max(y for _, y in place.values()) + NODE_H + 10
    defs = ("<defs><marker id='lineage-arrow' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' "
            "markerHeight='7' orient='auto'><path d='M0,0 L10,5 L0,10 z' fill='#8a93a0'/></marker></defs>")
    return svg(width, height, defs + "".join(body), f"lineage of {current}", "lineage")


def lineage_rows(family: Family) -> list[dict[str, Any]]:
    """The family as table rows, oldest first."""
    return [{"model_id": r.model_id, "derived_from": r.derived_from, "source": r.source,
             "step": step_label(r), "created_at": r.created_at}
            for r in sorted(family.rows.values(), key=lambda r: r.created_at)]
