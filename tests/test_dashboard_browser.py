"""The dashboard as a person sees it: a real headless Chromium (Selenium + Debian's chromedriver).

One MCP session makes four calls (one with a `<script>` in its arguments, one failing); the browser
then walks the sessions list, the session page, its filter form and the tools page. A full-page
screenshot of the session page is kept under test-artifacts/ for a human to look at.
"""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPO
from mcp_client import http_client, structured

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
INSTALL = "apt-get install -y --no-install-recommends chromium chromium-driver"
ARTIFACT = REPO / "test-artifacts" / "dashboard-session.png"
XSS = "<script>window.__pwned=1</script>glucose"
CLIENT = "browser-test"
PLAN: list[tuple[str, dict[str, str]]] = [
    ("search_compounds", {"query": XSS}),
    ("get_compound_name", {"compound_id": "nope"}),
    ("list_media", {}),
    ("list_models", {}),
]
WAIT_S = 15


@pytest.fixture(scope="session")
def chromium() -> tuple[Path, Path]:
    """Chromium and its driver from Debian; CI must have them, elsewhere the test is skipped."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not (p.is_file() and os.access(p, os.X_OK))]
    if missing:
        reason = f"headless Chromium not installed ({', '.join(missing)} missing); install it with: {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser test, but {reason} (.ci/run should have done this)")
        pytest.skip(reason)
    return CHROMIUM, CHROMEDRIVER


@pytest.fixture()
def browser(chromium: tuple[Path, Path], tmp_path: Path) -> Iterator[WebDriver]:
    binary, driver_path = chromium
    options = webdriver.ChromeOptions()
    options.binary_location = str(binary)
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=tmp_path)
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                "--window-size=1400,900"):
        options.add_argument(arg)
    # An explicit driver path: Selenium Manager (which would go online for a driver) never runs.
    service = Service(executable_path=str(driver_path), log_output=str(tmp_path / "chromedriver.log"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(WAIT_S)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


HINTS = {"readOnlyHint": "read-only", "destructiveHint": "destructive", "idempotentHint": "idempotent",
         "openWorldHint": "open-world"}


async def _make_calls(base_url: str) -> dict[str, list[str]]:
    """The four calls of the plan in one legacy session; returns each tool's badge labels as MCP declares
    them (one per true hint, in the dashboard's order)."""
    async with http_client(base_url, "legacy", name=CLIENT) as client:
        tools: dict[str, list[str]] = {}
        for tool in (await client.list_tools()).tools:
            declared = tool.annotations.model_dump(by_alias=True) if tool.annotations is not None else {}
            tools[tool.name] = [label for key, label in HINTS.items() if declared.get(key)]
            if declared.get("readOnlyHint") is False and not declared.get("destructiveHint"):
                tools[tool.name].append("writes")  # changes stored state, destroys nothing
        for name, args in PLAN:
            result = await client.call_tool(name, args)
            if name == "get_compound_name":
                assert result.is_error, "get_compound_name('nope') should fail"
            else:
                structured(result)
    return tools


def _cells(row: WebElement) -> list[str]:
    return [td.text.strip() for td in row.find_elements(By.TAG_NAME, "td")]


def _badges(row: WebElement) -> list[str]:
    return [b.get_attribute("data-badge") or "" for b in row.find_elements(By.CSS_SELECTOR, "span.badge[data-badge]")]


def _calls(driver: WebDriver) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, "#calls tr.call")


