"""A quality report on a stored model ("why doesn't it grow?"): the request checked and turned
into a DiagnoseJob, the answer summarised (counts first, then each list a page at a time, with
names), the shortest fix when the model does not grow, written as TSV when asked, recorded."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, ValidationError
from gem_flux_mcp.services import gapfill_ahead, results
from gem_flux_mcp.services.gapfill import known_atp_correction
from gem_flux_mcp.services.job_base import Progress, worker_biochem
from gem_flux_mcp.services.tables import write_tsv
from gem_flux_mcp.services.workspace import Workspace, model_key


@dataclass(frozen=True)
class DiagnosisOutcome:
    diagnosis: dict[str, Any]  # the modeling Diagnosis as plain data
    fix: dict[str, Any] | None  # what a gapfill on the medium would add, when the model does not grow
    seconds: float


@dataclass(frozen=True)
class DiagnoseJob:
    """`medium` None: the model's bounds as stored. A fix is searched for only with a medium."""

    kind: ClassVar[str] = "diagnose"
    model_id: str
    media_id: str | None
    model_json: str
    medium: dict[str, tuple[float, float]] | None
    biomass: str
    template: str
    atp_correction: dict[str, Any] | None = None
    growth_needed: float = 1e-6  # below this growth the gapfill fix is searched for

    def run(self, settings: Settings, progress: Progress) -> DiagnosisOutcome:
        import dataclasses

        from gem_flux_mcp.modeling import diagnose, gapfill, media
        from gem_flux_mcp.modeling.gapfill import report as gapfill_report
        from gem_flux_mcp.modeling.json_model import model_from_json
        from gem_flux_mcp.modeling.solver_memory import release_model

        started = time.perf_counter()
        progress("load", 0.02, "reading the model")
        model = model_from_json(self.model_json)
        biochem = worker_biochem(settings)
        if self.medium is not None:
            media.put_on_medium(model, self.medium, biochem)
        progress("diagnose", 0.1, "balance, dead ends, blocked reactions, energy cycles, biomass precursors")
        found = diagnose.diagnose(model, self.biomass)
        plain = {**dataclasses.asdict(found), "counts": found.counts(),
                 "mass_imbalanced": found.balance.mass_imbalanced,
                 "charge_imbalanced": found.balance.charge_imbalanced}
        fix = None
        if self.medium is not None and found.growth < self.growth_needed:
            progress("fix", 0.5, "gapfilling on the medium to find the shortest fix")
            previous = gapfill.AtpCorrection.from_json(self.atp_correction) if self.atp_correction else None
            options = gapfill.GapfillOptions()
            release_model(model)
            model = model_from_json(self.model_json)  # as gapfill_model would see it, no medium applied
            try:
                run = gapfill.gapfill_from_data(model, dict(self.medium), options, template_name=self.template,
                                                data_dir=settings.data_dir, biochem=biochem, previous_atp=previous,
                                                progress=progress)
            except GemFluxError as exc:  # no fix from the template: say why
                fix = {"template": self.template, "error_code": str(exc.code), "message": exc.message}
            else:
                report = gapfill_report.describe(run, biochem.reaction_details, options.target_growth)
                fix = {"template": self.template, "growth_after": report["growth_rate_after"],
                       "reactions_added": report["reactions_added"]}
                release_model(run.model)
        release_model(model)
        return DiagnosisOutcome(plain, fix, time.perf_counter() - started)


PAGE = 50
TOP = 20
COLUMNS = ("check", "id", "name", "detail")


def prepare_diagnosis(ws: Workspace, model_id: object, media_id: object = None, biomass: object = "bio1"
                      ) -> DiagnoseJob:
    key = model_key(model_id)
    row = ws.store.get_model_row(ws.workspace_id, key)
    medium_id, medium = ws.medium(media_id) if media_id is not None else (None, None)
    with ws.store.checkout(ws.workspace_id, key) as model:
        if not isinstance(biomass, str) or biomass not in model.reactions:
            raise ValidationError(
                ErrorCode.INVALID_OBJECTIVE, f"biomass must be a reaction of model {key}; got {biomass!r}.",
                details={"provided": repr(biomass)[:60],
                         "candidates": [r.id for r in model.reactions if r.id.startswith("bio")][:10]},
            )
    return DiagnoseJob(
        model_id=key, media_id=medium_id, model_json=ws.store.model_data(ws.workspace_id, key).decode("utf-8"),
        medium=dict(medium) if medium is not None else None, biomass=biomass,
        template=gapfill_ahead.gapfill_template(row.template),
        atp_correction=known_atp_correction(ws, row),
    )


