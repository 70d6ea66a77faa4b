"""Many samples of one set of members as one batch on Dask (issue 31, item 5): the tool
run_community_samples on a stored community (in the server's background, like
build_models_batch) and `gem-flux community --samples` on model files. Each sample (its own
abundances of the members) is one task that builds the sample's MICOM community on the medium
and grows it by the cooperative tradeoff, on the batch machinery's cluster
(`services/batch/runner.dask_client`: a LocalCluster of worker processes, or an existing
scheduler). A member with abundance 0 in a sample is left out of that sample's community.

The output folder, which a rerun resumes:

    OUT/members/<member>.json      each member's COBRApy JSON, written once; tasks read it from here
                                   (a shared file system on an existing cluster, as for any batch)
    OUT/reports/<sample>.json      a finished sample: its settings key, its row, member growth and
                                   cross-feeding; written last and atomically
    OUT/samples.tsv                one row per sample: status, community growth, growing members,
                                   cross-feedings, each member's growth as `member=rate;...`
    OUT/member_growth.tsv          sample, member, abundance, growth_rate
    OUT/cross_feeding.tsv          sample, compound_id, name, from_member, to_member, flux
    OUT/summary.json               about the batch, counts, the rows

A sample whose report has the same settings key (the members' JSON, the sample's abundances, the
medium and the tradeoff) is skipped on a rerun; anything else is grown again. A sample that
cannot grow or fails is a failed row with its error code; it never stops the others."""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, ValidationError
from gem_flux_mcp.fsutil import atomic_write_text
from gem_flux_mcp.rules.catalog import TRADEOFF, WORKERS
from gem_flux_mcp.services import results
from gem_flux_mcp.services.batch.outputs import tsv_value

if TYPE_CHECKING:
    from gem_flux_mcp.services.batch.background import BatchJobs
    from gem_flux_mcp.services.batch.lost import Cause
    from gem_flux_mcp.services.batch.runner import BatchOutcome
    from gem_flux_mcp.services.workspace import Workspace

REPORT_VERSION = 1
MEMBERS = "members"
REPORTS = "reports"
SAMPLE_COLUMNS = ("sample", "status", "community_growth", "members", "growing_members", "cross_feedings",
                  "member_growth", "seconds", "skipped", "error_code", "error_message")
MEMBER_GROWTH_COLUMNS = ("sample", "member", "abundance", "growth_rate")
CROSS_FEEDING_COLUMNS = ("sample", "compound_id", "name", "from_member", "to_member", "flux")
MAX_SAMPLES = 10_000
GROWING = 1e-6

Medium = dict[str, tuple[float, float]]


@dataclass(frozen=True)
class SampleTask:
    sample: str
    abundances: tuple[tuple[str, float], ...]  # (member, abundance > 0), the sample's members
    member_files: tuple[tuple[str, str], ...]  # (member, its JSON file under OUT/members)
    medium: Medium
    tradeoff: float
    out_dir: str
    settings_key: str


def check_samples(samples: object, members: Sequence[str]) -> dict[str, dict[str, float]]:
    """{sample: {member: relative abundance > 0}} from {sample: {member: abundance}} (a member left
    out, or at 0, is absent from the sample), the members' order kept. INVALID_ABUNDANCES (every
    door: the tool, the command's table) for an unknown member, a value that is not a finite
    number >= 0, a sample without any member present, a sample name that is empty or over 128
    characters, or more than MAX_SAMPLES samples."""
    import math

    def refuse(message: str, **details: Any) -> ValidationError:
        return ValidationError(ErrorCode.INVALID_ABUNDANCES, message, details=details, suggestions=[
            "Give each sample's abundance of each member present, e.g. {\"gut_1\": {\"" + members[0]
            + "\": 0.7, ...}}; members left out are absent. The abundances of a sample are divided by their sum."])

    if not isinstance(samples, Mapping) or not samples:
        raise refuse("samples must be a non-empty mapping of sample name to {member: abundance}.",
                     provided=type(samples).__name__)
    if len(samples) > MAX_SAMPLES:
        raise refuse(f"At most {MAX_SAMPLES} samples per batch.", samples=len(samples))
    checked: dict[str, dict[str, float]] = {}
    for name, shares in samples.items():
        if not isinstance(name, str) or not name.strip() or len(name) > 128:
            raise refuse("Each sample needs a name of 1 to 128 characters.", sample=repr(name)[:40])
        if not isinstance(shares, Mapping):
            raise refuse(f"Sample {name!r}: give {{member: abundance}}.", sample=name)
        unknown = [m for m in shares if m not in members]
        if unknown:
            raise refuse(f"Sample {name!r} names members the community does not have: "
                         f"{', '.join(map(str, unknown[:5]))}.",
                         sample=name, unknown=[str(m) for m in unknown[:10]], members=list(members)[:20])
        bad = [m for m, v in shares.items()
               if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0]
        if bad or not any(v > 0 for v in shares.values()):
            raise refuse(f"Sample {name!r}: abundances must be finite numbers >= 0, at least one above 0.",
                         sample=name, invalid=[str(m) for m in bad[:10]])
        total = math.fsum(float(v) for v in shares.values())
        checked[name.strip()] = {m: float(shares[m]) / total for m in members if float(shares.get(m, 0)) > 0}
    if len(checked) != len(samples):
        raise refuse("Sample names must differ once stripped of spaces.")
    return checked


