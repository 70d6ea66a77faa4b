"""Reconciling a stored model with a lab's phenotype plate and gene essentiality: the observations
read (a plate file or {compound: grows}; a gene table or lists of essential and non-essential
genes), the wells and genes split for cross-validation (the same holdout fraction and seed), a
ReconcileJob a worker runs, the fitted model stored as a new revision whose reasons name the
wells and genes, and the answer: growth and essentiality agreement before and after (fitted and
held out), the changes with their evidence, what could not be reconciled. The command line
(`gem-flux reconcile`) calls the same functions on model files."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.panels import Panel, load_panels
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.inputs import read_text, text_of_content
from gem_flux_mcp.modeling.phenotypes import plan_array
from gem_flux_mcp.modeling.reconcile import (
    Gene,
    GeneReading,
    PlateReading,
    ReconcileOptions,
    Reconciliation,
    Well,
    expected_columns,
    grows,
    name_lookup,
    read_gene_table,
    read_plate,
    split_wells,
)
from gem_flux_mcp.rules.catalog import (
    DEFAULT_GROWTH_THRESHOLD,
    DEFAULT_THRESHOLD,
    ESSENTIAL_GENES,
    FITNESS_THRESHOLD,
    GAPFILL_TEMPLATE,
    HOLDOUT_FRACTION,
    NONESSENTIAL_GENES,
    OBSERVED_THRESHOLD,
    PANEL,
    RECONCILE_MAX_CHANGES,
    SEED,
)
from gem_flux_mcp.services import results
from gem_flux_mcp.services.confusion import compare
from gem_flux_mcp.services.job_base import Progress, StoredModelOnMedium, worker_biochem
from gem_flux_mcp.services.workspace import Workspace, model_key

if TYPE_CHECKING:
    import cobra

    from gem_flux_mcp.data.biochem import BiochemIndex

PAGE = 50
MAX_NAMES_LOOKED_UP = 400  # names matched against the database one search each


@dataclass(frozen=True)
class WellSet:
    """The observations as the job uses them."""

    fitted: tuple[tuple[str, bool], ...]  # (compound, grows)
    held_out: tuple[tuple[str, bool], ...]
    labels: tuple[tuple[str, str], ...]  # compound -> the file's label
    unmapped: tuple[tuple[str, str, str], ...]  # (row, value, reason)
    panel: str | None


@dataclass(frozen=True)
class GeneSet:
    """The essentiality observations as the job uses them (model gene ids)."""

    fitted: tuple[tuple[str, bool], ...] = ()  # (gene, essential)
    held_out: tuple[tuple[str, bool], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()  # gene -> the table's label
    unmapped: tuple[tuple[str, str, str], ...] = ()  # (row, value, reason)


NO_GENES = GeneSet()


def read_genes(model_genes: Iterable[str], essential: object, nonessential: object, table_text: str | None,
               fitness_threshold: object) -> GeneReading | None:
    """Essentiality calls from lists of essential and non-essential gene ids or a gene table's
    text (one of the two ways), mapped to `model_genes`; None when none is given."""
    ESSENTIAL_GENES.check(essential)
    NONESSENTIAL_GENES.check(nonessential)
    limit = FITNESS_THRESHOLD.check(fitness_threshold)
    lists = essential is not None or nonessential is not None
    if lists and table_text is not None:
        raise ValidationError(ErrorCode.BOTH_INPUTS_PROVIDED, "Give the gene observations once: as essential_genes/"
                              "nonessential_genes, or as a gene table (path or content).",
                              details={"given": ["essential_genes/nonessential_genes", "gene table"]})
    if not lists and table_text is None:
        return None
    if lists:
        table_text = "gene\tessential\n" + "\n".join(
            f"{' '.join(str(g).split())}\t{call}" for ids, call in ((essential, "yes"), (nonessential, "no"))
            for g in (ids if isinstance(ids, list) else []))
    assert table_text is not None
    return read_gene_table(table_text, fitness_threshold=limit, model_genes=model_genes)


def gene_set(reading: GeneReading | None, holdout_fraction: object, seed: object) -> GeneSet:
    if reading is None:
        return NO_GENES
    fraction = HOLDOUT_FRACTION.check(holdout_fraction)
    genes = [Gene(c.gene, c.essential) for c in reading.calls.values()]
    fitted, held = split_wells(genes, fraction, SEED.check(seed)) if fraction is not None and genes else (genes, [])
    return GeneSet(tuple((g.gene, g.essential) for g in fitted), tuple((g.gene, g.essential) for g in held),
                   tuple((g, ", ".join(c.labels)) for g, c in reading.calls.items()),
                   tuple((u["row"], u["value"], u["reason"]) for u in reading.unmapped))


def model_gene_ids(model_json: str) -> list[str]:
    return [str(g["id"]) for g in json.loads(model_json).get("genes", [])]


def read_observations(biochem: BiochemIndex, observed: object, file_text: str | None, threshold: object,
                      panel: object) -> tuple[PlateReading, Panel | None]:
    """The observations from {compound id or name: grows} or a plate file's text (one of them),
    and the panel: the one given, else the one holding most observed compounds (None when no
    panel holds half of them)."""
    PANEL.check(panel)
    limit = OBSERVED_THRESHOLD.check(threshold)
    panels = load_panels()[1]
    names = {c: n for p in panels.values() for c, n in p.compounds.items()}
    lookup = name_lookup(names, biochem.existing_compound_ids, lambda values: _database_names(biochem, values))
    if (observed is None) == (file_text is None):
        raise ValidationError(
            ErrorCode.NO_OBSERVATIONS if observed is None else ErrorCode.BOTH_INPUTS_PROVIDED,
            "Give the observations once: as observed {compound: grows}, or as a plate file (path or content).",
            details={"expected_columns": expected_columns()})
    if observed is not None:
        if not isinstance(observed, Mapping) or not observed:
            raise ValidationError(ErrorCode.NO_OBSERVATIONS, "observed must be {compound id or name: true/false}.",
                                  details={"provided": repr(observed)[:80]})
        file_text = "compound\tgrowth\n" + "\n".join(
            f"{' '.join(str(k).split())}\t{_as_call(v)}" for k, v in observed.items())
    assert file_text is not None
    reading = read_plate(file_text, threshold=limit, lookup=lookup)
    if not reading.observations:
        raise ValidationError(ErrorCode.NO_OBSERVATIONS, "No observation could be mapped to a ModelSEED compound.",
                              details={"unmapped_rows": reading.unmapped[:20], "columns_used": reading.columns})
    chosen = panels[str(panel)] if panel is not None else _likely_panel(panels, reading)
    return reading, chosen


def _as_call(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _database_names(biochem: BiochemIndex, values: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for value in values[:MAX_NAMES_LOOKED_UP]:
        text = value.strip()[:100]
        if not text:
            continue
        try:
            hits = biochem.search_compounds(text, 3)["results"]
        except ValidationError:
            continue
        exact = [h for h in hits if h["match_type"] == "exact" and not h["is_obsolete"]]
        if exact:
            found[value] = str(exact[0]["id"])
    return found


def _likely_panel(panels: Mapping[str, Panel], reading: PlateReading) -> Panel | None:
    compounds = set(reading.observations)
    best = max(panels.values(), key=lambda p: len(compounds & set(p.compounds)))
    return best if len(compounds & set(best.compounds)) * 2 >= len(compounds) else None


def well_set(reading: PlateReading, panel: Panel | None, holdout_fraction: object, seed: object) -> WellSet:
    fraction = HOLDOUT_FRACTION.check(holdout_fraction)
    chosen_seed = SEED.check(seed)
    wells = [Well(o.compound, o.grows) for o in reading.observations.values()]
    fitted, held = split_wells(wells, fraction, chosen_seed) if fraction is not None else (wells, [])
    return WellSet(tuple((w.compound, w.grows) for w in fitted), tuple((w.compound, w.grows) for w in held),
                   tuple((c, ", ".join(o.labels)) for c, o in reading.observations.items()),
                   tuple((u["row"], u["value"], u["reason"]) for u in reading.unmapped),
                   panel.name if panel else None)


def run_reconcile(model: cobra.Model, base_medium: Mapping[str, tuple[float, float]], wells: WellSet,
                  template_name: str, data_dir: Path, biochem: BiochemIndex, max_changes: int | None,
                  objective: str | None = None, progress: Progress = lambda *_: None,
                  genes: GeneSet = NO_GENES, block_gene_backed: bool = False) -> Reconciliation:
    """The library's reconcile with the template, reaction facts and formulas from the data folder."""
    from gem_flux_mcp.data.templates import load_template
    from gem_flux_mcp.modeling.gapfill import pick_objective, reaction_facts
    from gem_flux_mcp.modeling.reconcile import reconcile

    progress("load", 0.01, f"loading the {template_name} template")
    template = load_template(data_dir, template_name)
    panel = load_panels()[1][wells.panel] if wells.panel else None
    plan = plan_array(panel, [], base_medium)
    formulas = {c: f for c, (_, f) in biochem.compound_names(list(base_medium)).items()}
    return reconcile(model, base_medium, plan.medium, [Well(c, g) for c, g in wells.fitted], template,
                     objective=objective or pick_objective(model), formulas=formulas,
                     facts=reaction_facts(biochem, (template,), model),
                     options=ReconcileOptions(threshold=DEFAULT_GROWTH_THRESHOLD, uptake=plan.uptake,
                                              max_changes=max_changes, essential_ratio=DEFAULT_THRESHOLD,
                                              block_gene_backed=block_gene_backed),
                     also_predict=[c for c, _ in wells.held_out], genes=[Gene(g, e) for g, e in genes.fitted],
                     also_predict_genes=[g for g, _ in genes.held_out], progress=progress)