def _submit_filter(driver: WebDriver) -> None:
    """Click the Filter button and wait for the new page.

    The old document is marked and the wait is for a complete document without the mark: element
    staleness checks race with navigation in chromedriver ("node does not belong to the document").
    """
    driver.execute_script("window.__gemflux_old_page = true")
    driver.find_element(By.CSS_SELECTOR, "#filter button[type=submit]").click()
    WebDriverWait(driver, WAIT_S, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return window.__gemflux_old_page === undefined && document.readyState === 'complete'"))
    WebDriverWait(driver, WAIT_S).until(expected_conditions.presence_of_element_located((By.ID, "calls")))


def _full_page_screenshot(driver: WebDriver, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
    path.write_bytes(base64.b64decode(shot["data"]))


def test_the_dashboard_in_a_real_browser(chromium: tuple[Path, Path], http_server: str,
                                         browser: WebDriver) -> None:
    declared = anyio.run(_make_calls, http_server)
    wait = WebDriverWait(browser, WAIT_S)

    # Sessions list: one row for our client, closed (the legacy client ended it), 4 calls.
    browser.get(f"{http_server}/")
    rows = browser.find_elements(By.CSS_SELECTOR, "#sessions tr[data-session]")
    assert len(rows) == 1, [r.text for r in rows]
    session_id = rows[0].get_attribute("data-session")
    _, client, _, status, calls, *_ = _cells(rows[0])
    assert client.startswith(CLIENT) and status == "closed" and calls == str(len(PLAN)), _cells(rows[0])

    # Click through to the session page.
    rows[0].find_element(By.TAG_NAME, "a").click()
    wait.until(expected_conditions.url_to_be(f"{http_server}/sessions/{session_id}"))
    wait.until(expected_conditions.presence_of_element_located((By.ID, "calls")))
    assert CLIENT in browser.find_element(By.TAG_NAME, "p").text

    calls_shown = _calls(browser)
    assert [c.get_attribute("data-tool") for c in calls_shown] == [name for name, _ in PLAN]
    assert [c.get_attribute("data-error") for c in calls_shown] == ["0", "1", "0", "0"]
    assert [_cells(c)[0] for c in calls_shown] == ["1", "2", "3", "4"]
    for row, (name, _) in zip(calls_shown, PLAN, strict=True):
        assert _cells(row)[2].startswith(name)
    labels = [label for row in calls_shown for label in _badges(row)]
    assert "read-only" in labels and "idempotent" in labels, labels
    assert "INVALID_ID_FORMAT" in _cells(calls_shown[1])[4]

    # The <script> argument is inert text, never markup.
    args_text = browser.execute_script(
        "return document.querySelector('#calls tr.call[data-tool=search_compounds] td.args').textContent")
    assert XSS in args_text, args_text
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.find_elements(By.CSS_SELECTOR, "#calls script") == []

    _full_page_screenshot(browser, ARTIFACT)

    # Filter by ticking "errors only" and clicking Filter: only the failing call stays.
    browser.find_element(By.CSS_SELECTOR, "#filter input[name=errors]").click()
    _submit_filter(browser)
    assert [c.get_attribute("data-tool") for c in _calls(browser)] == ["get_compound_name"]
    assert browser.find_element(By.CSS_SELECTOR, "#filter input[name=errors]").is_selected()

    # Same by tool: untick "errors only", choose get_compound_name in the select.
    browser.find_element(By.CSS_SELECTOR, "#filter input[name=errors]").click()
    Select(browser.find_element(By.CSS_SELECTOR, "#filter select[name=tool]")).select_by_value("get_compound_name")
    _submit_filter(browser)
    assert [(c.get_attribute("data-tool"), c.get_attribute("data-error")) for c in _calls(browser)] == [
        ("get_compound_name", "1")]
    chosen = Select(browser.find_element(By.CSS_SELECTOR, "#filter select[name=tool]")).first_selected_option
    assert chosen.get_attribute("value") == "get_compound_name"

    # Tools: every tool listed with exactly the badges its MCP annotations declare; delete_model is destructive.
    browser.get(f"{http_server}/tools")
    shown = {row.get_attribute("data-tool"): _badges(row)
             for row in browser.find_elements(By.CSS_SELECTOR, "#tools tr[data-tool]")}
    assert shown == declared
    assert all(shown.values()), f"every tool shows at least one badge: {shown}"
    assert "destructive" in shown["delete_model"], shown["delete_model"]
