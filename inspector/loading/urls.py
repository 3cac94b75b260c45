"""Which paths name remote runs, and how messages name a mirrored run: the part of remote
runs every command needs (issue 12: every command imports this). Mirroring itself —
fsspec, the content mirror in the cache folder — is :mod:`inspector.loading.remote`,
imported only when a URL is opened; it records here what it mirrored (:data:`MIRRORED`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

MIRRORED: dict[str, Path] = {}
"""URL -> the local folder mirroring it, for every URL this process has opened."""


def is_url(path: str | os.PathLike[str]) -> bool:
    return isinstance(path, str) and bool(_URL.match(path))


def shown(text: str) -> str:
    """``text`` with every mirror folder replaced by the URL it mirrors."""
    for url, local in sorted(MIRRORED.items(), key=lambda item: -len(str(item[1]))):
        text = text.replace(str(local), url.rstrip("/"))
    return text
