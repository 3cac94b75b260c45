"""``inspector bundle PATH -o report.html``: one self-contained HTML file for a run or a
results root, opened from disk with no server and no network.

The page holds the answers the other commands print (:mod:`inspector.cli.bundle_data`) as
JSON inside ``<script type="application/json">`` (``<``, ``>``, ``&`` escaped, and every
non-ASCII character, U+2028 / U+2029 among them), and a small script
(``inspector/data/bundle/``) that draws it with ``textContent`` only. A Content Security
Policy allows that script and style alone (by hash), no other script and no request.
Its size is bounded (``--max-mb``): when over, the trajectories are cut first, then the
verifier output, and the page says so.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
from importlib import resources
from typing import Any

from inspector.answers.run import Unusable
from inspector.cli.bundle_data import Cuts, evidence_cut, run_data, runs_under
from inspector.cli.common import EXIT_OK, add_plan_options, overrides_from
from inspector.output_files import OutputError, output_target, write_output
from inspector.results.problems import RunReadError

MAX_MB = 64.0
"""The default size limit: a 10,000-task run at k=3 with 1,000 characters of trajectory
per attempt fits uncut (41 MiB, measured in docs/commands.md)."""
TRAJECTORY_CHARS = 1000
VERIFIER_CHARS = 1000
MIB = 1024**2


def register(subparsers: Any) -> None:
    """Add ``bundle`` to the ``inspector`` command."""
    bundle = subparsers.add_parser(
        "bundle",
        help="write one self-contained HTML file of a run or a results root (no server)",
        description=(
            "Write one HTML file that opens from disk with no server and no network: the "
            "leaderboard of a root (✓ / ≠ / ! and intervals), per run the series with their "
            "counts and intervals, the category tree, the distribution, the plan, every task "
            "(filterable, sortable) and per task its attempts with issues, the verifier's "
            "output and the trajectory, cut to a stated size."
        ),
    )
    bundle.add_argument("path", help="a run directory or a results root")
    bundle.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the HTML file to write (never inside PATH)")  # fmt: skip
    bundle.add_argument("--max-mb", type=float, default=MAX_MB, metavar="MB",
                        help=f"the largest file to write, in MiB (default {MAX_MB:g}); "
                        "over it the trajectories are cut first, then the verifier output")  # fmt: skip
    bundle.add_argument("--trajectory-chars", type=int, default=TRAJECTORY_CHARS, metavar="N",
                        help=f"characters of each attempt's trajectory kept (default {TRAJECTORY_CHARS})")  # fmt: skip
    bundle.add_argument("--verifier-chars", type=int, default=VERIFIER_CHARS, metavar="N",
                        help=f"characters of each attempt's verifier output kept (default {VERIFIER_CHARS})")  # fmt: skip
    bundle.add_argument(
        "--gate", action="store_true", help="with the gate's verdict (as `inspector gate`)"
    )
    bundle.add_argument(
        "--policy", metavar="FILE", help="the gate's policy (as `inspector gate --policy`)"
    )
    bundle.add_argument(
        "--items", action="store_true", help="with the items flags (as `inspector items`)"
    )
    add_plan_options(bundle)
    bundle.set_defaults(func=cmd_bundle)


def cmd_bundle(args: Any) -> int:
    for name in ("max_mb", "trajectory_chars", "verifier_chars"):
        if not getattr(args, name) >= 0 or not math.isfinite(getattr(args, name)):
            raise Unusable(f"--{name.replace('_', '-')} must be a number >= 0")
    refuse_inside(args.output, args.path)
    overrides = overrides_from(args)
    try:
        found = runs_under(args.path)
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    if not found:
        raise Unusable(f"{args.path}: no runs here (a run has run_info.json or a details/ folder)")
    cuts = Cuts(args.trajectory_chars, args.verifier_chars)
    runs = []
    for path, name in found:
        warnings: list[str] = []
        runs.append(
            {**run_data(path, name, overrides, cuts, warnings.append), "warnings": warnings}
        )
    data: dict[str, Any] = {"source": os.path.basename(os.path.normpath(args.path)), "runs": runs}
    data["root"] = not (len(found) == 1 and found[0][0] == args.path)
    data["leaderboard"] = _leaderboard(args.path, overrides, runs) if data["root"] else None
    data["gate"] = _gate(args, overrides) if args.gate else None
    data["items"] = _items(args.path) if args.items else None
    page, size, notes = fit(data, cuts, args.max_mb)
    write_outside(args.output, page, args.path)
    print(f"{args.output}: {size / MIB:.1f} MiB" + "".join(f"; {note}" for note in notes))
    return EXIT_OK


def _leaderboard(root: str, overrides: Any, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``leaderboard --format json``'s records, each with its cell's text and the interval
    of the run it shows (from that run's embedded statistics)."""
    from inspector.answers.root import board_of_root
    from inspector.views.leaderboard import cell_text, records

    board = board_of_root(root, overrides, say=lambda line: None)
    by_run = {run["run"]: run for run in runs}
    out = []
    for record in records(board):
        stats = (by_run.get(record["run"]) or {}).get("stats") or {}
        series = next(
            (s for s in stats.get("series", []) if s["series_id"] == record["series_id"]), None
        )
        interval = None if series is None else [series["ci_low"], series["ci_high"]]
        text = cell_text(board.cell(record["model"], record["benchmark"]))
        out.append({**record, "text": text, "interval": interval})
    return out


