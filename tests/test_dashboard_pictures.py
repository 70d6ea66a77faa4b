"""The dashboard's pictures in a real headless Chromium, on a model made the way a user makes one.

One server with two workspaces (tokens). Lab A builds the E. coli K-12 draft over MCP while the
test watches the Jobs page (a running build with its progress, refreshing itself), gapfills it on
glucose, runs FBA (pFBA), a carbon phenotype array against CarveMe's Biolog calls, gene
essentiality, FVA and a diagnosis, and revises the model (with markup in the reason). Then each
new page is opened in the browser: no console error, the pictures say what the tools answered
(fluxes on the map, mismatches on the plate, essential genes), a screenshot of each under
test-artifacts/. Lab B sees none of it.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from conftest import REPO, start_http_server, stop_server
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.server.dashboard.flux_map.layout import check_layout
from gem_flux_mcp.server.dashboard.flux_map.mapping import MapAliases, map_model
from gem_flux_mcp.server.dashboard.model_facts import ModelFacts, ReactionFacts
from gem_flux_mcp.server.job_board import JobBoard
from mcp_client import call
from test_dashboard_browser import CHROMEDRIVER, CHROMIUM, _full_page_screenshot, chromium  # noqa: F401

TOKEN_A = "token-pictures-a-0123456789"
TOKEN_B = "token-pictures-b-0123456789"
ARTIFACTS = REPO / "test-artifacts"
MEDIUM = "glucose_minimal_aerobic"
GAPA, ACCA = "NP_416293.1", "NP_414727.1"  # as the E. coli proteome names them
XSS = "<script>window.__pwned=1</script> drop a reaction"
BIOLOG = Path(importlib.util.find_spec("carveme").origin or "").parent / "data" / "benchmark" / "biolog"  # type: ignore[union-attr]


@dataclass
class Lab:
    """What lab A made, as the tools answered."""

    url: str
    draft: str = ""
    gapfilled: dict[str, Any] = field(default_factory=dict)
    fba: dict[str, Any] = field(default_factory=dict)
    phenotypes: dict[str, Any] = field(default_factory=dict)
    essentiality: dict[str, Any] = field(default_factory=dict)
    fermentation: dict[str, Any] = field(default_factory=dict)
    revised: dict[str, Any] = field(default_factory=dict)
    results: dict[str, int] = field(default_factory=dict)  # kind -> id of the newest result of the .gf model
    running_seen: list[dict[str, Any]] = field(default_factory=list)  # /api/jobs entries during the build
    jobs_page_running: str = ""
    jobs_page_after: str = ""
    lab_b_jobs: list[Any] = field(default_factory=list)
    predictions: list[dict[str, Any]] = field(default_factory=list)  # get_model(include_predictions=true)
    built: dict[str, Any] = field(default_factory=dict)  # build_model's answer
    explained: dict[str, Any] = field(default_factory=dict)  # explain_essentiality of gapA


def _observed_carbon(biochem: BiochemIndex) -> dict[str, bool]:
    """CarveMe's Biolog carbon calls for E. coli ('+'/'++' grow), by the ModelSEED ids it gives."""
    with (BIOLOG / "ecol" / "biolog_carbon.tsv").open() as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t") if r["seed"].startswith("cpd") and r["growth"]]
    known = biochem.existing_compound_ids([r["seed"] for r in rows])
    return {r["seed"]: r["growth"] in ("+", "++") for r in rows if r["seed"] in known}


def _lab_client(url: str, token: str) -> Client:
    http = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=600)
    return Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy")  # type: ignore[arg-type]


