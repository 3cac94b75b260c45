"""Where ``inspector export`` may write (issue 48): every file it writes is resolved, links
and all, and refused inside the run or the root it reads, or where a file is not a regular
one; each refusal is one line naming the path the user asked for (never a hidden temporary
file, never ``[Errno 17] File exists``). :mod:`inspector.output_files` itself: a file is
replaced whole or not at all."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.export import file_stem
from inspector.output_files import OutputError, output_target, write_output
from tests.conftest import FIXTURE_RUNS
from tests.gate.test_hostile import tree_hashes

RUN = "k1_micro"
STEM = file_stem(json.loads((FIXTURE_RUNS / RUN / "run_info.json").read_text("utf-8"))["run_id"])
"""The start of the name of every file the run is exported to."""


@pytest.fixture
def run(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE_RUNS / RUN, tmp_path / RUN)
    return tmp_path / RUN


def export(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["export", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_data_folder_linked_into_the_run_gets_nothing(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """EEE writes under ``OUT/data``: a link there into the run wrote the records into it."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "data").symlink_to(run / "details", target_is_directory=True)
    before = tree_hashes(run)
    code, stdout, err = export([str(run), "--format", "eee", "--out", str(out)], capsys)
    assert code == 2 and stdout == ""
    (line,) = err.splitlines()
    assert line.startswith(f"inspector: {out}/data/") and ": inside the results at " in line
    assert ".tmp" not in line
    assert tree_hashes(run) == before
    assert sorted(p.name for p in (run / "details").iterdir()) == sorted(
        p.name for p in (FIXTURE_RUNS / RUN / "details").iterdir()
    )


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_a_file_linked_into_the_run_is_not_written_through(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    name = f"{STEM}.tasks.{fmt}"
    (out / name).symlink_to(run / "metrics.json")
    before = tree_hashes(run)
    code, _, err = export([str(run), "--format", fmt, "--out", str(out)], capsys)
    assert code == 2
    assert err.splitlines() == [
        f"inspector: {out / name}: inside the results at {run}: the inspector never writes "
        "there (choose a path outside)"
    ]
    assert tree_hashes(run) == before


def test_an_export_folder_that_is_a_device_or_a_file_is_named(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = export([str(run), "--format", "csv", "--out", "/dev/full"], capsys)
    assert code == 2
    assert err == "inspector: /dev/full: a character device, not a folder: cannot export into it\n"
    plain = tmp_path / "plain"
    plain.write_text("x", encoding="utf-8")
    code, _, err = export([str(run), "--format", "csv", "--out", str(plain)], capsys)
    assert code == 2
    assert err == f"inspector: {plain}: a file, not a folder: cannot export into it\n"


def test_a_folder_in_the_way_of_a_file_is_named_not_the_temporary_file(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    (out / f"{STEM}.tasks.csv").mkdir(parents=True)
    code, _, err = export([str(run), "--format", "csv", "--out", str(out)], capsys)
    assert code == 2
    assert err == (
        f"inspector: {out}/{STEM}.tasks.csv: a directory, not a regular file: the "
        "inspector writes only regular files\n"
    )
    assert [p.name for p in out.iterdir()] == [f"{STEM}.tasks.csv"]  # no temporary


def test_a_file_is_replaced_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "table.csv"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)

    def fails(out: object) -> None:
        out.write("half")  # type: ignore[attr-defined]
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError) as caught:
        write_output(target, [], fails)
    assert str(caught.value) == f"{target}: cannot write: No space left on device"
    assert target.read_text(encoding="utf-8") == "old\n"
    assert os.listdir(tmp_path) == ["table.csv"]  # no temporary file left
    write_output(target, [], lambda out: out.write("new\n"))
    assert target.read_text(encoding="utf-8") == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640  # its permissions kept


def test_a_link_is_followed_to_its_real_file(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    assert output_target(link, []) == real
    write_output(link, [], lambda out: out.write("new\n"))
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"
    with pytest.raises(OutputError, match="inside the results at"):
        output_target(link, [tmp_path])
    with pytest.raises(OutputError, match=r"the folder .* does not exist"):
        output_target(tmp_path / "no" / "such.md", [])


def test_the_apps_table_export_refuses_what_the_cli_refuses(tmp_path: Path) -> None:
    """The table on screen (``e``): a FIFO was written to (the app blocked), a link beside
    the run into it was followed."""
    from inspector.app.table_export import ExportError, Table, refusal, write

    table = Table("tasks", ("task",), (("a",),))
    fifo = tmp_path / "table.csv"
    os.mkfifo(fifo)
    assert refusal(fifo, []) == (
        f"{fifo}: a FIFO, not a regular file: the inspector writes only regular files"
    )
    run = tmp_path / "run"
    run.mkdir()
    link = tmp_path / "link.csv"
    link.symlink_to(run / "new.csv")
    with pytest.raises(ExportError, match="inside the results at"):
        write(table, "csv", link, [run])
    assert list(run.iterdir()) == []
    assert write(table, "csv", tmp_path / "t.csv", [run]) == tmp_path / "t.csv"
    assert (tmp_path / "t.csv").read_text(encoding="utf-8") == "task\na\n"