def _gate(args: Any, overrides: Any) -> dict[str, Any]:
    from inspector.answers.gate import gate
    from inspector.gate_policy import PolicyError, read_policy
    from inspector.views.gate_output import as_json

    try:
        policy = read_policy(args.policy, args.path)
    except PolicyError as exc:
        raise Unusable(str(exc)) from None
    return as_json(gate(args.path, policy, overrides), policy.source)


def _items(path: str) -> dict[str, Any]:
    from inspector.answers.items import root_items
    from inspector.overrides import Overrides
    from inspector.views.items import as_json, item_rows

    runs, skipped = root_items(path, Overrides(), None)
    return {
        "rows": json.loads(as_json(item_rows(runs))),
        "skipped": [{"run": s.run, "reason": s.reason} for s in skipped],
    }


# -- the page -----------------------------------------------------------------------------


def fit(data: dict[str, Any], cuts: Cuts, limit_mb: float) -> tuple[str, int, list[str]]:
    """The page at most ``limit_mb`` MiB: the evidence cut shorter step by step (the
    trajectories, then the verifier output) until it fits, each step said in the page.

    Raises:
        Unusable: even without trajectories and verifier output it is larger.
    """
    t, v = cuts.trajectory, cuts.verifier
    steps = [(t, v), (t // 4, v), (t // 16, v), (0, v), (0, v // 4), (0, 0)]
    size, limit = 0, int(limit_mb * MIB)
    for trajectory, verifier in dict.fromkeys(steps):
        notes = [f"each attempt's trajectory cut to {trajectory} characters and its verifier "
                 f"output to {verifier} (the characters left out are said beside each)"]  # fmt: skip
        if (trajectory, verifier) != (t, v):
            notes.append(f"cut shorter than asked ({t} / {v}) to stay under --max-mb {limit_mb:g}")
        runs = evidence_cut(data["runs"], Cuts(trajectory, verifier))
        page = render({**data, "runs": runs, "notes": notes, "limit_mb": limit_mb})
        size = len(page.encode("utf-8"))
        if size <= limit:
            return page, size, notes[1:]
    raise Unusable(
        f"the bundle would be {size / MIB:.1f} MiB without trajectories and verifier output, "
        f"over --max-mb {limit_mb:g}: raise it or bundle fewer runs"
    )


def script_json(data: Any) -> str:
    """``data`` as JSON that cannot end its ``<script>`` element nor start markup: ASCII
    only (U+2028 / U+2029 and lone surrogates as escapes), ``<``, ``>``, ``&`` as
    ``\\u003c``, ``\\u003e``, ``\\u0026`` (they occur only inside JSON strings)."""
    text = json.dumps(_finite(data), ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _finite(value: Any) -> Any:
    """Non-finite floats (which JSON cannot hold) as the strings Python writes them."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _asset(name: str) -> str:
    return resources.files("inspector").joinpath("data", "bundle", name).read_text("utf-8")


def _hash(text: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


def render(data: dict[str, Any]) -> str:
    """The HTML page: the template with its style, script and data inline."""
    style, script = _asset("bundle.css"), _asset("bundle.js")
    policy = (f"default-src 'none'; style-src {_hash(style)}; script-src {_hash(script)}; "
              "img-src 'none'; base-uri 'none'; form-action 'none'")  # fmt: skip
    page = _asset("page.html").replace("{{policy}}", policy)
    page = page.replace("{{style}}", style).replace("{{script}}", script)
    return page.replace("{{data}}", script_json(data))


# -- writing ------------------------------------------------------------------------------


def refuse_inside(output: str, source: str) -> None:
    """Refuse ``output`` before the work when it lies inside ``source`` or is no regular
    file (:func:`inspector.output_files.output_target`)."""
    try:
        output_target(output, [source])
    except OutputError as exc:
        raise Unusable(str(exc)) from None


def write_outside(output: str, text: str, source: str) -> None:
    """Write ``text`` to ``output`` whole or not at all, checked again against ``source``
    (:func:`inspector.output_files.write_output`)."""
    try:
        write_output(output, [source], lambda out: out.write(text))
    except OutputError as exc:
        raise Unusable(str(exc)) from None
