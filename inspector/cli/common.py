"""What every command of the ``inspector`` command line shares: exit codes, the plan
options and the overrides they make, URL arguments mirrored locally, warnings on stderr."""

from __future__ import annotations

import argparse

from inspector.answers.run import Unusable, say_on_stderr
from inspector.loading import WARNING_PREFIX, is_url
from inspector.overrides import Overrides
from inspector.results.problems import RunReadError

EXIT_OK, EXIT_DIFFERS, EXIT_UNUSABLE = 0, 1, 2
ALL_SERIES = "all"
"""``--series all``: every series of the report."""


def add_plan_options(parser: argparse.ArgumentParser) -> None:
    """``--k``, ``--strategy``, ``--aggregation``, ``--hierarchy``, ``--contract``,
    ``--benchmark``: read back by :func:`overrides_from`."""
    group = parser.add_argument_group("plan overrides (derived plans are labelled as such)")
    group.add_argument("--k", type=int, help="score with k attempts (attempts 1..k of the run)")
    group.add_argument("--strategy", choices=["avg", "pass"], help="attempt strategy")
    group.add_argument("--aggregation", choices=["micro_weighted", "category_mean"])
    group.add_argument("--hierarchy", metavar="FILE", help="category_hierarchy JSON file")
    group.add_argument(
        "--contract", metavar="FILE",
        help="metric contract JSON: AgentCompass's MetricContract dump, or make_metric_contract's "
        "arguments",
    )  # fmt: skip
    group.add_argument(
        "--benchmark", metavar="ID", help="benchmark id (built-in contract and formulas)"
    )


def overrides_from(args: argparse.Namespace) -> Overrides:
    """The plan the options of :func:`add_plan_options` ask for; :class:`Unusable` (one
    line naming the file) when a ``--contract`` or ``--hierarchy`` file cannot be used."""
    contract = hierarchy = None
    if getattr(args, "contract", None) or getattr(args, "hierarchy", None):
        # pydantic checks these files: imported only when one is given (start-up).
        from inspector.user_files import UserFileError, read_contract, read_hierarchy

        try:
            if getattr(args, "contract", None):
                contract = read_contract(args.contract)
            if getattr(args, "hierarchy", None):
                hierarchy = read_hierarchy(args.hierarchy)
        except UserFileError as exc:
            raise Unusable(str(exc)) from None
    return Overrides(
        k=getattr(args, "k", None),
        strategy=getattr(args, "strategy", None),
        aggregation=getattr(args, "aggregation", None),
        hierarchy=hierarchy,
        contract=contract,
        benchmark_id=getattr(args, "benchmark", None),
    )


def warn(line: str) -> None:
    """A warning on stderr."""
    say_on_stderr(f"{WARNING_PREFIX}{line}")


def localize(args: argparse.Namespace) -> None:
    """Replace URL arguments (``s3://…``) by the local mirror of what they name."""
    for name in ("path", "a", "b"):
        value = getattr(args, name, None)
        if isinstance(value, str) and is_url(value):
            try:
                setattr(args, name, local_path(value))
            except RunReadError as exc:
                raise Unusable(str(exc)) from None


def local_path(path: str) -> str:
    """``path``, or for a URL the local folder mirroring it, brought up to date (the
    mirror's warnings on stderr).

    Raises:
        RunReadError: the URL cannot be opened or listed, names nothing, or is over a limit.
    """
    if not is_url(path):
        return path
    # fsspec and the content mirror: only when a URL is opened.
    from inspector.loading import mirror

    return str(mirror(path, say=warn).local)
