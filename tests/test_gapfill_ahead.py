"""A draft's ATP correction computed ahead of its gapfill (services/gapfill_ahead.py): the gapfill
that replays it gives the very model and answer one that computes it gives, and work ahead is
taken only for the draft and template it was computed for, or called off."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import cobra
import pytest
from cobra.io import model_to_dict, to_json

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling import fluxlp
from gem_flux_mcp.modeling import gapfill as gf
from gem_flux_mcp.modeling.fluxlp import Cancelled, SolverDeadline
from gem_flux_mcp.modeling.gapfill.report import describe
from gem_flux_mcp.modeling.json_model import model_from_json
from gem_flux_mcp.services import gapfill_ahead
from models import medium_of, modelseed_core_model


def _leaky_core(data_dir: Path) -> cobra.Model:
    """The ModelSEED core model with every reaction open both ways and a reaction that makes ATP
    from ADP and phosphate for nothing (gapfilling closes that first, as a hydrolysis run
    backwards): its ATP correction sets ~100 directions from the Core template and blocks some."""
    model = modelseed_core_model(data_dir)
    for reaction in model.reactions:
        reaction.bounds = (-1000.0, 1000.0)
    leak = cobra.Reaction("LEAK_c0", lower_bound=-1000.0, upper_bound=1000.0)
    leak.add_metabolites({model.metabolites.get_by_id(m): c for m, c in
                          (("cpd00008_c0", -1), ("cpd00009_c0", -1), ("cpd00002_c0", 1), ("cpd00001_c0", 1))})
    model.add_reactions([leak])
    return model


def _both_ways(document: str, data_dir: Path, biochem: BiochemIndex,
               medium: dict[str, tuple[float, float]]) -> tuple[gf.GapfillRun, gf.GapfillRun]:
    """(the gapfill that computes its ATP correction, the one that replays it computed ahead on
    another copy of the same model), each on its own reading of `document`."""
    ahead = gf.correct_atp_ahead(model_from_json(document), template_name="GramNegative", data_dir=data_dir,
                                 biochem=biochem, deadline=SolverDeadline(600.0))
    runs = [gf.gapfill_from_data(model_from_json(document), medium, gf.GapfillOptions(), template_name="GramNegative",
                                 data_dir=data_dir, biochem=biochem, inplace=True, atp_ahead=given)
            for given in (None, ahead)]
    return runs[0], runs[1]


def _same_run(fresh: gf.GapfillRun, replayed: gf.GapfillRun, biochem: BiochemIndex) -> None:
    assert replayed.atp is not None and fresh.atp is not None and not replayed.atp_reused
    assert replayed.atp.to_json() == fresh.atp.to_json()
    assert model_to_dict(replayed.model) == model_to_dict(fresh.model)

    def answer(run: gf.GapfillRun) -> dict[str, Any]:
        return {k: v for k, v in describe(run, biochem.reaction_details, 0.01).items() if k != "timings_s"}

    assert answer(replayed) == answer(fresh)


def test_a_correction_computed_ahead_gives_the_same_gapfill(data_dir: Path, biochem: BiochemIndex) -> None:
    document = to_json(_leaky_core(data_dir))
    fresh, replayed = _both_ways(document, data_dir, biochem, medium_of(data_dir, "glucose_minimal_aerobic"))
    # the correction changed the model (directions set from the Core template, ATP-making ones closed): a real replay
    assert fresh.atp is not None and len(fresh.atp.core_directions) > 50 and fresh.atp.blocked
    _same_run(fresh, replayed, biochem)


def _rounded(value: Any) -> Any:
    """`value` with every float to 9 significant digits (thresholds computed on another solver
    thread may differ in their last bits)."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def _same_with_one_solving_thread_or_two(document: str, data_dir: Path, biochem: BiochemIndex,
                                         monkeypatch: pytest.MonkeyPatch) -> gf.GapfillRun:
    """Gapfill `document` with every LP solve on one thread and with a second solving thread
    (fluxlp.maximize_many): the same corrections, additions, model and answer."""
    runs = []
    for threads in ("1", "2"):
        monkeypatch.setenv(fluxlp.ENV_LP_THREADS, threads)
        runs.append(gf.gapfill_from_data(model_from_json(document), medium_of(data_dir, "glucose_minimal_aerobic"),
                                         gf.GapfillOptions(), template_name="GramNegative", data_dir=data_dir,
                                         biochem=biochem, inplace=True))
    one, two = runs
    assert one.atp is not None and two.atp is not None
    assert _rounded(two.atp.to_json()) == _rounded(one.atp.to_json())
    assert model_to_dict(two.model) == model_to_dict(one.model)

    def answer(run: gf.GapfillRun) -> dict[str, Any]:
        return _rounded({k: v for k, v in describe(run, biochem.reaction_details, 0.01).items() if k != "timings_s"})

    assert answer(two) == answer(one)
    return one