def uptake_of(wells: WellSet, base_medium: Mapping[str, tuple[float, float]]) -> float:
    """The uptake each tested compound is opened at (the panel's reference source's, in the medium)."""
    panel = load_panels()[1][wells.panel] if wells.panel else None
    return plan_array(panel, [], base_medium).uptake


def describe(fit: Reconciliation, wells: WellSet, names: Mapping[str, str], new_model_id: str,
             uptake: float, genes: GeneSet = NO_GENES) -> dict[str, Any]:
    """The answer's parts both doors share: summary, agreement, changes, conflicts, unreconciled."""
    labels = dict(wells.labels)
    gene_labels = dict(genes.labels)

    def ref(compound: str) -> dict[str, str]:
        return {"compound_id": compound, "name": names.get(compound, ""), "label": labels.get(compound, compound)}

    def agreement(subset: tuple[tuple[str, bool], ...]) -> dict[str, Any]:
        observed = {c: g for c, g in subset}
        tested = list(observed)
        return {when: compare([c for c in tested if grows(calls[c], DEFAULT_GROWTH_THRESHOLD)], tested, observed,
                              "growth")["metrics"] for when, calls in (("before", fit.before), ("after", fit.after))}

    def essentiality(subset: tuple[tuple[str, bool], ...]) -> dict[str, Any]:
        observed = dict(subset)
        return {when: compare(fit.essential(when, DEFAULT_THRESHOLD) & set(observed), list(observed), observed,
                              "essential")["metrics"] for when in ("before", "after")}

    changes = [{"reaction_id": c.reaction, "name": c.name, "action": c.action, "direction": c.direction,
                "evidence": c.evidence, "genes": c.genes, "wells": [ref(w) for w in c.wells],
                "observed_genes": c.deletions} for c in fit.changes]
    observed = dict(wells.fitted)
    count = {a: sum(c.action == a for c in fit.changes) for a in ("added", "reversed", "blocked", "removed")}
    return {
        "summary": {"new_model_id": new_model_id, "wells_observed": len(wells.fitted) + len(wells.held_out),
                    "wells_fitted": len(wells.fitted), "wells_held_out": len(wells.held_out),
                    "reactions_added": count["added"] + count["reversed"], "directions_blocked": count["blocked"],
                    "reactions_removed": count["removed"], "conflicts": len(fit.conflicts),
                    "gene_backed_blocks": sum(c.action in ("blocked", "removed") and c.evidence == "genes"
                                              for c in fit.changes),
                    "unreconciled": len(fit.unreconciled), "unmapped_rows": len(wells.unmapped),
                    "base_growth_before": round(fit.base_growth[0], 6),
                    "base_growth_after": round(fit.base_growth[1], 6),
                    "panel": wells.panel, "growth_threshold": DEFAULT_GROWTH_THRESHOLD,
                    "uptake_rate": uptake, "quality_checks_passed": bool(fit.quality.get("all_passed")),
                    "genes_observed": len(genes.fitted) + len(genes.held_out), "genes_fitted": len(genes.fitted),
                    "genes_held_out": len(genes.held_out), "genes_unreconciled": len(fit.unreconciled_genes),
                    "unmapped_gene_rows": len(genes.unmapped), "essential_below": DEFAULT_THRESHOLD},
        "agreement": {"fitted": agreement(wells.fitted),
                      "held_out": agreement(wells.held_out) if wells.held_out else None,
                      "essentiality": {"fitted": essentiality(genes.fitted), "held_out": essentiality(
                          genes.held_out) if genes.held_out else None} if genes.fitted or genes.held_out else None},
        "changes": changes,
        "conflicts": [{"reaction_id": c.reaction, "name": c.name, "direction": c.direction, "genes": c.genes,
                       "wells": [ref(w) for w in c.wells], "observed_genes": c.deletions} for c in fit.conflicts],
        "unreconciled": [{**{k: v for k, v in ref(u.compound).items()}, "observed_growth": observed.get(
            u.compound, u.observed_growth), "reason": u.reason} for u in fit.unreconciled],
        "unmapped_rows": [{"row": r, "value": v, "reason": why} for r, v, why in wells.unmapped],
        "held_out": [c for c, _ in wells.held_out],
        "unreconciled_genes": [{"gene_id": u.gene, "label": gene_labels.get(u.gene, u.gene),
                                "observed_essential": u.observed_essential, "reason": u.reason}
                               for u in fit.unreconciled_genes],
        "unmapped_gene_rows": [{"row": r, "value": v, "reason": why} for r, v, why in genes.unmapped],
        "held_out_genes": [g for g, _ in genes.held_out],
        "quality_checks": fit.quality,
        "timings_s": fit.timings,
    }


