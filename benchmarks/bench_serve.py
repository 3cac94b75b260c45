"""``inspector serve`` timings (issue 13): page to app in Chromium, and shutdown.

    .venv/bin/python benchmarks/bench_serve.py [RUN] [--repeat 3]

Prints, for each repeat (then the median), in seconds:
  page      from asking headless Chromium (Debian's, as the browser test) to load the tokened
            address until the terminal shows the app's first bytes (body.-first-byte);
  app       until the app's first screen has arrived (the series table's first series id);
  sigterm   with a websocket client connected and the app drawn, from SIGTERM to the server's
            exit (its apps' process groups ended).
Nothing here runs in the test suite; the figures go in the issue notes.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.app.serving import serving  # noqa: E402
from tests.app.test_serve_browser import CHROMIUM_FLAGS, RECORD_WEBSOCKET  # noqa: E402


def page_times(run: Path, first_series: str) -> tuple[float, float]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as profile:
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        chrome = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
        chrome.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_WEBSOCKET})
        try:
            with serving(run) as served:
                started = time.monotonic()
                chrome.get(served.url)
                page = app = None
                while app is None and time.monotonic() - started < 120:
                    now = time.monotonic() - started
                    if page is None and chrome.execute_script(
                        "return document.body.classList.contains('-first-byte');"
                    ):
                        page = now
                    if page is not None and first_series in "".join(
                        chrome.execute_script("return window.__received;")
                    ):
                        app = now
                    time.sleep(0.02)
                assert page is not None and app is not None, "the app did not show"
                return page, app
        finally:
            chrome.quit()


async def _sigterm(served) -> float:  # type: ignore[no-untyped-def]
    async with aiohttp.ClientSession() as session:
        client = await session.ws_connect(served.websocket + "?width=100&height=30")
        received = 0
        while received < 2000:  # the first screen, drawn
            received += len((await client.receive(timeout=60)).data)
        started = time.monotonic()
        served.process.terminate()
        await asyncio.to_thread(served.process.wait, 60)
        return time.monotonic() - started


def sigterm_time(run: Path) -> float:
    with serving(run) as served:
        return asyncio.run(_sigterm(served))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", nargs="?", default=str(ROOT / "fixtures/runs/k3_avg_hierarchy"))
    parser.add_argument("--series", default="correct.avg@3", help="text of the first screen")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    rows = []
    for _ in range(options.repeat):
        page, app = page_times(Path(options.run), options.series)
        rows.append((page, app, sigterm_time(Path(options.run))))
        print("page {:6.2f}  app {:6.2f}  sigterm {:6.2f}".format(*rows[-1]), flush=True)
    medians = [statistics.median(column) for column in zip(*rows, strict=True)]
    print("median: page {:6.2f}  app {:6.2f}  sigterm {:6.2f}".format(*medians))


if __name__ == "__main__":
    main()
