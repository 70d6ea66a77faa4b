"""Result of predict_fermentation_products."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gem_flux_mcp.services.results.analysis import ConfusionMetrics, TableFile
from gem_flux_mcp.services.results.base import Result


class PathwayStep(Result):
    reaction_id: str
    name: str
    flux: float = Field(description="Flux in the reaction's own direction (negative: it runs in reverse)")
    gene_rule: str = Field(description="Gene-reaction rule ('' when the reaction has no gene)")
    source: str = Field(description="How the reaction entered the model (homology, fasta_header, template_gapfill, "
                                    "medium_uptake, ...); '' when unknown")


class Product(Result):
    compound_id: str
    name: str
    flux: float = Field(description="Secretion in the minimal-total-flux solution at optimal growth (mmol/gDW/h)")
    per_growth: float = Field(description="flux / growth rate: a product counts at >= min_ratio")
    fva_min: float | None = Field(description="Least secretion at optimal growth (FVA; > 0: it must be made)")
    fva_max: float | None = Field(description="Most secretion at optimal growth (FVA)")
    in_medium: bool = Field(description="The medium offers this compound too")
    scored_as: str | None = Field(description="The fermentation product it counts as (acetate, formate, ethanol, "
                                              "butyrate, propionate, lactate, succinate, acetone, H2), or null")
    pathway: list[PathwayStep] = Field(description="From the secreted compound back towards central metabolism: "
                                                   "at each step the reaction making most of it (products only)")


class FermentationSummary(Result):
    growth: float = Field(description="Optimal growth on the medium (1/h)")
    min_ratio: float
    products: int = Field(description="Compounds secreted at >= min_ratio x growth")
    products_not_in_medium: int
    scored_products_made: list[str]
    reversed_atp_transport: list[str] = Field(description="ATP-driven transporters run in their ATP-making "
                                                          "direction in the solution (should be empty)")


class ProductMismatch(Result):
    id: str
    predicted_product: bool
    observed_product: bool


class ProductComparison(Result):
    metrics: ConfusionMetrics
    mismatches: list[ProductMismatch] = Field(description="The first 50")
    mismatches_total: int
    not_in_model: list[str] = Field(description="Observed ids that were not compared (first 50)")


class FermentationResult(Result):
    success: Literal[True] = True
    model_id: str
    media_id: str
    objective: str
    summary: FermentationSummary
    predicted: dict[str, bool] = Field(description="Each scored fermentation product: made or not")
    products: list[Product] = Field(description="This page of the products, most secreted first")
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")
    minor: list[Product] = Field(description="Compounds secreted below min_ratio x growth (first 20)")
    minor_total: int
    comparison: ProductComparison | None = Field(default=None, description="Against `observed`, when given")
    output_file: TableFile | None = Field(default=None, description="Every secreted compound, when output_path "
                                                                    "was given")
    interpretation: str
    seconds: float
