"""A batch's output folder: what a finished genome leaves, how a rerun tells that it is complete,
and the summary table of all of them.

    OUT/models/<name>.xml       the gapfilled model, SBML checked on writing (model_io.export_model_file)
    OUT/reports/<name>.json     the genome's report: its summary row and the details behind it,
                                written last, so a report that says "ok" names a finished model
    OUT/summary.tsv, .json      one row per genome of the batch, rewritten at the end of a run
    OUT/reports/.<name>.attempts  the worker processes that started on the genome in the last run

Every file is written atomically (a temp file renamed into place), so a crash or a killed worker
leaves either the old file or the new one, never half of one, and nothing half-written is listed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gem_flux_mcp.fsutil import atomic_write_text

MODELS = "models"
REPORTS = "reports"
SUMMARY_TSV = "summary.tsv"
SUMMARY_JSON = "summary.json"

TSV_COLUMNS = (
    "genome", "status", "template", "num_proteins", "genes_called", "translation_table", "completeness",
    "contamination", "num_reactions",
    "num_metabolites", "num_genes", "draft_reactions", "gapfill_added", "growth", "quality_checks_passed",
    "phenotypes", "build_s", "gapfill_s", "total_s", "worker_peak_rss_mb", "attempts", "skipped", "model_file",
    "stored_model_id", "store_error", "error_code", "error_message",
)


def model_path(out_dir: Path, name: str) -> Path:
    return out_dir / MODELS / f"{name}.xml"


def report_path(out_dir: Path, name: str) -> Path:
    return out_dir / REPORTS / f"{name}.json"


def attempts_path(out_dir: Path, name: str) -> Path:
    return out_dir / REPORTS / f".{name}.attempts"


def start_attempt(out_dir: Path, name: str) -> int:
    """Note that a worker (this process) starts on the genome; the number of this attempt."""
    path = attempts_path(out_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\n")
    return len(path.read_text(encoding="utf-8").split())


def attempt_pids(out_dir: Path, name: str) -> list[int]:
    """The processes that started on the genome in this run, first to last."""
    try:
        return [int(word) for word in attempts_path(out_dir, name).read_text(encoding="utf-8").split()]
    except (OSError, ValueError):
        return []


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_report(out_dir: Path, name: str, report: Mapping[str, Any]) -> None:
    atomic_write_text(report_path(out_dir, name), json.dumps(report, indent=1, default=str) + "\n", 0o644)


def read_report(out_dir: Path, name: str) -> dict[str, Any] | None:
    try:
        report = json.loads(report_path(out_dir, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def completed_row(out_dir: Path, name: str, settings_key: str) -> dict[str, Any] | None:
    """The summary row of a genome finished before with the same input and settings, when its
    model file is still the one its report describes (size and SHA-256); else None (build it)."""
    report = read_report(out_dir, name)
    if report is None or report.get("settings_key") != settings_key:
        return None
    row = report.get("row")
    model = model_path(out_dir, name)
    if not isinstance(row, dict) or row.get("status") != "ok" or not model.is_file():
        return None
    if model.stat().st_size != report.get("model_size") or file_sha256(model) != report.get("model_sha256"):
        return None
    return row


def tsv_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return ";".join(f"{k}={tsv_value(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value).replace("\t", " ").replace("\n", " ")


def write_summary(out_dir: Path, rows: Sequence[Mapping[str, Any]], about: Mapping[str, Any]) -> dict[str, str]:
    """summary.tsv (one line per genome; growth and phenotypes as `key=value;…`) and summary.json
    (`about` the batch, counts, the rows)."""
    lines = ["\t".join(TSV_COLUMNS)]
    lines += ["\t".join(tsv_value(row.get(column)) for column in TSV_COLUMNS) for row in rows]
    tsv = out_dir / SUMMARY_TSV
    atomic_write_text(tsv, "\n".join(lines) + "\n", 0o644)
    counts: dict[str, int] = {}
    for row in rows:
        counts[str(row.get("status"))] = counts.get(str(row.get("status")), 0) + 1
    document = {**about, "num_genomes": len(rows), "counts": counts, "genomes": list(rows)}
    summary = out_dir / SUMMARY_JSON
    atomic_write_text(summary, json.dumps(document, indent=1, default=str) + "\n", 0o644)
    return {"summary_tsv": str(tsv), "summary_json": str(summary)}
