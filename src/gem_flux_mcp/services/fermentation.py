"""Fermentation products of a stored model on a medium: the request checked and turned into a
FermentationJob, the answer (products with flux, flux per growth, flux range and pathway) named
from the database, paged, compared with observed products and recorded with the model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling import fba
from gem_flux_mcp.modeling.fermentation import SCORED_PRODUCTS, check_observed
from gem_flux_mcp.rules.catalog import MIN_RATIO, MIN_RATIO_RULE
from gem_flux_mcp.services import results
from gem_flux_mcp.services.confusion import compare
from gem_flux_mcp.services.job_base import Progress, StoredModelOnMedium
from gem_flux_mcp.services.tables import write_tsv
from gem_flux_mcp.services.workspace import Workspace, model_key

if TYPE_CHECKING:
    import cobra


@dataclass(frozen=True)
class FermentationOutcome:
    result: dict[str, Any]  # modeling.fermentation.FermentationResult as plain data
    seconds: float


@dataclass(frozen=True)
class FermentationJob(StoredModelOnMedium):
    kind: ClassVar[str] = "fermentation"
    objective: str
    min_ratio: float

    def run(self, settings: Settings, progress: Progress) -> FermentationOutcome:
        import dataclasses

        from gem_flux_mcp.modeling.fermentation import fermentation_products

        def analysis(model: Any, exchanges: list[Any]) -> dict[str, Any]:
            progress("fermentation", 0.2, "optimal growth, minimal-total-flux solution, flux ranges of the products")
            return dataclasses.asdict(fermentation_products(model, exchanges, self.medium, min_ratio=self.min_ratio))

        result, seconds = self.analyse(settings, progress, self.objective, analysis)
        return FermentationOutcome(result, seconds)


PAGE = 25
MINOR = 20
COLUMNS = ("compound_id", "name", "flux", "per_growth", "fva_min", "fva_max", "in_medium", "scored_as", "pathway")


def prepare_fermentation(ws: Workspace, model_id: object, media_id: object, objective: object = "bio1",
                         min_ratio: object = MIN_RATIO, observed: object = None) -> FermentationJob:
    """Validate the request before any work; no state changes."""
    key = model_key(model_id)
    ratio = MIN_RATIO_RULE.check(min_ratio)
    check_observed(observed)
    medium_id, medium = ws.medium(media_id)
    with ws.store.checkout(ws.workspace_id, key) as model:
        return fermentation_job(model, key, ws.store.model_data(ws.workspace_id, key).decode("utf-8"), medium_id,
                                medium, objective, ratio)


def fermentation_job(model: cobra.Model, model_id: str, model_json: str, media_id: str,
                     medium: Mapping[str, tuple[float, float]], objective: object, min_ratio: float
                     ) -> FermentationJob:
    """The job for a model at hand (the stored one, or a file's: `gem-flux fermentation`), its
    objective checked on it."""
    return FermentationJob(model_id=model_id, media_id=media_id, model_json=model_json, medium=dict(medium),
                           objective=fba.check_objective(model, objective, model_id), min_ratio=min_ratio)


def store_fermentation(ws: Workspace, job: FermentationJob, outcome: FermentationOutcome, observed: object = None,
                       offset: int = 0, output_path: Path | None = None) -> results.FermentationResult:
    found = outcome.result
    calls = check_observed(observed)
    products = named_products(ws.biochem, found["products"])
    minor = named_products(ws.biochem, found["minor"])
    made = sorted(name for name, yes in found["predicted"].items() if yes)
    organic = [p for p in products if not p["in_medium"]]
    summary = {
        "growth": found["growth"], "min_ratio": found["min_ratio"], "products": len(products),
        "products_not_in_medium": len(organic), "scored_products_made": made,
        "reversed_atp_transport": [rid for rid, _ in found["reversed_atp_transport"]],
    }
    comparison = compare(*scored_calls(found["predicted"], products, calls), calls, "product") if calls else None
    ws.store.add_result(ws.workspace_id, job.model_id, "fermentation_products", job.media_id, {
        **summary, "secreted": [{"compound_id": p["compound_id"], "name": p["name"], "flux": p["flux"],
                                 "per_growth": p["per_growth"], "in_medium": p["in_medium"]} for p in products[:100]],
        **({"comparison": comparison["metrics"]} if comparison else {})})
    written = write_tsv(output_path, COLUMNS, table_rows(products + minor)) if output_path is not None else None
    return results.FermentationResult.model_validate({
        "success": True, "model_id": job.model_id, "media_id": job.media_id, "objective": job.objective,
        "summary": summary, "predicted": found["predicted"], "products": products[offset:offset + PAGE],
        "offset": offset, "next_offset": offset + PAGE if offset + PAGE < len(products) else None,
        "minor": minor[:MINOR], "minor_total": len(minor),
        **({"comparison": comparison} if comparison else {}), **({"output_file": written} if written else {}),
        "interpretation": _interpretation(found, products), "seconds": round(outcome.seconds, 3),
    })


def named_products(biochem: BiochemIndex, raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Products as plain data (modeling.fermentation.Product as a dict) with the database's names
    for compounds and pathway reactions (model names carry compartment suffixes)."""
    compounds = biochem.compound_names([p["compound_id"] for p in raw])
    reactions = biochem.reaction_names({s["reaction_id"].rsplit("_", 1)[0] for p in raw for s in p["pathway"]})
    return [{"compound_id": p["compound_id"], "name": compounds.get(p["compound_id"], (p["name"], ""))[0],
             "flux": p["flux"], "per_growth": p["per_growth"], "fva_min": p["fva_min"], "fva_max": p["fva_max"],
             "in_medium": p["in_medium"], "scored_as": p["scored_as"],
             "pathway": [{"reaction_id": s["reaction_id"],
                          "name": reactions.get(s["reaction_id"].rsplit("_", 1)[0]) or s["name"], "flux": s["flux"],
                          "gene_rule": s["gene_rule"][:200], "source": s["source"]} for s in p["pathway"]]}
            for p in raw]


def table_rows(products: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of the TSV (COLUMNS): each pathway as its reaction ids."""
    return [{**p, "pathway": [s["reaction_id"] for s in p["pathway"]]} for p in products]


def scored_calls(predicted: Mapping[str, bool], products: list[dict[str, Any]], observed: Mapping[str, bool]
                 ) -> tuple[set[str], list[str]]:
    """What to compare with observed products: the ids called positive (scored products made, and
    any compound secreted as a product) and the ids tested (the scored products and every observed one)."""
    made = {name for name, yes in predicted.items() if yes} | {p["compound_id"] for p in products}
    return made, list(dict.fromkeys([*SCORED_PRODUCTS, *observed]))


def _interpretation(found: dict[str, Any], products: list[dict[str, Any]]) -> str:
    if found["growth"] <= 0:
        return "The model does not grow on this medium, so it makes nothing: gapfill it on the medium first."
    made = [p["name"] for p in products if not p["in_medium"]] + \
           [f"{p['name']} (also in the medium)" for p in products if p["in_medium"]]
    listed = ", ".join(made[:12]) or "none"
    text = (f"At optimal growth ({found['growth']:.3f} /h) the minimal-total-flux solution secretes "
            f"{len(products)} compounds at >= {found['min_ratio']:g} x the growth rate: {listed}.")
    if found["reversed_atp_transport"]:
        text += (" Warning: an ATP-driven transporter runs backwards (making ATP) in this solution; gapfill the "
                 "model again to orient it.")
    return text
