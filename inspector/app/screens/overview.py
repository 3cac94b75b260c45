"""Overview of one run: series, counts, categories / hierarchy, plan, load problems."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Header, Static
from textual.worker import Worker, get_current_worker

from inspector import loading
from inspector.app.banners import difference_lines, failed_lines, refusal_lines
from inspector.app.host import host_of
from inspector.app.intervals import IntervalsReady, all_series_stats, tree_texts
from inspector.app.messages import (
    LoadFailed,
    LoadProgress,
    PreviewOutdated,
    ReportPreview,
    SessionLoaded,
)
from inspector.app.navigation import OpenDetail
from inspector.app.preview import preview_of
from inspector.app.screens.overview_actions import PANEL_KEYS, OverviewActions, panel_tabs
from inspector.app.titles import place, run_label, run_title
from inspector.engine.recomputation import Recomputation
from inspector.resolve import Overrides
from inspector.session import Difference, Session
from inspector.views.audit import InCount
from inspector.views.rules import benchmark_rules
from inspector.views.run_stats import SeriesStats
from inspector.views.stats import bounds_text, compact_bounds_text
from inspector.views.tasks import (
    COUNTS_NOTE,
    COUNTS_NOTE_SHORT,
    TaskFilter,
    series_values,
)
from widgets.banner import Banner
from widgets.category_tree import CategoryTree, node_line
from widgets.distribution import Distribution
from widgets.key_footer import KeyFooter
from widgets.literal import one_line
from widgets.plan_panel import PlanPanel
from widgets.problems_table import ProblemsTable, problem_text, problems_title
from widgets.quiet_progress import QuietProgressBar
from widgets.series_table import SeriesTable

if TYPE_CHECKING:
    from inspector.loading import EarlyOpen


LOADING = "Reading and recomputing the run…"


class OverviewScreen(OverviewActions):
    """The recomputed report of one run and where its numbers come from."""

    HELP = """\