async def _make_everything(lab: Lab, observed: dict[str, bool]) -> None:
    headers_a = {"Authorization": f"Bearer {TOKEN_A}"}
    async with _lab_client(lab.url, TOKEN_A) as client, httpx.AsyncClient(timeout=30) as http:
        built: dict[str, Any] = {}

        async def build() -> None:
            built.update(await call(client, "build_model", {"fasta_file_path": "ecoli.faa", "model_name": "ecoli"}))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(build)
            deadline = time.monotonic() + 300
            while not built and time.monotonic() < deadline:
                jobs = (await http.get(f"{lab.url}/api/jobs", headers=headers_a)).json()["jobs"]
                running = [j for j in jobs if j["state"] == "running" and j["kind"] == "build" and j["fraction"] > 0]
                if running and not lab.jobs_page_running:
                    lab.running_seen = running
                    lab.jobs_page_running = (await http.get(f"{lab.url}/jobs", headers=headers_a)).text
                    lab.lab_b_jobs = (await http.get(f"{lab.url}/api/jobs", params={"token": TOKEN_B})).json()["jobs"]
                await anyio.sleep(0.2)
        lab.jobs_page_after = (await http.get(f"{lab.url}/jobs", headers=headers_a)).text
        lab.draft = built["model_id"]
        lab.built = built
        lab.gapfilled = await call(client, "gapfill_model", {"model_id": lab.draft, "media_id": MEDIUM})
        gf = lab.gapfilled["model_id"]
        lab.fba = await call(client, "run_fba", {"model_id": gf, "media_id": MEDIUM, "pfba": True,
                                                 "flux_threshold": 0})
        lab.phenotypes = await call(client, "predict_growth_phenotypes", {
            "model_id": gf, "base_media_id": MEDIUM, "panel": "carbon", "observed": observed})
        lab.essentiality = await call(client, "predict_gene_essentiality", {
            "model_id": gf, "media_id": MEDIUM, "observed": {GAPA: True, ACCA: True}})
        lab.explained = await call(client, "explain_essentiality", {"model_id": gf, "media_id": MEDIUM, "gene": GAPA})
        await call(client, "run_fva", {"model_id": gf, "media_id": MEDIUM})
        lab.fermentation = await call(client, "predict_fermentation_products", {
            "model_id": gf, "media_id": "m9_glucose_anaerobic", "observed": ["acetate", "formate", "ethanol"]})
        await call(client, "diagnose_model", {"model_id": gf, "media_id": MEDIUM})
        removed = lab.gapfilled["reactions_added"][0]["id"]
        lab.revised = await call(client, "revise_model", {"model_id": gf, "reason": XSS, "remove_reactions": [removed]})
        lab.predictions = (await call(client, "get_model", {"model_id": gf, "include_predictions": True}))[
            "predictions"]
        detail = (await http.get(f"{lab.url}/api/models/{quote(gf)}", headers=headers_a)).json()
        for result in reversed(detail["results"]):  # oldest first: the newest of each kind wins
            lab.results[result["kind"]] = result["id"]


@pytest.fixture(scope="module")
def lab(data_dir: Path, cache_dir: Path, biochem: BiochemIndex, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[Lab]:
    root = tmp_path_factory.mktemp("pictures")
    (root / "lab_a").mkdir()
    shutil.copy(data_dir / "genomes" / "ecoli_k12_mg1655.faa", root / "lab_a" / "ecoli.faa")
    env = {**os.environ, "GEMFLUX_DATA_DIR": str(data_dir), "GEMFLUX_CACHE_DIR": str(cache_dir),
           "GEMFLUX_STATE_DIR": str(root / "state"), "GEMFLUX_ALLOWED_ROOTS": str(root),
           "GEMFLUX_TOKENS": f"{TOKEN_A}=lab_a,{TOKEN_B}=lab_b"}
    proc, url = start_http_server(env, root / "server.log")
    try:
        found = Lab(url)
        anyio.run(_make_everything, found, _observed_carbon(biochem))
        yield found
    finally:
        stop_server(proc)


@pytest.fixture(scope="module")
def driver(chromium: tuple[Path, Path], lab: Lab, tmp_path_factory: pytest.TempPathFactory  # noqa: F811
           ) -> Iterator[WebDriver]:
    binary, driver_path = chromium
    options = webdriver.ChromeOptions()
    options.binary_location = str(binary)
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=tmp_path_factory.mktemp("browser"))
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                "--window-size=1400,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options, service=Service(executable_path=str(driver_path)))
    browser.set_page_load_timeout(30)
    try:
        browser.get(f"{lab.url}/?token={TOKEN_A}")  # the cookie carries lab A's token from here on
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _open(driver: WebDriver, url: str, shot: str | None = None) -> float:
    """Load a page; fail on any console error; keep a full-page screenshot; return the load time."""
    driver.get_log("browser")  # drop what earlier pages logged
    started = time.perf_counter()
    driver.get(url)
    elapsed = time.perf_counter() - started
    errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    assert errors == [], errors
    assert driver.find_elements(By.TAG_NAME, "script") == []  # the pages carry no script at all
    if shot:
        _full_page_screenshot(driver, ARTIFACTS / shot)
    return elapsed


def _page(lab: Lab, kind: str) -> str:
    return f"{lab.url}/models/{quote(lab.gapfilled['model_id'])}/results/{lab.results[kind]}"