def test_one_solving_thread_or_two_give_the_same_gapfill(data_dir: Path, biochem: BiochemIndex,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    run = _same_with_one_solving_thread_or_two(to_json(_leaky_core(data_dir)), data_dir, biochem, monkeypatch)
    assert run.atp is not None and run.atp.blocked


@pytest.mark.slow
def test_the_ecoli_drafts_gapfill_is_the_same_with_one_solving_thread_or_two(
        ecoli: cobra.Model, data_dir: Path, biochem: BiochemIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _same_with_one_solving_thread_or_two(to_json(ecoli), data_dir, biochem, monkeypatch)
    assert run.atp is not None and len(run.atp.blocked) > 50 and run.genome_scale is not None
    assert run.genome_scale.added and run.growth_after > 0.5


@pytest.mark.slow
def test_the_ecoli_drafts_gapfill_is_the_same_with_its_correction_computed_ahead(
        ecoli: cobra.Model, data_dir: Path, biochem: BiochemIndex) -> None:
    fresh, replayed = _both_ways(to_json(ecoli), data_dir, biochem, medium_of(data_dir, "glucose_minimal_aerobic"))
    assert fresh.atp is not None and fresh.atp.blocked and fresh.atp.core_directions
    assert fresh.growth_after > 0.01
    _same_run(fresh, replayed, biochem)


def test_work_ahead_is_taken_only_for_its_draft_and_template(data_dir: Path, cache_dir: Path, tmp_path: Path,
                                                             biochem: BiochemIndex) -> None:
    settings = Settings.resolve(data_dir, tmp_path / "state", cache_dir)
    document = to_json(modelseed_core_model(data_dir))
    expected = gf.correct_atp_ahead(model_from_json(document), template_name="GramNegative", data_dir=data_dir,
                                    biochem=biochem, deadline=SolverDeadline(600.0))
    # a draft built with a template gapfilling does not have is gapfilled with GramNegative
    assert gapfill_ahead.start(document.encode(), "Core-V5.2", settings)
    taken = gapfill_ahead.take(document, "GramNegative")
    assert taken is not None and taken.atp.to_json() == expected.to_json()
    # and the draft read again, untouched by the correction, for the gapfill job
    assert taken.draft is not None and model_to_dict(taken.draft) == model_to_dict(model_from_json(document))
    assert gapfill_ahead.take(document, "GramNegative") is None  # taken once
    for other_template, other_document in (("GramPositive", document), ("GramNegative", document + " ")):
        assert gapfill_ahead.start(document.encode(), "GramNegative", settings)
        assert gapfill_ahead.take(other_document, other_template) is None
        assert not [t for t in threading.enumerate() if t.name == "gemflux-gapfill-ahead"]


def test_work_ahead_is_called_off_and_off_when_asked(data_dir: Path, cache_dir: Path, tmp_path: Path,
                                                     biochem: BiochemIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings.resolve(data_dir, tmp_path / "state", cache_dir)
    document = to_json(modelseed_core_model(data_dir)).encode()
    assert gapfill_ahead.start(document, "GramNegative", settings)
    gapfill_ahead.cancel()  # another job came: it stops, and is waited for
    assert not [t for t in threading.enumerate() if t.name == "gemflux-gapfill-ahead"]
    assert gapfill_ahead.take(document.decode(), "GramNegative") is None
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(Cancelled):
        SolverDeadline(600.0, cancelled).remaining()
    monkeypatch.setenv(gapfill_ahead.ENV_GAPFILL_AHEAD, "0")
    assert not gapfill_ahead.start(document, "GramNegative", settings)
    monkeypatch.delenv(gapfill_ahead.ENV_GAPFILL_AHEAD)
    limited = Settings(settings.data_dir, settings.state_dir, settings.cache_dir, job_memory_mb=512)
    assert not gapfill_ahead.start(document, "GramNegative", limited)


def test_a_gapfill_that_needs_no_stage_1_calls_the_work_ahead_off(data_dir: Path, cache_dir: Path, tmp_path: Path,
                                                                   biochem: BiochemIndex) -> None:
    """A gapfill without ATP correction (or with one known already) does not run beside work ahead."""
    from gem_flux_mcp.services.gapfill import GapfillJob

    settings = Settings.resolve(data_dir, tmp_path / "state", cache_dir)
    document = to_json(_leaky_core(data_dir))
    assert gapfill_ahead.start(document.encode(), "GramNegative", settings)
    job = GapfillJob(model_id="core", media_id="glucose_minimal_aerobic", model_json=document,
                     medium=medium_of(data_dir, "glucose_minimal_aerobic"), target_growth=0.01,
                     mode="genomescale_only", template="GramNegative", new_model_id="core.gf")
    outcome = job.run(settings, lambda *_: None)
    assert outcome.atp_correction is None
    assert not [t for t in threading.enumerate() if t.name == "gemflux-gapfill-ahead"]
    assert gapfill_ahead.take(document, "GramNegative") is None  # called off, not left for later


def test_a_gapfill_job_given_the_work_ahead_answers_as_one_without(data_dir: Path, cache_dir: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The job that takes the correction and the draft read ahead stores the same model and gives the
    same answer as the job that reads and corrects the draft itself."""
    from gem_flux_mcp.services.gapfill import GapfillJob

    settings = Settings.resolve(data_dir, tmp_path / "state", cache_dir)
    built = _leaky_core(data_dir)
    document = to_json(built)
    job = GapfillJob(model_id="core", media_id="glucose_minimal_aerobic", model_json=document,
                     medium=medium_of(data_dir, "glucose_minimal_aerobic"), target_growth=0.01,
                     mode="full", template="GramNegative", new_model_id="core.gf")
    outcomes = []
    # the work ahead reading the stored draft, and taking over the model it was written from (a build's)
    for given in (None, built):
        messages: list[str] = []

        def note(_stage: str, _fraction: float, message: str, seen: list[str] = messages) -> None:
            seen.append(message)

        assert gapfill_ahead.start(document.encode(), "GramNegative", settings, built=given)
        outcomes.append(job.run(settings, note))
        assert any("computed while the draft was read" in m for m in messages)  # it was taken
    monkeypatch.setenv(gapfill_ahead.ENV_GAPFILL_AHEAD, "0")
    assert not gapfill_ahead.start(document.encode(), "GramNegative", settings)
    without = job.run(settings, lambda *_: None)
    for with_ahead in outcomes:
        assert with_ahead.data == without.data and with_ahead.atp_correction == without.atp_correction
        assert {k: v for k, v in with_ahead.report.items() if k != "timings_s"} == \
            {k: v for k, v in without.report.items() if k != "timings_s"}
