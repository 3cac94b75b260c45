#!/usr/bin/env python3
"""Every registered benchmark against AgentCompass 1.0.1: k=1 and k=3, with and without
metrics.json, and a ``--k 1`` what-if of each (development only, not CI; issue 39).

Run with the project venv (the oracle's venv scores the runs, in one process)::

    export LITELLM_LOCAL_MODEL_COST_MAP=True
    .venv/bin/python tests/engine/oracle_sweep.py --acvenv ~/.cache/agentcompass-oracle/venv \\
        --seeds 1 2 --work /tmp/oracle-sweep

For each seed and each benchmark of ``inspector.engine.benchmarks.BUILTIN_BENCHMARKS`` it
writes runs with ``oracle_diff.write_corpus_case`` at k=1 avg, k=3 avg and (binary primary)
k=3 pass, plus for each k=3 run a copy holding only attempt 1 at k=1 (what AgentCompass
would have written had the run been made at k=1), and lets AgentCompass score all of them
(``oracle_batch.py``). Then, through the inspector's own command line (``report``, in this
process, with a cache folder of its own):

- **with**: ``report --json`` / ``--markdown`` equal AgentCompass's metrics.json /
  summary.md byte for byte, and ``check`` exits 0;
- **without**: the same on a copy without metrics.json and summary.md; frontier_engineering's
  table paths in ``extra`` (provenance, AgentCompass's installation) are then the inspector's
  documented defaults, so the comparison replaces the stored ones with those;
- **what-if**: ``report --k 1`` equals AgentCompass's report of the attempt-1 copy at k=1
  (``extra.inspector_derived_plan`` and the ``## Derived plan`` heading taken out).

A run AgentCompass refuses must be refused by the inspector (``report`` exits 2), in every
mode. Exit status 0 when every comparison is identical and every refusal shared.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

os.environ.setdefault("XDG_CACHE_HOME", tempfile.mkdtemp(prefix="oracle-sweep-cache-"))

import oracle_diff  # noqa: E402

from inspector.cli.main import main as inspector_main  # noqa: E402
from inspector.engine.benchmarks import BUILTIN_BENCHMARKS, builtin_contract  # noqa: E402
from inspector.engine.reference import BASELINE_CSV, PODIUM_CSV  # noqa: E402

DERIVED_KEY = "inspector_derived_plan"


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = inspector_main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def plans(benchmark: str) -> list[tuple[int, str]]:
    contract = builtin_contract(benchmark)
    assert contract is not None
    binary = contract.primary.kind == "binary_success"
    return [(1, "avg"), (3, "avg"), *([(3, "pass")] if binary else [])]


def at_k1(run_dir: Path) -> Path:
    """A copy of ``run_dir`` holding only attempt 1, planned at k=1."""
    target = run_dir.with_name(run_dir.name + "__at_k1")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(run_dir, target)
    info = json.loads((target / "run_info.json").read_text("utf-8"))
    info["request"]["execution"]["attempts"]["k"] = 1
    (target / "run_info.json").write_text(json.dumps(info, indent=2, sort_keys=True), "utf-8")
    for task in target.glob("details/*/*/task.json"):
        index = json.loads(task.read_text("utf-8"))
        for key in [key for key in index["attempts"] if key != "1"]:
            shutil.rmtree(task.parent / index["attempts"].pop(key))
        index["attempt_plan"]["k"] = 1
        task.write_text(json.dumps(index, indent=2), "utf-8")
    return target


def default_paths(text: str) -> str:
    """AgentCompass's metrics.json with frontier_engineering's table paths as the inspector
    writes them without a stored report."""
    document = json.loads(text)
    for table, key, value in (
        ("frontier_engineering_medal", "podium_csv", PODIUM_CSV),
        ("frontier_engineering_rank", "baseline_csv", BASELINE_CSV),
    ):
        for entry in (document.get("extra") or {}).get(table, {}).values():
            if key in entry:
                entry[key] = value
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def underived(metrics: str, summary: str) -> tuple[str, str]:
    """A what-if's outputs without the derived-plan label."""
    document = json.loads(metrics) if metrics else {}
    document.get("extra", {}).pop(DERIVED_KEY, None)
    text = json.dumps(document, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if "\n## Derived plan: " in summary:
        title, rest = summary.split("\n", 1)
        summary = title + "\n" + rest.split("\n", 4)[4]
    return text, summary


def compare(
    run_dir: Path, expected_json: str, expected_md: str, *extra: str, what_if: bool = False
) -> str:
    code_j, metrics, err = cli("report", str(run_dir), "--json", *extra)
    code_m, summary, _ = cli("report", str(run_dir), "--markdown", *extra)
    if code_j or code_m:
        return f"DIVERGENCE inspector exits {code_j}: {err.strip()[-200:]}"
    if what_if:
        metrics, summary = underived(metrics, summary)
    if metrics != expected_json:
        return "DIVERGENCE metrics.json " + oracle_diff._first_diff(expected_json, metrics)
    if summary != expected_md:
        return "DIVERGENCE summary.md " + oracle_diff._first_diff(expected_md, summary)
    return "identical"


def refused(run_dir: Path, *extra: str) -> str:
    code, _, err = cli("report", str(run_dir), "--json", *extra)
    if code == 2:
        return "both refuse"
    return f"DIVERGENCE oracle refuses, inspector exits {code} {err.strip()[-120:]}"


def sweep(acvenv: Path, seeds: list[int], work: Path, only: list[str] | None = None) -> int:
    template = work / "template"
    if not list(template.glob("rnd_*")):
        oracle_diff.generate(acvenv, 1, 1, template, None)
    base = next(template.glob("rnd_*"))
    runs: list[tuple[str, Path, Path | None]] = []
    for seed in seeds:
        root = work / f"sweep_s{seed}"
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        for benchmark in only or BUILTIN_BENCHMARKS:
            for k, strategy in plans(benchmark):
                run = oracle_diff.write_corpus_case(
                    root,
                    base,
                    seed,
                    0,
                    benchmark=benchmark,
                    k=k,
                    strategy=strategy,
                    keep_first=True,
                )
                runs.append((benchmark, run, at_k1(run) if k > 1 else None))
    dirs = [str(p) for _, run, k1 in runs for p in (run, k1) if p is not None]
    verdicts_file = work / "oracle_verdicts.json"
    python = str(acvenv / "bin" / "python")
    subprocess.run([python, str(HERE / "oracle_batch.py"), str(verdicts_file), *dirs], check=True)
    accepted = {d: ok for d, (ok, _) in json.loads(verdicts_file.read_text("utf-8")).items()}
    tally: dict[str, dict[str, int]] = {}
    problems: list[str] = []

    def note(mode: str, verdict: str, run: Path) -> None:
        counts = tally.setdefault(mode, {"identical": 0, "both refuse": 0, "divergent": 0})
        key = verdict if verdict in counts else "divergent"
        counts[key] += 1
        if key == "divergent":
            problems.append(f"{run.name} [{mode}]: {verdict}")

    for _, run, k1 in runs:
        if accepted[str(run)]:
            stored_json = (run / "metrics.json").read_text("utf-8")
            stored_md = (run / "summary.md").read_text("utf-8")
            verdict = compare(run, stored_json, stored_md)
            code, out, _ = cli("check", str(run))
            if verdict == "identical" and code != 0:
                verdict = f"DIVERGENCE check exits {code}: {out[:160]}"
            note("with metrics.json", verdict, run)
            bare = run.with_name(run.name + "__bare")
            shutil.rmtree(bare, ignore_errors=True)
            shutil.copytree(run, bare)
            (bare / "metrics.json").unlink()
            (bare / "summary.md").unlink()
            note("without metrics.json", compare(bare, default_paths(stored_json), stored_md), run)
        else:
            note("with metrics.json", refused(run), run)
        # The what-if: AgentCompass's report of attempt 1 at k=1 (the run itself at k=1).
        reference = k1 if k1 is not None else run
        if not accepted[str(reference)]:
            if accepted[str(run)]:
                note("--k 1 what-if", refused(run, "--k", "1"), run)
            continue
        if not accepted[str(run)]:
            continue  # AgentCompass refuses the run itself: no what-if of it
        expected_json = (reference / "metrics.json").read_text("utf-8")
        expected_md = (reference / "summary.md").read_text("utf-8")
        verdict = compare(run, expected_json, expected_md, "--k", "1", what_if=k1 is not None)
        note("--k 1 what-if", verdict, run)

    benchmarks = sorted({b for b, _, _ in runs})
    print(f"benchmarks: {len(benchmarks)}  runs: {len(runs)}  seeds: {seeds}")
    for mode, counts in tally.items():
        total = sum(counts.values())
        print(
            f"  {mode}: {counts['identical']} identical, {counts['both refuse']} refused by both, "
            f"{counts['divergent']} divergent, of {total}"
        )
    medal = sum(
        any(
            s["metric_id"].startswith("medal_score")
            for s in json.loads((run / "metrics.json").read_text("utf-8"))["series"]
        )
        for _, run, _ in runs
        if (run / "metrics.json").is_file()
    )
    if any(b == "frontier_engineering" for b, _, _ in runs):
        print(f"  frontier_engineering runs with medal series: {medal}")
    for line in problems:
        print(line)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--acvenv", type=Path, default=Path.home() / ".cache/agentcompass-oracle/venv"
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--work", type=Path, default=Path("/tmp/oracle-sweep"))
    parser.add_argument(
        "--benchmarks", nargs="+", help="only these (default: every registered one)"
    )
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    return sweep(args.acvenv, args.seeds, args.work, args.benchmarks)


if __name__ == "__main__":
    raise SystemExit(main())
