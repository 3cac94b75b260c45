"""Fixtures for the results tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import conformance_run


@pytest.fixture
def copy_run(tmp_path: Path):
    """Copy a conformance run into tmp_path (symbolic links kept as links) and return its path."""

    def copy(name: str = "e2e_k1_micro", where: str = "runs/ns") -> Path:
        target = tmp_path / where / name
        shutil.copytree(conformance_run(name), target, symlinks=True)
        return target

    return copy