def read_abundance_table(path: Path, members: Sequence[str]) -> dict[str, dict[str, float]]:
    """`check_samples` of a TSV with a header `sample<TAB>member...` (one column per member,
    named by its id, each once) and one row of abundances per sample (0: absent)."""
    def refuse(message: str, **details: Any) -> ValidationError:
        return ValidationError(ErrorCode.INVALID_ABUNDANCES, f"{path.name}: {message}", details=details,
                               suggestions=["One header line `sample<TAB>" + "<TAB>".join(members[:3])
                                            + "...`, then one line per sample with each member's abundance (0: "
                                            "absent)."])

    try:
        lines = [line.rstrip("\r\n") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError as exc:
        raise ValidationError(ErrorCode.FILE_NOT_FOUND, f"Cannot read the abundance table {path}: {exc}",
                              details={"path": str(path)}) from exc
    if len(lines) < 2:
        raise refuse("needs a header line and at least one sample.")
    header = lines[0].split("\t")
    columns = header[1:]
    unknown = [c for c in columns if c not in members]
    missing = [m for m in members if m not in columns]
    if unknown or missing or len(set(columns)) != len(columns):
        raise refuse("the columns after the first must be the members, each once.", unknown=unknown[:10],
                     missing=missing[:10], members=list(members)[:10])
    table: dict[str, dict[str, float]] = {}
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(header) or cells[0].strip() in table:
            raise refuse(f"line {number}: a sample name given once and {len(columns)} abundances.", line=number)
        try:
            table[cells[0].strip()] = {m: float(c) for m, c in zip(columns, cells[1:], strict=True)}
        except ValueError as exc:
            raise refuse(f"line {number}: {exc}.", line=number) from exc
    return check_samples(table, members)


def sample_key(abundances: Mapping[str, float], member_sha256: Mapping[str, str], medium: Medium,
               tradeoff: float) -> str:
    """What a sample's answer depends on: its members (their JSON) and abundances, the medium, the
    tradeoff."""
    document = {"version": REPORT_VERSION, "abundances": sorted((m, round(a, 12)) for m, a in abundances.items()),
                "members": sorted((m, member_sha256[m]) for m in abundances),
                "medium": sorted((c, list(b)) for c, b in medium.items()), "tradeoff": tradeoff}
    return hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)[:120] or "_"


def report_path(out_dir: Path, sample: str) -> Path:
    digest = hashlib.sha256(sample.encode()).hexdigest()[:8]  # two names that clean alike stay apart
    return out_dir / REPORTS / f"{_safe(sample)}-{digest}.json"


def grow_sample(task: SampleTask) -> dict[str, Any]:
    """One sample, in a Dask worker: its community built and grown; the report written last. A
    sample's own failure is returned as a failed row, never raised."""
    from gem_flux_mcp.modeling.community import Member, cooperative_growth, put_community_on_medium
    from gem_flux_mcp.modeling.community.reuse import community_of

    started = time.perf_counter()
    files = dict(task.member_files)
    report: dict[str, Any]
    try:
        members = [Member(m, a, Path(files[m]).read_text(encoding="utf-8")) for m, a in task.abundances]
        # the worker's last sample of the same members lends its community: abundances set anew
        with community_of(members, _safe(task.sample)) as (community, taxa, reused):
            put_community_on_medium(community, task.medium)
            grown = cooperative_growth(community, taxa, task.tradeoff)
        growth = {m["member"]: m["growth_rate"] for m in grown.members}
        row: dict[str, Any] = {
            "sample": task.sample, "status": "ok", "community_growth": grown.community_growth,
            "members": len(members), "growing_members": sum(g > GROWING for g in growth.values()),
            "cross_feedings": len(grown.cross_feeding), "member_growth": growth,
            "seconds": round(time.perf_counter() - started, 3), "community_reused": reused}
        report = {"settings_key": task.settings_key, "row": row, "abundances": dict(task.abundances),
                  "cross_feeding": grown.cross_feeding}
    except GemFluxError as exc:
        row = {"sample": task.sample, "status": "failed", "members": len(task.abundances),
               "seconds": round(time.perf_counter() - started, 3), "error_code": str(exc.code),
               "error_message": exc.message}
        report = {"settings_key": task.settings_key, "row": row, "error": exc.envelope()}
    atomic_write_text(report_path(Path(task.out_dir), task.sample), json.dumps(report, indent=1) + "\n", 0o644)
    return row


