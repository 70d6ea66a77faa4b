"""Two stored models side by side: what only one has, what changed, and growth of both on media."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import compare, media, model_io
from gem_flux_mcp.services import results
from gem_flux_mcp.services.workspace import Workspace, model_key

if TYPE_CHECKING:
    import cobra

    from gem_flux_mcp.modeling.media import CompoundAliases

PAGE = 50
MAX_MEDIA = 20


def side_by_side(a: cobra.Model, b: cobra.Model, media_list: Sequence[tuple[str, Mapping[str, tuple[float, float]]]],
                 aliases: CompoundAliases | None) -> tuple[compare.ModelDifference, list[dict[str, Any]]]:
    """What differs between two models at hand, and the growth of each on every medium given
    ({media_id, growth_a, growth_b}; None where the medium leaves a model without any of its
    exchanges). `aliases` resolves exchange compounds, needed only with media. The models' bounds
    are restored. Used for stored models and for model files."""
    difference = compare.compare_models(a, b)
    growth = []
    exchanges = ({"a": media.exchanges_of(a, aliases), "b": media.exchanges_of(b, aliases)}
                 if media_list and aliases is not None else {})
    for medium_id, medium in media_list:
        entry: dict[str, Any] = {"media_id": medium_id}
        for label, model in (("a", a), ("b", b)):
            with model:
                report = media.apply_medium(model, medium, exchanges[label])
                entry[f"growth_{label}"] = compare.growth(model) if report.applied else None
        growth.append(entry)
    return difference, growth


def compare_models(ws: Workspace, model_a: object, model_b: object, media_ids: object = None,
                   offset: int = 0, limit: int = PAGE) -> results.CompareModelsResult:
    """Every list pages together (`offset`, `limit`); growth on each medium of `media_ids`
    (default: the media each model was last run on)."""
    key_a, key_b = model_key(model_a), model_key(model_b)
    rows = {k: ws.store.get_model_row(ws.workspace_id, k) for k in (key_a, key_b)}  # both exist, or NOT_FOUND
    if media_ids is None:
        wanted = list(dict.fromkeys(r.last_media_id for r in rows.values() if r.last_media_id))
    elif isinstance(media_ids, list) and len(media_ids) <= MAX_MEDIA:
        wanted = list(dict.fromkeys(media_ids))
    else:
        raise ValidationError(ErrorCode.INVALID_MEDIA, f"media_ids must be a list of at most {MAX_MEDIA} media ids.",
                              details={"provided": repr(media_ids)[:80]})
    media_list = [ws.medium(m) for m in wanted]  # every medium checked before any work
    with ExitStack() as stack:
        # checked out in a fixed order (and once when both ids are the same) so that two
        # comparisons of the same pair in opposite order never wait on each other
        models = {k: stack.enter_context(ws.store.checkout(ws.workspace_id, k)) for k in sorted({key_a, key_b})}
        a, b = models[key_a], models[key_b]
        difference, growth = side_by_side(a, b, media_list, ws.biochem)
        objectives = {"a": ", ".join(model_io.objective_reaction_ids(a)) or "(none)",
                      "b": ", ".join(model_io.objective_reaction_ids(b)) or "(none)"}
    lists = {
        "reactions_only_a": difference.reactions.only_a, "reactions_only_b": difference.reactions.only_b,
        "genes_only_a": difference.genes.only_a, "genes_only_b": difference.genes.only_b,
        "metabolites_only_a": difference.metabolites.only_a, "metabolites_only_b": difference.metabolites.only_b,
        "reactions_changed": difference.changed_reactions,
    }
    longest = max(len(v) for v in lists.values())
    summary = {
        "reactions": {"only_a": len(difference.reactions.only_a), "only_b": len(difference.reactions.only_b),
                      "shared": difference.reactions.shared, "changed": len(difference.changed_reactions)},
        "genes": {"only_a": len(difference.genes.only_a), "only_b": len(difference.genes.only_b),
                  "shared": difference.genes.shared},
        "metabolites": {"only_a": len(difference.metabolites.only_a),
                        "only_b": len(difference.metabolites.only_b), "shared": difference.metabolites.shared},
    }
    page = {k: v[offset:offset + limit] for k, v in lists.items()}
    shown = [*page["reactions_only_a"], *page["reactions_only_b"], *page["reactions_changed"]]
    names = ws.biochem.reaction_names({r.rsplit("_", 1)[0] for r in shown})
    return results.CompareModelsResult.model_validate({
        "success": True, "model_a": key_a, "model_b": key_b, "summary": summary, "objectives": objectives,
        "growth": growth, **page,
        "reaction_names": {r: names[r.rsplit("_", 1)[0]] for r in shown if r.rsplit("_", 1)[0] in names},
        "offset": offset, "next_offset": offset + limit if offset + limit < longest else None,
    })

