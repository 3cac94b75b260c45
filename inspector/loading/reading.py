"""A run being read and scored: its run-level files now, its task folders from the task
store or by reader processes (:class:`~inspector.loading.readers.EntryLoad`), collected
while the tasks are reduced; ``--k`` / ``--strategy`` applied as a derived plan, with a
note saying so, and a warning for a contract guessed from the observations. :func:`prepare`
starts this for the app before textual is imported."""

from __future__ import annotations

import gc
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.errors import EngineError
from inspector.loading import reports
from inspector.loading.index import Checked
from inspector.loading.readers import EntryLoad, stat_or_absent
from inspector.loading.records import NOTE_PREFIX, WARNING_PREFIX, Outputs
from inspector.loading.store import enabled as store_enabled
from inspector.loading.tasks import TaskCache
from inspector.overrides import Overrides
from inspector.resolve import contract_guessed, reduction_stream
from inspector.results.listing import RUN_FILES, running_files
from inspector.results.problems import RunReadError
from inspector.results.reader import (
    ListedRun,
    OnProgress,
    list_run,
    read_run_files,
)
from inspector.results.tasks import TaskEntry, load_running
from inspector.results.validate import BUILTIN_STRATEGIES
from inspector.session import DERIVED_KEY, Session, score_run


class PendingRead:
    """A run whose run-level files and folder listing are read and whose task folders are
    being read (by worker processes, for a large run). :meth:`finish` completes it."""

    def __init__(self, listed: ListedRun, load: EntryLoad) -> None:
        # Not the listing itself: its map of folder names is done with once reading started.
        self.files = listed.files
        self.running = listed.running
        self.run = listed.run
        self.collector = listed.collector
        self.load = load

    def finish(self, plan: Overrides | None, progress: OnProgress | None = None) -> Session:
        """Collect every task folder, reducing the published tasks under ``plan`` as they
        come in, and score the run. The task store is not written here: the caller keeps
        ``load.cache`` once the session is out."""
        run, files, running, cache = self.run, self.files, self.running, self.load.cache
        stream = reduction_stream(run, plan)
        if stream is not None:
            self.collector.on_tasks = stream.add
        candidates = len(self.load.entries)
        total = candidates + len(running)
        self.load.collect(progress, total, on_entries=self.collector.take)
        run.signatures = self.load.signatures
        run.cache_hits = cache.hits if cache is not None else 0
        for done, folder in enumerate(running, start=candidates + 1):
            if run.seen is not None:
                for rel in running_files(folder):
                    run.seen[rel] = stat_or_absent(files.full_path(rel))
            run.entries.append(load_running(files, folder))
            if progress is not None:
                progress(done, total)
        run.problems.extend(problem for entry in run.entries for problem in entry.problems)
        return score_run(run, plan, stream=stream)

    def cancel(self) -> None:
        """Give up: stop the reader processes."""
        self.load.cancel()


def begin_read(
    path: Path | str,
    *,
    reuse_cache: bool = True,
    store: bool = True,
    shared: bool = False,
    checked: Checked | None = None,
) -> PendingRead:
    """Start reading a run: run-level files and the folder listing now, task folders from
    the task store or by reader processes started now (:class:`EntryLoad`). ``reuse_cache``
    False reads every folder (what is read is still kept); ``store`` False: nothing is
    kept and no file's key is taken; ``shared``: the caller has threads (the app); ``checked``:
    what the report store's check just found (a folder whose files it found with their
    stored keys is not stat'ed again).

    Raises:
        RunReadError: as :func:`~inspector.results.reader.read_run`.
    """
    started = time.time_ns()
    listed = list_run(path)
    run, files = listed.run, listed.files
    run.read_started_ns = started
    on = store_enabled()
    # The task store first: it puts in entries the folders it holds; the rest are read.
    candidates, first_location = listed.candidates, listed.first_location
    cache = TaskCache(files.root, reuse=reuse_cache) if on and store else None
    entries: list[TaskEntry | None] = [None] * len(candidates)
    missing = list(range(len(candidates)))
    if cache is not None:
        enabled = gc.isenabled()
        gc.disable()  # what it builds is acyclic
        try:
            missing = cache.look_up(entries, candidates, first_location, checked, shared)
        finally:
            if enabled:
                gc.enable()
    if on and store:  # before reading: a file changed meanwhile differs next time
        run.seen = {rel: stat_or_absent(files.full_path(rel)) for rel in RUN_FILES}
    run.listing = listed.listing
    # The task folders' reader processes start while the run-level files are read here.
    load = EntryLoad(files, candidates, first_location, BUILTIN_STRATEGIES, cache=cache,
                     entries=entries, missing=missing, shared=shared)  # fmt: skip
    read_run_files(files, run)
    run.problems.extend(listed.problems)
    return PendingRead(listed, load)


CONTRACT_WARNING = WARNING_PREFIX + "contract: "


