"""The footer fits its width (issue 14): at 80 and 100 columns the overview's keys no longer run
off the right edge, and ``? Help`` and ``q Quit`` are on screen at every size, on every screen,
with ``esc Back`` on every screen below the first.
"""

from __future__ import annotations

from itertools import pairwise
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from inspector.app.app import InspectorApp
from inspector.app.screens.diagnostics import DiagnosticsScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.task import TaskScreen
from inspector.views.audit import Scope
from inspector.views.tasks import TaskFilter
from widgets.key_footer import KeyFooter

from .helpers import pilot_test, settle

SIZES = [(80, 24), (100, 30), (140, 45)]


def _shown(app: InspectorApp) -> list[FooterKey]:
    """The footer keys of the screen on top that are on screen, checked to fit in it."""
    footer = app.screen.query_one(KeyFooter)
    shown = footer.shown_keys
    right = footer.region.right
    for before, after in pairwise(shown):
        assert before.region.right <= after.region.x, (before.description, after.description)
    for key in shown:
        assert key.region.width > 0 and key.region.right <= right, (key.description, right)
    return shown


def _descriptions(app: InspectorApp) -> list[str]:
    return [key.description for key in _shown(app)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pilot_test
async def test_overview_footer_fits_and_keeps_help_and_quit(run_path, size) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        shown = _descriptions(app)
        assert {"Help", "Quit"} <= set(shown), shown
        if size[0] >= 100:  # after the main keys (below), the first keys come first
            assert shown[0] == "Open count" and "Tasks" in shown
        else:  # 80 columns: the main keys take the room
            assert shown[:5] == ["What-if", "Issues", "Flaky", "Problems", "Export"], shown
        every = [key.description for key in app.screen.query(FooterKey)]
        if size[0] == 140:
            assert shown == every  # room for every key
        else:
            assert len(shown) < len(every)


@pilot_test
async def test_every_screen_keeps_help_quit_and_back_at_80_columns(run_path) -> None:  # type: ignore[no-untyped-def]
    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen) and overview.session is not None
        openers = [
            lambda: overview.open_tasks(TaskFilter("correct.avg@3")),
            lambda: overview.open_ledger("correct.avg@3", "error"),
            lambda: overview.open_explain("correct.avg@3", Scope(node="overall/engineering")),
            overview.open_issues,
            overview.action_flaky,
            lambda: app.push_screen(
                TaskScreen(overview.session, "git-leak-recovery", "correct.avg@3")
            ),
            lambda: app.push_screen(DiagnosticsScreen(overview.session, "fix-pandas-version", 0)),
        ]
        for open_screen in openers:
            open_screen()
            await settle(pilot)
            assert app.screen is not overview
            shown = _descriptions(app)
            assert {"Help", "Quit", "Back"} <= set(shown), (type(app.screen).__name__, shown)
            app.pop_screen()
            await settle(pilot)


class _Greyed(Screen[None]):
    """Keys whose labels overflow 60 columns, the first of them greyed out."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "first", "Greyed out first"),
        *(Binding(k, k, f"Working key {k}") for k in "bcdefg"),
    ]

    def compose(self) -> ComposeResult:
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "first" else True


@pilot_test
async def test_a_greyed_out_key_folds_before_a_working_one() -> None:
    app: App[None] = App()
    async with app.run_test(size=(60, 10)) as pilot:
        app.push_screen(_Greyed())
        await settle(pilot)
        shown = [key.description for key in app.screen.query_one(KeyFooter).shown_keys]
        # the greyed-out key leaves its room to the working ones listed after it
        assert "Working key b" in shown and "Greyed out first" not in shown, shown


class _Toggling(Screen[None]):
    """Two inputs with no keys of their own, and a key that works only while ``armed``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "fire", "Fire"),
        Binding("r", "rename", "Rename"),
    ]
    armed = True

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "fire" and not self.armed else True  # None: greyed out


@pilot_test
async def test_footer_keys_are_remade_only_when_the_bindings_change() -> None:
    app: App[None] = App()
    async with app.run_test(size=(80, 10)) as pilot:
        screen = _Toggling()
        app.push_screen(screen)
        await settle(pilot)
        footer = screen.query_one(KeyFooter)
        keys = list(footer.query_children(FooterKey))
        assert [(k.description, k.has_class("-disabled")) for k in keys[:2]] == [
            ("Fire", False),
            ("Rename", False),
        ]
        # focus moves between widgets with the same keys: the footer keeps its keys
        screen.query_one("#two", Button).focus()
        await settle(pilot)
        screen.query_one("#one", Button).focus()
        await settle(pilot)
        assert list(footer.query_children(FooterKey)) == keys
        # a key stops working: the footer shows it greyed out
        screen.armed = False
        screen.refresh_bindings()
        await settle(pilot)
        remade = list(footer.query_children(FooterKey))
        assert remade != keys
        assert [(k.description, k.has_class("-disabled")) for k in remade[:2]] == [
            ("Fire", True),
            ("Rename", False),
        ]
        # Textual's looks: bound keys not compact, the palette key compact
        assert [k.has_class("-compact") for k in remade] == [
            k.has_class("-command-palette") for k in remade
        ]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pilot_test
async def test_the_main_keys_stay_in_the_footer(run_path, tmp_path, size) -> None:  # type: ignore[no-untyped-def]
    """Issue 49: at 80 columns the runs screen kept neither m, c nor G, the overview neither
    w, i, f, x nor p; they stay at every size (the rest fold behind ? Help)."""
    from tests.results_root import checked_screen, make_results_root

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        shown = _descriptions(app)
        assert {"What-if", "Issues", "Flaky", "Export", "Problems"} <= set(shown), shown
        assert {"Help", "Quit"} <= set(shown), shown
    app = InspectorApp([make_results_root(tmp_path)])
    async with app.run_test(size=size) as pilot:
        await checked_screen(pilot, settle)
        shown = _descriptions(app)
        assert {"Mark", "Compare", "Gate", "Help", "Quit"} <= set(shown), shown
