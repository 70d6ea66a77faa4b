"""The tools' results as Pydantic models: each tool's answer is constructed (validated) as one of
these before it is sent, and its MCP `outputSchema` is generated from the same model, so the
published contract and the answers cannot drift apart. Unknown fields are refused
(`extra="forbid"`): a new field needs a new field here, and so a contract change.

One module per group of tools; every model is importable from this package.
"""

from gem_flux_mcp.services.results.analysis import (
    Comparison,
    ConfusionMetrics,
    DeletionRow,
    EssentialityResult,
    EssentialitySummary,
    Mismatch,
    PhenotypeComparison,
    PhenotypeMismatch,
    PhenotypeResult,
    PhenotypeRow,
    PhenotypeSummary,
    TableFile,
)
from gem_flux_mcp.services.results.base import Envelope, Result, output_schema
from gem_flux_mcp.services.results.fba import (
    ExchangeFlux,
    FbaResult,
    TopFlux,
)
from gem_flux_mcp.services.results.lookup import (
    CompoundHit,
    CompoundRecord,
    CompoundSearch,
    Pathway,
    ReactionHit,
    ReactionRecord,
    ReactionSearch,
)
from gem_flux_mcp.services.results.media import (
    BuildMediaResult,
    CompoundPreview,
    DeleteMediaResult,
    GetMediaResult,
    ListMediaResult,
    MediaCompound,
    MediaInfo,
)
from gem_flux_mcp.services.results.models import (
    AddedReaction,
    BuildModelResult,
    DeleteModelResult,
    ExportModelResult,
    GapfillModelResult,
    GetModelResult,
    ImportModelResult,
    ListModelsResult,
    ModelInfo,
    ModelStatistics,
    Prediction,
    ReviseModelResult,
)

__all__ = [
    "AddedReaction",
    "BuildMediaResult",
    "BuildModelResult",
    "Comparison",
    "CompoundHit",
    "CompoundPreview",
    "CompoundRecord",
    "CompoundSearch",
    "ConfusionMetrics",
    "DeleteMediaResult",
    "DeleteModelResult",
    "DeletionRow",
    "Envelope",
    "EssentialityResult",
    "EssentialitySummary",
    "ExchangeFlux",
    "ExportModelResult",
    "FbaResult",
    "GapfillModelResult",
    "GetMediaResult",
    "GetModelResult",
    "ImportModelResult",
    "ListMediaResult",
    "ListModelsResult",
    "MediaCompound",
    "MediaInfo",
    "Mismatch",
    "ModelInfo",
    "ModelStatistics",
    "Pathway",
    "PhenotypeComparison",
    "PhenotypeMismatch",
    "PhenotypeResult",
    "PhenotypeRow",
    "PhenotypeSummary",
    "Prediction",
    "ReactionHit",
    "ReactionRecord",
    "ReactionSearch",
    "Result",
    "ReviseModelResult",
    "TableFile",
    "TopFlux",
    "output_schema",
]
