"""The runs screen's publish gate (``G``): each run judged as ``inspector gate``
judges it, under the policy of the current folder (``inspector-gate.toml`` there, unless
it lies inside a root open, else the defaults: never one the results carry), shown in a ``Gate`` column and, with the failed
rules, in the detail line. The runs screen (:mod:`inspector.app.screens.runs`) is built on
this one; only it imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding
from textual.message import Message
from textual.worker import get_current_worker

from inspector.app.host import InspectorScreen
from inspector.results.discover import RunSummary
from inspector.views.gate import RunGate
from inspector.views.runs_view import with_gates

if TYPE_CHECKING:  # pragma: no cover
    from inspector.resolve import Overrides
    from inspector.views.runs_view import RunRow
    from widgets.run_table import RunTable


PolicyKey = tuple[tuple[str, int, int, int] | None, ...]
"""What changes when the policy file changes: see :meth:`GatedRunsScreen._policy_key`."""


@dataclass
class RunsGated(Message):
    """Gate results of runs: ``(run path, gate)``; ``policy``: where the policy came from;
    ``error``: the policy cannot be used (one line naming the file)."""

    gates: list[tuple[str, RunGate]]
    policy: str = ""
    error: str | None = None
    key: PolicyKey | None = None
    """The policy file's stat the gates were judged under (results under an older one go)."""


class GatedRunsScreen(InspectorScreen):
    """What the runs screen needs for ``G``; the runs screen provides the rest."""

    GATE_KEY = Binding(
        "G", "gate", "Gate",
        tooltip="Show or hide each run's publish-gate result (as inspector gate judges it)",
    )  # fmt: skip
    """The runs screen lists it last among its keys."""
    PALETTE: ClassVar[dict[str, str]] = {"gate": "gate: show / hide each run's gate result"}

    roots: list[Path]
    rows: list[RunRow]
    run_table: RunTable
    overrides: Overrides | None

    def __init__(self) -> None:
        super().__init__()
        self.gating = False
        """The gate's results are shown."""
        self.gates: dict[str, RunGate] | None = None
        """The results that arrived, by the run's path (None: not asked for)."""
        self.gate_policy = ""
        """Where the policy of :attr:`gates` came from, as shown."""
        self.gate_key: PolicyKey | None = None
        """The policy files' stats when :attr:`gates` were judged (None: not judged yet)."""

    def apply_filter(self) -> None:  # pragma: no cover - the runs screen's
        raise NotImplementedError

    def gate_reset(self) -> None:
        """The runs are read again (``r``): the gate's results go, and so does the column."""
        self.workers.cancel_group(self, "runs-gate")
        self.gating, self.gates = False, None
        self.run_table.gating = False

    def action_gate(self) -> None:
        """Show the gate's results, judged again when the policy file changed (its stat)
        since they were; hide them when shown under the policy in force."""
        key = self._policy_key()
        stale = self.gates is None or key != self.gate_key
        self.gating = stale or not self.gating
        if self.gating and stale:
            self.workers.cancel_group(self, "runs-gate")
            self.gates, self.gate_key, self.gate_policy = {}, key, ""
            self._judge([row.summary for row in self.rows], key)
        self._show_gates()

    def _policy_key(self) -> PolicyKey:
        """The stat (path, inode, size, mtime in ns) of each file the policy may be read
        from, the policy file in the first root and in the current folder: None where there
        is none. A change to either is a change of the policy in force."""
        from inspector.gate_policy import POLICY_FILE

        key = []
        for path in (self.roots[0] / POLICY_FILE, Path(POLICY_FILE)):
            try:
                stat = path.stat()
            except OSError:
                key.append(None)
                continue
            key.append((str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns))
        return tuple(key)

    def _shown_policy(self, source: str) -> str:
        """``source`` from the root's parent when the file is under the root (no absolute
        paths on screen)."""
        root = self.roots[0]
        path = Path(source)
        if path.is_absolute() and path.is_relative_to(root):
            return str(path.relative_to(root.parent))
        return source

    def _show_gates(self) -> None:
        self.rows = with_gates(self.rows, self.gates or {}, self.gating, self.gate_policy)
        self.run_table.gating = self.gating
        self.apply_filter()

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs-gate",
          description="gate runs")  # fmt: skip
    def _judge(self, runs: list[RunSummary], key: PolicyKey) -> None:
        # pydantic (the policy's shape) and the rules: only once G is pressed.
        from inspector.answers.gate import gate_runs
        from inspector.gate_policy import PolicyError, read_policy

        worker = get_current_worker()
        try:
            policy = read_policy(None, [str(root) for root in self.roots])
        except PolicyError as exc:
            self.post_message(RunsGated([], error=str(exc), key=key))
            return
        cancelled = lambda: worker.is_cancelled  # noqa: E731
        for batch in gate_runs(runs, policy, self.overrides, cancelled=cancelled):
            if worker.is_cancelled:
                return
            self.post_message(RunsGated(batch, policy.source, key=key))

    @on(RunsGated)
    def _gated(self, message: RunsGated) -> None:
        if message.key != self.gate_key:
            return  # judged under a policy that has changed since
        if message.error is not None:
            self.gating, self.gates = False, None
            self.notify(message.error, severity="error", markup=False)
        elif self.gates is not None:
            self.gates.update(message.gates)
            self.gate_policy = self._shown_policy(message.policy)
        self._show_gates()
