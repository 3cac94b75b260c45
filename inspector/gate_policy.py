"""The gate's policy file: TOML read by ``tomllib``, its shape checked by pydantic
(as :mod:`inspector.user_files` checks the other files a user hands in); each problem one
line naming the file and the key.

The policy comes from the person running the gate, never from the results gated: it is
``--policy FILE``, else ``inspector-gate.toml`` in the current folder, else
:data:`DEFAULT_POLICY`. A policy file inside a root gated (or compared with) is used only when
named with ``--policy``: one found in the current folder when that lies inside the results is
passed over for the defaults, saying so (results could otherwise carry their own, empty,
policy and pass). A file states the rules that apply: a rule it does not name is off.

A policy file is read as every file a user hands in (:func:`inspector.user_files.read_user_file`:
a regular file only, never a FIFO or a device), at most :data:`MAX_BYTES`, nested at most
as deep as ``tomllib`` can parse, with at most :data:`MAX_SCOPES` ``[[scope]]`` tables;
every problem one line naming the file.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from inspector.user_files import UserFileError, read_user_file
from inspector.views.gate import HEADLINE, RULES, Policy, Scope

POLICY_FILE = "inspector-gate.toml"
DEFAULTS = "the defaults (no inspector-gate.toml found; --show-policy prints them)"
PASSED_OVER = (
    "the defaults ({file} lies inside the results gated: a policy there is used only when "
    "named with --policy)"
)
MAX_BYTES = 1024**2
"""A policy file holds a few rules; one larger than this (1 MiB) is refused unread."""
MAX_SCOPES = 1000
"""At most this many ``[[scope]]`` tables (each run's rules look through every one)."""

DEFAULT_POLICY = f"""\
# The gate's defaults, in force when no policy file is found. Copy this into
# {POLICY_FILE} in the folder the gate runs in (never inside the results), or name
# it with --policy, and edit it: a rule the file does not name is off. A series rule
# whose series glob matches none of a run's series fails ("matched nothing").

# Series rules judge the series this glob names ("{HEADLINE}": the run's headline series).
series = "{HEADLINE}"

require_stored_equal = true   # the stored metrics.json equals the recomputation
require_finished = true       # run_info.json says the run completed
forbid_derived_plan = true    # the numbers come from the run's own plan
max_error_rate = 0.1          # error / total tasks
max_unavailable_rate = 0.1    # unavailable / total tasks
max_invalidated = 0           # invalidated tasks
min_evaluated = 1             # evaluated tasks: a run with none has no number to publish
max_regression = 0.0          # with --against: the drop allowed (B − A at or above −limit)

# With --against, max_regression (and min_improvement, below) judge the paired 95%
# interval of B − A: PASS when all of it is at or above the threshold (−max_regression;
# min_improvement), FAIL when all of it is below, INCONCLUSIVE when it holds the threshold
# or there is none (fewer than 2 tasks evaluated on both sides, a corpus formula). At
# limit 0 an unchanged run is INCONCLUSIVE: PASS needs an interval above 0, so set the drop
# you accept. What INCONCLUSIVE does: "warn" (exit 0, a warning line, a ::warning
# annotation, a skipped JUnit testcase), "fail" (the inconclusive runs fail too), "pass".
inconclusive = "warn"
# min_improvement = 0.02      # with --against: B − A must be at least this

# Narrower limits for some benchmarks or series; the last scope that covers a run
# (and series) and names a rule gives its limit:
# [[scope]]
# benchmark = "swebench*"
# series = "*"
# max_error_rate = 0.2
"""

Rate = Annotated[float, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0)]
Width = Annotated[float, Field(ge=0)]