def test_the_model_page_shows_origins_gapfill_lineage_and_results(lab: Lab, driver: WebDriver) -> None:
    gf = lab.gapfilled["model_id"]
    _open(driver, f"{lab.url}/models/{quote(gf)}", "dashboard-model.png")
    parts = {p.get_attribute("data-part") for p in driver.find_elements(By.CSS_SELECTOR, "#origins rect[data-part]")}
    assert {"header functions", "homology to BiGG proteins", "gapfilling"} <= parts, parts
    origins = driver.execute_script(
        "return Array.from(document.querySelectorAll('#origins-table [data-origin]'))"
        ".map(x => [x.dataset.origin, Number(x.textContent)])")
    assert sum(n for _, n in origins) == lab.gapfilled["model_properties"]["num_reactions"]
    assert dict(origins)["gapfill"] >= lab.gapfilled["genomescale_gapfill"]["new_reactions"]
    gapfill_rows = driver.find_elements(By.CSS_SELECTOR, "#gapfill-reactions tr")[1:]
    assert len(gapfill_rows) == lab.gapfilled["reactions_added_total"]
    # the genome behind it: the draft's marker genes, as build_model answered them
    genome = lab.built["genome_completeness"]
    assert genome["completeness"] >= 95 and genome["contamination"] <= 5, genome
    assert driver.find_element(By.ID, "genome-verdict").text == genome["verdict"] + "."
    assert "genome" in lab.gapfilled["interpretation"]
    nodes = {a.get_attribute("data-model") for a in driver.find_elements(By.CSS_SELECTOR, "#lineage [data-model]")}
    assert nodes == {lab.draft, gf, lab.revised["model_id"]}
    kinds = {a.get_attribute("data-kind") for a in driver.find_elements(By.CSS_SELECTOR, "#results a[data-kind]")}
    assert {"fba", "growth_phenotypes", "gene_essentiality", "fva", "diagnosis", "gapfill"} <= kinds, kinds
    # the lineage graph links: click the revision's node
    driver.find_element(By.CSS_SELECTOR, f"#lineage a[data-model='{lab.revised['model_id']}']").click()
    assert driver.find_element(By.TAG_NAME, "h1").text == f"Model {lab.revised['model_id']}"
    assert XSS in driver.find_element(By.ID, "revisions").text  # the reason is text, never markup
    assert driver.execute_script("return typeof window.__pwned") == "undefined"
    _full_page_screenshot(driver, ARTIFACTS / "dashboard-revision.png")


def test_the_flux_map_draws_the_recorded_fluxes(lab: Lab, driver: WebDriver) -> None:
    _open(driver, _page(lab, "fba"), "dashboard-flux-map.png")
    drawn = {g.get_attribute("data-reaction"): g for g in driver.find_elements(By.CSS_SELECTOR, "#flux-map g.rxn")}
    answered = lab.fba["fluxes"]
    for key in ("EX_glc__D_e", "PGI", "CS"):
        flux = float(drawn[key].get_attribute("data-flux") or 0)
        assert abs(flux) > 1e-6, f"{key} carries no flux on the map"
        members = (drawn[key].get_attribute("data-model-reactions") or "").split()
        expected = sum(-answered.get(m[1:], 0.0) if m.startswith("-") else answered.get(m, 0.0) for m in members)
        assert flux == pytest.approx(expected, rel=1e-5, abs=1e-6), (key, members)
    uptake = -answered["EX_cpd00027_e0"]
    assert float(drawn["EX_glc__D_e"].get_attribute("data-flux") or 0) == pytest.approx(uptake, rel=1e-6)
    assert uptake > 0
    # reactions the model lacks are listed, carrying-flux reactions off the map too
    assert driver.find_elements(By.CSS_SELECTOR, "#map-reactions tr")
    assert driver.find_elements(By.CSS_SELECTOR, "#off-map tr")
    # get_model answers stay small: the tables recorded for the pictures are not in them
    assert all("fluxes" not in p["summary"] and "array" not in p["summary"] for p in lab.predictions)
    assert {"fba", "growth_phenotypes"} <= {p["kind"] for p in lab.predictions}
    api = httpx.get(_page(lab, "fba").replace("/models/", "/api/models/"), params={"token": TOKEN_A}).json()
    assert api["map"]["fluxes"]["PGI"] == pytest.approx(float(drawn["PGI"].get_attribute("data-flux") or 0), rel=1e-5)


