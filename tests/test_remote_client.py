"""A client on another machine: over HTTP it sends a genome inline, builds, gapfills, and gets the
model files through MCP resources only — it never reads or writes the server's disk."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import cobra
import libsbml
import pyrodigal
import pytest

from mcp_client import call, http_client, in_process_client
from models import apply_exchange_medium, medium_of

pytestmark = pytest.mark.anyio
GENOME = Path(pyrodigal.__file__).parent / "tests" / "data" / "MIIJ01000039.fna.gz"


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file() and "state" not in p.relative_to(folder).parts}


@pytest.mark.slow
async def test_remote_client_builds_gapfills_and_downloads_through_resources(
        http_server: str, server_env: dict[str, str], tmp_path: Path) -> None:
    before = files_under(tmp_path)
    genome = base64.b64encode(GENOME.read_bytes()).decode()  # the .gz file's bytes
    async with http_client(http_server, "2026-07-28") as client:
        built = await call(client, "build_model", {"genome_content": genome, "content_encoding": "base64",
                                                   "model_name": "remote"})
        assert built["input"]["inline"] and built["input"]["genes_called"] == 404
        gapfilled = await call(client, "gapfill_model", {"model_id": "remote.draft",
                                                         "media_id": "glucose_minimal_aerobic"})
        model_id = gapfilled["model_id"]
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {f"gemflux://models/{m}/{f}" for m in ("remote.draft", model_id) for f in ("sbml", "json")} <= listed
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert {"gemflux://models/{model_id}/sbml", "gemflux://models/{model_id}/json"} <= templates
        sbml = (await client.read_resource(f"gemflux://models/{model_id}/sbml")).contents[0]
        as_json = (await client.read_resource(f"gemflux://models/{model_id}/json")).contents[0]
    assert files_under(tmp_path) == before  # nothing was written in the file area

    document = libsbml.readSBMLFromString(sbml.text)  # type: ignore[union-attr]
    assert document.getNumErrors(libsbml.LIBSBML_SEV_ERROR) == 0
    model = cobra.io.load_json_model(io.StringIO(as_json.text))  # type: ignore[union-attr]
    assert len(model.reactions) == document.getModel().getNumReactions() == gapfilled["model_properties"][
        "num_reactions"]
    with model:
        apply_exchange_medium(model, medium_of(Path(server_env["GEMFLUX_DATA_DIR"]), "glucose_minimal_aerobic"))
        model.objective = "bio1"
        # the answer gives the growth to 6 decimals: within half of the last one (this small
        # genome's model grows ~0.026 /h, where a relative 1e-5 is finer than the answer's digits)
        assert model.slim_optimize() == pytest.approx(gapfilled["growth_rate_after"], abs=5.1e-7)


async def test_inline_model_import_and_content_errors(server_env: dict[str, str]) -> None:
    textbook = cobra.io.load_model("textbook")
    text = cobra.io.to_json(textbook)
    async with in_process_client(server_env) as client:
        imported = await call(client, "import_model", {"file_content": text, "model_name": "tb"})
        assert imported["format"] == "json" and imported["num_reactions"] == len(textbook.reactions)
        exported = await call(client, "export_model", {"model_id": imported["model_id"], "file_path": "tb.xml"})
        assert exported["resource_uri"] == f"gemflux://models/{imported['model_id']}/sbml"
        packed = base64.b64encode(cobra.io.write_sbml_model.__module__.encode()).decode()
        await call(client, "import_model", {"file_content": packed, "content_encoding": "base64"},
                   error="UNSUPPORTED_FORMAT")
        await call(client, "import_model", {"file_content": "not base64!", "content_encoding": "base64"},
                   error="INVALID_CONTENT_ENCODING")
        await call(client, "import_model", {"file_content": text, "file_path": "x.json"},
                   error="BOTH_INPUTS_PROVIDED")
        await call(client, "import_model", {}, error="NO_INPUT_PROVIDED")
        body = await call(client, "build_model", {"fasta_content": ">a\nATGAAACGCATTAGCACCACCATTACC\n"},
                          error="WRONG_SEQUENCE_TYPE")
        assert body["details"]["parameter"] == "fasta_content"
        body = await call(client, "build_model", {"fasta_content": "x" * 32_000_001}, error="INVALID_ARGUMENTS")
        assert "maximum is 32000000" in json.dumps(body)
