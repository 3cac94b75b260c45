"""The error normaliser's rules, grouping and the comparison of two sides (issue 41)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.engine.model import Attempt, Issue, TaskRecord
from inspector.views.fingerprints import (
    CUT,
    PREFIX,
    RULES,
    FingerprintGroup,
    Fingerprints,
    Occurrence,
    against,
    fingerprint,
    group,
    normalise,
    occurrences,
)

CASES = [
    # (rule, message, normalised)
    ("uuid", "request 3f2a1b4c-1234-4abc-9def-0123456789ab failed", "request <uuid> failed"),
    ("url", "GET https://api.example.com:443/v1/chat?x=1 failed", "GET <url> failed"),
    ("timestamp", "failed at 2026-04-01T00:00:03Z again", "failed at <time> again"),
    ("timestamp", "on 2026-04-01 12:30:01.25+02:00 it broke", "on <time> it broke"),
    ("clock", "at 12:03:04.5 it broke", "at <time> it broke"),
    ("quoted", "KeyError: 'answer_7'", "KeyError: <str>"),
    ("quoted", 'no field "x y" in `cfg`', "no field <str> in <str>"),
    ("path", "file /tmp/run_12/out.txt not found", "file <path> not found"),
    ("path", r"C:\Users\x\a.py line 12", "<path> line <n>"),
    ("path", "see ./logs/a-1.log", "see <path>"),
    ("duration", "evaluate phase exceeded 300.0s", "evaluate phase exceeded <duration>"),
    (
        "duration",
        "retry after 12ms, then 1.5 s, then 3 minutes",
        "retry after <duration>, then <duration>, then <duration>",
    ),
    ("ip", "connect to 10.0.0.1:8080 refused", "connect to <ip>:<port> refused"),
    ("port", "localhost:5432 refused", "localhost:<port> refused"),
    ("hex", "sha deadbeef12 mismatch at 0x7ffd", "sha <hex> mismatch at <hex>"),
    ("number", "HTTP 500: Error code: 500 - upstream", "HTTP <n>: Error code: <n> - upstream"),
    ("number", "retry 3 of 5, score -0.25 or 1e-3.", "retry <n> of <n>, score <n> or <n>."),
    ("space", "a  \n\t b ", "a b"),
]


@pytest.mark.parametrize(("rule", "message", "expected"), CASES)
def test_each_rule_replaces_its_volatile_part(rule: str, message: str, expected: str) -> None:
    assert normalise(message) == expected
    names = [name for name, _, _ in RULES]
    assert rule in names


@pytest.mark.parametrize(
    "message",
    [
        "APITimeoutError: Request timed out.",
        "gpt4o model_v2 failed",
        "it doesn't parse: isn't a mapping",
        "ValueError: grader crashed",
    ],
)
def test_stable_words_are_kept(message: str) -> None:
    assert normalise(message) == message


def test_fingerprint_names_phase_and_code() -> None:
    one = fingerprint("evaluate", "verifier_failed", "exit status 3 after 2.5s")
    two = fingerprint("evaluate", "verifier_failed", "exit status 7 after 10s")
    assert one == two == "evaluate/verifier_failed: exit status <n> after <duration>"
    assert fingerprint("run", "verifier_failed", "exit status 3 after 2.5s") != one


VOLATILE = st.text(alphabet=st.sampled_from(list("0123456789abcdefxX:/.\\-'\"` <>~@+ZTmh_\n")))


@given(st.one_of(st.text(max_size=80), VOLATILE))
def test_normalising_twice_changes_nothing(message: str) -> None:
    """A fingerprint's message is its own normal form (a placeholder next to a digit, a
    quote or a slash starts no new match): seen failing on "0/", "0''", "'\\n'" and "''0''"."""
    once = normalise(message)
    assert normalise(once) == once


@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=0, max_value=10**9))
def test_messages_differing_only_in_numbers_share_a_fingerprint(a: int, b: int) -> None:
    assert fingerprint("run", "x", f"port {a} took {b}") == fingerprint("run", "x", "port 1 took 2")


def _task(task_id: str, *messages: tuple[int, str, str]) -> TaskRecord:
    attempts: dict[int, Attempt] = {}
    for index, code, message in messages:
        issue = Issue("error", "run", code, message)
        old = attempts.get(index)
        issues = (old.issues if old else ()) + (issue,)
        attempts[index] = Attempt(index, "run_error", {}, issues)
    return TaskRecord(task_id, None, 3, "avg", attempts)


def test_group_counts_distinct_attempts_tasks_and_runs() -> None:
    # Two issues of one fingerprint on one attempt count that attempt once.
    tasks = [
        _task("t1", (1, "timeout", "timed out after 3s"), (1, "timeout", "timed out after 4s"),
              (2, "timeout", "timed out after 5s")),
        _task("t2", (1, "timeout", "timed out after 9s"), (1, "crash", "boom")),
    ]  # fmt: skip
    found = occurrences("r1", tasks) + occurrences("r2", tasks[:1])
    groups = {g.code: g for g in group(found)}
    assert (groups["timeout"].attempts, groups["timeout"].tasks, groups["timeout"].runs) == (
        5,
        2,
        2,
    )
    assert groups["timeout"].example == "timed out after 3s"
    assert (groups["crash"].attempts, groups["crash"].tasks, groups["crash"].runs) == (1, 1, 1)
    assert [g.code for g in group(found)] == ["timeout", "crash"]


def test_retry_record_issues_are_fingerprinted_too() -> None:
    tasks = [_task("t1")]
    retry = {"t1": [(2, Issue("error", "run", "model_failed", "HTTP 503 at 10:00:01"))]}
    (one,) = occurrences("r", tasks, retry)
    assert (one.source, one.attempt, one.code) == ("retry", 2, "model_failed")
    assert group([one])[0].fingerprint == "run/model_failed: HTTP <n> at <time>"


def test_against_says_new_grown_gone_and_same() -> None:
    def occ(run: str, task: str, code: str) -> Occurrence:
        return Occurrence(run, task, 1, "run", code, f"{code} 1")

    before = group([occ("a", "t1", "kept"), occ("a", "t1", "grows"), occ("a", "t1", "goes")])
    after = group([occ("b", "t1", "kept"), occ("b", "t1", "grows"), occ("b", "t2", "grows"),
                   occ("b", "t3", "grows"), occ("b", "t1", "fresh")])  # fmt: skip
    changes = {c.group.code: c for c in against(before, after)}
    assert {k: c.status for k, c in changes.items()} == {
        "kept": "same",
        "grows": "grown",
        "goes": "gone",
        "fresh": "new",
    }
    assert (changes["grows"].before, changes["grows"].after, changes["grows"].ratio) == (1, 3, 3.0)
    assert (changes["goes"].before, changes["goes"].after) == (1, 0)
    assert changes["fresh"].ratio is None
    assert [c.status for c in against(before, after)] == ["new", "grown", "gone", "same"]
    assert changes["fresh"].to_json()["status"] == "new"


def test_a_long_message_is_read_up_to_the_prefix_and_says_so() -> None:
    """Issue 48: the fingerprint reads the first PREFIX characters and ends in <cut>; two
    long messages differing only past the prefix are one error; the example is the prefix."""
    head = "RuntimeError: stack overflow " + "frame " * (PREFIX // 6)
    one, two = head + "x" * 10, head + "y" * 10**6
    exact = head[:PREFIX]
    assert fingerprint("run", "c", exact) == "run/c: " + exact.strip()  # PREFIX: not cut
    assert fingerprint("run", "c", one) == fingerprint("run", "c", two)
    assert fingerprint("run", "c", one).endswith(" " + CUT)
    (g,) = group(
        [Occurrence("r", "t", 1, "run", "c", one), Occurrence("r", "t", 2, "run", "c", two)]
    )
    assert (g.cut, g.example, g.attempts) == (True, one[:PREFIX], 2)
    assert g.to_json()["cut"] is True
    (short,) = group([Occurrence("r", "t", 1, "run", "c", exact)])
    assert (short.cut, short.example, short.to_json()["cut"]) == (False, exact, False)


def test_grouping_keeps_no_message() -> None:
    """Issue 48: memory follows the fingerprints, not the messages. 40,000 distinct
    messages of one fingerprint on 20 attempts, made one at a time: grouping them peaks at
    about 0.2 MB, as for 20,000 (main kept every distinct message: 10 MB, twice 5 MB)."""
    import tracemalloc

    def issues() -> Iterator[Occurrence]:
        for i in range(40_000):
            yield Occurrence("r", f"t{i % 20}", 1, "run", "timeout", f"timed out after {i}.5s")

    tracemalloc.start()
    try:
        (g,) = group(issues())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (g.attempts, g.tasks, g.runs) == (20, 20, 1)
    assert peak < 1024**2, peak  # main: 10 MB


def test_runs_grouped_apart_merge_to_the_same_groups() -> None:
    """A worker groups its run and the parent merges (issue 48): the same counts as
    grouping everything at once; the first run's example; a run merged twice is refused."""
    tasks = [
        _task("t1", (1, "timeout", "timed out after 3s"), (2, "timeout", "timed out after 5s")),
        _task("t2", (1, "timeout", "timed out after 9s"), (1, "crash", "boom")),
    ]
    found = {run: occurrences(run, tasks[: 1 + (run != "r1")]) for run in ("r1", "r2", "r3")}
    merged = Fingerprints()
    for items in found.values():
        merged.merge(Fingerprints().add(items).seal())
    merged.merge(Fingerprints().add([]).seal())  # a run without issues changes nothing
    quiet = Fingerprints()
    quiet.add_run("r4")
    merged.merge(quiet.seal())
    assert merged.groups() == group(o for items in found.values() for o in items)
    assert merged.runs == {"r1", "r2", "r3", "r4"}
    assert merged.groups()[0].example == "timed out after 3s"
    with pytest.raises(ValueError, match="r2"):
        merged.merge(Fingerprints().add(found["r2"]).seal())