def outputs_of(session: Session, notes: list[str]) -> Outputs:
    """The outputs of a scored session (``notes``: the derived-plan notes printed)."""
    run = session.run
    assert session.recomputation is not None
    plan = session.recomputation.plan
    return Outputs(
        warnings=tuple((p.path, p.message) for p in run.problems if not p.blocking),
        notes=tuple(notes),
        metrics_json=session.metrics_json(),
        # A derived plan's summary.md has a heading of its own: made now.
        summary_markdown=session.summary_markdown() if plan.derived else None,
        stored_metrics_text=run.stored_metrics_text if run.stored_metrics is not None else None,
        tasks=len(run.tasks),
        names=(plan.model_id, plan.benchmark_id),
    )


@dataclass
class Derived:
    """A session scored as the command line asked, with what it prints besides the report."""

    session: Session
    notes: list[str] = field(default_factory=list)  # derived-plan notes, whole lines
    refusal: str | None = None  # one line naming the file: the run cannot be scored so


def base_plan(overrides: Overrides | None) -> Overrides | None:
    """The overrides a run is read and scored with before ``--k`` / ``--strategy`` are
    applied as a derived plan (:func:`derive`)."""
    if overrides is None or (overrides.k is None and overrides.strategy is None):
        return overrides
    return Overrides(
        aggregation=overrides.aggregation,
        hierarchy=overrides.hierarchy,
        contract=overrides.contract,
        benchmark_id=overrides.benchmark_id,
    )


def derive(session: Session, overrides: Overrides | None, path: str | Path) -> Derived:
    """Apply ``--k`` / ``--strategy`` to a session scored with :func:`base_plan`'s plan;
    ``path`` is the run as the user named it (for messages)."""
    if session.refusal is not None:
        return Derived(session, refusal=f"{Path(path) / session.refusal_path}: {session.refusal}")
    derived = _derive(session, overrides, path)
    if derived.refusal is None:
        assert session.recomputation is not None and derived.session.recomputation is not None
        source = session.recomputation.plan.sources.get("contract", "")
        plan = derived.session.recomputation.plan
        lists_auxiliaries = plan.k == 1 or plan.strategy == "avg"
        derived.notes.extend(guessed_contract_warning(path, source, lists_auxiliaries))
    return derived


def _derive(session: Session, overrides: Overrides | None, path: str | Path) -> Derived:
    assert session.recomputation is not None
    if overrides is None or base_plan(overrides) is overrides:
        return Derived(session)
    plan = session.recomputation.plan
    k = overrides.k if overrides.k is not None else plan.k
    strategy = (overrides.strategy or plan.strategy).lower()
    if (k, strategy) == (plan.k, plan.strategy):
        return Derived(session)
    from inspector.engine.whatif import derived, no_attempt_warning

    try:
        recomputation, derivation = derived(session.recomputation, k=k, strategy=strategy)
    except EngineError as exc:
        return Derived(session, refusal=f"{path}: cannot score as {strategy}@{k}: {exc}")
    session = session.with_plan(recomputation)
    notes = [f"{NOTE_PREFIX}{derivation.description}: {note}" for note in derivation.notes]
    guess = no_attempt_warning(derivation)
    if guess is not None:
        notes.append(f"{WARNING_PREFIX}{path}: {guess}")
    notes.append(derived_note(derivation.description, derivation.equivalent))
    return Derived(session, notes=notes)


def derived_note(
    description: str,
    equivalent: bool,
    labelled: str = f"the output too (metrics.json: extra.{DERIVED_KEY}; markdown: a heading)",
) -> str:
    """The stderr note every output of a derived plan gets (``labelled``: where the
    output itself says so)."""
    claim = "equivalent to" if equivalent else "NOT equivalent to"
    return (
        f"{NOTE_PREFIX}derived plan: {description} ({claim} having run it); labelled in {labelled}"
    )


def guessed_contract_warning(
    path: str | Path, source: str, lists_auxiliaries: bool = False
) -> list[str]:
    """The warning (as a list of lines: none or one) for a contract guessed from the
    attempts' observations (``lists_auxiliaries``: see :func:`contract_guessed`)."""
    if not contract_guessed(source, lists_auxiliaries):
        return []
    return [
        f"{CONTRACT_WARNING}{path}: the metric contract was {source}: labels, units, "
        "precision and series order may differ from the benchmark's, and a metric no "
        "attempt observed is missing; pass --contract FILE to fix it"
    ]


@dataclass
class EarlyOpen:
    """What was done for one run before the app started."""

    path: Path
    preview: Outputs | None = None  # the report cache's answer, its files not checked
    pending: PendingRead | None = None

    def matches(self, path: Path) -> bool:
        return os.path.abspath(path) == os.path.abspath(self.path)

    def cancel(self) -> None:
        """Not used after all: stop its reader processes."""
        if self.pending is not None:
            self.pending.cancel()


def prepare(path: Path) -> EarlyOpen | None:
    """Look the run up in the report cache, else start reading it (worker processes)."""
    if not ((path / "run_info.json").exists() or (path / "details").is_dir()):
        return None
    early = EarlyOpen(path)  # its preview is checked later, in a reader process
    early.preview = reports.peek(path, reports.key_for(None, "outputs"))
    if early.preview is None:
        try:
            early.pending = begin_read(path)
        except RunReadError:
            return None
    return early
