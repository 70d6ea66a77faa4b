"""The tools' descriptions kept between starts (server/tool_descriptions.py): a tool made from the
kept file is the tool FastMCP derives, field for field, lists and validates the same; a damaged
file is derived again; the file's key follows the code."""

from __future__ import annotations

import inspect
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.tools.function_tool import FunctionTool

from gem_flux_mcp.server import tool_descriptions
from gem_flux_mcp.server.app import create_app


async def _tools(app: FastMCP) -> dict[str, Any]:
    return {tool.name: tool for tool in await app.list_tools()}


def _parameters(fn: Any) -> list[tuple[Any, ...]]:
    """A signature's parameters, defaults by type (each app makes its own dependency objects)."""
    return [(p.name, p.kind, p.annotation, type(p.default)) for p in inspect.signature(fn).parameters.values()]


async def _listed_and_refusals(app: FastMCP) -> tuple[list[dict[str, Any]], list[Any]]:
    """The tools/list answer, and the answers to calls that argument validation refuses (run
    through each tool's own validator, made from its function)."""
    async with Client(app) as client:
        listed = [tool.model_dump(mode="json") for tool in (await client.list_tools_mcp()).tools]
        refusals = []
        for name, arguments in [("get_compound_name", {}), ("search_compounds", {"query": "x", "limit": 0}),
                                ("run_fba", {"model_id": "m", "media_id": "x", "objective": 7}),
                                ("gapfill_model", {"model_id": "m", "target_growth_rate": -1}),
                                ("gapfill_model", {"model_id": "m", "gapfill_mode": "fast"})]:
            answer = (await client.call_tool_mcp(name, arguments)).model_dump(mode="json")
            envelope = json.loads(answer["content"][0]["text"])
            refusals.append({**answer, "content": {**envelope, "timestamp": None}})
    return listed, refusals


@pytest.mark.anyio
async def test_tools_made_from_the_kept_file_are_fastmcps_own(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    derived = create_app()  # no folder: every tool derived by FastMCP
    create_app(descriptions_dir=tmp_path)  # derives and keeps them
    kept_files = list(tmp_path.iterdir())
    assert [path.name for path in kept_files] == [f"tool-descriptions-{tool_descriptions.code_key()}.json"]

    def not_called(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a tool was derived although its description was kept")

    monkeypatch.setattr(FunctionTool, "from_function", not_called)
    kept = create_app(descriptions_dir=tmp_path)

    expected, made = await _tools(derived), await _tools(kept)
    assert sorted(made) == sorted(expected) and len(made) >= 30
    for name, tool in made.items():
        assert tool.model_dump(exclude={"fn"}) == expected[name].model_dump(exclude={"fn"}), name
        assert _parameters(tool.fn) == _parameters(expected[name].fn), name
    listed, refusals = await _listed_and_refusals(kept)
    assert (listed, refusals) == await _listed_and_refusals(derived)
    assert all(answer["is_error"] for answer in refusals)


@pytest.mark.anyio
async def test_a_damaged_or_foreign_file_is_derived_again(tmp_path: Path) -> None:
    path = tmp_path / f"tool-descriptions-{tool_descriptions.code_key()}.json"
    expected = {name: tool.model_dump(exclude={"fn"}) for name, tool in (await _tools(create_app())).items()}
    for content in ["{not json", '{"run_fba": {"description": "x"}}', "[]"]:
        path.write_text(content)
        app = create_app(descriptions_dir=tmp_path)
        assert {name: tool.model_dump(exclude={"fn"}) for name, tool in (await _tools(app)).items()} == expected
        assert tool_descriptions.ToolDescriptions(path).kept.keys() == expected.keys()  # written anew


def test_the_key_follows_the_code(tmp_path: Path) -> None:
    package = tmp_path / "package"
    shutil.copytree(tool_descriptions.PACKAGE / "rules", package)
    key = tool_descriptions.code_key(package)
    assert tool_descriptions.code_key(package) == key
    module = next(package.glob("*.py"))
    stat = module.stat()
    module.write_text(module.read_text() + "\n")  # one byte more
    assert tool_descriptions.code_key(package) != key
    module.write_text(module.read_text()[:-1])
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as it was
    assert tool_descriptions.code_key(package) == key
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))  # edited in place, same size
    assert tool_descriptions.code_key(package) != key
