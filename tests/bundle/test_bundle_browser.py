"""``inspector bundle``'s page in a real browser (Debian's headless Chromium, driven by
selenium, as ``tests/app/test_serve_browser.py``: skipped saying why outside CI, failed in
CI when Chromium is missing). Opened from a file:// URL: the headline, a filter, a
drill-down and the keys work, and the page requests no URL at all (not even the ``x`` an
``<img src=x>`` from the results would ask for)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.cli.main import main
from tests.app.test_serve_browser import _requested_urls, chromium  # noqa: F401  (a fixture)
from tests.bundle.hostile import MESSAGE, TASK_ID, VERIFIER, hostile_run
from tests.conftest import CONFORMANCE

RUN = "e2e_k3_pass_hierarchy"
TASK = "chat_v1_7"


def _open(chrome: Any, page: Path) -> str:
    """Open ``page``, what the browser requested for its own start page forgotten."""
    url = page.resolve().as_uri()
    chrome.get("about:blank")
    _requested_urls(chrome)  # the log is read once: what the browser did before the page
    chrome.get(url)
    return url


def _by_id(chrome: Any, element_id: str) -> Any:
    from selenium.webdriver.common.by import By

    return chrome.find_element(By.ID, element_id)


def _choose(
    chrome: Any, element_id: str, *, text: str | None = None, value: str | None = None
) -> None:
    from selenium.webdriver.support.ui import Select

    choice = Select(_by_id(chrome, element_id))
    if text is not None:
        choice.select_by_visible_text(text)
    else:
        choice.select_by_value(value)


def _json_of(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> Any:
    assert main(list(argv)) == code
    return json.loads(capsys.readouterr().out)


def test_the_conformance_bundle_offline(
    chromium: Any,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "conformance.html"
    assert main(["bundle", str(CONFORMANCE), "-o", str(page), "--gate", "--items"]) == 0
    capsys.readouterr()
    cells = _json_of(capsys, "leaderboard", str(CONFORMANCE), "--format", "json")
    gate = _json_of(capsys, "gate", str(CONFORMANCE), "--format", "json", code=1)
    items = _json_of(capsys, "items", str(CONFORMANCE), "--format", "json")
    report = _json_of(capsys, "report", str(CONFORMANCE / RUN), "--json")
    runs = [p for p in CONFORMANCE.iterdir() if (p / "run_info.json").is_file()]
    chrome = chromium
    url = _open(chrome, page)

    # the headline, and the leaderboard's cell of the run
    models, benchmarks = {c["model"] for c in cells}, {c["benchmark"] for c in cells}
    assert _by_id(chrome, "headline").text == (
        f"{len(runs)} runs under conformance: {len(models)} models × {len(benchmarks)} "
        "benchmarks, 0 failing the check"
    )
    (cell,) = [c for c in cells if c["run"] == RUN]
    board = _by_id(chrome, "leaderboard").text
    assert f"{cell['value']:.4f} ✓" in board

    # the gate's verdict on each run, the items
    gate_rows = chrome.find_elements(By.CSS_SELECTOR, "#gate tbody tr")
    assert [r.text.split(" ")[:2] for r in gate_rows] == [
        [g["run"], g["status"]] for g in gate["runs"]
    ]
    assert _by_id(chrome, "items").text.startswith(f"{len(items)} task ids")

    # a filter: the tasks behind the headline series' error count
    _choose(chrome, "run-choice", text=RUN)
    (headline,) = [s for s in report["series"] if s["role"] == "headline"]
    counts = headline["counts"]
    _choose(chrome, "task-state", value="count:error")
    assert _by_id(chrome, "task-count").text == f"{counts['error']} of {counts['total']} tasks"
    rows = chrome.find_elements(By.CSS_SELECTOR, "#tasks tbody tr")
    assert len(rows) == counts["error"]

    # one drill-down, by the keyboard: Enter on a task, its attempts and issues; Esc back
    (row,) = [r for r in rows if r.get_attribute("data-task") == TASK]
    chrome.execute_script("arguments[0].focus();", row)
    row.send_keys(Keys.ENTER)
    detail = _by_id(chrome, "task-detail")
    assert detail.is_displayed()
    assert _by_id(chrome, "task-title").text.startswith(f"{TASK} · evaluated")
    folder = next((CONFORMANCE / RUN / "details").glob(f"*/{TASK}--*"))
    attempts = sorted(folder.glob("attempt-*"))
    shown = detail.find_elements(By.CSS_SELECTOR, ".attempt h4")
    assert [h.text.split(" · ")[0] for h in shown] == [a.name.replace("-", " ") for a in attempts]
    result = json.loads((attempts[0] / "result.json").read_text(encoding="utf-8"))
    assert result["issues"][0]["message"] in detail.text
    chrome.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not detail.is_displayed()
    assert chrome.switch_to.active_element.get_attribute("data-task") == TASK

    # the text filter, from the keyboard's "/"
    chrome.find_element(By.TAG_NAME, "body").send_keys("/")
    chrome.switch_to.active_element.send_keys("math_v1_")
    _choose(chrome, "task-state", value="")
    assert _by_id(chrome, "task-count").text == f"3 of {counts['total']} tasks"

    urls = _requested_urls(chrome)
    assert url in urls and [u for u in urls if u != url] == []  # the page, nothing else


def test_markup_from_the_results_is_shown_never_run(
    chromium: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    from selenium.webdriver.common.by import By

    page = tmp_path / "hostile.html"
    assert main(["bundle", str(hostile_run(tmp_path)), "-o", str(page)]) == 0
    chrome = chromium
    url = _open(chrome, page)
    (row,) = [
        r
        for r in chrome.find_elements(By.CSS_SELECTOR, "#tasks tbody tr")
        if r.get_attribute("data-task") == TASK_ID
    ]
    assert row.find_element(By.TAG_NAME, "td").text == TASK_ID
    row.click()
    chrome.execute_script(
        "document.querySelectorAll('#task-attempts details').forEach(d => d.open = true)"
    )
    detail = _by_id(chrome, "task-detail").text
    assert MESSAGE.split(" & ")[0] in detail and VERIFIER in detail
    assert chrome.execute_script(
        "return window.__pwned === undefined && !document.querySelector('img');"
    )
    urls = _requested_urls(chrome)
    assert url in urls and [u for u in urls if u != url] == []  # the page, nothing else
