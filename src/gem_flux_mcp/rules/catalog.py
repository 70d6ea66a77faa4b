"""Every argument rule, declared once: its range or values, its error code and its hints.

Tool signatures annotate arguments with the `...Arg` types below (the published input schema
carries the range or enum), services and library functions call `RULE.check(value)` at their
entry, and the CLI reads options with `type=RULE.parse`: one refusal, one code, whichever door
the value came through.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.rules.kinds import Choice, Items, Number, Text

# --- enumerations ---------------------------------------------------------------------------

GapfillMode = Literal["full", "atp_only", "genomescale_only"]
GAPFILL_MODES: tuple[str, ...] = get_args(GapfillMode)
GeneCalling = Literal["auto", "single", "meta"]
GENE_CALLING_MODES: tuple[str, ...] = get_args(GeneCalling)
TranslationTable = Literal["auto", 4, 11, 25]
TRANSLATION_TABLES: tuple[str | int, ...] = get_args(TranslationTable)
PanelName = Literal["carbon", "nitrogen", "phosphorus", "sulfur"]
PANEL_NAMES: tuple[str, ...] = get_args(PanelName)
TemplateName = Literal["GramNegative", "GramPositive", "Core"]
TEMPLATE_NAMES: tuple[str, ...] = get_args(TemplateName)
AUTO_TEMPLATE = "auto"  # build: chosen from the genome (modeling/gram.py)
TemplateChoice = Literal["GramNegative", "GramPositive", "Core", "auto"]
GenomeTemplate = Literal["auto", "GramNegative", "GramPositive"]
DeletionTarget = Literal["genes", "reactions"]

_TEMPLATE_HINT = "Use GramNegative (default), GramPositive, Core, or auto (chosen from the genome)."

GAPFILL_MODE = Choice(name="gapfill_mode", code=ErrorCode.INVALID_GAPFILL_MODE, values=GAPFILL_MODES,
                      suggestions=("'full' = ATP correction + genome-scale gapfilling (recommended).",))
GENE_CALLING = Choice(name="gene_calling", code=ErrorCode.INVALID_GENE_CALLING, values=GENE_CALLING_MODES,
                      suggestions=("'auto' trains on genomes of 100 kb or more and uses metagenome profiles below.",))
TRANSLATION_TABLE = Choice(
    name="translation_table", code=ErrorCode.INVALID_TRANSLATION_TABLE, values=TRANSLATION_TABLES,
    numbers_as_text=True,
    suggestions=("'auto' chooses between 11 (most bacteria) and 4 (Mycoplasma, Spiroplasma, Ureaplasma: TGA read "
                 "as tryptophan) from the genome; 25 reads TGA as glycine.",))
PANEL = Choice(name="panel", code=ErrorCode.INVALID_ARGUMENTS, values=PANEL_NAMES, nullable=True)
TEMPLATE = Choice(name="template", code=ErrorCode.INVALID_TEMPLATE, values=TEMPLATE_NAMES,
                  suggestions=(_TEMPLATE_HINT,))
BUILD_TEMPLATE = Choice(name="template", code=ErrorCode.INVALID_TEMPLATE, values=get_args(TemplateChoice),
                        suggestions=(_TEMPLATE_HINT,))
GENOME_TEMPLATE = Choice(name="template", code=ErrorCode.INVALID_TEMPLATE, values=get_args(GenomeTemplate),
                        suggestions=("Use auto (default: chosen from each genome), GramNegative or GramPositive.",))
GAPFILL_TEMPLATE = Choice(name="template", code=ErrorCode.INVALID_TEMPLATE, values=("GramNegative", "GramPositive"),
                          suggestions=("Gapfill from GramNegative or GramPositive.",))
DELETION_TARGET = Choice(name="target", code=ErrorCode.INVALID_TARGET, values=get_args(DeletionTarget))

# --- numbers --------------------------------------------------------------------------------

MAX_TARGET_GROWTH = 10.0  # 1/h
MAX_FLUX_THRESHOLD = 1000.0  # mmol/gDW/h: above it nothing is listed
MAX_UPTAKE = 1000.0  # mmol/gDW/h
MAX_RATE = 1000  # mmol/gDW/h (published as the integer it always was)
MIN_RATIO = 0.25  # the gapseq paper's cut-off: secretion >= 0.25 x growth rate
MAX_RATIO = 1000
DEFAULT_FRACTION = 0.9
DEFAULT_THRESHOLD = 0.1  # growth ratio below which a deletion is lethal (the CarveMe/Biolog convention)
DEFAULT_GROWTH_THRESHOLD = 0.1  # 1/h: the CarveMe/Biolog benchmark's call
MAX_LIMIT = 100  # results per search or per get_model answer

TARGET_GROWTH_RATE = Number(
    name="target_growth_rate", code=ErrorCode.INVALID_TARGET_GROWTH_RATE, gt=0, le=MAX_TARGET_GROWTH, unit="1/h",
    default=0.01, typical=(0.01, 1.0),
    suggestions=("Use 0.01 (the default) to ask for any growth; 0.1-1.0 for realistic rates.",),
    example={"tool": "gapfill_model", "arguments": {"model_id": "{model_id}", "media_id": "glucose_minimal_aerobic",
                                                    "target_growth_rate": 0.01}})
FLUX_THRESHOLD = Number(name="flux_threshold", code=ErrorCode.INVALID_FLUX_THRESHOLD, ge=0, le=MAX_FLUX_THRESHOLD,
                        unit="mmol/gDW/h", default=1e-6,
                        suggestions=("Use the default 1e-6, or 0 to keep every nonzero flux.",))
ESSENTIALITY_THRESHOLD = Number(name="threshold", code=ErrorCode.INVALID_THRESHOLD, gt=0, lt=1,
                                unit="a fraction of wild-type growth", default=DEFAULT_THRESHOLD)
GROWTH_THRESHOLD = Number(name="growth_threshold", code=ErrorCode.INVALID_THRESHOLD, gt=0, le=10, unit="1/h",
                          default=DEFAULT_GROWTH_THRESHOLD)
UPTAKE_RATE = Number(name="uptake_rate", code=ErrorCode.INVALID_ARGUMENTS, gt=0, le=MAX_RATE, unit="mmol/gDW/h",
                     nullable=True)
MIN_RATIO_RULE = Number(name="min_ratio", code=ErrorCode.INVALID_THRESHOLD, gt=0, le=MAX_RATIO,
                        unit="secretion in mmol/gDW/h per 1/h of growth", default=MIN_RATIO)
FRACTION_OF_OPTIMUM = Number(name="fraction_of_optimum", code=ErrorCode.INVALID_THRESHOLD, ge=0, le=1,
                             unit="a fraction of the objective's optimum", default=DEFAULT_FRACTION)
DEFAULT_UPTAKE = Number(
    name="default_uptake", code=ErrorCode.INVALID_DEFAULT_UPTAKE, below_code=ErrorCode.NEGATIVE_UPTAKE, gt=0,
    le=MAX_UPTAKE, unit="mmol/gDW/h", typical=(10, 100),
    suggestions=("Use a positive uptake such as 10 or 100; it becomes the lower bound -uptake.",))
LIMIT = Number(name="limit", code=ErrorCode.INVALID_LIMIT, ge=1, le=MAX_LIMIT, integer=True,
               suggestions=(f"Use a limit between 1 and {MAX_LIMIT}.",))
MAX_PAGE = 500  # compounds per get_media answer (a rich medium has ~100-300), media per list_media answer
MEDIA_PAGE_LIMIT = Number(name="limit", code=ErrorCode.INVALID_LIMIT, ge=1, le=MAX_PAGE, integer=True,
                          suggestions=(f"Use a limit between 1 and {MAX_PAGE}.",))
OFFSET = Number(name="offset", code=ErrorCode.INVALID_OFFSET, ge=0, integer=True,
                suggestions=("Start at 0; an answer's next_offset gives the next page.",))
MAX_WORKERS = 64  # Dask worker processes of one batch
WORKERS = Number(name="workers", code=ErrorCode.INVALID_WORKERS, ge=1, le=MAX_WORKERS, integer=True,
                 suggestions=("A server gives a batch at most one worker process per core.",))
DEFAULT_TRADEOFF = 0.5  # MICOM's own default in its `grow` workflow
TRADEOFF = Number(
    name="tradeoff", code=ErrorCode.INVALID_TRADEOFF, gt=0, le=1, default=DEFAULT_TRADEOFF,
    unit="the fraction of the maximal community growth kept", typical=(0.3, 0.9),
    suggestions=("0.5 (default) keeps half the maximal community growth and lets most members grow; 1.0 keeps the "
                 "maximum, where usually only the fastest members grow.",))
MIN_MEMBER_GROWTH = Number(name="min_member_growth", code=ErrorCode.INVALID_TARGET_GROWTH_RATE, ge=0,
                           le=MAX_TARGET_GROWTH, unit="1/h", default=0.0,
                           suggestions=("0 (default) lets a member stop growing; a small rate such as 0.01 keeps every "
                                        "member alive.",))
GAPFILL_REACTIONS_OFFSET = Number(name="gapfill_reactions_offset", code=ErrorCode.INVALID_OFFSET, ge=0,
                                  integer=True, nullable=True, suggestions=OFFSET.suggestions)
MAX_CHANGES = 1000  # changes one reconciliation may make
MAX_SEED = 2**32 - 1
HOLDOUT_FRACTION = Number(
    name="holdout_fraction", code=ErrorCode.INVALID_HOLDOUT_FRACTION, gt=0, lt=1, nullable=True,
    unit="a fraction of the observed wells", typical=(0.2, 0.3),
    suggestions=("0.3 fits on 70 % of the wells and scores the other 30 %; leave it out to fit on every well.",))
RECONCILE_MAX_CHANGES = Number(
    name="max_changes", code=ErrorCode.INVALID_MAX_CHANGES, ge=1, le=MAX_CHANGES, integer=True, nullable=True,
    suggestions=("Leave it out for no limit, or give a whole number such as 20.",))
SEED = Number(name="seed", code=ErrorCode.INVALID_ARGUMENTS, ge=0, le=MAX_SEED, integer=True, nullable=True,
              suggestions=("Any whole number from 0; the same seed holds out the same wells.",))
OBSERVED_THRESHOLD = Number(
    name="threshold", code=ErrorCode.INVALID_THRESHOLD, ge=0, le=1e9, nullable=True,
    unit="in the plate file's own unit (OD, area)",
    suggestions=("Numeric plate values (OD, area) above the threshold are growth; calls (yes/no, +/-) need none.",))
FITNESS_THRESHOLD = Number(
    name="fitness_threshold", code=ErrorCode.INVALID_THRESHOLD, ge=-1e6, le=1e6, nullable=True,
    unit="in the gene table's own fitness unit",
    suggestions=("Fitness values below the threshold are essential (e.g. -2 for a log2 fitness); essential calls "
                 "(yes/no) need none.",))

# --- texts and lists ------------------------------------------------------------------------

MAX_REASON_CHARS = 2000  # a revision reason is a note, kept with every revision
MAX_FILTER_CHARS = 100  # a list_media filter, as long as a search query

REASON = Text(
    name="reason", code=ErrorCode.MISSING_REASON, too_long_code=ErrorCode.REASON_TOO_LONG, max_length=MAX_REASON_CHARS,
    blank_hint=": say why the model is revised (it is kept in the history)",
    suggestions=("Say why in a few sentences; put long notes in a file of your own.",),
    example={"tool": "revise_model", "arguments": {"model_id": "{model_id}",
                                                   "reason": "add pyruvate kinase (experimental evidence)",
                                                   "add_reactions": ["rxn00148_c0"]}})
_FILTER_HINTS = ("name: words of a media id or description, e.g. 'm9 glucose', 'anaerobic', 'biolog'; compound: a "
                 "ModelSEED id such as 'cpd00027' or a name such as 'glucose'.",)
_FILTER_EXAMPLE = {"tool": "list_media", "arguments": {"name": "m9", "compound": "cpd00027"}}
MEDIA_NAME_FILTER = Text(name="name", code=ErrorCode.INVALID_MEDIA_FILTER, max_length=MAX_FILTER_CHARS,
                         nullable=True, blank_hint=" (leave it out to list every medium)", suggestions=_FILTER_HINTS,
                         example=_FILTER_EXAMPLE)
MEDIA_COMPOUND_FILTER = Text(name="compound", code=ErrorCode.INVALID_MEDIA_FILTER, max_length=MAX_FILTER_CHARS,
                             nullable=True, blank_hint=" (leave it out to list every medium)",
                             suggestions=_FILTER_HINTS, example=_FILTER_EXAMPLE)
MAX_COMMUNITY_MEMBERS = 100
COMMUNITY_MEMBERS = Items(name="model_ids", code=ErrorCode.INVALID_COMMUNITY_MEMBERS, max_items=MAX_COMMUNITY_MEMBERS,
                          what="stored model ids",
                          suggestions=("Give the ids of stored models (list_models), each once, e.g. "
                                       "['strain_a.draft.gf', 'strain_b.draft.gf'].",))
COMMUNITY_MEMBERS_FILTER = Items(name="members", code=ErrorCode.INVALID_COMMUNITY_MEMBERS, nullable=True,
                                 max_items=MAX_COMMUNITY_MEMBERS, what="member model ids",
                                 suggestions=("Leave it out to remove every member in turn.",))
COMPOUNDS = Items(name="compounds", code=ErrorCode.EMPTY_COMPOUNDS_LIST, what="ModelSEED compound ids",
                  suggestions=("Give at least one id such as 'cpd00027' (D-Glucose).",))
MAX_GENE_OBSERVATIONS = 20000  # genes given in one list (a genome has a few thousand)
_GENE_LIST_HINTS = ("Give gene ids as the model names them or as locus tags (a version suffix such as '.1' is "
                    "ignored), e.g. ['b0720'].",)
ESSENTIAL_GENES = Items(name="essential_genes", code=ErrorCode.INVALID_ARGUMENTS, nullable=True,
                        max_items=MAX_GENE_OBSERVATIONS, what="gene ids", suggestions=_GENE_LIST_HINTS)
NONESSENTIAL_GENES = Items(name="nonessential_genes", code=ErrorCode.INVALID_ARGUMENTS, nullable=True,
                           max_items=MAX_GENE_OBSERVATIONS, what="gene ids", suggestions=_GENE_LIST_HINTS)

# --- argument types for tool signatures -----------------------------------------------------

GapfillModeArg = Annotated[GapfillMode, GAPFILL_MODE]
DeletionTargetArg = Annotated[DeletionTarget, DELETION_TARGET]
GeneCallingArg = Annotated[GeneCalling, GENE_CALLING]
TranslationTableArg = Annotated[TranslationTable, TRANSLATION_TABLE]
PanelArg = Annotated[PanelName | None, PANEL]
PanelItemArg = Annotated[PanelName, PANEL]
BuildTemplateArg = Annotated[TemplateChoice, BUILD_TEMPLATE]
GenomeTemplateArg = Annotated[GenomeTemplate, GENOME_TEMPLATE]
TargetGrowthRateArg = Annotated[float, TARGET_GROWTH_RATE]
FluxThresholdArg = Annotated[float, FLUX_THRESHOLD]
EssentialityThresholdArg = Annotated[float, ESSENTIALITY_THRESHOLD]
GrowthThresholdArg = Annotated[float, GROWTH_THRESHOLD]
UptakeRateArg = Annotated[float | None, UPTAKE_RATE]
MinRatioArg = Annotated[float, MIN_RATIO_RULE]
FractionOfOptimumArg = Annotated[float, FRACTION_OF_OPTIMUM]
DefaultUptakeArg = Annotated[float, DEFAULT_UPTAKE]
LimitArg = Annotated[int, LIMIT]
MediaPageLimitArg = Annotated[int, MEDIA_PAGE_LIMIT]
OffsetArg = Annotated[int, OFFSET]
WorkersArg = Annotated[int, WORKERS]
GapfillReactionsOffsetArg = Annotated[int | None, GAPFILL_REACTIONS_OFFSET]
ReasonArg = Annotated[str, REASON]
MediaNameFilterArg = Annotated[str | None, MEDIA_NAME_FILTER]
MediaCompoundFilterArg = Annotated[str | None, MEDIA_COMPOUND_FILTER]
CompoundsArg = Annotated[list[str], COMPOUNDS]
TradeoffArg = Annotated[float, TRADEOFF]
HoldoutFractionArg = Annotated[float | None, HOLDOUT_FRACTION]
MaxChangesArg = Annotated[int | None, RECONCILE_MAX_CHANGES]
SeedArg = Annotated[int | None, SEED]
ObservedThresholdArg = Annotated[float | None, OBSERVED_THRESHOLD]
FitnessThresholdArg = Annotated[float | None, FITNESS_THRESHOLD]
EssentialGenesArg = Annotated[list[str] | None, ESSENTIAL_GENES]
NonessentialGenesArg = Annotated[list[str] | None, NONESSENTIAL_GENES]
MinMemberGrowthArg = Annotated[float, MIN_MEMBER_GROWTH]
CommunityMembersArg = Annotated[list[str], COMMUNITY_MEMBERS]
CommunityMembersFilterArg = Annotated[list[str] | None, COMMUNITY_MEMBERS_FILTER]