def revision_record(answer: Mapping[str, Any], fit: Reconciliation, media_id: str) -> dict[str, Any]:
    """The revision kept with the new model (get_model include_revisions, the dashboard): each
    change with the wells behind it in its reason."""
    def said(change: Mapping[str, Any]) -> dict[str, Any]:
        wells = ", ".join(w["label"] or w["compound_id"] for w in change["wells"][:12])
        genes = ", ".join(change["observed_genes"][:12])
        behind = "; ".join([*([f"wells {wells}"] if wells else []), *([f"genes {genes}"] if genes else [])])
        return {"id": change["reaction_id"], "name": change["name"], "direction": change["direction"],
                "evidence": change["evidence"], "wells": [w["compound_id"] for w in change["wells"]],
                "genes": change["observed_genes"], "reason": f"{change['action']} for {behind or 'the observations'}"}

    changes = answer["changes"]
    summary = answer["summary"]
    fitted = answer["agreement"]["fitted"]
    essential = answer["agreement"]["essentiality"]
    return {
        "reason": (f"reconciled with {summary['wells_fitted']} observed wells"
                   + (f" ({answer['summary']['panel']} panel)" if summary["panel"] else "")
                   + f": MCC {fitted['before']['mcc']} -> {fitted['after']['mcc']}"
                   + (f"; {summary['genes_fitted']} essentiality calls: MCC {essential['fitted']['before']['mcc']} "
                      f"-> {essential['fitted']['after']['mcc']}" if essential else "")),
        "changes": {"added_reactions": [said(c) for c in changes if c["action"] in ("added", "reversed")],
                    "removed_reactions": [said(c) for c in changes if c["action"] == "removed"],
                    "bounds_changed": [said(c) for c in changes if c["action"] == "blocked"],
                    "knocked_out_genes": []},
        "media_id": media_id, "growth_before": summary["base_growth_before"],
        "growth_after": summary["base_growth_after"],
        "unreconciled": [{"compound_id": u["compound_id"], "reason": u["reason"]} for u in answer["unreconciled"]],
        "conflicts": [{"id": c["reaction_id"], "genes": c["genes"]} for c in answer["conflicts"]],
        "unreconciled_genes": [{"gene_id": u["gene_id"], "reason": u["reason"]} for u in answer["unreconciled_genes"]],
    }


