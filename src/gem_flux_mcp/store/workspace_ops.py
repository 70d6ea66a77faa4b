"""What the session tools do, on one workspace: media, models, FBA, with persistence.

Each method validates, calls the modeling library and the store, and returns the tool's payload.
The MCP wrappers only pick the workspace and check user paths.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.media_library import PREDEFINED_CREATED_AT, PredefinedMedium
from gem_flux_mcp.errors import NotFoundError, ValidationError
from gem_flux_mcp.modeling import fba, media, model_io, revise
from gem_flux_mcp.store.rows import MediaRow, ModelRow
from gem_flux_mcp.store.store import SerializedModel, Store, derived_model_id

log = logging.getLogger(__name__)

FILTER_STATES = ("all", "draft", "gapfilled")
GAPFILL_MODES = ("full", "atp_only", "genomescale_only")
MAX_TARGET_GROWTH = 10.0
MAX_FLUX_THRESHOLD = 1000.0  # mmol/gDW/h: above it nothing is listed
MAX_REASON_CHARS = 2000  # a revision reason is a note, kept with every revision
# Exchange -> ModelSEED compound resolution per loaded model object (cached models never change
# their reactions: edits make new models), so repeated FBA skips ~10 ms of work.
_EXCHANGES: WeakKeyDictionary[Any, list[media.ExchangeInfo]] = WeakKeyDictionary()
_MEDIA_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_MAX_PREVIEW = 3


@dataclass
class Workspace:
    store: Store
    workspace_id: str
    biochem: BiochemIndex
    media_library: dict[str, PredefinedMedium]

    # -- media ------------------------------------------------------------------------------------

    def build_media(self, compounds: object, default_uptake: object = 100.0, custom_bounds: object = None,
                    media_name: object = None, description: object = None) -> dict[str, Any]:
        medium = media.validate_media_request(compounds, default_uptake, custom_bounds,
                                              self.biochem.existing_compound_ids)
        if media_name is not None:
            if not isinstance(media_name, str) or not _MEDIA_NAME.match(media_name) or media_name.startswith("media_"):
                raise ValidationError(
                    "INVALID_MEDIA_NAME",
                    "media_name must be 1-64 letters, digits, '_' or '-', and must not start with 'media_'.",
                    details={"provided": media_name if isinstance(media_name, str) else repr(media_name)},
                    suggestions=["Use a name such as 'glucose_m9_aerobic', or omit it for an automatic id."],
                )
            if media_name in self.media_library:
                raise ValidationError(
                    "DUPLICATE_NAME", f"'{media_name}' is a predefined medium; choose another name.",
                    details={"name": media_name, "predefined_media": sorted(self.media_library)},
                )
            media_id = media_name
        else:
            media_id = self.store.new_media_id(self.workspace_id)
        row = self.store.add_media(MediaRow(
            workspace=self.workspace_id, media_id=media_id, media_name=media_name if media_name else None,
            compounds=medium, default_uptake=float(default_uptake),  # type: ignore[arg-type]
            created_at="", description=description if isinstance(description, str) else None,
        ))
        info = self.biochem.compound_names(medium)
        custom = len(custom_bounds) if isinstance(custom_bounds, dict) else 0
        return {
            "success": True,
            "media_id": row.media_id,
            "media_name": row.media_name,
            "compounds": [{"id": c, "name": info[c][0], "formula": info[c][1], "bounds": list(b)}
                          for c, b in medium.items()],
            "num_compounds": len(medium),
            "media_type": media.media_type(len(medium)),
            "default_uptake_rate": float(default_uptake),  # type: ignore[arg-type]
            "custom_bounds_applied": custom,
            "created_at": row.created_at,
            "next_steps": [f"Run FBA: run_fba(model_id=..., media_id='{row.media_id}').",
                           f"Gapfill a draft on it: gapfill_model(model_id=..., media_id='{row.media_id}')."],
        }

    def medium(self, media_id: object) -> tuple[str, dict[str, tuple[float, float]]]:
        if not isinstance(media_id, str) or not media_id.strip():
            raise ValidationError("INVALID_MEDIA_ID", "media_id must be a non-empty string.",
                                  details={"provided": repr(media_id)[:40]},
                                  suggestions=["Call list_media to see the available media."],
                                  valid_next_steps=["list_media"])
        key = media_id.strip()
        if key in self.media_library:
            return key, self.media_library[key].compounds
        try:
            return key, self.store.get_media(self.workspace_id, key).compounds
        except NotFoundError as exc:
            exc.details["predefined_media"] = sorted(self.media_library)
            raise

    def list_media(self) -> dict[str, Any]:
        entries: list[dict[str, Any]] = []
        for medium in self.media_library.values():
            entries.append(self._media_info(medium.media_id, medium.media_id, medium.compounds,
                                            PREDEFINED_CREATED_AT, True, medium.description))
        user = self.store.list_media(self.workspace_id)
        for row in user:
            entries.append(self._media_info(row.media_id, row.media_name, row.compounds, row.created_at, False,
                                            row.description or ""))
        entries.sort(key=lambda e: (e["created_at"], e["media_id"]))
        return {
            "success": True,
            "media": entries,
            "total_media": len(entries),
            "predefined_media": len(self.media_library),
            "user_created_media": len(user),
            "next_steps": ["Create a medium with build_media(compounds=[...]).",
                           "Use a media_id with run_fba or gapfill_model."],
        }

    def _media_info(self, media_id: str, name: str | None, compounds: dict[str, tuple[float, float]],
                    created_at: str, predefined: bool, description: str) -> dict[str, Any]:
        preview_ids = list(compounds)[:_MAX_PREVIEW]
        names = self.biochem.compound_names(preview_ids)
        return {
            "media_id": media_id,
            "media_name": name,
            "description": description,
            "num_compounds": len(compounds),
            "media_type": media.media_type(len(compounds)),
            "compounds_preview": [{"id": c, "name": names.get(c, (c, ""))[0]} for c in preview_ids],
            "created_at": created_at,
            "is_predefined": predefined,
        }

    def delete_media(self, media_id: object) -> dict[str, Any]:
        if isinstance(media_id, str) and media_id.strip() in self.media_library:
            raise ValidationError(
                "PREDEFINED_MEDIA_IMMUTABLE",
                f"'{media_id.strip()}' is a predefined medium and cannot be deleted.",
                details={"media_id": media_id.strip(), "predefined_media": sorted(self.media_library)},
                suggestions=["Predefined media are shared reference data; delete only media you built."],
                valid_next_steps=["list_media"],
            )
        if not isinstance(media_id, str) or not media_id.strip():
            raise ValidationError("INVALID_MEDIA_ID", "media_id must be a non-empty string.",
                                  details={"provided": repr(media_id)[:40]}, valid_next_steps=["list_media"])
        row = self.store.delete_media(self.workspace_id, media_id.strip())
        return {"success": True, "deleted_media_id": row.media_id, "message": "Media deleted successfully"}

    # -- models -----------------------------------------------------------------------------------

    def list_models(self, filter_state: object = "all") -> dict[str, Any]:
        state = filter_state.strip().lower() if isinstance(filter_state, str) else None
        if state not in FILTER_STATES:
            raise ValidationError(
                "INVALID_FILTER_STATE",
                f"filter_state must be one of {', '.join(FILTER_STATES)}; got {filter_state!r}.",
                details={"provided": filter_state if isinstance(filter_state, str) else repr(filter_state),
                         "valid_values": list(FILTER_STATES)},
                suggestions=["Use 'all', 'draft' or 'gapfilled' (case does not matter)."],
                example_call={"tool": "list_models", "arguments": {"filter_state": "all"}},
            )
        rows = self.store.list_models(self.workspace_id)
        counts = {name: sum(r.state == name for r in rows) for name in ("draft", "gapfilled")}
        shown = [r for r in rows if state == "all" or r.state == state]
        return {
            "success": True,
            "models": [model_info(r) for r in shown],
            "total_models": len(shown),
            "models_by_state": counts,
            "next_steps": ["Inspect one with get_model(model_id=...).",
                           "Run FBA with run_fba(model_id=..., media_id=...)."] if shown
            else ["Build a model with build_model or load one with import_model."],
        }

    def delete_model(self, model_id: object) -> dict[str, Any]:
        key = self._model_key(model_id)
        row = self.store.delete_model(self.workspace_id, key)
        return {"success": True, "deleted_model_id": row.model_id, "message": "Model deleted successfully"}

    def get_model(self, model_id: object, include_predictions: bool = False, include_revisions: bool = False,
                  limit: object = 20, gapfill_reactions_offset: object = None) -> dict[str, Any]:
        key = self._model_key(model_id)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100:
            raise ValidationError("INVALID_LIMIT", f"limit must be an integer from 1 to 100; got {limit!r}.",
                                  details={"provided": repr(limit)[:20], "min": 1, "max": 100})
        row = self.store.get_model_row(self.workspace_id, key)
        with self.store.checkout(self.workspace_id, key) as model:
            summary = model_io.summarize(model)
            genes = sorted(g.id for g in model.genes)
        payload: dict[str, Any] = {
            "success": True,
            **model_info(row),
            "source": row.source,
            "num_exchange_reactions": summary["num_exchange_reactions"],
            "compartments": summary["compartments"],
            "objective": summary["objective"],
            "statistics": summary["statistics"],
            "genes_preview": genes[:50],
            "genes_truncated": len(genes) > 50,
            "last_media_id": row.last_media_id,
            "lineage": self._lineage(row),
        }
        if include_predictions:
            results = self.store.list_results(self.workspace_id, key, limit)
            payload["predictions"] = [{"id": r.id, "kind": r.kind, "media_id": r.media_id,
                                       "created_at": r.created_at, "summary": r.summary} for r in results]
        if include_revisions:
            payload["revisions"] = self.revision_history(row, limit)
        if gapfill_reactions_offset is not None:
            payload["gapfill_reactions"] = self._gapfill_page(row, gapfill_reactions_offset)
        return payload

    def _gapfill_page(self, row: ModelRow, offset: object) -> dict[str, Any]:
        from gem_flux_mcp.modeling.gapfill_report import page

        record = row.extra.get("gapfill")
        if not isinstance(record, dict):
            raise ValidationError(
                "NOT_GAPFILLED", f"Model {row.model_id} was not made by gapfill_model; it has no added reactions.",
                details={"model_id": row.model_id, "source": row.source},
                suggestions=["Pass the id of a gapfilled model (ids containing '.gf')."],
                valid_next_steps=["list_models"],
            )
        entries = record.get("reactions_added", [])
        if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= max(len(entries) - 1, 0):
            raise ValidationError(
                "INVALID_OFFSET", f"gapfill_reactions_offset must be an integer from 0 to {max(len(entries) - 1, 0)}.",
                details={"provided": repr(offset)[:20], "total": len(entries)},
            )
        return {"media_id": record.get("media_id"), **page(entries, offset)}

    def _lineage(self, row: ModelRow) -> list[tuple[str, str | None]]:
        chain: list[tuple[str, str | None]] = [(row.model_id, row.derived_from)]
        seen = {row.model_id}
        parent = row.derived_from
        while parent and parent not in seen:
            seen.add(parent)
            try:
                prow = self.store.get_model_row(self.workspace_id, parent)
            except NotFoundError:
                chain.append((parent, None))  # the parent was deleted; the id stays on record
                break
            chain.append((prow.model_id, prow.derived_from))
            parent = prow.derived_from
        return chain

    def import_model(self, path: Path, model_name: object = None, fmt: object = None) -> dict[str, Any]:
        file_format = model_io.detect_format(path, fmt if isinstance(fmt, str) else None)
        model = model_io.read_model(path, file_format)
        name = model_name if isinstance(model_name, str) and model_name.strip() else None
        model_id = self.store.new_model_id(self.workspace_id, name, "draft")
        try:
            row = self.store.add_model(self.workspace_id, model_id, model, model_name=name, source="imported",
                                       template=None, derived_from=None, extra={"imported_from": path.name,
                                                                                "original_id": model.id})
            summary = model_io.summarize(model)
        finally:
            model_io.release_model(model)  # stored as a file; the next checkout loads it
        return {"success": True, **model_info(row), "format": file_format, "original_model_id": model.id,
                "num_exchange_reactions": summary["num_exchange_reactions"], "compartments": summary["compartments"],
                "objective": summary["objective"],
                "next_steps": [f"Run FBA: run_fba(model_id='{row.model_id}', media_id=...)."]}

    def new_draft_id(self, model_name: object) -> tuple[str, str | None]:
        """(model id, cleaned name), checked before a build starts, so a taken name fails in
        milliseconds, not after the work."""
        if model_name is not None and not isinstance(model_name, str):
            raise ValidationError("INVALID_MODEL_NAME", "model_name must be a string.",
                                  details={"provided_type": type(model_name).__name__})
        name = model_name.strip() if isinstance(model_name, str) and model_name.strip() else None
        return self.store.new_model_id(self.workspace_id, name, "draft"), name

    def store_draft(self, model_id: str, model_name: str | None, template: str, built: dict[str, Any],
                    annotated_with_rast: bool) -> dict[str, Any]:
        """Store a draft a worker built (already serialized) and shape build_model's answer."""
        summary = built["summary"]
        annotation = summary["annotation"]
        row = self.store.add_model(
            self.workspace_id, model_id, SerializedModel(built["data"], built["stats"]),
            model_name=model_name, source="built", template=template, derived_from=None,
            extra={"annotation": {k: annotation[k] for k in ("sources_used", "reactions_by_source",
                                                             "gene_associated_reactions") if k in annotation},
                   **({"homology": annotation["homology"]} if "homology" in annotation else {})},
        )
        return {
            "success": True, **model_info(row), "model_name": model_name, "annotated_with_rast": annotated_with_rast,
            **summary,
            "atp_correction": {"atp_correction_applied": False,
                               "warning": "ATP correction runs in gapfill_model (modes full and atp_only)."},
            "timings_s": built["timings"],
            "next_steps": [
                f"Gapfill it so it can grow: gapfill_model(model_id='{row.model_id}', "
                "media_id='glucose_minimal_aerobic').",
                f"Inspect it: get_model(model_id='{row.model_id}').",
            ],
        }

    # -- gapfilling --------------------------------------------------------------------------------

    def prepare_gapfill(self, model_id: object, media_id: object, target_growth_rate: object,
                        gapfill_mode: object) -> dict[str, Any]:
        """Validate a gapfill request and gather what the worker needs (no state changes)."""
        key = self._model_key(model_id)
        if isinstance(target_growth_rate, bool) or not isinstance(target_growth_rate, int | float) \
                or not 0 < target_growth_rate <= MAX_TARGET_GROWTH or math.isnan(target_growth_rate):
            raise ValidationError(
                "INVALID_TARGET_GROWTH_RATE",
                f"target_growth_rate must be a number > 0 and <= {MAX_TARGET_GROWTH} (1/h); "
                f"got {target_growth_rate!r}.",
                details={"provided_value": repr(target_growth_rate)[:30], "valid_range": [0.001, MAX_TARGET_GROWTH],
                         "typical_range": [0.01, 1.0], "recommendation": 0.01},
                suggestions=["Use 0.01 (the default) to ask for any growth; 0.1-1.0 for realistic rates."],
                example_call={"tool": "gapfill_model", "arguments": {"model_id": key, "media_id":
                                                                      "glucose_minimal_aerobic",
                                                                      "target_growth_rate": 0.01}},
            )
        if gapfill_mode not in GAPFILL_MODES:
            raise ValidationError(
                "INVALID_GAPFILL_MODE",
                f"gapfill_mode must be one of {', '.join(GAPFILL_MODES)}; got {gapfill_mode!r}.",
                details={"provided_mode": repr(gapfill_mode)[:40], "valid_modes": list(GAPFILL_MODES)},
                suggestions=["'full' = ATP correction + genome-scale gapfilling (recommended)."],
            )
        row = self.store.get_model_row(self.workspace_id, key)
        medium_id, medium = self.medium(media_id)
        template = row.template if row.template in ("GramNegative", "GramPositive") else "GramNegative"
        return {
            "model_id": key, "media_id": medium_id, "medium": {c: list(b) for c, b in medium.items()},
            "target_growth": float(target_growth_rate), "mode": gapfill_mode, "template": template,
            "template_note": None if template == row.template else
            f"Model template is {row.template or 'unknown'}; gapfilled with the {template} template.",
            "atp_correction": self._known_atp_correction(row),
            "model_json": self.store.model_data(self.workspace_id, key).decode("utf-8"),
            "new_model_id": derived_model_id(self.store, self.workspace_id, key, suffix="gf"),
        }

    def _known_atp_correction(self, row: ModelRow) -> dict[str, Any] | None:
        """ATP correction already computed for this model: by the gapfill that made it, or by an
        earlier gapfill of it (recorded as a result). Either way valid for this model's reactions."""
        if isinstance(row.extra.get("atp_correction"), dict):
            return dict(row.extra["atp_correction"])
        for result in self.store.list_results(self.workspace_id, row.model_id, 100):
            if result.kind == "atp_correction":
                return dict(result.summary)
        return None

    def store_gapfill(self, prepared: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
        """Store the gapfilled model under a fresh id, record the result, shape the answer."""
        from gem_flux_mcp.modeling.gapfill_report import page

        key = prepared["model_id"]
        report = dict(result["report"])
        entries = report.pop("reactions_added")
        parent = self.store.get_model_row(self.workspace_id, key)
        atp = result.get("atp_correction")
        new_id = derived_model_id(self.store, self.workspace_id, key, suffix="gf")  # a second gapfill gets .v2
        row = self.store.add_model(
            self.workspace_id, new_id, SerializedModel(result["data"], result["stats"]),
            model_name=None, source="gapfilled", template=prepared["template"], derived_from=key,
            extra={"gapfill": {"media_id": prepared["media_id"], "target_growth_rate": prepared["target_growth"],
                               "mode": prepared["mode"], "reactions_added": entries,
                               "quality_checks": report["quality_checks"]},
                   **({"atp_correction": atp} if atp else {})},
        )
        self.store.set_last_media(self.workspace_id, new_id, prepared["media_id"])
        summary = {"gapfilled_model_id": new_id, "original_model_id": key, "mode": prepared["mode"],
                   "target_growth_rate": prepared["target_growth"],
                   "growth_rate_before": report["growth_rate_before"],
                   "growth_rate_after": report["growth_rate_after"],
                   "num_reactions_added": len(entries), "quality_checks_passed": report["quality_checks"]["all_passed"]}
        self.store.add_result(self.workspace_id, new_id, "gapfill", prepared["media_id"], summary)
        self.store.add_result(self.workspace_id, key, "gapfill", prepared["media_id"], summary)
        if atp and prepared["atp_correction"] is None and not parent.extra.get("atp_correction"):
            self.store.add_result(self.workspace_id, key, "atp_correction", None, atp)
        more = page(entries, 0)
        return {
            "success": True, "model_id": new_id, "original_model_id": key, "media_id": prepared["media_id"],
            "target_growth_rate": prepared["target_growth"], "gapfill_mode": prepared["mode"],
            "template_used": prepared["template"],
            **{k: v for k, v in report.items() if k not in ("timings_s",)},
            **more,
            "model_properties": {"num_reactions": row.num_reactions, "num_metabolites": row.num_metabolites,
                                 "num_genes": row.num_genes, "is_draft": False,
                                 "requires_further_gapfilling": not report["gapfilling_successful"]},
            "timings_s": report["timings_s"],
            "next_steps": [
                f"Run FBA: run_fba(model_id='{new_id}', media_id='{prepared['media_id']}').",
                *([f"More added reactions: get_model(model_id='{new_id}', "
                   f"gapfill_reactions_offset={more['reactions_next_offset']})."]
                  if more["reactions_next_offset"] is not None else []),
                *([prepared["template_note"]] if prepared["template_note"] else []),
            ],
        }

    def export_model(self, model_id: object, path: Path, fmt: object = None) -> dict[str, Any]:
        key = self._model_key(model_id)
        file_format = model_io.detect_format(path, fmt if isinstance(fmt, str) else None)
        with self.store.checkout(self.workspace_id, key) as model:
            size = model_io.write_model(model, path, file_format)
        return {"success": True, "model_id": key, "file_path": str(path), "format": file_format,
                "size_bytes": size}

    def _model_key(self, model_id: object) -> str:
        if not isinstance(model_id, str) or not model_id.strip():
            raise ValidationError(
                "INVALID_MODEL_ID", "model_id must be a non-empty string (e.g. 'E_coli.draft').",
                details={"provided": model_id if isinstance(model_id, str) else repr(model_id)[:40]},
                suggestions=["Call list_models to see the ids of stored models."],
                valid_next_steps=["list_models"],
            )
        return model_id.strip()

    # -- revisions --------------------------------------------------------------------------------

    def revise_model(self, model_id: object, reason: object, add_reactions: object = None,
                     remove_reactions: object = None, reaction_bounds: object = None,
                     knockout_genes: object = None, media_id: object = None,
                     revision_name: object = None) -> dict[str, Any]:
        """A new revision in the same lineage; the source model stays untouched."""
        key = self._model_key(model_id)
        if isinstance(reason, str) and len(reason) > MAX_REASON_CHARS:
            raise ValidationError(
                "REASON_TOO_LONG", f"reason is {len(reason)} characters long; the maximum is {MAX_REASON_CHARS}.",
                details={"length": len(reason), "max_length": MAX_REASON_CHARS},
                suggestions=["Say why in a few sentences; put long notes in a file of your own."],
            )
        if not isinstance(reason, str) or not reason.strip():
            raise ValidationError(
                "MISSING_REASON", "reason must say why the model is revised (it is kept in the history).",
                details={"provided": reason if isinstance(reason, str) else repr(reason)[:40]},
                example_call={"tool": "revise_model", "arguments": {
                    "model_id": key, "reason": "add pyruvate kinase (experimental evidence)",
                    "add_reactions": ["rxn00148_c0"]}},
            )
        parent = self.store.get_model_row(self.workspace_id, key)
        medium_id: str | None = None
        medium = None
        if media_id is not None or parent.last_media_id is not None:
            medium_id, medium = self.medium(media_id if media_id is not None else parent.last_media_id)
        if revision_name is not None:
            name = revision_name.strip() if isinstance(revision_name, str) else ""
            new_id = self.store.new_model_id(self.workspace_id, name, parent.state)
        else:
            new_id = derived_model_id(self.store, self.workspace_id, key, suffix="rev")
        with self.store.checkout(self.workspace_id, key) as source:
            revised = source.copy()  # the stored source is never changed
        try:
            plan = revise.validate_plan(revised, add_reactions, remove_reactions, reaction_bounds, knockout_genes,
                                        self._reaction_record)
            before = self._growth(revised, medium)
            changes = revise.apply_plan(revised, plan, self._reaction_record, self.biochem.compound_names)
            after = self._growth(revised, medium)
            record = {"reason": reason.strip(), "changes": changes, "media_id": medium_id,
                      "objective": model_io.objective_reaction_ids(revised),
                      "growth_before": before, "growth_after": after}
            row = self.store.add_model(
                self.workspace_id, new_id, revised,
                model_name=revision_name if isinstance(revision_name, str) else None,
                source="revised", template=parent.template, derived_from=key, extra={"revision": record},
            )
        finally:
            model_io.release_model(revised)  # stored as a file (or discarded); a checkout reloads it
        if medium_id is not None:
            self.store.set_last_media(self.workspace_id, new_id, medium_id)
        return {
            "success": True, **model_info(row), "reason": record["reason"], "changes": changes,
            "summary": {"reactions_added": len(changes["added_reactions"]),
                        "reactions_removed": len(changes["removed_reactions"]),
                        "bounds_changed": len(changes["bounds_changed"]),
                        "genes_knocked_out": len(changes["knocked_out_genes"])},
            "media_id": medium_id, "growth_before": before, "growth_after": after,
            "next_steps": [f"History: get_model(model_id='{row.model_id}', include_revisions=true).",
                           f"Compare: run_fba(model_id='{row.model_id}', media_id=...)."]
            + ([] if medium_id else ["No medium was used yet: pass media_id to get growth before/after."]),
        }

    def _reaction_record(self, reaction_id: str) -> dict[str, Any] | None:
        try:
            return self.biochem.get_reaction(reaction_id)
        except NotFoundError:
            return None

    def _growth(self, model: Any, medium: dict[str, tuple[float, float]] | None) -> float | None:
        if medium is None:
            return None
        with model:
            exchanges = media.resolve_exchanges(model, lambda ids: self.biochem.compound_ids_for_external("BiGG", ids))
            media.apply_medium(model, medium, exchanges)
            return revise.growth(model)

    def revision_history(self, row: ModelRow, limit: int) -> list[dict[str, Any]]:
        """Revisions along the lineage, newest first (ids whose rows were deleted are skipped)."""
        history: list[dict[str, Any]] = []
        current: ModelRow | None = row
        seen: set[str] = set()
        while current is not None and current.model_id not in seen and len(history) < limit:
            seen.add(current.model_id)
            revision = current.extra.get("revision")
            if revision:
                history.append({"model_id": current.model_id, "derived_from": current.derived_from,
                                "created_at": current.created_at, **revision})
            parent = current.derived_from
            try:
                current = self.store.get_model_row(self.workspace_id, parent) if parent else None
            except NotFoundError:
                current = None
        return history

    # -- FBA ------------------------------------------------------------------------------------

    def run_fba(self, model_id: object, media_id: object, objective: object = "bio1", maximize: bool = True,
                flux_threshold: object = 1e-6, pfba: bool = False) -> dict[str, Any]:
        key = self._model_key(model_id)
        if isinstance(flux_threshold, bool) or not isinstance(flux_threshold, int | float) \
                or not 0 <= flux_threshold <= MAX_FLUX_THRESHOLD:  # NaN fails both comparisons
            raise ValidationError(
                "INVALID_FLUX_THRESHOLD",
                f"flux_threshold must be a finite number from 0 to {MAX_FLUX_THRESHOLD:g}; got {flux_threshold!r}.",
                details={"provided_threshold": repr(flux_threshold)[:30], "minimum": 0, "maximum": MAX_FLUX_THRESHOLD},
                suggestions=["Use the default 1e-6, or 0 to keep every nonzero flux."],
            )
        row = self.store.get_model_row(self.workspace_id, key)
        medium_id, medium = self.medium(media_id)
        names = fba.NameLookup(self.biochem.reaction_names, self.biochem.compound_names)
        with self.store.checkout(self.workspace_id, key) as model, model:
            goal = fba.check_objective(model, objective, key)
            exchanges = _EXCHANGES.get(model)
            if exchanges is None:
                exchanges = media.resolve_exchanges(
                    model, lambda ids: self.biochem.compound_ids_for_external("BiGG", ids))
                _EXCHANGES[model] = exchanges
            report = media.apply_medium(model, medium, exchanges)
            if not report.applied:
                raise ValidationError(
                    "MEDIA_INCOMPATIBLE",
                    f"None of the {len(medium)} compounds of medium {medium_id} has an exchange reaction "
                    f"in model {key}.",
                    details={"model_id": key, "media_id": medium_id, "media_compounds": list(medium)[:50],
                             "model_exchanges": [e.reaction_id for e in exchanges][:50]},
                    suggestions=["Use a medium made of compounds the model can exchange (see get_model).",
                                 "Models outside the ModelSEED namespace are matched through BiGG ids."],
                )
            result = fba.run_fba(
                model, model_id=key, media_id=medium_id, objective=goal, maximize=bool(maximize),
                flux_threshold=float(flux_threshold), pfba=bool(pfba), exchanges=exchanges, names=names,
                is_draft=row.state == "draft" and row.source == "built",
            )
        result["media_compounds_without_exchange"] = report.missing
        self.store.set_last_media(self.workspace_id, key, medium_id)
        self.store.add_result(self.workspace_id, key, "fba", medium_id, {
            "objective": goal, "objective_value": result["objective_value"], "method": result["method"],
            "maximize": bool(maximize), "status": result["status"], "solver": result["solver"],
            "uptake": {e["compound_id"]: e["flux"] for e in result["uptake_fluxes"][:20]},
        })
        return result


def model_info(row: ModelRow) -> dict[str, Any]:
    """Seed 000's ModelInfo."""
    return {
        "model_id": row.model_id,
        "model_name": row.model_name,
        "state": row.state,
        "num_reactions": row.num_reactions,
        "num_metabolites": row.num_metabolites,
        "num_genes": row.num_genes,
        "template_used": row.template,
        "created_at": row.created_at,
        "derived_from": row.derived_from,
    }
