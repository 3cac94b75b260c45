"""The linear-time rules (issue 48) fingerprint ordinary messages exactly as the rules of
issue 41 did, so fingerprints stored or compared across versions (``gate --against``) keep
matching. :data:`OLD_RULES` is main's table before issue 48, kept here as the reference."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from inspector.views.fingerprints import PREFIX, fingerprint
from tests.conftest import ROOT
from tests.items.planted import generator

OLD_RULES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("space", re.compile(r"\s+"), " "),
    (
        "uuid",
        re.compile(
            r"(?<![\w>])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
            r"(?![\w<])"
        ),
        "<uuid>",
    ),
    ("url", re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+"), "<url>"),
    (
        "timestamp",
        re.compile(
            r"(?<![\w>])\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
            r"(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w:<])"
        ),
        "<time>",
    ),
    ("clock", re.compile(r"(?<![\w:.>])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\w:<])"), "<time>"),
    ("quoted", re.compile(r"(?<![\w>])'[^'\n]*'(?![\w<])|\"[^\"\n]*\"|`[^`\n]*`"), "<str>"),
    (
        "path",
        re.compile(
            r"(?<![\w/.<>])(?:[A-Za-z]:\\|~?/|\.{1,2}/)(?:[\w.@+~-]+[/\\])*[\w.@+~-]+[/\\]?"
        ),
        "<path>",
    ),
    (
        "duration",
        re.compile(
            r"(?<![\w.>])\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds?|min|mins|minutes?"
            r"|m|h|hrs?|hours?)(?![\w<])"
        ),
        "<duration>",
    ),
    ("ip", re.compile(r"(?<![\w.>])\d{1,3}(?:\.\d{1,3}){3}(?![\w.<])"), "<ip>"),
    ("port", re.compile(r"(?<=[A-Za-z0-9\]>]):\d{2,5}(?!\w)"), ":<port>"),
    (
        "number",
        re.compile(r"(?<![\w.>])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w<]|\.\d)"),
        "<n>",
    ),
    (
        "hex",
        re.compile(r"(?<![\w>])(?:0[xX][0-9a-fA-F]+|(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,})(?![\w<])"),
        "<hex>",
    ),
)


def old_fingerprint(phase: str, code: str, message: str) -> str:
    text = message
    for _, pattern, placeholder in OLD_RULES:
        text = pattern.sub(placeholder, text)
    return f"{phase}/{code}: {text.strip()}"


def _fixture_messages() -> set[str]:
    """Every issue message in the fixture runs (fixtures/), and the planted root's."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("message"), str) and "code" in value:
                found.add(value["message"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted((ROOT / "fixtures").rglob("*.json")):
        try:
            walk(json.loads(path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            continue
    planted = generator()
    for serial, (model, run, task, number) in enumerate(
        (m, r, t, n) for m in planted.MODELS for r in (1, 2) for t in planted.TASKS
        for n in (1, 2)
    ):  # fmt: skip
        for issue in planted.attempt(model, run, task, number, serial)["issues"]:
            found.add(issue["message"])
    return found


# Messages as model APIs, sandboxes and verifiers write them (issue 41's examples).
WRITTEN = [
    "openai.APIConnectionError: Connection error. (https://api.openai.com/v1/chat/completions)",
    "GET https://api.example.com:443/v1/chat?x=1 failed",
    "git+ssh://git@github.com/org/repo.git not reachable; s3://bucket/key/part-0001.parquet",
    "chrome-extension://abcdefghijklmnop/page.html blocked",
    "HTTPConnectionPool(host='10.0.0.12', port=8080): Max retries exceeded with url: /v1/x",
    'Traceback (most recent call last):\n  File "/app/grader.py", line 88, in score\n'
    "    raise ValueError(f'bad answer {x!r}')\nValueError: bad answer 'FINAL: 12'",
    "docker: Error response from daemon: container 3f2a1b4c5d6e7f80 is not running",
    "request 3f2a1b4c-1234-4abc-9def-0123456789ab failed at 2026-04-01T00:00:03.125+02:00",
    "sandbox tb2-2f3a61e5254f timed out after 1800.0s (limit 30 min) at 12:03:04",
    "C:\\Users\\ci\\work\\run_12\\out.txt: permission denied; see ./logs/a-1.log or ~/x",
    "exit status 137 (OOMKilled) after 512MiB; sha256:deadbeefcafebabe0123456789abcdef",
    "rate limited: retry after 2s, 1.5 s, 3 minutes; quota 0.25 of 1e-3 per 5ms",
    "ws://localhost:8765/socket closed (code 1006); tcp://127.0.0.1:5432 refused",
    '`pytest -q` failed: 3 of 12 tests; "expected 42, got 41" in tests/test_x.py::t',
    "JSONDecodeError: Expecting value: line 1 column 1 (char 0) in '{\"a\": 1'",
]


@pytest.mark.parametrize("message", sorted(_fixture_messages()) + WRITTEN)
def test_ordinary_messages_keep_their_fingerprints(message: str) -> None:
    assert len(message) <= PREFIX
    assert fingerprint("run", "x", message) == old_fingerprint("run", "x", message)


def test_the_corpus_reaches_every_rule() -> None:
    """The messages above exercise each rule (else the comparison proves little)."""
    corpus = sorted(_fixture_messages()) + WRITTEN
    assert len(corpus) >= 50
    for name, pattern, _ in OLD_RULES:
        assert any(pattern.search(m) for m in corpus), name


TEXT = st.text(
    alphabet=st.sampled_from(list("ab.Z019fxX:/\\-+'\"` <>~@_\nTmhs")) | st.characters(),
    max_size=200,
)
URLISH = st.from_regex(r"[ -~]{0,8}[A-Za-z0-9+._ -]{0,40}://[ -~]{0,12}", fullmatch=True)


@given(TEXT | URLISH)
def test_random_text_keeps_its_fingerprint(message: str) -> None:
    """Anything but a URL scheme longer than 32 characters (which the url rule no longer
    reads whole) and two single quotes side by side (the quoted rule no longer starts or ends
    a value beside another quote, so that a fingerprint is its own normal form)
    fingerprints as before."""
    assume(not re.search(r"[A-Za-z0-9+.-]{33}://", message))
    assume("''" not in message)
    assert fingerprint("run", "x", message) == old_fingerprint("run", "x", message)
