"""pyproject.toml: every dependency pinned exactly, and each remote backend an extra."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
PIN = re.compile(r"^[A-Za-z0-9_.-]+(\[[A-Za-z0-9_,.-]+\])?==[0-9][A-Za-z0-9.]*$")


def test_every_requirement_is_pinned_exactly() -> None:
    requirements = list(PROJECT["dependencies"])
    for extra in PROJECT["optional-dependencies"].values():
        requirements += extra
    loose = [r for r in requirements if not PIN.match(r)]
    assert requirements and loose == []


def test_the_remote_backends_are_extras() -> None:
    """`pip install 'agentcompass-inspector[s3]'` and the like: fsspec's backend packages."""
    extras = PROJECT["optional-dependencies"]
    names = {extra: [r.split("==")[0] for r in extras.get(extra, [])]
             for extra in ("s3", "gcs", "azure", "http")}  # fmt: skip
    assert names == {"s3": ["s3fs"], "gcs": ["gcsfs"], "azure": ["adlfs"], "http": ["aiohttp"]}
    assert any(r.startswith("fsspec==") for r in PROJECT["dependencies"])
    # s3fs and gcsfs are released with fsspec, version for version
    fsspec = next(r for r in PROJECT["dependencies"] if r.startswith("fsspec=="))
    for extra in ("s3", "gcs"):
        assert extras[extra][0].split("==")[1] == fsspec.split("==")[1]