# Overview
The report recomputed from the run's task results. Move through the series table; the
category tree and the distribution follow the selected series. **enter** on a count lists
exactly the tasks behind it; **enter** on a tree node lists the tasks under it.
**l** opens the count ledger (which tasks, and why) and **h** explains how the value is made,
for the series and count under the cursor — or for the tree node, when the tree has focus.
**w** compares the stored plan with a what-if plan (k=1, avg@j, pass@j); **i** lists the
issues and retries; **f** lists the flaky tasks (attempts that disagree) with the pass@j and
pass^j estimates; **x** exports the run (EEE, Parquet, CSV, JSONL) to a folder.
`95% CI`: attempts averaged first; folded, its bounds follow the value (`.27–.83`). Below 100
columns **1**–**4** show the series table, tree, distribution or plan (the plan's sources).
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        *PANEL_KEYS,
        Binding("t", "tasks", "Tasks", tooltip="All tasks for the selected series"),
        Binding(
            "l",
            "ledger",
            "Ledger",
            tooltip="Which tasks stand behind this count or node, and why",
        ),
        Binding(
            "h",
            "explain",
            "Explain",
            tooltip="How this value is made: formula, weights, tasks",
        ),
        Binding(
            "w", "what_if", "What-if", tooltip="Compare the stored plan with k=1 / avg@j / pass@j"
        ),
        Binding("i", "issues", "Issues", tooltip="Issues by severity × phase × code, and retries"),
        Binding("f", "flaky", "Flaky", tooltip="Tasks whose attempts disagree; pass@j / pass^j"),
        Binding("p", "focus_problems", "Problems", tooltip="Show the load problems"),
        Binding("x", "export", "Export", tooltip="Write EEE / Parquet / CSV / JSONL to a folder"),
    ]
    FOOTER_KEYS = frozenset({"what_if", "issues", "flaky", "export", "focus_problems"})

    def __init__(self, path: Path, overrides: Overrides | None = None) -> None:
        super().__init__()
        self.path = path
        self.overrides = overrides
        self.session: Session | None = None
        self.selected_series: str | None = None
        self._cache_hits = 0
        self._early: EarlyOpen | None = None
        self._previewed = False
        self._load_worker: Worker[None] | None = None
        self.intervals: dict[str, SeriesStats] = {}

    def shown_sessions(self) -> tuple[Session, ...]:
        return () if self.session is None else (self.session,)

    # Typed accessors.
    @property
    def distribution(self) -> Distribution:
        return self.query_one(Distribution)

    @property
    def plan_panel(self) -> PlanPanel:
        return self.query_one(PlanPanel)

    @property
    def progress_bar(self) -> QuietProgressBar:
        return self.query_one("#load-progress", QuietProgressBar)

    def banner(self, name: str) -> Banner:
        return self.query_one(f"#{name}", Banner)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Banner(id="refusal", classes="-error")
        yield Banner(id="failed", classes="-info")
        yield Banner(id="differences")
        with Horizontal(id="loading"):
            yield Static(LOADING, id="loading-label")
            yield QuietProgressBar(id="load-progress")
        yield Static(id="load-status")
        yield SeriesTable()
        yield Static(Text(COUNTS_NOTE, "dim"), id="counts-note")
        yield Static(Text(COUNTS_NOTE_SHORT, "dim"), id="counts-note-short")
        yield Static(panel_tabs("tree"), id="panel-tabs")
        with Horizontal(id="overview-lower"):
            with Vertical(id="overview-left"):
                yield CategoryTree()
                yield Static(id="tree-cursor")
            with VerticalScroll(id="overview-right"):
                yield Distribution()
                yield Static("Plan", classes="section-title", id="plan-title")
                yield PlanPanel()
        yield Static("Load problems", classes="section-title", id="problems-title")
        yield ProblemsTable()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = run_title(self.path)
        self.sub_title = "overview"
        host = host_of(self)
        self._early = host.take_early(self.path) if host is not None else None
        self._previewed = False
        self.reload()

    @on(ProblemsTable.ProblemChosen)
    def _problem_chosen(self, message: ProblemsTable.ProblemChosen) -> None:
        """A load problem in full: the file, what is wrong, the rule, its effect."""
        problem = message.problem
        where = f"{run_label(self.path)}/{problem.path}" if problem.path else "the run"
        text = problem_text(problem, where)
        target = self.path / problem.path if problem.path else None
        self.post_message(OpenDetail(text, target))

    @on(CategoryTree.NodeHighlighted)
    def _node_highlighted(self) -> None:
        """The node under the tree's cursor in full (its name may be cut in the tree)."""
        text = node_line(self.category_tree.node_data)
        self.query_one("#tree-cursor", Static).update(text)

    def reload(self, *, fresh: bool = False) -> None:
        """Read and recompute the run again (in a worker); ``fresh``: read every file,
        nothing from the cache."""
        self.set_class(True, "-loading")
        self.progress_bar.update(total=None, progress=0)
        if not self._previewed:
            self.query_one("#loading-label", Static).update(LOADING)
        early, self._early = self._early, None
        preview = self.session is None and not self._previewed and not fresh
        self._load_worker = self._load(fresh, preview, early)

    @property
    def reading(self) -> bool:
        """True while a read of the run (and the storing of its caches after it) goes on."""
        return self._load_worker is not None and not self._load_worker.is_finished

    def show_load_status(self) -> None:
        """The lasting line under the progress row: whether the numbers came (partly) from
        the cache, and whether the run is watched and when it was last reloaded."""
        host = host_of(self)
        parts = []
        if host is not None and host.watching:
            stamp = host.last_reload.strftime("%H:%M:%S") if host.last_reload else "not yet"
            parts.append(
                f"Watching: reloads every {host.settings.watch_seconds:g} s · last reloaded "
                f"{stamp} (a stops)"
            )
        hits = self._cache_hits
        if self.session is not None and hits:
            parts.append(
                f"From the cache: {hits:,} of {len(self.session.run.entries):,} task folders "
                "were unchanged since last read and not parsed again · R reads every file again"
            )
        self.query_one("#load-status", Static).update(Text("\n".join(parts)))
        self.set_class(bool(parts), "-load-status")

    @work(thread=True, exclusive=True, exit_on_error=False, group="load", description="read run")
    def _load(self, fresh: bool, preview: bool, early: EarlyOpen | None) -> None:
        """Read the run through the one door (:func:`inspector.loading.read`) and post
        what it reports: the kept report of an unchanged run first, then progress and the
        session."""
        worker = get_current_worker()

        def on_event(event: loading.Event) -> None:
            if worker.is_cancelled:
                return
            if isinstance(event, loading.CachedReport):
                # Shown on the interface thread before the read goes on here.
                shown = ReportPreview(event.outputs, event.checked)
                self.app.call_from_thread(self._preview, shown)
            elif isinstance(event, loading.Outdated):
                self.post_message(PreviewOutdated())
            elif isinstance(event, loading.Progress):
                self.post_message(LoadProgress(event.done, event.total))
            elif isinstance(event, loading.Loaded):
                self.post_message(SessionLoaded(event.session, event.cache_hits))
            else:
                self.post_message(LoadFailed(event.message))

        try:
            path, plan = self.path, self.overrides
            loading.read(path, plan, fresh=fresh, preview=preview, on_event=on_event, early=early)
        except Exception as exc:
            self.post_message(LoadFailed(f"{type(exc).__name__}: {exc}"))
        finally:
            if early is not None:  # used (or given up): its read goes, not held for the session
                early.cancel()
                early.pending = None

    @on(ReportPreview)
    def _preview(self, message: ReportPreview) -> None:
        """The run's cached report: the series table, before the tasks load — first as not
        yet checked against the run's files, then as unchanged (or withdrawn)."""
        if self.session is not None:
            return
        preview = preview_of(message.outputs)
        if preview is None:
            return
        self._previewed = True
        self.series_table.show(preview.report)
        self.series_table.focus()
        if preview.differences is not None:
            self._show_differences(preview.differences)
        self.query_one("#loading-label", Static).update(
            "Unchanged since last opened: the numbers above are its cached report. "
            "Reading the tasks…"
            if message.checked
            else "From the cache of the last open: the numbers above are its cached report, "
            "not yet checked against the files. Checking…"
        )

    @on(PreviewOutdated)
    def _withdraw_preview(self) -> None:
        """The files changed since the cached report shown (or the run cannot be read): it
        goes until the run is read."""
        if not self._previewed or self.session is not None:
            return
        self._previewed = False
        self.series_table.clear()
        self.banner("differences").show([])
        self.query_one("#loading-label", Static).update(LOADING)

    @on(LoadProgress)
    def _progress(self, message: LoadProgress) -> None:
        self.progress_bar.update(total=max(message.total, 1), progress=message.done)

    @on(LoadFailed)
    def _failed(self, message: LoadFailed) -> None:  # its numbers go too
        self._withdraw_preview()
        self.progress_bar.finish()
        self.remove_class("-loading").add_class("-refused")
        self.banner("differences").show([])
        self._cache_hits = 0
        self.show_load_status()
        self.banner("refusal").show(
            [Text("Cannot read the run: ", "bold") + one_line(message.error, max_chars=300)]
        )

    @on(SessionLoaded)
    def _loaded(self, message: SessionLoaded) -> None:
        session = message.session
        # one restyle of the whole screen, not one per class
        classes = {"-loading": False, "-refused": session.recomputation is None}
        self.update_classes(classes | {"-no-problems": not session.problems})
        self.progress_bar.finish()
        self._previewed = False
        self.query_one("#loading-label", Static).update(LOADING)
        self.session = session
        self._cache_hits = message.cache_hits
        host = host_of(self)
        if host is not None:
            host.loaded(session)  # the screens above showing the replaced session follow
        self.show_load_status()
        self._show_banners(session)
        self.problems_table.show(session.problems)
        self.query_one("#problems-title", Static).update(problems_title(session.problems))
        self.refresh_bindings()
        recomputation = session.recomputation
        if recomputation is None:
            return
        plan = recomputation.plan
        self.sub_title = place("overview", plan.label, plan.benchmark_id, plan.model_id)
        rules = [(r.key, r.value, r.source) for r in benchmark_rules(recomputation)]
        self.plan_panel.show(plan, recomputation.report.aggregation, rules)
        previous = self.selected_series
        self.selected_series = None
        self.series_table.show(recomputation.report)
        ids = [s.series_id for s in recomputation.report.series]
        if previous in ids:
            self.series_table.select_series(previous)  # type: ignore[arg-type]
        self.intervals = {}
        self._show_series(self.series_table.series_id or ids[0])
        self._compute_intervals(recomputation)
        if self.focused is None or (self.focused is self.problems_table and not session.problems):
            self.series_table.focus()  # the first load; a reload keeps the focus where it is

    @work(thread=True, exclusive=True, exit_on_error=False, group="intervals",
          description="intervals")  # fmt: skip
    def _compute_intervals(self, recomputation: Recomputation) -> None:
        self.post_message(IntervalsReady(recomputation, all_series_stats(recomputation)))

    @on(IntervalsReady)
    def _intervals_ready(self, message: IntervalsReady) -> None:
        if self.session is None or message.recomputation is not self.session.recomputation:
            return  # an earlier load's
        self.intervals = message.stats
        own = {sid: stats.own.interval for sid, stats in message.stats.items()}
        bounds = {sid: bounds_text(i) for sid, i in own.items()}
        self.series_table.show_intervals(
            bounds, {sid: compact_bounds_text(i) for sid, i in own.items()}
        )
        shown, self.selected_series = self.selected_series, None
        if shown is not None:
            self._show_series(shown)

    def _show_banners(self, session: Session) -> None:
        self.banner("refusal").show(refusal_lines(session))
        self.banner("failed").show(failed_lines(session))
        self._show_differences(session.differences)

    def _show_differences(self, differences: list[Difference]) -> None:
        self.banner("differences").show(difference_lines(differences))

    @on(SeriesTable.SeriesHighlighted)
    def _series_highlighted(self, message: SeriesTable.SeriesHighlighted) -> None:
        self._show_series(message.series_id)

    def _show_series(self, series_id: str) -> None:
        rec = self.session.recomputation if self.session else None
        if rec is None or series_id == self.selected_series:
            return
        self.selected_series = series_id
        series = rec.report.series_by_id(series_id)
        stats = self.intervals.get(series_id)
        self.category_tree.show(series, rec.root, tree_texts(stats) if stats else None)
        self.distribution.show(series_id, series_values(rec, series_id))

    @on(SeriesTable.CountChosen)
    def _count_chosen(self, message: SeriesTable.CountChosen) -> None:
        self.open_tasks(TaskFilter(message.series_id, state=InCount(message.count)))

    @on(CategoryTree.NodeChosen)
    def _node_chosen(self, message: CategoryTree.NodeChosen) -> None:
        self.open_tasks(
            TaskFilter(
                message.series_id,
                categories=message.data.categories,
                category_label=message.data.label,
            )
        )
