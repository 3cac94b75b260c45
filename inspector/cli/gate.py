"""``inspector gate RUN|ROOT|URL``: the publish gate (issue 42). Every run is checked as
``check ROOT`` checks it and judged by a policy (``--policy FILE``, else
``inspector-gate.toml`` in the folder gated or the current folder, else the defaults that
``--show-policy`` prints). Exit 0: every run passes; 1: a rule failed (one line per failure:
run, series, rule, measured, limit); 2: unusable input (a run, the policy, a path).

CI outputs: ``--junit FILE``; under ``GITHUB_ACTIONS=true`` ``::error`` annotations (on
stderr, so that stdout stays the format asked for) and the Markdown summary appended to
``$GITHUB_STEP_SUMMARY``; ``--format markdown`` for anything else.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from inspector.answers import Unusable, say_on_stderr
from inspector.cli.common import EXIT_OK, add_plan_options, local_path, overrides_from
from inspector.cli.output import write_exact
from inspector.engine import strict_json
from inspector.gate_policy import PolicyError, policy_text, read_policy
from inspector.loading.urls import shown
from inspector.results.problems import RunReadError
from inspector.views import gate_output


def register(subparsers: Any) -> None:
    """Add ``gate`` to the ``inspector`` command."""
    gate = subparsers.add_parser(
        "gate", help="exit 0 when every run passes the policy's rules (a CI step before publishing)"
    )
    gate.add_argument("path", help="a run directory, a results root (every run beneath it), a URL")
    gate.add_argument(
        "--policy", metavar="FILE",
        help="the policy (TOML); default: inspector-gate.toml in PATH or here, else the defaults",
    )  # fmt: skip
    gate.add_argument(
        "--against", metavar="RUN|ROOT",
        help="the runs to compare with (max_regression, the error fingerprint rules): the only "
        "run, else the run at the same path under the root, else the one of the same "
        "benchmark and model",
    )  # fmt: skip
    gate.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    gate.add_argument("--junit", metavar="FILE", help="also write JUnit XML (one testcase per run × rule)")
    gate.add_argument(
        "--show-policy", action="store_true", help="print the policy in force and where it came from"
    )  # fmt: skip
    add_plan_options(gate)
    gate.set_defaults(func=cmd_gate)


def cmd_gate(args: argparse.Namespace) -> int:
    try:
        if args.show_policy:
            text, source = policy_text(args.policy, args.path)
            print(f"# policy: {shown(source)}")  # a remote root's file by its URL
            write_exact(text if text.endswith("\n") else text + "\n")
            return EXIT_OK
        policy = read_policy(args.policy, args.path)
    except PolicyError as exc:
        raise Unusable(shown(str(exc))) from None
    policy = replace(policy, source=shown(policy.source))
    from inspector.gate_answers import gate  # the checks of a root: only when gating

    try:
        against = local_path(args.against) if args.against else None
        if args.junit:
            _check_outside(args.junit, [args.path, *([against] if against else [])])
        gates = gate(args.path, policy, overrides_from(args), against=against)
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    if not gates:
        raise Unusable(f"{args.path}: no runs here (a run has run_info.json or a details/ folder)")
    if args.format == "json":
        strict_json.dump(
            gate_output.as_json(gates, policy.source), sys.stdout, ensure_ascii=False, indent=2
        )
        sys.stdout.write("\n")
    elif args.format == "markdown":
        write_exact(gate_output.markdown(gates, policy.source))
    else:
        for line in gate_output.text_lines(gates, policy.source):
            print(line)
    if args.junit:
        _write(args.junit, gate_output.junit_xml(gates, policy.source), "w")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in gate_output.github_annotations(gates):
            say_on_stderr(line)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            _write(summary, gate_output.markdown(gates, policy.source), "a")
    return gate_output.exit_code(gates)


def _check_outside(file: str, folders: list[str]) -> None:
    """The inspector never writes into a result directory."""
    target = os.path.realpath(file)
    for folder in folders:
        real = os.path.realpath(folder)
        if os.path.commonpath([target, real]) == real:
            raise Unusable(f"{file}: inside {folder}: the inspector never writes into results")


def _write(file: str, text: str, mode: str) -> None:
    try:
        with Path(file).open(mode, encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise Unusable(f"{file}: cannot write: {exc.strerror or exc}") from None
