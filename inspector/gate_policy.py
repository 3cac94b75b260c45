"""The gate's policy file (issue 42): TOML read by ``tomllib``, its shape checked by pydantic
(as :mod:`inspector.user_files` checks the other files a user hands in); each problem one
line naming the file and the key.

Found as ``--policy FILE``, else ``inspector-gate.toml`` in the folder gated, else in the
current folder, else :data:`DEFAULT_POLICY`. A file states the rules that apply: a rule it
does not name is off.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from inspector.views.gate import HEADLINE, RULES, Policy, Scope

POLICY_FILE = "inspector-gate.toml"
DEFAULTS = "the defaults (no inspector-gate.toml found; --show-policy prints them)"

DEFAULT_POLICY = f"""\
# The gate's defaults, in force when no policy file is found. Copy this into
# {POLICY_FILE} (beside the results, or in the folder the gate runs in) and edit it:
# a rule the file does not name is off.

# Series rules judge the series this glob names ("{HEADLINE}": the run's headline series).
series = "{HEADLINE}"

require_stored_equal = true   # the stored metrics.json equals the recomputation
require_finished = true       # run_info.json says the run completed
forbid_derived_plan = true    # the numbers come from the run's own plan
max_error_rate = 0.1          # error / total tasks
max_unavailable_rate = 0.1    # unavailable / total tasks
max_invalidated = 0           # invalidated tasks
max_regression = 0.0          # with --against: a drop beyond this whose paired 95% interval excludes 0

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


class _Scope(_Rules):
    benchmark: str = "*"
    series: str | None = None  # type: ignore[assignment]  # None: the top level's


class _File(_Rules):
    scope: list[_Scope] = []


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
    try:
        parsed = _File.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = "".join(
            f"[{part + 1}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
        ).lstrip(".")
        if error["type"] == "extra_forbidden":
            raise PolicyError(f"{source}: unknown key {where!r} (rules: {', '.join(RULES)})") from None
        raise PolicyError(f"{source}: {where}: {error['msg']}") from None
    scopes = [Scope("*", parsed.series, _limits(parsed))]
    for scope in parsed.scope:
        series = parsed.series if scope.series is None else scope.series
        scopes.append(Scope(scope.benchmark, series, _limits(scope)))
    return Policy(source, tuple(scopes))


def policy_text(path: str | None, gated: str) -> tuple[str, str]:
    """``(TOML text, where it came from)``: ``--policy`` ``path``, else the policy file in
    ``gated`` (the folder gated) or the current folder, else the defaults."""
    if path is None:
        folder = Path(gated) if Path(gated).is_dir() else Path(gated).parent
        found = [p for p in (folder / POLICY_FILE, Path(POLICY_FILE)) if p.is_file()]
        if not found:
            return DEFAULT_POLICY, DEFAULTS
        path = str(found[0])
    try:
        return Path(path).read_text(encoding="utf-8"), path
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise PolicyError(f"{path}: cannot read the policy file: {reason}") from None


def read_policy(path: str | None, gated: str) -> Policy:
    """The policy in force for gating ``gated`` (see :func:`policy_text`)."""
    text, source = policy_text(path, gated)
    return parse_policy(text, source)
