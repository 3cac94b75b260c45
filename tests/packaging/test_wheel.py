"""The wheel carries the bundled sample run: installed outside the checkout, `inspector` in an
empty folder opens it.

The wheel is built from a copy of the files an sdist holds (so no stale ``build/`` folder of
the checkout leaks in) and installed with ``--no-deps`` into a new virtual environment in a
temporary folder; its dependencies are borrowed from the test environment through a ``.pth``
file (a fresh download of textual & co. takes minutes on a busy machine). ``.ci/check_wheel``
does the same with the dependencies installed fresh from the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_RUNS, ROOT
from tests.terminal import OnTerminal

SAMPLE = FIXTURE_RUNS / "k3_avg_hierarchy"
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "NOTICE", "inspector", "widgets")


def build_wheel(out: Path) -> Path:
    """``pip wheel --no-deps`` of a clean copy of the sources; the wheel's path."""
    source = out / "source"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    shutil.copytree(SAMPLE, source / "fixtures" / "runs" / SAMPLE.name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(out / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (out / "dist").glob("agentcompass_inspector-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_the_sample_run_byte_for_byte_and_the_license(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        sample = {
            f"inspector/sample/{SAMPLE.name}/{path.relative_to(SAMPLE).as_posix()}": path
            for path in SAMPLE.rglob("*")
            if path.is_file()
        }
        assert len(sample) > 100 and set(sample) <= names
        for name, path in sample.items():
            assert archive.read(name) == path.read_bytes(), name
        assert not [name for name in names if name.startswith(("fixtures/", "tests/"))]
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        headers = archive.read(metadata).decode().split("\n\n", 1)[0].splitlines()
        assert "License-Expression: MIT" in headers and "License-File: LICENSE" in headers
        (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_the_wheel_holds_the_reference_tables_and_their_notice(wheel: Path) -> None:
    """frontier_engineering's tables (AgentCompass's figures, Apache-2.0) ship as package
    data, with the NOTICE naming their source."""
    data = ROOT / "inspector" / "data" / "frontier_engineering"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for path in sorted(data.iterdir()):
            name = f"inspector/data/frontier_engineering/{path.name}"
            assert name in names and archive.read(name) == path.read_bytes(), name
        (notice,) = [n for n in names if n.endswith(".dist-info/licenses/NOTICE")]
        assert archive.read(notice) == (ROOT / "NOTICE").read_bytes()
    assert len(list(data.iterdir())) == 3


def test_the_wheel_holds_the_python_api_and_its_type_marker(wheel: Path) -> None:
    """inspector.api is typed for its users: the package and PEP 561's py.typed ship."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    expected = {"inspector/py.typed", "inspector/api/__init__.py", "inspector/api/rows.py",
                "inspector/api/table.py", "inspector/cli/sql.py",
                "inspector/export/run_tables.py"}  # fmt: skip
    assert expected <= names, expected - names


def test_installed_wheel_opens_the_sample_in_an_empty_folder(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )  # fmt: skip
    (site / "borrowed_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {"HOME": str(tmp_path / "home"), "PYTHONPATH": "", "PYTHONSAFEPATH": "1"}
    where = subprocess.run(
        [str(python), "-c", "import inspector.app.settings as s; print(s.__file__); print(s.SAMPLE_RUN)"],
        cwd=empty, check=True, capture_output=True, text=True, env={**os.environ, **env},
    ).stdout.split()  # fmt: skip
    assert where == [
        str(site / "inspector" / "app" / "settings.py"),
        str(site / "inspector" / "sample" / SAMPLE.name),
    ]
    app = OnTerminal([str(venv / "bin" / "inspector")], cwd=empty, env=env)
    try:
        # The sample's title line and its headline value, as the overview shows them.
        opened = app.read_until(b"terminal_bench_2", timeout=90) and app.read_until(b"0.5469")
    finally:
        app.send(b"q")
        code = app.finish()
    assert opened, app.output[-2000:]
    assert code == 0
    assert not any(empty.iterdir())


def test_pyproject_lists_every_package_of_the_tree() -> None:
    """The package list is explicit (for the sample's package-dir): a new package must join it."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]
    tree = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("inspector", "widgets")
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert set(config["packages"]) == tree | {"inspector.sample"}
    assert config["package-dir"] == {"inspector.sample": "fixtures/runs"}
