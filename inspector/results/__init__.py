"""Reading AgentCompass run directories: pure (no textual, no rich), read-only.

``read_run`` loads one run exactly as AgentCompass's ``RunStore`` would and reports
everything wrong as ``LoadProblem``s; ``find_runs`` lists the runs under a results root
cheaply; ``lazy`` reads the big payloads (trajectories, artifacts, logs) on demand.

Names are imported on first use (PEP 562), so that importing one submodule does not
import them all: the command line starts faster.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspector.lazy_exports import exports

_SOURCES = {
    "RunSummary": "inspector.results.discover",
    "find_runs": "inspector.results.discover",
    "summarize_run": "inspector.results.discover",
    "task_directory_name": "inspector.results.layout",
    "AnalysisSummary": "inspector.results.lazy",
    "ArtifactFile": "inspector.results.lazy",
    "RetryRecord": "inspector.results.lazy",
    "TextPage": "inspector.results.lazy",
    "list_artifact_files": "inspector.results.lazy",
    "list_legacy_retry_details": "inspector.results.lazy",
    "list_retry_records": "inspector.results.lazy",
    "read_analysis_summary": "inspector.results.lazy",
    "read_attempt_payload": "inspector.results.lazy",
    "read_checkpoint": "inspector.results.lazy",
    "read_progress": "inspector.results.lazy",
    "read_progress_events": "inspector.results.lazy",
    "read_retry_record": "inspector.results.lazy",
    "read_run_log_tail": "inspector.results.lazy",
    "read_text_page": "inspector.results.lazy",
    "LoadProblem": "inspector.results.problems",
    "ResultFileError": "inspector.results.problems",
    "RunReadError": "inspector.results.problems",
    "Run": "inspector.results.reader",
    "read_run": "inspector.results.reader",
    "TaskEntry": "inspector.results.tasks",
}

__all__ = [
    "AnalysisSummary",
    "ArtifactFile",
    "LoadProblem",
    "ResultFileError",
    "RetryRecord",
    "Run",
    "RunReadError",
    "RunSummary",
    "TaskEntry",
    "TextPage",
    "find_runs",
    "list_artifact_files",
    "list_legacy_retry_details",
    "list_retry_records",
    "read_analysis_summary",
    "read_attempt_payload",
    "read_checkpoint",
    "read_progress",
    "read_progress_events",
    "read_retry_record",
    "read_run",
    "read_run_log_tail",
    "read_text_page",
    "summarize_run",
    "task_directory_name",
]


__getattr__ = exports(__name__, _SOURCES, globals())


if TYPE_CHECKING:  # pragma: no cover
    from inspector.results.discover import RunSummary, find_runs, summarize_run
    from inspector.results.layout import task_directory_name
    from inspector.results.lazy import (
        AnalysisSummary,
        ArtifactFile,
        RetryRecord,
        TextPage,
        list_artifact_files,
        list_legacy_retry_details,
        list_retry_records,
        read_analysis_summary,
        read_attempt_payload,
        read_checkpoint,
        read_progress,
        read_progress_events,
        read_retry_record,
        read_run_log_tail,
        read_text_page,
    )
    from inspector.results.problems import LoadProblem, ResultFileError, RunReadError
    from inspector.results.reader import Run, read_run
    from inspector.results.tasks import TaskEntry