PLATE_COLUMNS = ("compound_id", "name", "label", "observed", "before", "after", "held_out")


def plate_record(fit: Reconciliation, wells: WellSet, names: Mapping[str, str]) -> dict[str, Any]:
    """Every observed well with its predicted growth before and after the fit (None: no uptake)
    and whether it was held out, as the dashboard draws it (recorded with the result; compact:
    columns once, a row per well)."""
    labels = dict(wells.labels)
    held = {c for c, _ in wells.held_out}

    def value(growth: float | None) -> float | None:
        return None if growth is None else round(float(growth), 6)

    rows = [[compound, names.get(compound, ""), labels.get(compound, compound), grows_observed,
             value(fit.before.get(compound)), value(fit.after.get(compound)), compound in held]
            for compound, grows_observed in (*wells.fitted, *wells.held_out)]
    return {"columns": list(PLATE_COLUMNS), "rows": rows, "growth_threshold": DEFAULT_GROWTH_THRESHOLD}


# ---- the stored model: a job -------------------------------------------------------------------


@dataclass(frozen=True)
class ReconcileOutcome:
    data: bytes  # COBRApy JSON of the revision
    stats: dict[str, Any]
    answer: dict[str, Any]  # describe()
    record: dict[str, Any]  # revision_record()
    plate: dict[str, Any] | None = None  # plate_record(), recorded with the result for the dashboard