def test_the_phenotype_plate_marks_the_mismatches_the_tool_reported(lab: Lab, driver: WebDriver) -> None:
    _open(driver, _page(lab, "growth_phenotypes"), "dashboard-phenotypes.png")
    wells = driver.find_elements(By.CSS_SELECTOR, "#plate g.well")
    assert len(wells) == lab.phenotypes["summary"]["tested"]
    marked = [w.get_attribute("data-compound") for w in wells if w.get_attribute("data-mismatch") == "1"]
    expected = lab.phenotypes["comparison"]["mismatches_total"]
    assert expected > 0
    assert len(marked) == expected == int(driver.find_element(By.ID, "mismatch-count").text)
    listed = {m["id"] for m in lab.phenotypes["comparison"]["mismatches"]}
    assert listed <= set(marked)
    growing = {w.get_attribute("data-compound") for w in wells if w.get_attribute("data-status") == "growth"}
    assert growing == set(lab.phenotypes["growth_on"])


def test_essentiality_counts_and_genes_by_pathway(lab: Lab, driver: WebDriver) -> None:
    _open(driver, _page(lab, "gene_essentiality"), "dashboard-essentiality.png")
    summary = lab.essentiality["summary"]
    parts = {p.get_attribute("data-part") for p in driver.find_elements(By.CSS_SELECTOR, "#deletions rect[data-part]")}
    assert set(parts) == {"essential", "slowed", "no effect"}
    rows = driver.find_elements(By.CSS_SELECTOR, "#essential-by-pathway tr")[1:]
    counted = sum(int(r.find_elements(By.TAG_NAME, "td")[1].text) for r in rows)
    assert counted == min(summary["essential"], 500)
    assert len(rows) > 3  # spread over pathways, not all Unknown
    assert driver.find_elements(By.CSS_SELECTOR, "#essential-pathways rect")
    # gapA is essential in vivo and not in the model (a route around GAPDH): the disagreement links to
    # the recorded explanation; accA agrees (essential in both) and is not listed
    mismatched = {m["id"] for m in lab.essentiality["comparison"]["mismatches"]}
    assert mismatched == {GAPA} and not lab.explained["essential"]
    rows = driver.find_elements(By.CSS_SELECTOR, "#disagreements tr")[1:]
    assert [r.find_elements(By.TAG_NAME, "td")[0].text for r in rows] == [GAPA]
    driver.find_element(By.CSS_SELECTOR, "#disagreements a.explain").click()
    assert driver.find_element(By.TAG_NAME, "h1").text.startswith("Explain essentiality of")
    assert GAPA in driver.find_element(By.TAG_NAME, "body").text


def test_fermentation_products_as_bars_and_a_table(lab: Lab, driver: WebDriver) -> None:
    _open(driver, _page(lab, "fermentation_products"), "dashboard-fermentation.png")
    answer = lab.fermentation
    bars = driver.find_elements(By.CSS_SELECTOR, "#products rect")
    assert len(bars) == min(answer["summary"]["products"], 30) > 0
    rows = driver.find_elements(By.CSS_SELECTOR, "#secreted tr")[1:]
    shown = {r.find_elements(By.TAG_NAME, "td")[0].text for r in rows}
    assert len(rows) == min(answer["summary"]["products"], 100)
    assert {p["compound_id"] for p in answer["products"]} <= shown
    made = ", ".join(answer["summary"]["scored_products_made"])
    assert made == "acetate, ethanol, formate"  # E. coli's mixed-acid fermentation
    assert made in driver.find_element(By.TAG_NAME, "body").text


def test_two_models_side_by_side(lab: Lab, driver: WebDriver) -> None:
    gf, rev = lab.gapfilled["model_id"], lab.revised["model_id"]
    _open(driver, f"{lab.url}/compare?a={quote(gf)}&b={quote(rev)}", "dashboard-compare.png")
    assert driver.find_element(By.ID, "only-a").text == str(lab.revised["summary"]["reactions_removed"])
    assert driver.find_element(By.ID, "only-b").text == "0"
    assert driver.find_elements(By.CSS_SELECTOR, "#origins-a rect") and driver.find_elements(
        By.CSS_SELECTOR, "#origins-b rect")
    for kind in ("fva", "diagnosis"):  # the kinds without a picture of their own still load
        _open(driver, _page(lab, kind))
        assert driver.find_element(By.ID, "summary")