def test_against_compares_attempts_per_run_when_the_run_counts_differ() -> None:
    """Issue 48: 2 attempts in 2 runs before, 5 in 5 runs after is the same rate, not
    "grown ×2.50"; 6 in 5 runs is grown ×1.20; gone and new are told as before."""

    def side(code: str, runs: int, attempts: int) -> list[FingerprintGroup]:
        return group(Occurrence(f"r{i % runs}", "t", i, "run", code, "x") for i in range(attempts))

    (same,) = against(side("c", 2, 2), side("c", 5, 5), runs=(2, 5))
    assert (same.status, same.before, same.after, same.ratio) == ("same", 2, 5, 1.0)
    assert (same.before_runs, same.after_runs) == (2, 5)
    assert {k: same.to_json()[k] for k in ("before_runs", "after_runs")} == {
        "before_runs": 2,
        "after_runs": 5,
    }
    (grown,) = against(side("c", 2, 2), side("c", 5, 6), runs=(2, 5))
    assert (grown.status, grown.ratio) == ("grown", 1.2)
    # Fewer attempts per run after, though more attempts: same.
    (fewer,) = against(side("c", 1, 2), side("c", 4, 4), runs=(1, 4))
    assert (fewer.status, fewer.ratio) == ("same", 0.5)
    # One run a side: the plain attempt counts, as before.
    (plain,) = against(side("c", 1, 2), side("c", 1, 5))
    assert (plain.status, plain.ratio) == ("grown", 2.5)
