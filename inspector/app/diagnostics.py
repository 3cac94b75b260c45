"""Where the evidence behind an attempt lives, as documents the pager can show.

Spec item 54: ``artifacts.execution_diagnostics``, ``meta.benchmark.eval_raw_data`` (the
verifier's output), analyzer verdicts (``meta.benchmark.badcase_analyzers``,
``analysis_result``), retry records, artifact files, the trajectory, and the raw files.
Each source is keyed by where it was found. Documents are built only when opened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from inspector.app.payloads import check_size
from inspector.results.layout import relpath
from inspector.results.lazy import (
    attempt_dir,
    list_artifact_files,
    list_retry_records,
    read_retry_record,
)
from inspector.results.long_text import LongString
from inspector.results.problems import RULE_SYMLINK, ResultFileError
from inspector.results.reader import Run
from inspector.results.stream import StepList
from inspector.results.tasks import TaskEntry
from inspector.views.documents import Document, FileDocument, StringDocument, json_text
from inspector.views.paged import (
    long_text_document,
    step_lines,
    trajectory_document,
    trajectory_head,
    trajectory_rest,
)


@dataclass(frozen=True)
class Source:
    """One place evidence was found; ``open`` builds its document (call from a worker)."""

    key: str
    label: str
    open: Callable[[], Document]
    notice: str | None = None
    """Shown above the document: why it is shown as it is (e.g. result.json too large)."""
    recorded: bool = True
    """False for a source the attempt left empty: its document says nothing was recorded."""


NOTHING = "nothing recorded"


def _absent(name: str, where: str) -> Source:
    """A source the attempt did not record: listed, saying so, instead of left out."""
    text = f"Nothing recorded: {where}."

    def build() -> Document:
        return StringDocument(name, text)

    return Source(f"absent:{name}", f"{name}: {NOTHING}", build, recorded=False)


def _get(data: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _text_or_json(title: str, value: Any) -> Callable[[], Document]:
    def build() -> Document:
        if isinstance(value, LongString):  # left in a large file: read a piece at a time
            document = long_text_document(title, value)
            document.lines(0, 1)  # its first piece, here in the worker
            return document
        if isinstance(value, str):
            return StringDocument(title, value)
        return StringDocument(title, json_text(value))

    return build


def trajectory_text(trajectory: Mapping[str, Any]) -> str:
    """The trajectory step by step, each step under a ``── step N ──`` heading."""
    lines = trajectory_head(trajectory)
    steps = trajectory.get("steps")
    if isinstance(steps, list | StepList):
        for number, step in enumerate(steps, start=1):
            lines.extend(step_lines(number, step))
    lines.extend(trajectory_rest(trajectory))
    return "\n".join(lines)


def _file(title: str, run: Run, rel: str, notice: str | None = None) -> Callable[[], Document]:
    def build() -> Document:
        document = FileDocument(title, run.path, rel, notice=notice)
        document.index()
        return document

    return build


def _retry(run: Run, rel: str) -> Callable[[], Document]:
    """A retry record as readable JSON; the raw file when it is too large or not JSON."""

    def build() -> Document:
        try:
            check_size(run, rel)
            record = read_retry_record(run, rel)
        except ResultFileError as exc:
            if exc.problem.rule == RULE_SYMLINK:
                raise
            return _file(rel, run, rel, notice=f"{exc.problem.message} · shown as raw text")()
        return StringDocument(rel, json_text(record), path=rel)

    return build


def attempt_sources(
    run: Run,
    entry: TaskEntry,
    index: int,
    payload: Mapping[str, Any] | None,
    *,
    payload_problem: str | None = None,
) -> list[Source]:
    """Every source of evidence for attempt ``index`` of ``entry`` (cheap: nothing is read).

    ``payload_problem`` says why ``result.json`` could not be parsed (too large, not JSON):
    the raw file then comes first, with that notice.
    """
    sources: list[Source] = []
    read = payload is not None and payload_problem is None
    payload = payload or {}
    diagnostics = _get(payload, "artifacts", "execution_diagnostics")
    if diagnostics in (None, "") and read:
        where = "result.json has no artifacts.execution_diagnostics"
        sources.append(_absent("execution_diagnostics", f"{where} (or it is empty)"))
    if diagnostics not in (None, ""):
        sources.append(
            Source(
                "diagnostics",
                "artifacts.execution_diagnostics",
                _text_or_json("execution_diagnostics", diagnostics),
            )
        )
    benchmark = _get(payload, "meta", "benchmark")
    has = isinstance(benchmark, Mapping) and "eval_raw_data" in benchmark
    if read and not has:
        sources.append(
            _absent("verifier output", "result.json has no meta.benchmark.eval_raw_data")
        )
    has = isinstance(benchmark, Mapping) and "badcase_analyzers" in benchmark
    if read and not has and not payload.get("analysis_result"):
        where = "result.json has no meta.benchmark.badcase_analyzers and no analysis_result"
        sources.append(_absent("analyzers", where))
    if isinstance(benchmark, Mapping):
        for key in ("eval_raw_data", "badcase_analyzers", "infer_raw_data"):
            if key in benchmark:
                sources.append(
                    Source(
                        f"meta.benchmark.{key}",
                        f"meta.benchmark.{key}",
                        _text_or_json(key, benchmark[key]),
                    )
                )
        rest = {
            k: v
            for k, v in benchmark.items()
            if k not in ("eval_raw_data", "badcase_analyzers", "infer_raw_data")
        }
        if rest:
            sources.append(
                Source(
                    "meta.benchmark",
                    "meta.benchmark (other keys)",
                    _text_or_json("meta.benchmark", rest),
                )
            )
    harness = _get(payload, "meta", "harness")
    if isinstance(harness, Mapping) and harness:
        sources.append(
            Source("meta.harness", "meta.harness", _text_or_json("meta.harness", harness))
        )
    analysis = payload.get("analysis_result")
    if isinstance(analysis, Mapping) and analysis:
        sources.append(
            Source("analysis_result", "analysis_result", _text_or_json("analysis_result", analysis))
        )
    artifacts = payload.get("artifacts")
    if isinstance(artifacts, Mapping):
        rest = {k: v for k, v in artifacts.items() if k != "execution_diagnostics"}
        if rest:
            sources.append(
                Source("artifacts", "artifacts (other keys)", _text_or_json("artifacts", rest))
            )
    if "final_answer" in payload:
        sources.append(
            Source(
                "final_answer",
                "final_answer",
                _text_or_json("final_answer", payload["final_answer"]),
            )
        )
    trajectory = payload.get("trajectory")
    if read and not (isinstance(trajectory, Mapping) and trajectory):
        sources.append(_absent("trajectory", "result.json has no trajectory (or it is empty)"))
    if isinstance(trajectory, Mapping) and trajectory:
        steps = trajectory.get("steps")
        count = len(steps) if isinstance(steps, list | StepList) else 0

        def build_trajectory() -> Document:
            if isinstance(steps, StepList):  # a large file: its steps read a page at a time
                document = trajectory_document(trajectory, steps)
                document.lines(0, 1)  # its first page, here in the worker
                return document
            return StringDocument("trajectory", trajectory_text(trajectory))

        sources.append(Source("trajectory", f"trajectory ({count} steps)", build_trajectory))
    folder = attempt_dir(entry, index)
    records = list_retry_records(run, entry, index)
    if not records:
        where = f"no retry records under {relpath(folder, 'retries')}/ (this attempt did not retry)"
        sources.append(_absent("retry records", where))
    for record in records:
        if record.kind == "record":
            label = f"retry record {record.retry if record.retry is not None else '?'}"
            if record.stage:
                label += f" ({record.stage})"
            sources.append(Source(f"retry:{record.path}", label, _retry(run, record.path)))
        elif "result.json" in record.files:
            rel = relpath(record.path, "result.json")
            sources.append(
                Source(
                    f"archive:{rel}",
                    f"archived execution {record.path.rsplit('/', 1)[-1][:8]}…",
                    _file(rel, run, rel),
                )
            )
    artifacts_found = list_artifact_files(run, entry, index)
    if not artifacts_found:
        where = f"no files under {relpath(folder, 'artifacts')}/"
        sources.append(_absent("artifact files", where))
    for artifact in artifacts_found:
        if artifact.is_link:
            continue
        name = artifact.path.split("/artifacts/", 1)[-1]
        sources.append(
            Source(
                f"file:{artifact.path}",
                f"file {name} ({artifact.size:,} B)",
                _file(artifact.path, run, artifact.path),
            )
        )
    raw = Source(
        "raw:result.json",
        "result.json (raw file)",
        _file("result.json", run, relpath(folder, "result.json"), notice=payload_problem),
        notice=payload_problem,
    )
    if payload_problem:
        sources.insert(0, raw)
    else:
        sources.append(raw)
    checkpoint = relpath(folder, "checkpoint.json")
    if (run.path / checkpoint).is_file():
        sources.append(
            Source(
                "raw:checkpoint.json",
                "checkpoint.json (raw file)",
                _file("checkpoint.json", run, checkpoint),
            )
        )
    return sources
