"""``inspector serve`` in a real browser: Debian's headless Chromium, driven by selenium.

The page loads with no request leaving 127.0.0.1, the app answers keys (the tasks screen, the
diagnostics screen without the pager and editor keys), and a page of another origin cannot
open the app's websocket even with the token. In CI (``CI`` set) a missing Chromium fails the
test: ``.ci/run`` installs it (``apt-get install chromium chromium-driver``).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.app.serving import Served, serving

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,800",
)
# Keeps every binary frame the page's websocket receives (what xterm.js is given to draw).
RECORD_WEBSOCKET = """
window.__received = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const socket = new NativeWebSocket(url, protocols);
  const decoder = new TextDecoder();
  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string") {
      window.__received.push(decoder.decode(event.data, {stream: true}));
    }
  });
  return socket;
};
window.WebSocket.prototype = NativeWebSocket.prototype;
"""
ESCAPES = re.compile(r"\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")
NETWORK_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})


def _browser_or_reason() -> tuple[str, str] | str:
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if browser is None or driver is None:
        return (
            "Chromium or chromedriver is not installed (apt-get install chromium chromium-driver)"
        )
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return browser, driver


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[object]:
    """A headless Chromium (fails in CI when missing; skips, saying so, elsewhere)."""
    found = _browser_or_reason()
    if isinstance(found, str):
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser test: {found}; .ci/run installs it")
        pytest.skip(f"not CI: {found}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = found
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    chrome = webdriver.Chrome(options=options, service=Service(driver))
    try:
        chrome.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_WEBSOCKET}
        )
        yield chrome
    finally:
        chrome.quit()


def _wait(what: str, check: Callable[[], object], seconds: float = 60) -> object:
    deadline = time.monotonic() + seconds
    while not (result := check()):
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.1)
    return result


def _received_text(chrome, since: int = 0) -> str:  # type: ignore[no-untyped-def]
    chunks = chrome.execute_script("return window.__received.slice(arguments[0]);", since)
    return ESCAPES.sub("", "".join(chunks))


def _frames(chrome) -> int:  # type: ignore[no-untyped-def]
    return int(chrome.execute_script("return window.__received.length;"))


def _press(chrome, keys: str) -> None:  # type: ignore[no-untyped-def]
    """Type into the terminal as a person does: xterm.js reads keys from its helper
    textarea, which Chromium 150 no longer lets WebDriver type into directly ("element not
    interactable": it is kept out of sight), so it is focused and the keys go to the page."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    area = chrome.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
    chrome.execute_script("arguments[0].focus();", area)
    ActionChains(chrome).send_keys(keys).perform()


def _requested_urls(chrome) -> list[str]:  # type: ignore[no-untyped-def]
    urls = []
    for entry in chrome.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            urls.append(params["request"]["url"])
        elif message["method"] == "Network.webSocketCreated":
            urls.append(params["url"])
    return urls


def _leaving(urls: list[str], served: Served) -> list[str]:
    """The requests that go anywhere but the server (browser-internal schemes are not sent)."""
    return [
        url
        for url in urls
        if urlsplit(url).scheme in NETWORK_SCHEMES and urlsplit(url).netloc != served.netloc
    ]


def test_the_page_works_offline_and_answers_keys(chromium, run_path, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.keys import Keys

    chrome = chromium
    with serving(run_path("k3_avg_hierarchy")) as served:
        chrome.get(served.url)
        _wait("the app's first screen", lambda: "correct.avg@3" in _received_text(chrome))
        _wait(
            "the terminal shown",
            lambda: chrome.execute_script(
                "return document.body.classList.contains('-first-byte')"
                " && document.fonts.check('16px \"Roboto Mono\"');"
            ),
        )
        mark = _frames(chrome)
        _press(chrome, "t")
        _wait("the tasks screen", lambda: "build-cython-ext" in _received_text(chrome, mark))
        chrome.save_screenshot(str(tmp_path / "tasks.png"))
        mark = _frames(chrome)
        _press(chrome, Keys.ENTER)  # the first task
        _wait("the task screen", lambda: "Diagnostics" in _received_text(chrome, mark))
        mark = _frames(chrome)
        _press(chrome, "d")
        # "Search" and "Wrap" are the diagnostics screen's own keys (the task screen's footer
        # has "Copy" too, so that word alone does not say the diagnostics screen is shown).
        footer = _wait(
            "the diagnostics footer",
            lambda: all(word in _received_text(chrome, mark) for word in ("Search", "Wrap")),
        )
        assert footer
        text = _received_text(chrome, mark)
        assert "Pager" not in text and "Editor" not in text
        urls = _requested_urls(chrome)
        assert any(u.startswith(f"ws://{served.netloc}/ws/") for u in urls)
        assert not _leaving(urls, served)
        assert any(u.endswith(".ttf") for u in urls)  # the fonts came from the server
        assert not chrome.execute_script("return document.body.classList.contains('-closed');")


FOREIGN_PAGE = """<!DOCTYPE html><html><body><script>
const socket = new WebSocket(new URLSearchParams(location.search).get("target"));
socket.onopen = () => { document.title = "opened"; };
socket.onclose = () => { if (document.title !== "opened") document.title = "refused"; };
</script></body></html>"""


def test_a_page_of_another_origin_cannot_open_the_websocket(chromium, run_path, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(FOREIGN_PAGE, encoding="utf-8")
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "site")
    )
    foreign = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=foreign.serve_forever, daemon=True)
    thread.start()
    chrome = chromium
    try:
        with serving(run_path("k1_micro")) as served:
            page = f"http://127.0.0.1:{foreign.server_address[1]}/index.html?target="
            chrome.get(page + served.websocket)  # the right token, from the wrong origin
            _wait("the websocket refused", lambda: chrome.title in ("opened", "refused"))
            assert chrome.title == "refused"
    finally:
        foreign.shutdown()
        foreign.server_close()
