"""``inspector gate RUN|ROOT|URL``: the publish gate. Every run is checked as
``check ROOT --cached`` checks it and judged by a policy from the person running the gate, never from
the results: ``--policy FILE``, else ``inspector-gate.toml`` in the current folder
(unless that lies inside the results gated), else the defaults that ``--show-policy`` prints.
Exit 0: every run passes; 1: a rule failed (one line per failure: run, series, rule,
measured, limit; a series rule whose glob matches none of a run's series fails as "matched
nothing"); 2: unusable input (a run, the policy, a path, an output refused). With
``--against``, ``max_regression`` and ``min_improvement`` say PASS, FAIL or INCONCLUSIVE (the
paired interval of B − A holds the threshold, or there is none); the policy's
``inconclusive`` makes INCONCLUSIVE a warning (the default: a ``WARN`` line, exit 0), a failure
or a pass.

CI outputs: ``--junit FILE`` (a warned INCONCLUSIVE rule: a skipped testcase with the
reason); under ``GITHUB_ACTIONS=true`` ``::error`` and ``::warning`` annotations (on
stderr when stdout is a file, so that it stays the format asked for; in the log on stdout
after its ``::stop-commands::`` block, :mod:`inspector.cli.output`) and the Markdown summary appended to
``$GITHUB_STEP_SUMMARY``; ``--format markdown`` for anything else.

Each output file is checked before any run is read
(:func:`inspector.output_files.output_target`: never inside the results, only a regular file
or a new one) and written by :func:`inspector.output_files.write_output`.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import Any

from inspector.answers.run import Unusable
from inspector.cli.common import EXIT_OK, add_plan_options, local_path, overrides_from, warn
from inspector.cli.output import workflow_command, write_exact
from inspector.engine import strict_json
from inspector.gate_policy import PolicyError, passed_over, policy_text, read_policy
from inspector.loading import shown
from inspector.output_files import OutputError, output_target, write_output
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
        help="the policy (TOML); default: inspector-gate.toml here (never one inside the "
        "results), else the defaults",
    )  # fmt: skip
    gate.add_argument(
        "--against", metavar="RUN|ROOT",
        help="the runs to compare with (max_regression, min_improvement, the error fingerprint "
        "rules): the only "
        "run, else the run at the same path under the root, else the one of the same "
        "benchmark and model",
    )  # fmt: skip
    gate.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    gate.add_argument(
        "--junit", metavar="FILE", help="also write JUnit XML (one testcase per run × rule)"
    )
    gate.add_argument(
        "--show-policy", action="store_true", help="print the policy in force and where it came from"
    )  # fmt: skip
    add_plan_options(gate)
    gate.set_defaults(func=cmd_gate)


def cmd_gate(args: argparse.Namespace) -> int:
    gated = [args.path, *([args.against] if args.against else [])]
    try:
        unused = passed_over(args.policy, gated)
        if args.show_policy:
            text, source = policy_text(args.policy, gated)
            print(f"# policy: {shown(source)}")  # a remote root's file by its URL
            for line in unused:
                print(f"# {shown(line)}")
            write_exact(text if text.endswith("\n") else text + "\n")
            return EXIT_OK
        policy = read_policy(args.policy, gated)
    except PolicyError as exc:
        raise Unusable(shown(str(exc))) from None
    for line in unused:
        warn(line)
    policy = replace(policy, source=shown(policy.source))
    from inspector.answers.gate import gate  # the checks of a root: only when gating

    try:
        against = local_path(args.against) if args.against else None
        roots = [args.path, *([against] if against else [])]
        outputs = _outputs(args)
        for file, _ in outputs:  # refused before the work: a FIFO here would block after it
            output_target(file, roots)
        gates = gate(args.path, policy, overrides_from(args), against=against)
    except RunReadError as exc:
        raise Unusable(str(exc)) from None
    except OutputError as exc:
        raise Unusable(shown(str(exc))) from None
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
    # Checked again with every run's own path (a run may be a link out of its root).
    runs = [*roots, *(os.path.join(args.path, g.run) for g in gates if g.run != args.path)]
    if args.junit:
        _write(args.junit, gate_output.junit_xml(gates, policy.source), runs, append=False)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in gate_output.github_annotations(gates):
            workflow_command(line)  # after stdout's ::stop-commands:: block
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            _write(summary, gate_output.markdown(gates, policy.source), runs, append=True)
    return gate_output.exit_code(gates)


def _outputs(args: argparse.Namespace) -> list[tuple[str, bool]]:
    """The files the gate writes, each with whether it is appended to: ``--junit``, and
    under GitHub Actions its step summary (appended: the runner and other tools write it)."""
    outputs = [(args.junit, False)] if args.junit else []
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if os.environ.get("GITHUB_ACTIONS") == "true" and summary:
        outputs.append((summary, True))
    return outputs


def _write(file: str, text: str, runs: list[str], *, append: bool) -> None:
    """Write (or append) ``text`` to ``file``, never inside ``runs`` (:func:`write_output`)."""
    try:
        write_output(file, runs, lambda out: out.write(text), append=append)
    except OutputError as exc:
        raise Unusable(shown(str(exc))) from None
