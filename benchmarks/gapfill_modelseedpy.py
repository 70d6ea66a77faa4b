"""Reference timing: ModelSEEDpy's two-stage gapfilling on a Gem-Flux draft model.

Runs ModelSEEDpy the way a ModelSEED user would, in this process, and reports what each step costs:

  Stage 1  MSATPCorrection with the Core-V5.2 template and the 54 default ATP media
           (evaluate_growth_media, determine_growth_media, apply_growth_media_gapfilling,
           expand_model_to_genome_scale, build_tests).
  Stage 2  MSGapfill with the genome-scale template, the stage-1 ATP tests and target bio1
           (constructor, run_gapfilling, integrate_gapfill_solution), then a COBRApy FBA on the medium.

Workaround: ModelSEEDpy 0.4.2's `MSATPCorrection.load_default_medias` raises
`TypeError: unhashable type: 'dict'` (it looks up `min_gap` with the media dict instead of its id).
When that happens the 54 media are read from the same `atp_medias.tsv` in the same way, with
`min_gap.get(media_id, 0.01)` as the minimum ATP yield (the upstream fix), and passed in with
`load_default_medias=False`. The JSON records which loader was used.

`run_modelseedpy_reference()` is the importable core, so another benchmark can run it next to our own
gapfilling in the same process. Each stage has a wall-clock limit (SIGALRM, main thread only).

Usage:
    GEMFLUX_DATA_DIR=../shared/data .venv/bin/python benchmarks/gapfill_modelseedpy.py \\
        --draft /tmp/ecoli_draft.json [--medium glucose_minimal_aerobic] [--template GramNegative] \\
        [--solver glpk] [--stage-timeout 1800] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ATP_TEMPLATE = "Core-V5.2"
TARGET = "bio1"
ATP_HYDROLYSIS = "ATPM_c0"


class StageTimeout(Exception):
    """Raised by SIGALRM when a stage exceeds its wall-clock limit."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[bool]:
    """Raise StageTimeout after `seconds`; yields whether the limit is enforced (main thread only)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield False
        return

    def _fire(signum: int, frame: object) -> None:
        raise StageTimeout(f"stage exceeded {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _error_summary(step: str, exc: BaseException) -> dict[str, str]:
    frames = list(traceback.extract_tb(exc.__traceback__))
    if isinstance(exc, StageTimeout) and len(frames) > 1:
        frames = frames[:-1]  # where the alarm interrupted, not the handler
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return {"step": step, "error": f"{type(exc).__name__}: {exc}"[:500], "where": where}


class _Steps:
    """Times named steps, records errors instead of raising (except stage timeouts)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.errors: list[dict[str, str]] = []

    def run(self, name: str, fn: Callable[[], Any]) -> tuple[bool, Any]:
        start = time.perf_counter()
        try:
            return True, fn()
        except StageTimeout:
            raise
        except Exception as exc:
            self.errors.append(_error_summary(name, exc))
            return False, None
        finally:
            self.seconds[name] = round(time.perf_counter() - start, 3)


