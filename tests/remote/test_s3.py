"""Runs and a results root on a local S3 server read exactly as their local copies.

The server is moto's, on 127.0.0.1 (conftest.py); it counts the object GETs it serves,
so "a reopen transfers only changed objects" is counted where the bytes leave the server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.loading import remote
from tests.conftest import FIXTURE_RUNS

from .conftest import S3

RUNS = sorted(path for path in FIXTURE_RUNS.iterdir() if path.is_dir())


def _objects(run: Path) -> int:
    return sum(1 for p in run.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.mark.parametrize("run", RUNS, ids=[run.name for run in RUNS])
def test_report_json_is_byte_identical_to_the_local_runs(
    run: Path, s3: S3, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["report", str(run), "--json"]) == 0
    local = capsysbinary.readouterr().out
    assert main(["report", s3.url(f"root/{run.name}"), "--json"]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == local == (run / "metrics.json").read_bytes()
    assert s3.transfers == _objects(run)  # every object once, nothing else
    assert s3.counter.writes == []  # never a PUT, POST or DELETE


def test_check_exit_codes(s3: S3, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", s3.url("root/k3_pass")]) == 0
    assert "ok:" in capsys.readouterr().out
    # a run whose stored metrics.json was edited on the server: differs
    stored = json.loads((FIXTURE_RUNS / "k1_micro" / "metrics.json").read_text(encoding="utf-8"))
    stored["series"][0]["counts"]["evaluated"] += 1
    s3.upload_tree(FIXTURE_RUNS / "k1_micro", "edited/k1_micro")
    s3.put("edited/k1_micro/metrics.json", json.dumps(stored, indent=2).encode())
    assert main(["check", s3.url("edited/k1_micro")]) == 1
    assert "counts.evaluated" in capsys.readouterr().out
    # nothing under the URL: unusable, one line naming the URL and not the cache
    assert main(["check", s3.url("root/no_such_run")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"inspector: {s3.url('root/no_such_run')}: no objects under this URL"


def test_messages_name_the_url_not_the_cache(
    s3: S3, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", s3.url("root/load_problems"), "--json"]) == 0
    err = capsys.readouterr().err
    assert f"{s3.url('root/load_problems')}/details/normal/chat_v3_8--" in err
    assert str(tmp_path) not in err and "agentcompass-inspector/remote" not in err


def test_tasks_and_diff_accept_urls(s3: S3, capsys: pytest.CaptureFixture[str]) -> None:
    run = FIXTURE_RUNS / "k3_avg_hierarchy"
    assert main(["tasks", str(run), "--series", "all", "--format", "jsonl"]) == 0
    local = capsys.readouterr().out
    assert main(["tasks", s3.url("root/k3_avg_hierarchy"), "--series", "all",
                 "--format", "jsonl"]) == 0  # fmt: skip
    assert capsys.readouterr().out == local
    a, b = s3.url("root/compare_a"), s3.url("root/compare_b")
    assert main(["diff", a, b, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["a"], data["b"]) == (a, b)


def test_a_reopen_transfers_only_changed_objects(
    s3: S3, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    run = FIXTURE_RUNS / "k1_micro"
    s3.upload_tree(run, "live/k1_micro")
    url = s3.url("live/k1_micro")
    s3.counter.reset()
    assert main(["report", url, "--json"]) == 0
    first = capsysbinary.readouterr().out
    assert s3.transfers == _objects(run)

    remote.MIRRORED.clear()  # as a new inspector process
    s3.counter.reset()
    assert main(["report", url, "--json"]) == 0
    assert capsysbinary.readouterr().out == first
    assert s3.transfers == 0 and s3.counter.lists >= 1
    assert s3.counter.writes == []

    # one object rewritten, one removed: one transfer, and the mirror follows both
    remote.MIRRORED.clear()
    s3.counter.reset()
    task = next(run.glob("details/*/*/task.json")).parent.relative_to(run).as_posix()
    changed = f"live/k1_micro/{task}/attempt-1/result.json"
    payload = json.loads((run / task / "attempt-1" / "result.json").read_text(encoding="utf-8"))
    payload["metrics"] = {key: not value if isinstance(value, bool) else value
                          for key, value in payload["metrics"].items()}  # fmt: skip
    s3.put(changed, json.dumps(payload, indent=2, ensure_ascii=False).encode())
    s3.delete("live/k1_micro/summary.md")
    mirror = remote.mirror(url)
    assert s3.transfers == 1
    assert mirror.fetched == [f"{task}/attempt-1/result.json"]
    assert mirror.removed == ["summary.md"]
    assert not (mirror.local / "summary.md").exists()
    assert json.loads((mirror.local / task / "attempt-1" / "result.json").read_text())[
        "metrics"] == payload["metrics"]  # fmt: skip
    assert main(["report", url, "--json"]) == 0
    assert capsysbinary.readouterr().out != first  # the recomputation sees the change


def test_escaping_keys_and_huge_objects_are_refused(
    s3: S3, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    run = FIXTURE_RUNS / "k3_pass"
    s3.upload_tree(run, "odd/k3_pass")
    s3.put("odd/k3_pass/details/..//../outside.json", b"{}")
    s3.put("odd/k3_pass/details/big.bin", b"x" * 64 * 1024)
    s3.put("odd/k3_pass2/run_info.json", b"{}")  # beside the prefix, not under it
    monkeypatch.setenv("INSPECTOR_REMOTE_MAX_OBJECT_MB", "0.05")  # 52 KiB
    url = s3.url("odd/k3_pass")
    assert main(["report", url, "--json"]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == (run / "metrics.json").read_bytes()
    err = captured.err.decode()
    assert f"{url}/details/..//../outside.json: refused:" in err
    assert f"{url}/details/big.bin: refused: larger than the limit" in err
    mirror = remote.mirror(url)
    tree = mirror.local
    assert not (tree / "details" / "big.bin").exists()
    assert not any(p.name == "outside.json" for p in tree.parent.parent.rglob("outside.json"))
    assert not (tree.parent / "k3_pass2").exists()
    assert {key for key, _ in mirror.refused} >= {"details/..//../outside.json", "details/big.bin"}


def test_stats_of_a_url_is_the_local_runs(s3: S3, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("k3_pass", "k3_avg_hierarchy"):
        for fmt in ("table", "json"):
            assert main(["stats", str(FIXTURE_RUNS / name), "--format", fmt]) == 0
            local = capsys.readouterr().out
            assert main(["stats", s3.url(f"root/{name}"), "--format", fmt]) == 0
            assert capsys.readouterr().out == local
    assert s3.counter.writes == []


def test_check_of_a_remote_root_is_the_local_roots(
    s3: S3, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(FIXTURE_RUNS)]) == 0
    local = capsys.readouterr().out
    assert main(["check", s3.url("root")]) == 0
    assert capsys.readouterr().out == local
    assert f"{len(RUNS)} runs: {len(RUNS)} ok" in local
    assert s3.transfers == sum(map(_objects, RUNS))  # each object once, for all the runs
    assert s3.counter.writes == []
    # one run under a root edited on the server: that run differs, the root exits 1
    s3.upload_tree(FIXTURE_RUNS / "k1_micro", "edited_root/k1_micro")
    s3.upload_tree(FIXTURE_RUNS / "k3_pass", "edited_root/k3_pass")
    s3.put("edited_root/k3_pass/metrics.json",
           (FIXTURE_RUNS / "k1_micro" / "metrics.json").read_bytes())  # fmt: skip
    assert main(["check", s3.url("edited_root"), "--format", "json"]) == 1
    statuses = {r["run"]: r["status"] for r in json.loads(capsys.readouterr().out)}
    assert statuses == {"k1_micro": "ok", "k3_pass": "differs"}


def test_leaderboard_of_a_remote_root_is_the_local_roots(
    s3: S3, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["leaderboard", str(FIXTURE_RUNS), "--format", "json"]) == 0
    local = capsys.readouterr().out
    assert main(["leaderboard", s3.url("root"), "--format", "json"]) == 0
    assert capsys.readouterr().out == local
    assert s3.counter.writes == []


def test_export_reads_a_remote_root(
    s3: S3, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", s3.url("root"), "--format", "jsonl", "--out", str(tmp_path / "o")]) == 0
    written = capsys.readouterr().out.split()
    assert len(written) == len(RUNS)
    local = tmp_path / "o" / "k3_pass"
    assert (
        main(["tasks", str(FIXTURE_RUNS / "k3_pass"), "--series", "all", "--format", "jsonl"]) == 0
    )
    expected = capsys.readouterr().out
    assert next(local.glob("*.tasks.jsonl")).read_text(encoding="utf-8") == expected


def test_a_missing_backend_or_bad_url_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "nosuchscheme://x/y", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("inspector: nosuchscheme://x/y: ") and err.count("\n") == 1


def test_gate_on_a_bucket_names_the_url_and_obeys_no_policy_it_carries(
    s3: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`inspector gate URL` (issues 42, 48): the runs are named by the URL; a policy beside
    them on the server is not obeyed (results could carry their own, empty one): the policy
    is the one of the folder the gate runs in."""
    s3.put("gated/inspector-gate.toml", b"# nothing checked\n")
    s3.upload_tree(FIXTURE_RUNS / "k3_pass", "gated/k3_pass")
    stored = json.loads((FIXTURE_RUNS / "k1_micro" / "metrics.json").read_text(encoding="utf-8"))
    stored["series"][0]["counts"]["evaluated"] += 1
    s3.upload_tree(FIXTURE_RUNS / "k1_micro", "gated/k1_micro")
    s3.put("gated/k1_micro/metrics.json", json.dumps(stored, indent=2).encode())
    uploaded = list(s3.counter.writes)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inspector-gate.toml").write_text("require_stored_equal = true\n", "utf-8")
    assert main(["gate", s3.url("gated")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("FAIL k1_micro: run: require_stored_equal: stored metrics.json ")
    assert lines[1] == "pass k3_pass: 1 passed, 0 failed, 0 skipped"
    assert lines[2] == "2 runs: 1 pass, 1 fail, 0 unusable; policy: inspector-gate.toml"
    assert s3.counter.writes == uploaded  # the gate writes nothing there


def test_a_key_too_long_for_a_file_name_is_refused_and_the_rest_read(
    s3: S3, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Issue 39: one object whose key has a component over 255 bytes made every command on
    the run exit 2 with "File name too long", naming the cache folder."""
    run = FIXTURE_RUNS / "k1_micro"
    s3.upload_tree(run, "long/k1_micro")
    name = "é" * 200 + ".json"  # 405 bytes in UTF-8
    s3.put(f"long/k1_micro/details/{name}", b"{}")
    url = s3.url("long/k1_micro")
    for argv in (["report", url, "--json"], ["check", url]):
        remote.MIRRORED.clear()  # each command a process of its own
        code = main(argv)
        captured = capsysbinary.readouterr()
        assert code == 0, captured.err
        err = captured.err.decode()
        assert f"{url}/details/{name}: refused: a component of the key is longer than 255" in err
        assert "agentcompass-inspector" not in err  # the URL is named, never the cache folder
    assert main(["report", url, "--json"]) == 0
    assert capsysbinary.readouterr().out == (run / "metrics.json").read_bytes()
    code = main(["check", s3.url("long")])  # a root above it
    assert code == 0, capsysbinary.readouterr().err


def test_a_relative_xdg_cache_home_is_ignored_by_every_cache(
    s3: S3,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """One cache-folder rule (platformdirs): a relative XDG_CACHE_HOME is ignored, as the
    XDG specification says, by the remote mirror as by the task cache; nothing is written
    under the current folder."""
    from inspector.loading import store

    home = tmp_path / "home"
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.chdir(work)
    assert main(["report", s3.url("root/k1_micro"), "--json"]) == 0
    capsysbinary.readouterr()
    assert list(work.rglob("*")) == []
    assert remote.mirror(s3.url("root/k1_micro")).local.is_relative_to(home / ".cache")
    assert store.cache_root() == home / ".cache" / "agentcompass-inspector"