def store_diagnosis(ws: Workspace, job: DiagnoseJob, outcome: DiagnosisOutcome, offset: int = 0,
                    output_path: Path | None = None) -> results.DiagnosisResult:
    found = outcome.diagnosis
    reaction_name, compound_name = _names(ws, found)
    imbalance = found["balance"]["imbalanced"]
    lists = findings(found)
    page = {k: v[offset:offset + PAGE] for k, v in lists.items()}
    cycles = [{"carrier": c["carrier"], "max_flux": round(c["max_flux"], 6), "dissipation_reaction": c["reaction"],
               "members": {r: round(v, 6) for r, v in list(c["members"].items())[:TOP]},
               "members_total": len(c["members"])} for c in found["energy_cycles"] if c["max_flux"] > 1e-6]
    precursors = found["precursors"]
    missing = [{"id": m, "name": compound_name(m), "inputs_not_made": precursors["missing_parts"].get(m, []),
                "input_names": [compound_name(i) for i in precursors["missing_parts"].get(m, [])]}
               for m in precursors["missing"]]
    fix = _fix(outcome.fix)
    growth = round(found["growth"], 6)
    summary = {**found["counts"], "growth": growth, "grows": growth > 1e-6}
    ws.store.add_result(ws.workspace_id, job.model_id, "diagnosis", job.media_id, {
        **summary, "missing_biomass_precursors": precursors["missing"][:50],
        "energy_cycle_carriers": [c["carrier"] for c in cycles],
        **({"fix_reactions": len(outcome.fix.get("reactions_added", []))} if outcome.fix else {})})
    written = None
    if output_path is not None:
        rows = finding_rows(found, lambda item: reaction_name(item) or compound_name(item))
        written = write_tsv(output_path, COLUMNS, rows)
    longest = max(len(v) for v in lists.values())
    return results.DiagnosisResult.model_validate({
        "success": True, "model_id": job.model_id, "media_id": job.media_id, "biomass": job.biomass,
        "summary": summary,
        "explanation": _explain(growth, missing, cycles, fix, job) + _backwards(found["atp_transport_backwards"]),
        "energy_cycles": cycles, "missing_biomass_precursors": missing,
        "recycled_precursors": precursors["recycled"], "fix": fix, **page,
        "imbalances": {r: imbalance[r] for r in [*page["mass_imbalanced"], *page["charge_imbalanced"]]},
        "names": {i: n for i in {x for items in page.values() for x in items}
                  if (n := reaction_name(i) or compound_name(i))},
        "offset": offset, "next_offset": offset + PAGE if offset + PAGE < longest else None,
        **({"output_file": written} if written else {}),
        "timings_s": found["timings"], "seconds": round(outcome.seconds, 3),
    })


def findings(found: dict[str, Any]) -> dict[str, list[str]]:
    """The listed findings of a diagnosis (as plain data), by check."""
    return {
        "mass_imbalanced": found["mass_imbalanced"], "charge_imbalanced": found["charge_imbalanced"],
        "blocked_reactions": found["blocked"],
        "dead_end_metabolites": found["dead_ends"]["only_produced"] + found["dead_ends"]["only_consumed"],
        "reactions_without_genes": found["without_genes"],
    }


def finding_rows(found: dict[str, Any], name: Callable[[str], str] = lambda item: "") -> list[dict[str, Any]]:
    """One row per finding (the table written with output_path): check, id, name, and for the
    imbalanced reactions their imbalance."""
    imbalance = found["balance"]["imbalanced"]
    return [{"check": check, "id": item, "name": name(item),
             "detail": imbalance.get(item, "") if "imbalanced" in check else ""}
            for check, items in findings(found).items() for item in items]


def _names(ws: Workspace, found: dict[str, Any]) -> tuple[Any, Any]:
    """Name look-ups for model ids (`rxn00001_c0`, `cpd00027_c0`) through the ModelSEED names."""
    def base(item: str) -> str:
        return item.rsplit("_", 1)[0]

    reactions = ws.biochem.reaction_names({base(r) for r in [*found["blocked"], *found["without_genes"],
                                                            *found["balance"]["imbalanced"]] if r.startswith("rxn")})
    metabolites = [*found["dead_ends"]["only_produced"], *found["dead_ends"]["only_consumed"],
                   *found["precursors"]["missing"], *(i for v in found["precursors"]["missing_parts"].values()
                                                      for i in v)]
    compounds = {c: n for c, (n, _) in ws.biochem.compound_names({base(m) for m in metabolites}).items()}
    return (lambda item: reactions.get(base(item), "")), (lambda item: compounds.get(base(item), ""))


def _fix(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    if raw is None or "error_code" in raw:
        return raw
    added = raw["reactions_added"]
    return {"template": raw["template"], "growth_after": raw["growth_after"], "reactions_total": len(added),
            "reactions_added": added[:TOP]}


def _backwards(reactions: list[str]) -> list[str]:
    if not reactions:
        return []
    return [f"{len(reactions)} ATP-driven transporters (ABC, P-type) may run backwards and make ATP from what they "
            f"export: {', '.join(reactions[:8])}; gapfill_model closes that direction, or revise_model can."]


def _explain(growth: float, missing: list[dict[str, Any]], cycles: list[dict[str, Any]],
             fix: dict[str, Any] | None, job: DiagnoseJob) -> list[str]:
    """Plain sentences an assistant can pass on."""
    lines: list[str] = []
    where = f"on {job.media_id}" if job.media_id else "with its stored bounds"
    if growth > 1e-6:
        lines.append(f"The model grows {where} ({growth:g} /h).")
    else:
        made = ", ".join(f"{m['name'] or m['id']}" + (f" (needs {', '.join(m['input_names'] or m['inputs_not_made'])})"
                                                      if m["inputs_not_made"] else "") for m in missing[:10])
        lines.append(f"The model does not grow {where}."
                     + (f" It cannot make these biomass components: {made}." if missing else ""))
        if fix and "error_code" not in fix:
            lines.append(f"A gapfill on this medium ({fix['template']} template) would add "
                         f"{fix['reactions_total']} reactions and reach {fix['growth_after']:g} /h: "
                         f"gapfill_model(model_id='{job.model_id}', media_id='{job.media_id}').")
        elif fix:
            lines.append(f"Gapfilling with the {fix['template']} template finds no fix: {fix['message']}")
        elif job.media_id is None:
            lines.append("Give media_id to see which template reactions would make it grow.")
    for cycle in cycles:
        lines.append(f"Energy from nothing: {cycle['carrier']} is made at up to {cycle['max_flux']:g} with every "
                     f"uptake closed, through {', '.join(list(cycle['members'])[:6])}; make one of them "
                     "irreversible with revise_model.")
    return lines