def finished_report(out_dir: Path, sample: str, key: str) -> dict[str, Any] | None:
    """The report of a sample grown before with the same settings key, else None."""
    try:
        report = json.loads(report_path(out_dir, sample).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(report, dict) or report.get("settings_key") != key:
        return None
    row = report.get("row")
    return report if isinstance(row, dict) and row.get("status") == "ok" else None


def write_members(out_dir: Path, members: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """Each member's JSON written once under OUT/members (rewritten only when it differs);
    ({member: file}, {member: SHA-256 of its JSON})."""
    folder = out_dir / MEMBERS
    folder.mkdir(parents=True, exist_ok=True)
    files, digests = {}, {}
    for member, text in members.items():
        path = folder / f"{_safe(member)}-{hashlib.sha256(member.encode()).hexdigest()[:8]}.json"
        digests[member] = hashlib.sha256(text.encode()).hexdigest()
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digests[member]:
            atomic_write_text(path, text, 0o644)
        files[member] = str(path)
    return files, digests


def run_samples(members: Mapping[str, str], samples: Mapping[str, Mapping[str, float]], medium: Medium,
                tradeoff: float, out_dir: Path, *, workers: int = 2, scheduler: str | None = None,
                on_sample: Callable[[dict[str, Any]], None] | None = None,
                cancel: threading.Event | None = None) -> BatchOutcome:
    """Every sample grown as one Dask task (`members`: {member id: COBRApy JSON}; `samples`:
    {sample: {member: relative abundance}}), those finished before with the same settings
    skipped; then the tables written (of the samples finished). `on_sample` sees each row as it
    finishes; setting `cancel` stops the batch (finished samples stay). ClusterLost when the
    cluster goes away before the end (the tables are written first)."""
    from gem_flux_mcp.services.batch.lost import ClusterLost
    from gem_flux_mcp.services.batch.runner import BatchOutcome, await_tasks, dask_client, failed_task_error

    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    files, digests = write_members(out_dir, members)
    rows: dict[str, dict[str, Any]] = {}
    reports: dict[str, dict[str, Any]] = {}
    todo: list[SampleTask] = []
    for sample, shares in samples.items():
        key = sample_key(shares, digests, medium, tradeoff)
        found = finished_report(out_dir, sample, key)
        if found is not None:
            rows[sample] = {**found["row"], "skipped": True}
            reports[sample] = found
            if on_sample is not None:
                on_sample(rows[sample])
            continue
        todo.append(SampleTask(sample, tuple(shares.items()), tuple((m, files[m]) for m in shares), dict(medium),
                               tradeoff, str(out_dir), key))
    cluster = "none: every sample was finished before"
    cancelled = False
    lost: Cause | None = None
    if todo:
        with dask_client(workers, scheduler) as (client, cluster):
            # samples of the same members run one after another (Dask runs the higher priority first),
            # so a worker grows the next on the community it built for the last (reuse.py)
            order = sorted(todo, key=lambda t: tuple(m for m, _ in t.abundances))
            futures = {client.submit(grow_sample, task, key=f"sample-{report_path(out_dir, task.sample).stem}-"
                                                            f"{task.settings_key[:12]}", pure=False,
                                     priority=len(order) - rank): task
                       for rank, task in enumerate(order)}  # report names differ even when two sample names clean alike

            def finished(task: SampleTask, result: dict[str, Any] | Exception) -> None:
                if isinstance(result, Exception):  # the task's workers died: the sample fails, the others go on
                    code, message = failed_task_error(result)
                    result = {"sample": task.sample, "status": "failed", "members": len(task.abundances),
                              "error_code": str(code), "error_message": message}
                rows[task.sample] = result
                if on_sample is not None:
                    on_sample(result)

            cancelled, lost = await_tasks(client, futures, finished, cancel)
    ordered = [rows[s] for s in samples if s in rows]
    for sample in rows:
        if sample not in reports and rows[sample]["status"] == "ok":
            reports[sample] = finished_report(out_dir, sample, sample_key(
                samples[sample], digests, medium, tradeoff)) or {}
    seconds = round(time.perf_counter() - started, 2)
    not_run = [s for s in samples if s not in rows]
    written = _write_tables(out_dir, ordered, reports, samples, {
        "cluster": cluster, "seconds": seconds, "tradeoff": tradeoff, "members": list(members),
        "medium_compounds": len(medium), "cancelled": cancelled, "cluster_lost": lost, "not_run": not_run})
    outcome = BatchOutcome(ordered, written, seconds, cluster, cancelled)
    if lost is not None:
        raise ClusterLost(lost, cluster, outcome.counts, len(samples), out_dir, written, not_run, noun="samples",
                          listing="samples_tsv")
    return outcome


def _write_table(path: Path, columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> str:
    lines = ["\t".join(columns)] + ["\t".join(tsv_value(r.get(c)) for c in columns) for r in rows]
    atomic_write_text(path, "\n".join(lines) + "\n", 0o644)
    return str(path)


def _write_tables(out_dir: Path, rows: list[dict[str, Any]], reports: Mapping[str, Mapping[str, Any]],
                  samples: Mapping[str, Mapping[str, float]], about: dict[str, Any]) -> dict[str, str]:
    growth_rows = [{"sample": r["sample"], "member": m, "abundance": samples[r["sample"]].get(m), "growth_rate": g}
                   for r in rows if r["status"] == "ok" for m, g in (r.get("member_growth") or {}).items()]
    feeding_rows = [{"sample": r["sample"], **c} for r in rows
                    for c in (reports.get(r["sample"]) or {}).get("cross_feeding", [])]
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    files = {"samples_tsv": _write_table(out_dir / "samples.tsv", SAMPLE_COLUMNS, rows),
             "member_growth_tsv": _write_table(out_dir / "member_growth.tsv", MEMBER_GROWTH_COLUMNS, growth_rows),
             "cross_feeding_tsv": _write_table(out_dir / "cross_feeding.tsv", CROSS_FEEDING_COLUMNS, feeding_rows)}
    summary = out_dir / "summary.json"
    atomic_write_text(summary, json.dumps({**about, "num_samples": len(rows), "counts": counts, "samples": rows},
                                          indent=1) + "\n", 0o644)
    return {**files, "summary_json": str(summary)}


def start_community_samples(jobs: BatchJobs, ws: Workspace, community_id: object, media_id: object,
                            samples: object, out_dir: Path, tradeoff: object, workers: object,
                            show: Callable[[Path | str], str]) -> results.RunCommunitySamplesResult:
    """run_community_samples: the stored community's members (unchanged since it was built) grown
    for each sample on the medium, as a batch in the server's background (`BatchJobs`, one batch at
    a time); recorded with the community when it ends. `out_dir` is resolved and allowed."""
    from gem_flux_mcp.services.batch.requests import local_workers_allowed
    from gem_flux_mcp.services.community.job import prepare_on_medium

    share = TRADEOFF.check(tradeoff)
    count: int = WORKERS.check(workers)
    if not jobs.scheduler and count > local_workers_allowed():
        raise WORKERS.refusal(count, f"workers must be at most {local_workers_allowed()} here: one worker process "
                                     "per core of this server.")
    base = prepare_on_medium(ws, community_id, media_id)
    members = {m.model_id: m.model_json for m in base.members}
    chosen = check_samples(samples, list(members))
    store, workspace, scheduler = ws.store, ws.workspace_id, jobs.scheduler

    def run(on_row: Callable[[dict[str, Any]], None], cancel: threading.Event) -> tuple[dict[str, str], str, bool]:
        outcome = run_samples(members, chosen, dict(base.medium), share, out_dir, workers=count, scheduler=scheduler,
                              on_sample=on_row, cancel=cancel)
        with contextlib.suppress(GemFluxError):  # deleted meanwhile: the output folder keeps the answers
            store.add_community_result(workspace, base.community_id, "community_samples", base.media_id, {
                "samples": len(chosen), "counts": outcome.counts, "tradeoff": share, "out_dir": out_dir.name,
                "cancelled": outcome.cancelled, "seconds": outcome.seconds})
        return outcome.files, outcome.cluster, outcome.cancelled

    job = jobs.start_items(workspace, "samples", list(chosen), out_dir, count, run)
    return results.RunCommunitySamplesResult(
        success=True, job_id=job.job_id, status=job.status, community_id=base.community_id, media_id=base.media_id,
        num_samples=len(chosen), samples=list(chosen)[:200], out_dir=show(out_dir),
        workers=None if scheduler else count, scheduler="configured by the server" if scheduler else None,
        next_steps=[f"get_batch_status(job_id='{job.job_id}', wait_seconds=60) reports progress and the samples "
                    "finished so far; samples.tsv, member_growth.tsv and cross_feeding.tsv are written to out_dir",
                    "Running the same samples into the same out_dir again skips those finished."])