@dataclass(frozen=True)
class ReconcileJob(StoredModelOnMedium):
    """`medium` is the full base medium (the job takes the panel's reference sources out)."""

    kind: ClassVar[str] = "reconcile"
    wells: WellSet
    template: str
    new_model_id: str
    max_changes: int | None = None
    genes: GeneSet = NO_GENES
    block_gene_backed: bool = False

    def run(self, settings: Settings, progress: Progress) -> ReconcileOutcome:
        from gem_flux_mcp.modeling.json_model import model_from_json
        from gem_flux_mcp.modeling.solver_memory import release_model
        from gem_flux_mcp.store.serialization import serialize_model

        progress("load", 0.01, "reading the model")
        model = model_from_json(self.model_json)
        biochem = worker_biochem(settings)
        fit = run_reconcile(model, self.medium, self.wells, self.template, settings.data_dir, biochem,
                            self.max_changes, progress=progress, genes=self.genes,
                            block_gene_backed=self.block_gene_backed)
        compounds = [c for c, _ in (*self.wells.fitted, *self.wells.held_out)]
        names = {c: n for c, (n, _) in biochem.compound_names(compounds).items()}
        answer = describe(fit, self.wells, names, self.new_model_id, uptake_of(self.wells, self.medium),
                          self.genes)
        progress("store", 0.95, "serializing the revision")
        serialized = serialize_model(fit.model, self.new_model_id)
        release_model(fit.model)
        release_model(model)
        return ReconcileOutcome(serialized.data, serialized.stats, answer, revision_record(answer, fit, self.media_id),
                                plate_record(fit, self.wells, names))


def plate_text(file_path: Path | None, content: object, encoding: object, what: str = "observed") -> str | None:
    """The plate file's (or, with what='genes', the gene table's) text from a resolved path or
    inline content (at most one): arguments `<what>_file_path` and `<what>_content`."""
    path_arg, content_arg = f"{what}_file_path", f"{what}_content"
    if file_path is not None and content is not None:
        raise ValidationError(ErrorCode.BOTH_INPUTS_PROVIDED, f"Give {path_arg} or {content_arg}, not both.",
                              details={"given": [path_arg, content_arg]})
    if file_path is not None:
        return read_text(file_path, path_arg)
    if content is not None:
        return text_of_content(content, str(encoding), content_arg)
    return None


def prepare_reconcile(ws: Workspace, model_id: object, base_media_id: object, observed: object = None,
                      file_text: str | None = None, panel: object = None, max_changes: object = None,
                      holdout_fraction: object = None, seed: object = None,
                      threshold: object = None, essential_genes: object = None, nonessential_genes: object = None,
                      genes_text: str | None = None, fitness_threshold: object = None,
                      block_gene_backed: object = False) -> ReconcileJob:
    """Validate the request (every argument before any work) and reserve the new model's id."""
    key = model_key(model_id)
    limit = RECONCILE_MAX_CHANGES.check(max_changes)
    HOLDOUT_FRACTION.check(holdout_fraction)
    SEED.check(seed)
    ESSENTIAL_GENES.check(essential_genes)
    NONESSENTIAL_GENES.check(nonessential_genes)
    FITNESS_THRESHOLD.check(fitness_threshold)
    medium_id, medium = ws.medium(base_media_id)
    row = ws.store.get_model_row(ws.workspace_id, key)
    model_json = ws.store.model_data(ws.workspace_id, key).decode("utf-8")
    reading, chosen, genes = read_all(ws.biochem, model_gene_ids(model_json), observed, file_text, threshold, panel,
                                      essential_genes, nonessential_genes, genes_text, fitness_threshold)
    wells = well_set(reading, chosen, holdout_fraction, seed)
    template = str(row.template) if row.template in GAPFILL_TEMPLATE.values else "GramNegative"
    return ReconcileJob(
        model_id=key, media_id=medium_id, model_json=model_json,
        medium=dict(medium), wells=wells, template=template, max_changes=limit,
        genes=gene_set(genes, holdout_fraction, seed), block_gene_backed=bool(block_gene_backed),
        new_model_id=ws.store.reserve_derived_model_id(ws.workspace_id, key, suffix="rec"),  # last: nothing fails after
    )


