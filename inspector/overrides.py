"""What the user asks to change about a run's plan (light: the command line imports it first;
a named tuple, not a dataclass, for that: docs/decisions/startup-imports.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # pragma: no cover
    from inspector.engine.contract import MetricContract


class Overrides(NamedTuple):
    """What the user set on the command line or in the app."""

    k: int | None = None
    strategy: str | None = None
    aggregation: str | None = None
    hierarchy: Mapping[str, Any] | None = None
    contract: MetricContract | None = None
    benchmark_id: str | None = None
