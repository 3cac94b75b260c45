"""AgentCompass Inspector: recompute, audit and browse AgentCompass evaluation runs."""

from __future__ import annotations

__version__ = "0.1.0"