def read_all(biochem: BiochemIndex, model_genes: list[str], observed: object, file_text: str | None,
             threshold: object, panel: object, essential_genes: object, nonessential_genes: object,
             genes_text: str | None, fitness_threshold: object
             ) -> tuple[PlateReading, Panel | None, GeneReading | None]:
    """Growth and essentiality observations: either may be left out, not both (NO_OBSERVATIONS
    when nothing given maps to a compound or a model gene)."""
    genes = read_genes(model_genes, essential_genes, nonessential_genes, genes_text, fitness_threshold)
    if genes is not None and observed is None and file_text is None:
        if not genes.calls:
            raise ValidationError(ErrorCode.NO_OBSERVATIONS, "No gene observation could be mapped to a model gene.",
                                  details={"unmapped_gene_rows": genes.unmapped[:20], "columns_used": genes.columns})
        PANEL.check(panel)
        OBSERVED_THRESHOLD.check(threshold)
        return PlateReading(), None, genes
    reading, chosen = read_observations(biochem, observed, file_text, threshold, panel)
    return reading, chosen, genes


def abandon_reconcile(ws: Workspace, job: ReconcileJob) -> None:
    ws.store.release_model_id(ws.workspace_id, job.new_model_id)


def store_reconcile(ws: Workspace, job: ReconcileJob, outcome: ReconcileOutcome) -> results.ReconcileResult:
    """Store the revision under its reserved id, record the result with both models, shape the answer."""
    from gem_flux_mcp.store.serialization import SerializedModel

    parent = ws.store.get_model_row(ws.workspace_id, job.model_id)
    try:
        ws.store.add_model(ws.workspace_id, job.new_model_id, SerializedModel(outcome.data, outcome.stats),
                           model_name=None, source="revised", template=parent.template, derived_from=job.model_id,
                           extra={"revision": outcome.record})
    finally:
        abandon_reconcile(ws, job)
    ws.store.set_last_media(ws.workspace_id, job.new_model_id, job.media_id)
    answer = outcome.answer
    recorded = {"new_model_id": job.new_model_id, "agreement": answer["agreement"],
                "changes": len(answer["changes"]), "unreconciled": len(answer["unreconciled"]),
                "unreconciled_genes": len(answer["unreconciled_genes"]),
                **({"plate": outcome.plate} if outcome.plate is not None else {})}
    for model in (job.model_id, job.new_model_id):
        ws.store.add_result(ws.workspace_id, model, "reconcile_phenotypes", job.media_id, recorded)
    return results.ReconcileResult.model_validate({
        "success": True, "model_id": job.new_model_id, "original_model_id": job.model_id,
        "base_media_id": job.media_id, **answer,
        "changes": answer["changes"][:PAGE], "changes_total": len(answer["changes"]),
        "unreconciled": answer["unreconciled"][:PAGE], "unmapped_rows": answer["unmapped_rows"][:PAGE],
        "unreconciled_genes": answer["unreconciled_genes"][:PAGE],
        "unmapped_gene_rows": answer["unmapped_gene_rows"][:PAGE],
        "conflicts": answer["conflicts"][:PAGE],
        "next_steps": [
            f"Check the calls: predict_growth_phenotypes(model_id='{job.new_model_id}', base_media_id="
            f"'{job.media_id}'{', panel=' + repr(answer['summary']['panel']) if answer['summary']['panel'] else ''}).",
            f"History: get_model(model_id='{job.new_model_id}', include_revisions=true).",
            *(["Score it on wells it did not see: pass holdout_fraction=0.3 and a seed."]
              if not answer["held_out"] else []),
        ],
    })