class _Rules(BaseModel):
    """The rules a table may name, each optional (None: not named)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    series: str = HEADLINE
    require_stored_equal: bool | None = None
    require_finished: bool | None = None
    forbid_derived_plan: bool | None = None
    max_new_error_fingerprints: Count | None = None
    max_fingerprint_growth: Width | None = None
    max_error_rate: Rate | None = None
    max_unavailable_rate: Rate | None = None
    max_invalidated: Count | None = None
    min_evaluated: Count | None = None
    max_ci_width: Width | None = None
    max_regression: Width | None = None
    min_improvement: Width | None = None


class _Scope(_Rules):
    benchmark: str = "*"
    series: str | None = None  # type: ignore[assignment]  # None: the top level's


class _File(_Rules):
    scope: list[_Scope] = []
    inconclusive: Literal["warn", "fail", "pass"] = "warn"
    """What an INCONCLUSIVE verdict does (:data:`inspector.views.gate_verdict.ON_INCONCLUSIVE`): the top level only."""


class PolicyError(ValueError):
    """A policy file that cannot be used; ``str()`` is one line naming the file."""


def _limits(rules: _Rules) -> dict[str, bool | int | float]:
    return {rule: value for rule in RULES if (value := getattr(rules, rule)) is not None}


def parse_policy(text: str, source: str) -> Policy:
    """The policy in TOML ``text``; :class:`PolicyError` naming ``source`` and the key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{source}: not a TOML file: {exc}") from None
    except RecursionError:
        raise PolicyError(f"{source}: not a TOML file: nested too deeply to parse") from None
    scope_tables = data.get("scope")
    if isinstance(scope_tables, list) and len(scope_tables) > MAX_SCOPES:
        raise PolicyError(
            f"{source}: {len(scope_tables):,} [[scope]] tables; a policy may have at most "
            f"{MAX_SCOPES:,}"
        )
    try:
        parsed = _File.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = "".join(
            f"[{part + 1}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
        ).lstrip(".")
        if error["type"] == "extra_forbidden":
            keys = f"{', '.join(RULES)}; at the top level: inconclusive"
            raise PolicyError(f"{source}: unknown key {where!r} (rules: {keys})") from None
        raise PolicyError(f"{source}: {where}: {error['msg']}") from None
    scopes = [Scope("*", parsed.series, _limits(parsed))]
    for scope in parsed.scope:
        series = parsed.series if scope.series is None else scope.series
        scopes.append(Scope(scope.benchmark, series, _limits(scope)))
    return Policy(source, tuple(scopes), parsed.inconclusive)


def policy_text(path: str | None, gated: Sequence[str]) -> tuple[str, str]:
    """``(TOML text, where it came from)``: ``--policy`` ``path``, else the policy file in
    the current folder unless it lies inside one of the roots ``gated`` (the roots gated
    and compared with), else the defaults.

    Raises:
        PolicyError: the file cannot be read (one line naming it).
    """
    if path is None:
        if not os.path.exists(POLICY_FILE):  # a FIFO or a folder there is refused below
            return DEFAULT_POLICY, DEFAULTS
        found = Path(os.path.realpath(POLICY_FILE))
        for root in gated:
            base = Path(os.path.realpath(root))
            if found == base or base in found.parents:
                return DEFAULT_POLICY, PASSED_OVER.format(file=POLICY_FILE)
        path = POLICY_FILE
    try:
        data = read_user_file(path, "the policy file", MAX_BYTES)
    except UserFileError as exc:
        raise PolicyError(str(exc)) from None
    try:
        return data.decode("utf-8"), path
    except UnicodeDecodeError as exc:
        raise PolicyError(
            f"{path}: cannot read the policy file: not valid UTF-8 "
            f"(byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def passed_over(path: str | None, gated: Sequence[str]) -> list[str]:
    """One line for each policy file beside the results ``gated`` (where the gate once looked)
    that is not in force because ``--policy`` did not name it."""
    named = os.path.realpath(path) if path is not None else None
    found = (os.path.join(root, POLICY_FILE) for root in gated)
    return [
        f"{file}: not used: a policy inside the results is used only when named with --policy"
        for file in found
        if os.path.isfile(file) and os.path.realpath(file) != named
    ]


def read_policy(path: str | None, gated: Sequence[str]) -> Policy:
    """The policy in force for gating the roots ``gated`` (see :func:`policy_text`)."""
    text, source = policy_text(path, gated)
    return parse_policy(text, source)
