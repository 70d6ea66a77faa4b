"""build_model over MCP (stdio, real SDK client): progress, other calls answering meanwhile,
cancellation that stops the worker and its aligner, every input error; RAST against a local fake."""

from __future__ import annotations

import gzip
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pyrodigal
import pytest

from gem_flux_mcp.errors import LibraryError
from gem_flux_mcp.modeling.inputs import Protein, parse_fasta
from gem_flux_mcp.modeling.rast import annotate_with_rast
from gem_flux_mcp.server.hints import add_hints
from mcp_client import call, call_while_probing, stdio_client
from models import recoded_to_table_4

pytestmark = pytest.mark.anyio
PYRODIGAL_DATA = Path(pyrodigal.__file__).parent / "tests" / "data"


def write_subset(data_dir: Path, target: Path, n: int) -> Path:
    lines = (data_dir / "genomes" / "ecoli_k12_mg1655.faa").read_text().splitlines()
    out, count = [], 0
    for line in lines:
        if line.startswith(">"):
            count += 1
            if count > n:
                break
        out.append(line)
    target.write_text("\n".join(out) + "\n")
    return target


def processes_with(marker: str) -> list[tuple[int, str]]:
    """(pid, command line) of live processes whose environment contains `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            status = (entry / "status").read_text()
        except OSError:
            continue
        # multiprocessing's resource tracker lives as long as the server: not part of a job
        if marker.encode() in environ and "State:\tZ" not in status and "resource_tracker" not in cmdline:
            found.append((int(entry.name), cmdline))
    return found


async def wait_until_no_workers(marker: str, timeout_s: float = 15.0) -> list[str]:
    """Wait until no process but the server carries `marker`; returns those left at the deadline."""
    deadline = time.monotonic() + timeout_s
    while True:
        workers = [cmd for _, cmd in processes_with(marker) if "gem-flux serve" not in cmd]
        if not workers or time.monotonic() >= deadline:
            return workers
        await anyio.sleep(0.2)


@pytest.mark.slow
async def test_build_over_mcp_with_progress_and_a_responsive_server(server_env: dict[str, str], data_dir: Path,
                                                                    tmp_path: Path) -> None:
    fasta = write_subset(data_dir, tmp_path / "ecoli400.faa", 400)
    progress: list[tuple[float, str]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message or ""))

    async with stdio_client(server_env, "legacy") as client:
        result, lookups = await call_while_probing(
            client, "build_model", {"fasta_file_path": str(fasta), "model_name": "ecoli400"}, on_progress)

        assert result["model_id"] == "ecoli400.draft" and result["state"] == "draft"
        assert result["num_genes"] > 100 and result["annotation"]["gene_associated_reactions"] > 200
        assert result["has_biomass_reaction"] and result["biomass_reaction_id"] == "bio1"
        assert result["has_atpm"] and result["template_used"] == "GramNegative"
        stages = [m.split(":")[0] for _, m in progress]
        for stage in ("parse", "annotate", "assemble", "store"):
            assert stage in stages, stages
        values = [v for v, _ in progress]
        assert values == sorted(values) and values[-1] == 100
        # the event loop kept answering while the worker built the model
        assert len(lookups) >= 3 and max(lookups) < 2.0, lookups

        listed = await call(client, "list_models", {})
        assert [m["model_id"] for m in listed["models"]] == ["ecoli400.draft"]
        model = await call(client, "get_model", {"model_id": "ecoli400.draft"})
        assert model["num_reactions"] == result["num_reactions"]
        fba = await call(client, "run_fba", {"model_id": "ecoli400.draft", "media_id": "glucose_minimal_aerobic"})
        assert fba["success"]

        # same name again: refused before any work
        started = time.perf_counter()
        await call(client, "build_model", {"fasta_file_path": str(fasta), "model_name": "ecoli400"},
                   error="DUPLICATE_NAME")
        assert time.perf_counter() - started < 2


@pytest.mark.slow
async def test_cancelling_a_build_stops_the_worker_and_the_aligner(server_env: dict[str, str], data_dir: Path,
                                                                   tmp_path: Path) -> None:
    marker = f"GEMFLUX_TEST_MARKER={tmp_path.name}"
    env = {**server_env, "GEMFLUX_TEST_MARKER": tmp_path.name, "GEMFLUX_ALIGNER": "mmseqs",
           "GEMFLUX_KEEP_HITS": "0"}  # the aligner must run: hits kept by an earlier build would skip it
    fasta = data_dir / "genomes" / "ecoli_k12_mg1655.faa"
    env["GEMFLUX_ALLOWED_ROOTS"] = f"{tmp_path}{os.pathsep}{data_dir}"
    async with stdio_client(env, "legacy") as client:
        aligning = anyio.Event()

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            if message and message.startswith("annotate: searching"):
                aligning.set()

        async with anyio.create_task_group() as group:
            async def build() -> None:
                await client.call_tool("build_model", {"fasta_file_path": str(fasta), "model_name": "cancelled"},
                                       progress_callback=on_progress)

            group.start_soon(build)
            with anyio.fail_after(120):
                await aligning.wait()
            helpers: list[str] = []
            with anyio.move_on_after(60):  # the aligner starts within moments (later on a loaded machine)
                while not any("mmseqs" in cmd for cmd in helpers):
                    await anyio.sleep(0.5)
                    helpers = [cmd for _, cmd in processes_with(marker) if "gem-flux serve" not in cmd]
            assert any("mmseqs" in cmd for cmd in helpers), helpers
            group.cancel_scope.cancel()

        helpers = await wait_until_no_workers(marker)
        assert not helpers, helpers
        listed = await call(client, "list_models", {})
        assert listed["models"] == []
        # a new build works after the cancellation (a fresh worker starts)
        small = write_subset(data_dir, tmp_path / "small.faa", 30)
        done = await call(client, "build_model", {"fasta_file_path": str(small), "use_homology": False})
        assert done["model_id"].endswith(".draft")


@pytest.mark.slow
async def test_build_from_a_genome_over_mcp(server_env: dict[str, str], tmp_path: Path) -> None:
    """A genome assembly (pyrodigal's 870 kb E. coli contig, gzipped) instead of proteins: genes
    called with Prodigal in single mode, built with homology, the answer saying what was read."""
    genome = tmp_path / "contig.fna.gz"
    genome.write_bytes((PYRODIGAL_DATA / "MIIJ01000039.fna.gz").read_bytes())
    with gzip.open(PYRODIGAL_DATA / "MIIJ01000039.single.faa.gz", "rt") as handle:
        prodigal_genes = [line[1:].split()[0] for line in handle if line.startswith(">")]
    async with stdio_client(server_env, "2026-07-28") as client:
        built = await call(client, "build_model", {"genome_file_path": "contig.fna.gz", "model_name": "contig",
                                                   "template": "auto"})
        assert built["model_id"] == "contig.draft"
        # 'auto': the template chosen from the draft's lipopolysaccharide genes, said and stored
        assert "lipopolysaccharide enzymes have genes" in built["interpretation"]["template_choice"]
        listed = {m["model_id"]: m for m in (await call(client, "list_models", {}))["models"]}
        assert listed["contig.draft"]["template_used"] == built["template_used"] in ("GramNegative", "GramPositive")
        assert built["input"]["input_kind"] == "genome_fasta" and built["input"]["gene_calling_mode"] == "single"
        assert built["input"]["genes_called"] == len(prodigal_genes) == 404
        assert "Called 404 genes with Prodigal" in built["warnings"][0]
        assert built["input"]["translation_tables"] == [11] and built["input"]["coding_density"] > 0.9
        assert "table 11" in built["input"]["translation_table_reason"]
        await call(client, "export_model", {"model_id": "contig.draft", "file_path": "contig.json"})
        genes = {g["id"] for g in json.loads((tmp_path / "contig.json").read_text())["genes"]}
        assert len(genes) == built["num_genes"] > 50 and genes <= set(prodigal_genes)
        body = await call(client, "build_model", {"genome_file_path": "contig.fna.gz", "gene_calling": "meta",
                                                  "fasta_file_path": "x.faa"}, error="BOTH_INPUTS_PROVIDED")
        assert body["details"]["given"] == ["fasta_file_path", "genome_file_path"]
        body = await call(client, "build_model", {"fasta_file_path": "contig.fna.gz"}, error="WRONG_SEQUENCE_TYPE")
        assert "genome_file_path" in " ".join(body["suggestions"])


@pytest.mark.slow
async def test_a_mycoplasma_like_genome_is_read_with_table_4_over_mcp(server_env: dict[str, str],
                                                                      tmp_path: Path) -> None:
    """The E. coli contig recoded as a table-4 genome reads (every tryptophan TGA, every TGA stop
    TAA), sent inline: 'auto' picks table 4 and says why; asking for table 11 gives the broken
    genes a fixed code would, and a table Prodigal lacks is refused before anything runs."""
    with gzip.open(PYRODIGAL_DATA / "MIIJ01000039.fna.gz", "rt") as handle:
        (record,) = parse_fasta(handle.read())
    recoded = recoded_to_table_4(Protein(record.id, record.sequence.upper()))
    content = f">{recoded.id}\n{recoded.sequence}\n"
    async with stdio_client(server_env, "2026-07-28") as client:
        auto = await call(client, "build_model", {"genome_content": content, "use_homology": False,
                                                  "model_name": "myco"})
        assert auto["input"]["translation_tables"] == [4] and auto["input"]["genes_called"] < 450
        assert "table 4" in auto["input"]["translation_table_reason"] and "genetic code" in auto["warnings"][0]
        fixed = await call(client, "build_model", {"genome_content": content, "use_homology": False,
                                                   "model_name": "myco11", "translation_table": 11})
        assert fixed["input"]["translation_tables"] == [11] and fixed["input"]["genes_called"] > 900
        body = await call(client, "build_model", {"genome_content": content, "translation_table": 7},
                          error="INVALID_TRANSLATION_TABLE")
        assert body["details"]["allowed"] == ["auto", 4, 11, 25]
        listed = {m["model_id"] for m in (await call(client, "list_models", {}))["models"]}
        assert listed == {"myco.draft", "myco11.draft"}  # the refused call stored nothing


@pytest.mark.slow
async def test_build_input_errors(server_env: dict[str, str], tmp_path: Path) -> None:
    bad_fasta = tmp_path / "bad.faa"
    bad_fasta.write_text("MKV\n>a\nMKV\n")
    async with stdio_client(server_env, "2026-07-28") as client:
        await call(client, "build_model", {}, error="NO_INPUT_PROVIDED")
        await call(client, "build_model", {"protein_sequences": {"a": "MKV"}, "fasta_file_path": "x.faa"},
                   error="BOTH_INPUTS_PROVIDED")
        await call(client, "build_model", {"protein_sequences": {}}, error="EMPTY_PROTEIN_SEQUENCES")
        body = await call(client, "build_model", {"protein_sequences": {"b": "MK*V", "c": "M1V", "d": "*"}},
                          error="INVALID_AMINO_ACIDS")
        assert body["details"]["skipped_by_reason"] == {"empty": 1, "internal_stop": 1, "invalid_characters": 1}
        body = await call(client, "build_model", {"protein_sequences": {"a": "ATGAAACGCATTAGCACCACC"}},
                          error="WRONG_SEQUENCE_TYPE")
        assert body["details"]["looks_like"] == "nucleotide"
        await call(client, "build_model", {"protein_sequences": {"a": "MKV"}, "gene_calling": "fast"},
                   error="INVALID_GENE_CALLING")
        await call(client, "build_model", {"genome_file_path": str(tmp_path / "missing.fna")},
                   error="GENOME_FILE_NOT_FOUND")
        body = await call(client, "build_model", {"protein_sequences": {"a": "MKV"}, "template": "gramnegative"},
                          error="INVALID_TEMPLATE")
        assert body["details"]["did_you_mean"] == "GramNegative"
        await call(client, "build_model", {"fasta_file_path": str(tmp_path / "missing.faa")},
                   error="FASTA_FILE_NOT_FOUND")
        await call(client, "build_model", {"fasta_file_path": str(tmp_path)}, error="FASTA_PATH_NOT_FILE")
        body = await call(client, "build_model", {"fasta_file_path": str(bad_fasta)}, error="FASTA_INVALID_FORMAT")
        assert body["details"]["line_number"] == 1
        await call(client, "build_model", {"fasta_file_path": "/etc/passwd"}, error="PATH_NOT_ALLOWED")
        await call(client, "build_model", {"protein_sequences": {"a": "MKV"}, "model_name": "bad.name"},
                   error="INVALID_MODEL_NAME")
        await call(client, "build_model", {"protein_sequences": {"a": "MKV"},
                                           "exclude_reference_models": ["iNotAModel"]},
                   error="UNKNOWN_REFERENCE_MODEL")
        assert (await call(client, "list_models", {}))["models"] == []


# ------------------------------------------------------------------------------- RAST (fake)


class FakeRast(BaseHTTPRequestHandler):
    mode = "ok"
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeRast.requests.append(body)
        if FakeRast.mode == "slow":
            time.sleep(3)
        if FakeRast.mode == "error":
            payload = {"error": {"name": "JSONRPCError", "code": -32603, "message": "pipeline failed"}}
            status = 500
        else:
            features = body["params"][0]["features"]
            functions = {"g1": "Glucose-6-phosphate isomerase (EC 5.3.1.9)",
                         "g2": "Aspartokinase (EC 2.7.2.4) / Homoserine dehydrogenase (EC 1.1.1.3)"}
            payload = {"result": [{"features": [{"id": f["id"], **({"function": functions[f["id"]]}
                                                                   if f["id"] in functions else {})}
                                                for f in features], "analysis_events": []}]}
            status = 200
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def fake_rast() -> Any:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeRast)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeRast.mode, FakeRast.requests = "ok", []
    yield f"http://127.0.0.1:{server.server_address[1]}/services/genome_annotation"
    server.shutdown()


def test_rast_client_speaks_the_pipeline_protocol(fake_rast: str) -> None:
    functions = annotate_with_rast({"g1": "MKV", "g2": "MAV", "g3": "MLL"}, url=fake_rast)
    assert functions == {"g1": ["Glucose-6-phosphate isomerase (EC 5.3.1.9)"],
                         "g2": ["Aspartokinase (EC 2.7.2.4)", "Homoserine dehydrogenase (EC 1.1.1.3)"]}
    sent = FakeRast.requests[0]
    assert sent["method"] == "GenomeAnnotation.run_pipeline"
    assert [f["id"] for f in sent["params"][0]["features"]] == ["g1", "g2", "g3"]


def test_rast_failures_give_a_clear_error(fake_rast: str) -> None:
    FakeRast.mode = "error"
    with pytest.raises(LibraryError) as info:
        annotate_with_rast({"g1": "MKV"}, url=fake_rast)
    assert info.value.code == "RAST_ANNOTATION_ERROR" and "pipeline failed" in info.value.message
    FakeRast.mode = "slow"
    with pytest.raises(LibraryError) as info:
        annotate_with_rast({"g1": "MKV"}, url=fake_rast, timeout_s=0.5)
    assert "no answer within" in info.value.message
    with pytest.raises(LibraryError) as info:
        annotate_with_rast({"g1": "MKV"}, url="http://127.0.0.1:9/unreachable", timeout_s=2)
    assert "unreachable" in info.value.message
    # the client is shown how to build offline instead (added at the server boundary)
    hinted = add_hints(info.value, "build_model").envelope("build_model")
    assert hinted["example_call"]["arguments"] == {"annotate_with_rast": False}


@pytest.mark.slow
async def test_build_with_rast_records_rast_evidence(server_env: dict[str, str], fake_rast: str,
                                                     data_dir: Path) -> None:
    lines = (data_dir / "genomes" / "ecoli_k12_mg1655.faa").read_text().split(">")
    pgi = next(block for block in lines if block.startswith("NP_418449.1"))
    sequence = "".join(pgi.splitlines()[1:])
    env = {**server_env, "GEMFLUX_RAST_URL": fake_rast}
    async with stdio_client(env, "legacy") as client:
        body = await call(client, "build_model", {"protein_sequences": {"g1": sequence}, "annotate_with_rast": True,
                                                  "use_homology": False})
        assert body["annotated_with_rast"] and body["annotation"]["reactions_by_source"].get("rast", 0) >= 1
        FakeRast.mode = "error"
        await call(client, "build_model", {"protein_sequences": {"g1": sequence}, "annotate_with_rast": True},
                   error="RAST_ANNOTATION_ERROR")
