"""Reading AgentCompass run directories: pure (no textual, no rich), read-only.

``read_run`` loads one run exactly as AgentCompass's ``RunStore`` would and reports
everything wrong as ``LoadProblem``s; ``find_runs`` lists the runs under a results root
cheaply; ``lazy`` reads the big payloads (trajectories, artifacts, logs) on demand.
"""

from __future__ import annotations

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