def test_jobs_show_progress_while_a_build_runs(lab: Lab, driver: WebDriver) -> None:
    assert lab.running_seen, "no running build was seen on /api/jobs"
    job = lab.running_seen[0]
    assert job["model_id"] == "ecoli.draft" and 0 < job["fraction"] < 1 and job["stage"]
    assert "http-equiv=refresh" in lab.jobs_page_running and "ecoli.draft" in lab.jobs_page_running
    assert "http-equiv=refresh" not in lab.jobs_page_after
    assert lab.lab_b_jobs == []  # another workspace's jobs are not shown
    running = ARTIFACTS / "dashboard-jobs-running.html"  # the page as it was during the build (inline CSS)
    running.write_text(lab.jobs_page_running, encoding="utf-8")
    driver.get(running.as_uri())
    assert driver.find_elements(By.CSS_SELECTOR, "#running-jobs tr.job")
    _full_page_screenshot(driver, ARTIFACTS / "dashboard-jobs-running.png")
    running.unlink()
    _open(driver, f"{lab.url}/jobs", "dashboard-jobs.png")
    ended = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#ended-jobs tr.job")]
    assert any(line.startswith("build") and "done" in line for line in ended), ended
    assert driver.find_element(By.ID, "batches")


def test_another_workspace_sees_none_of_it(lab: Lab) -> None:
    gf = quote(lab.gapfilled["model_id"])
    with httpx.Client(base_url=lab.url, params={"token": TOKEN_B}, timeout=30) as http:
        for path in (f"/models/{gf}", f"/api/models/{gf}", f"/models/{gf}/results/{lab.results['fba']}",
                     f"/api/models/{gf}/results/{lab.results['fba']}"):
            assert http.get(path).status_code == 404, path
        other = http.get("/compare", params={"a": lab.gapfilled["model_id"], "b": lab.revised["model_id"],
                                             "token": TOKEN_B})
        assert other.status_code == 404 and "No such model" in other.text
        assert http.get("/api/models").json()["models"] == []
        assert http.get("/models/nope.draft/results/1").status_code == 404
    with httpx.Client(base_url=lab.url, timeout=30) as anonymous:
        assert anonymous.get(f"/models/{gf}").status_code == 401


# ---- the map's pieces, without a server -------------------------------------------------------


def test_the_map_layout_names_only_its_own_nodes() -> None:
    check_layout()


def _facts(reactions: dict[str, dict[str, float]]) -> ModelFacts:
    found = {rid: ReactionFacts(rid, rid, mets, -1000.0, 1000.0, "", "", "") for rid, mets in reactions.items()}
    return ModelFacts("m", found, {}, {}, [], {rid: "unrecorded" for rid in found})


def test_map_reactions_are_oriented_whichever_way_the_model_writes_them() -> None:
    aliases = MapAliases({"PGI": {"rxn00558"}, "CS": {"rxn00256"}},
                         {"g6p": "cpd00079", "f6p": "cpd00072", "accoa": "cpd00022", "cit": "cpd00137",
                          "glc__D": "cpd00027"})
    facts = _facts({
        "rxn00558_c0": {"cpd00072_c0": -1, "cpd00079_c0": 1},  # written F6P -> G6P: backwards on the map
        "rxn00256_c0": {"cpd00022_c0": -1, "cpd00137_c0": 1},
        "EX_cpd00027_e0": {"cpd00027_e0": -1},
    })
    mapping = map_model(facts, aliases)
    assert mapping.edges["PGI"].members == (("rxn00558_c0", -1),)
    assert mapping.flux("PGI", {"rxn00558_c0": -4.0}) == 4.0  # G6P -> F6P on the map
    assert mapping.flux("CS", {"rxn00256_c0": 0.6}) == 0.6
    assert mapping.flux("EX_glc__D_e", {"EX_cpd00027_e0": -5.0}) == 5.0  # uptake points into the cell
    assert not mapping.edges["PFK"].in_model


def test_the_job_board_keeps_each_workspace_apart() -> None:
    board = JobBoard(keep_finished=2)

    @dataclass
    class Job:
        model_id: str
        kind: str = "build"

    first, second = board.add("a", Job("x.draft")), board.add("b", Job("y.draft"))
    board.progress(first, "annotate", 0.5, "aligning")
    assert [(j.model_id, j.state, j.fraction) for j in board.jobs("a")] == [("x.draft", "running", 0.5)]
    board.finish(first, "done")
    board.finish(second, "failed", "BUILD_TIMEOUT")
    assert [(j.state, j.fraction) for j in board.jobs("a")] == [("done", 1.0)]
    assert [(j.state, j.error_code) for j in board.jobs("b")] == [("failed", "BUILD_TIMEOUT")]
    assert board.running("a") == []
