"""The dashboard's community pages without a browser: the real dashboard routes on the store a
real app wrote (two auxotrophs that feed each other, grown by run_community), read through
httpx's ASGI transport. The list links each community, the community page lists the members with
the abundance and growth run_community answered, draws the cross-feeding network as well-formed
SVG (an arrow per metabolite in the right direction, the larger flux the wider), with the same
rows in a table beside it, and a member's model page links back to its communities."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from gem_flux_mcp.server import dashboard
from gem_flux_mcp.server.app import create_app
from mcp_client import call, in_process_client
from models import ARGININE, GLUCOSE, LYSINE
from test_community import store_three_members

PAIR = ["lysminus.draft", "argminus.draft"]
SVG_NS = "{http://www.w3.org/2000/svg}"


def dashboard_client(store: Any, workspace: str) -> httpx.AsyncClient:
    source = dashboard.DashboardSource(store=store, recorder=lambda: None, tools=dashboard.tool_lister(create_app()),
                                       workspace=lambda request: workspace)
    app = Starlette(routes=dashboard.routes(source))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dashboard")


def network(page: str) -> ET.Element:
    found = re.search(r"<svg id='cross-feeding'.*?</svg>", page, re.S)
    assert found, "no cross-feeding network on the page"
    return ET.fromstring(found.group(0))  # well-formed XML, or this fails


def table_rows(page: str, table_id: str) -> list[list[str]]:
    found = re.search(rf"<table id={table_id}>(.*?)</table>", page, re.S)
    assert found, table_id
    rows = re.findall(r"<tr>(.*?)</tr>", found.group(1), re.S)[1:]
    return [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", r, re.S)] for r in rows]


@pytest.mark.anyio
async def test_the_community_page_draws_who_feeds_whom(server_env: dict[str, str], tmp_path: Path) -> None:
    async with in_process_client(server_env) as client:
        glucose = await store_three_members(client, tmp_path)
        await call(client, "build_community", {"model_ids": PAIR, "abundances": [3, 7], "community_name": "pair"})
        await call(client, "build_community", {"model_ids": [*PAIR, "proto.draft"], "community_name": "trio"})
        grown = await call(client, "run_community", {"community_id": "pair", "media_id": glucose,
                                                    "limiting_compounds": True})
        store = client.resources.store
        # what run_community_samples records when its batch ends (tests/test_community.py runs one)
        store.add_community_result("local", "pair", "community_samples", glucose, {
            "samples": 3, "counts": {"ok": 2, "failed": 1}, "tradeoff": 0.5, "out_dir": "gut", "cancelled": False,
            "seconds": 9.5})

        async with dashboard_client(store, "local") as http:
            listing = (await http.get("/communities")).text
            assert "<a href='/communities'>Communities</a>" in listing  # in every page's navigation
            assert [r[0] for r in table_rows(listing, "communities")] == ["pair", "trio"]
            assert "href='/communities/pair'" in listing and "href='/communities/trio'" in listing

            response = await http.get("/communities/pair")
            assert response.status_code == 200
            page = response.text
            growth = {m["member"]: m["growth_rate"] for m in grown["members"]}
            members = table_rows(page, "members")
            assert [(r[0], float(r[1]), r[2]) for r in members] == [(PAIR[0], 0.3, "stored"), (PAIR[1], 0.7, "stored")]
            assert [float(r[3]) for r in members] == pytest.approx([growth[m] for m in PAIR], rel=1e-3)

            svg = network(page)
            nodes = [a.get("data-member") for a in svg.iter(f"{SVG_NS}a")]
            assert nodes == PAIR
            edges = {g.get("data-edge"): g for g in svg.iter(f"{SVG_NS}g") if g.get("data-edge")}
            # arginine from the lysine auxotroph (which makes it) to the arginine auxotroph, lysine back
            assert set(edges) == {f"{PAIR[0]}|{PAIR[1]}|{ARGININE}", f"{PAIR[1]}|{PAIR[0]}|{LYSINE}"}
            flux = {(c["from_member"], c["to_member"]): c["flux"] for c in grown["cross_feeding"]}
            width = {tuple(k.split("|")[:2]): float(g.find(f"{SVG_NS}path").get("stroke-width"))  # type: ignore[union-attr]
                     for k, g in edges.items()}
            assert flux[(PAIR[0], PAIR[1])] != pytest.approx(flux[(PAIR[1], PAIR[0])])
            wider = max(flux, key=lambda pair: flux[pair])
            assert width[wider] == pytest.approx(9.5) and min(width.values()) < 9.5  # the largest flux the widest
            assert {g.findtext(f"{SVG_NS}text") for g in edges.values()} == {"L-Arginine", "L-Lysine"}

            beside = table_rows(page, "cross-feeding-table")  # the same rows as a table beside the picture
            assert [(r[2], r[3]) for r in beside] == \
                [(c["from_member"], c["to_member"]) for c in grown["cross_feeding"]]
            assert [float(r[4]) for r in beside] == pytest.approx([c["flux"] for c in grown["cross_feeding"]], rel=1e-3)
            assert GLUCOSE in re.search(r"<p id=limiting>(.*?)</p>", page).group(1)  # type: ignore[union-attr]
            assert "Growth (run_community)" in page
            assert ["Samples (batch)", "3 samples (2 ok, 1 failed) into gut/"] in [
                [r[0], r[2]] for r in table_rows(page, "community-results")]

            api = (await http.get("/api/communities/pair")).json()
            assert {m["model_id"]: m["growth_rate"] for m in api["members"]} == growth
            assert api["latest_growth"]["cross_feeding"] == grown["cross_feeding"]
            assert [c["community_id"] for c in (await http.get("/api/communities")).json()["communities"]] == \
                ["pair", "trio"]

            unrun = (await http.get("/communities/trio")).text
            assert "id=no-growth" in unrun and "<svg id='cross-feeding'" not in unrun
            assert (await http.get("/communities/nope")).status_code == 404

            model_page = (await http.get(f"/models/{PAIR[0]}")).text  # a member links to its communities
            assert re.search(r"<p id=communities>.*href='/communities/pair'.*href='/communities/trio'", model_page)
            proto = re.search(r"<p id=communities>(.*?)</p>", (await http.get("/models/proto.draft")).text)
            assert proto and re.findall(r"href='([^']+)'", proto.group(1)) == ["/communities/trio"]

        async with dashboard_client(store, "lab_b") as other:  # another workspace sees none of it
            assert (await other.get("/communities/pair")).status_code == 404
            assert table_rows((await other.get("/communities")).text, "communities") == []

        await call(client, "delete_model", {"model_id": PAIR[1]})
        async with dashboard_client(store, "local") as http:
            page = (await http.get("/communities/pair")).text
            assert [r[2] for r in table_rows(page, "members")] == ["stored", "deleted"]
            assert f"href='/models/{PAIR[1]}'" not in page.split("<svg")[0]  # no link to a deleted member's page