def _normalise_medium(medium: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """Accept cpd00027, cpd00027_e0 or EX_cpd00027_e0 keys; return {cpd00027: (lb, ub)}."""
    out: dict[str, tuple[float, float]] = {}
    for key, (lb, ub) in medium.items():
        cpd = key.removeprefix("EX_")
        cpd = cpd.rsplit("_", 1)[0] if "_" in cpd else cpd
        out[cpd] = (float(lb), float(ub))
    return out


def load_medium_file(path: Path) -> dict[str, tuple[float, float]]:
    """Read a Gem-Flux medium JSON ({"compounds": {cpd: {"bounds": [lb, ub]}}})."""
    data = json.loads(path.read_text())
    return {cpd: (float(v["bounds"][0]), float(v["bounds"][1])) for cpd, v in data["compounds"].items()}


def _default_atp_medias() -> list[list[Any]]:
    """The 54 default ATP media exactly as ModelSEEDpy builds them, keyed by media id for min_gap."""
    import modelseedpy.core.msatpcorrection as msatp
    import pandas as pd
    from modelseedpy.core.msmedia import MSMedia

    path = Path(msatp.__file__).parent.parent / "data" / "atp_medias.tsv"
    table = pd.read_csv(path, sep="\t", index_col=0).to_dict()
    medias: list[list[Any]] = []
    for media_id, column in table.items():
        media_d: dict[str, float] = {ex.split("_")[1]: v for ex, v in column.items() if v > 0}
        media_d["cpd00001"] = 1000
        media_d["cpd00067"] = 1000
        media = MSMedia.from_dict(media_d)
        media.id = media.name = media_id
        medias.append([media, msatp.min_gap.get(media_id, 0.01)])
    return medias


def _fba_growth(model: Any, medium: dict[str, tuple[float, float]], objective: str = TARGET) -> float | None:
    """COBRApy FBA: all EX_ uptakes closed except the medium's, objective maximised."""
    with model:
        for rxn in model.reactions:
            if rxn.id.startswith("EX_"):
                rxn.lower_bound = 0.0
        for cpd, (lb, ub) in medium.items():
            ex_id = f"EX_{cpd}_e0"
            if ex_id in model.reactions:
                rxn = model.reactions.get_by_id(ex_id)
                rxn.bounds = (lb, max(ub, 0.0))
        model.objective = objective
        value = model.slim_optimize(error_value=float("nan"))
    return None if math.isnan(value) else round(float(value), 6)


def _core_aliases(model: Any, core_template: Any) -> dict[str, Any]:
    """Draft reactions absent from the core template under their own id whose stoichiometry equals a
    core template reaction (same orientation), e.g. ATP synthase rxn10042 (GramNeg/GramPos) = rxn08173 (Core)."""
    by_stoich: dict[frozenset[tuple[str, float]], Any] = {}
    for trxn in core_template.reactions:
        by_stoich[frozenset((m.id + "0", round(float(c), 6)) for m, c in trxn.metabolites.items())] = trxn
    aliases: dict[str, Any] = {}
    for rxn in model.reactions:
        if rxn.id[:-1] in core_template.reactions or not rxn.metabolites:
            continue
        key = frozenset((m.id, round(float(c), 6)) for m, c in rxn.metabolites.items())
        if key in by_stoich:
            aliases[rxn.id] = by_stoich[key]
    return aliases


def _instrument(obj: Any, method: str, label: str, sink: dict[str, dict[str, float]]) -> None:
    """Shadow obj.method with a timing wrapper (instance attribute only; ModelSEEDpy is untouched)."""
    original = getattr(obj, method)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            entry = sink.setdefault(label, {"calls": 0, "seconds": 0.0})
            entry["calls"] += 1
            entry["seconds"] = round(entry["seconds"] + time.perf_counter() - start, 3)

    setattr(obj, method, timed)


def _solution_ids(solution: dict[str, Any] | None) -> dict[str, dict[str, str]]:
    if not solution:
        return {"new": {}, "reversed": {}}
    return {"new": dict(solution.get("new", {})), "reversed": dict(solution.get("reversed", {}))}


def run_modelseedpy_reference(
    draft_path: Path,
    medium: dict[str, tuple[float, float]],
    data_dir: Path,
    *,
    template_name: str = "GramNegative",
    solver: str = "glpk",
    stage_timeout: float = 1800.0,
    max_gapfilling: float = 10,
    gapfilling_delta: float = 0,
    minimum_obj: float = 0.01,
    save_model: Path | None = None,
    core_aliases: bool = False,
) -> dict[str, Any]:
    """Run ModelSEEDpy's ATP correction then genome-scale gapfilling on a fresh copy of the draft.

    `core_aliases=True` (not ModelSEEDpy behaviour) lets stage 1 treat draft reactions whose
    stoichiometry equals a Core-V5.2 reaction as core, see `_core_aliases`.
    """
    from gem_flux_mcp.data.templates import import_modelseedpy, load_template

    medium = _normalise_medium(medium)
    result: dict[str, Any] = {"draft": str(draft_path), "template": template_name, "errors": []}
    steps = _Steps()
    detail: dict[str, dict[str, float]] = {}  # timed ModelSEEDpy internals
    total_start = time.perf_counter()

    import_modelseedpy()  # version banner kept off stdout
    import cobra
    import modelseedpy
    from modelseedpy.core.msatpcorrection import MSATPCorrection
    from modelseedpy.core.msgapfill import MSGapfill
    from modelseedpy.core.msmedia import MSMedia

    result["modelseedpy_version"] = modelseedpy.__version__
    result["cobra_version"] = cobra.__version__
    config = cobra.Configuration()
    previous_solver = config.solver
    config.solver = solver  # MSGapfill clones the model through JSON, so its copy takes the default solver

    try:
        _, templates = steps.run(
            "load_templates",
            lambda: (load_template(data_dir, ATP_TEMPLATE), load_template(data_dir, template_name)),
        )
        _, model = steps.run("load_draft", lambda: cobra.io.load_json_model(str(draft_path)))
        if templates is None or model is None:
            result["errors"] = steps.errors
            result["step_seconds"] = steps.seconds
            return result
        core_template, gs_template = templates
        model.solver = solver
        result["solver"] = type(model.solver).__module__.rsplit(".", 1)[-1].removesuffix("_interface")
        result["draft_reactions"] = len(model.reactions)
        result["draft_metabolites"] = len(model.metabolites)
        result["draft_genes"] = len(model.genes)
        result["growth_before"] = _fba_growth(model, medium)

        # ---------------- Stage 1: ATP correction ----------------
        tests: list[dict[str, Any]] | None = None
        atp: Any = None
        stage1_start = time.perf_counter()
        result["stage1_timed_out"] = False
        try:
            with _time_limit(stage_timeout) as enforced:
                result["stage_timeout_enforced"] = enforced

                def make_atp() -> Any:
                    try:
                        obj = MSATPCorrection(model, core_template, [], compartment="c0",
                                              max_gapfilling=max_gapfilling, gapfilling_delta=gapfilling_delta,
                                              atp_hydrolysis_id=ATP_HYDROLYSIS)
                        result["atp_media_loader"] = "modelseedpy"
                        return obj
                    except TypeError as exc:  # 0.4.2 bug in load_default_medias, see module docstring
                        result["atp_media_loader"] = f"benchmark workaround ({type(exc).__name__}: {exc})"
                    return MSATPCorrection(model, core_template, _default_atp_medias(), compartment="c0",
                                           max_gapfilling=max_gapfilling, gapfilling_delta=gapfilling_delta,
                                           atp_hydrolysis_id=ATP_HYDROLYSIS, load_default_medias=False)

                ok, atp = steps.run("atp_init", make_atp)
                if ok:
                    result["atp_media_tested"] = len(atp.atp_medias)
                    if core_aliases:
                        aliases = _core_aliases(model, core_template)
                        result["core_aliases"] = {k: v.id for k, v in aliases.items()}
                        plain = atp.find_reaction_in_template
                        atp.find_reaction_in_template = lambda rxn, tmpl, cmp: aliases.get(rxn.id) or plain(
                            rxn, tmpl, cmp)
                    _instrument(atp.msgapfill, "run_gapfilling", "atp_core_gapfill_per_media", detail)
                    _instrument(atp.modelutl, "reaction_expansion_test", "atp_reaction_expansion_test", detail)
                    _, atp_yields = steps.run("atp_evaluate_growth_media", atp.evaluate_growth_media)
                    if atp_yields is not None:
                        min_objs = {m.id: mo for m, mo in atp.atp_medias}
                        passed = sorted(k for k, v in atp_yields.items() if v is not None and v >= min_objs[k])
                        gapfilled = sorted(m.id for m, s in atp.media_gapfill_stats.items()
                                           if s is not None and m.id not in passed)
                        failed = sorted(m.id for m, s in atp.media_gapfill_stats.items() if s is None)
                        result["atp_media_passed"] = len(passed)
                        result["atp_media_passed_ids"] = passed
                        result["atp_media_gapfillable"] = len(gapfilled)
                        result["atp_media_failed"] = len(failed)
                        result["atp_yields"] = {k: round(v, 4) for k, v in atp_yields.items() if v}
                        result["atp_media_scores"] = {
                            m.id: None if s is None else len(s["new"]) + 0.5 * len(s["reversed"])
                            for m, s in atp.media_gapfill_stats.items()
                        }
                    steps.run("atp_determine_growth_media", atp.determine_growth_media)
                    result["atp_selected_media"] = [m.id for m in atp.selected_media or []]
                    steps.run("atp_apply_growth_media_gapfilling", atp.apply_growth_media_gapfilling)
                    core_gf = atp.cumulative_core_gapfilling or []
                    result["stage1_added"] = len(core_gf)
                    result["stage1_added_ids"] = [f"{rid}{d}" for rid, d in core_gf]
                    ok, _ = steps.run("atp_expand_model_to_genome_scale", atp.expand_model_to_genome_scale)
                    if not ok:
                        atp.restore_noncore_reactions(noncore=True, othercompartment=True)
                    result["stage1_filtered_noncore"] = len(atp.filtered_noncore)
                    result["stage1_filtered_ids"] = [f"{item[0].id}{item[1]}" for item in atp.filtered_noncore]
                    _, tests = steps.run("atp_build_tests", atp.build_tests)
        except StageTimeout as exc:
            result["stage1_timed_out"] = True
            steps.errors.append(_error_summary("stage1", exc))
            if atp is not None:
                atp.restore_noncore_reactions(noncore=True, othercompartment=True)
        result["stage1_seconds"] = round(time.perf_counter() - stage1_start, 3)
        result["model_reactions_after_stage1"] = len(model.reactions)
        result["atp_tests"] = len(tests or [])
        result["atp_test_thresholds"] = {t["media"].id: round(t["threshold"], 5) for t in tests or []}

        # ---------------- Stage 2: genome-scale gapfilling ----------------
        stage2_start = time.perf_counter()
        result["stage2_timed_out"] = False
        result["stage2_with_atp_tests"] = bool(tests)
        solution: dict[str, Any] | None = None
        try:
            with _time_limit(stage_timeout):
                media = MSMedia.from_dict(medium)
                media.id = media.name = "medium"
                ok, gapfiller = steps.run(
                    "gapfill_init",
                    lambda: MSGapfill(model, default_gapfill_templates=[gs_template],
                                      test_conditions=tests or [], default_target=TARGET),
                )
                if ok:
                    gfpkg = gapfiller.gfpkgmgr.getpkg("GapfillingPkg")
                    for method in ("test_gapfill_database", "filter_database_based_on_tests",
                                   "compute_gapfilled_solution", "run_test_conditions"):
                        _instrument(gfpkg, method, f"gf_{method}", detail)
                    _instrument(gapfiller.gfmodel, "optimize", "gf_model_optimize", detail)
                    _instrument(gapfiller.mdlutl, "test_solution", "gf_integrate_test_solution", detail)
                    _instrument(gapfiller.mdlutl, "find_unproducible_biomass_compounds",
                                "gf_integrate_sensitivity", detail)
                    result["gapfill_model_reactions"] = len(gapfiller.gfmodel.reactions)
                    result["gapfill_candidates"] = len(gfpkg.gapfilling_penalties)
                    _, solution = steps.run("gapfill_run_gapfilling",
                                            lambda: gapfiller.run_gapfilling(media, minimum_obj=minimum_obj))
                    found = _solution_ids(solution)
                    result["stage2_solution_found"] = solution is not None
                    result["stage2_new"] = len(found["new"])
                    result["stage2_reversed"] = len(found["reversed"])
                    result["stage2_new_ids"] = [k + v for k, v in sorted(found["new"].items())]
                    result["stage2_reversed_ids"] = [k + v for k, v in sorted(found["reversed"].items())]
                    if solution is not None:
                        steps.run("gapfill_integrate",
                                  lambda: gapfiller.integrate_gapfill_solution(solution, []))
                        kept = _solution_ids(solution)  # integrate prunes unneeded entries in place
                        result["stage2_new_kept"] = len(kept["new"])
                        result["stage2_reversed_kept"] = len(kept["reversed"])
        except StageTimeout as exc:
            result["stage2_timed_out"] = True
            steps.errors.append(_error_summary("stage2", exc))
        result["stage2_seconds"] = round(time.perf_counter() - stage2_start, 3)

        result["model_reactions_after"] = len(model.reactions)
        model.solver = solver
        result["growth_after"] = _fba_growth(model, medium)
        result["atp_empty_medium_after"] = _fba_growth(model, {}, ATP_HYDROLYSIS)
        if save_model is not None:
            cobra.io.save_json_model(model, str(save_model))
    finally:
        config.solver = previous_solver
        result["total_seconds"] = round(time.perf_counter() - total_start, 3)
        result["step_seconds"] = steps.seconds
        result["internals"] = detail
        result["errors"] = steps.errors
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draft", type=Path, required=True, help="draft model (COBRApy JSON)")
    parser.add_argument("--medium", default="glucose_minimal_aerobic", help="medium name or JSON path")
    parser.add_argument("--template", default="GramNegative", help="genome-scale template for stage 2")
    parser.add_argument("--solver", default="glpk")
    parser.add_argument("--stage-timeout", type=float, default=1800.0, help="seconds per stage (0: none)")
    parser.add_argument("--data-dir", type=Path, default=None, help="default: $GEMFLUX_DATA_DIR")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    parser.add_argument("--core-aliases", action="store_true",
                        help="stage 1 treats draft reactions with a Core-V5.2 stoichiometry as core (not ModelSEEDpy)")
    parser.add_argument("--save-model", type=Path, default=None, help="write the gapfilled model (COBRApy JSON)")
    args = parser.parse_args(argv)

    data_dir = args.data_dir or Path(os.environ["GEMFLUX_DATA_DIR"])
    medium_path = Path(args.medium)
    if not medium_path.is_file():
        medium_path = data_dir / "media" / f"{args.medium}.json"
    with contextlib.redirect_stdout(io.StringIO()):  # keep stdout to the one JSON line
        result = run_modelseedpy_reference(args.draft, load_medium_file(medium_path), data_dir,
                                           template_name=args.template, solver=args.solver,
                                           stage_timeout=args.stage_timeout, save_model=args.save_model,
                                           core_aliases=args.core_aliases)
    result["medium"] = medium_path.stem
    line = json.dumps(result, sort_keys=False)
    print(line)
    if args.json:
        args.json.write_text(line + "\n")
    return 0 if not result["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
