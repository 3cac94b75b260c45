"""What the user asks to change about a run's plan (light: the command line imports it first)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from inspector.engine.contract import MetricContract


@dataclass(frozen=True, slots=True)
class Overrides:
    """What the user set on the command line or in the app."""

    k: int | None = None
    strategy: str | None = None
    aggregation: str | None = None
    hierarchy: Mapping[str, Any] | None = None
    contract: MetricContract | None = None
    benchmark_id: str | None = None
