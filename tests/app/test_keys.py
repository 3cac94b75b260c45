"""One meaning per key across the app, and the footer, the help screen and the command
palette naming the same keys."""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict

from textual.binding import Binding

import inspector.app.screens
import widgets
from inspector.app.app import InspectorApp
from inspector.app.commands import InspectorCommands
from inspector.app.screens.compare import CompareScreen
from inspector.app.screens.help import HelpScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.app.screens.tasks import TasksScreen
from inspector.views.compare import compare
from tests.conftest import open_session

from .helpers import pilot_test, settle

# Actions that mean the same to the person pressing the key (they differ only by screen).
SAME_MEANING = {
    "back": "leave",
    "cancel": "leave",
    "close": "leave",
    "dismiss": "leave",
    "next_match": "next",
    "next_run": "next",
    "next_series": "next",
    "next_count": "next",
    "open_pager": "pager",
    "open_file": "pager",
    "open_result": "pager",
    "open_editor": "editor",
    "open_folder": "editor",
    "open_task": "open",
    "open_run": "open",
    "choose": "open",
    "select_cursor": "open",
    "search": "find",
    "focus_filter": "find",
    "sort": "sort",
    "sort_column": "sort",
    "focus_filters": "filter",
    "next_filter": "filter",
    "focus_text": "find",
    "find": "find",
    "clear_filter": "leave",  # escape in a filter field: clear it and leave the field
    "scroll_top": "first row",
    "first_row": "first row",
    "scroll_bottom": "last row",
    "last_row": "last row",
}
# Keys that close what they opened (the same key again): help, and a load problem in full.
TOGGLES = {("HelpScreen", "q"), ("HelpScreen", "question_mark"), ("HelpScreen", "f1")}
TOGGLES |= {("DetailScreen", "enter")}


def _bindings() -> list[tuple[str, str, str]]:
    """(owner, key, action) of every binding of the app, its screens and its widgets."""
    owners: list[type] = [InspectorApp]
    for package in (inspector.app.screens, widgets):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            owners.extend(
                value
                for value in vars(module).values()
                if isinstance(value, type)
                and value.__module__ == module.__name__
                and "BINDINGS" in vars(value)
            )
    found = []
    for owner in owners:
        for binding in vars(owner)["BINDINGS"]:
            assert isinstance(binding, Binding), owner
            action = binding.action.split("(")[0]
            for key in binding.key.split(","):
                found.append((owner.__name__, key.strip(), action))
    return found


def test_every_key_has_one_meaning_everywhere() -> None:
    meanings: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for owner, key, action in _bindings():
        if (owner, key) in TOGGLES:
            continue
        meanings[key][SAME_MEANING.get(action, action)].append(owner)
    clashes = {key: dict(by) for key, by in meanings.items() if len(by) > 1}
    assert clashes == {}
    # the keys the issue names keep their meaning
    assert set(meanings["x"]) == {"export"} and len(meanings["x"]["export"]) >= 3
    assert set(meanings["v"]) == {"swap"} and set(meanings["y"]) == {"copy"}
    assert set(meanings["e"]) == {"editor"} and set(meanings["o"]) == {"pager"}
    assert "ctrl+s" not in meanings and set(meanings["f"]) == {"flaky"}


async def _keys_agree(pilot, app: InspectorApp) -> set[str]:  # type: ignore[no-untyped-def]
    """The footer's keys of the screen on top, checked against help and the palette."""
    screen = app.screen
    footer = {
        (app.get_key_display(active.binding), active.binding.description)
        for active in screen.active_bindings.values()
        if active.binding.show and active.enabled and active.binding.description
    }
    palette = {title for title, _, _ in InspectorCommands(screen).commands()}
    for shown, description in footer:
        assert f"key {shown}: {description}" in palette, (shown, description)
    await pilot.press("question_mark")
    await settle(pilot)
    help_screen = app.screen
    assert isinstance(help_screen, HelpScreen)
    for shown, description in footer:
        assert f"| `{shown}` | {description} |" in help_screen.text, (shown, description)
    await pilot.press("escape")
    await settle(pilot)
    return {description for _, description in footer}


@pilot_test
async def test_footer_help_and_palette_agree_and_x_exports(run_path, runs_root) -> None:  # type: ignore[no-untyped-def]
    from inspector.views.tasks import TaskFilter

    app = InspectorApp([run_path("k3_avg_hierarchy")])
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        assert "Export" in await _keys_agree(pilot, app)
        overview.open_tasks(TaskFilter("correct.avg@3"))
        await settle(pilot)
        assert isinstance(app.screen, TasksScreen)
        assert "Export" in await _keys_agree(pilot, app)
        a = open_session(runs_root / "compare_a")
        b = open_session(runs_root / "compare_b")
        assert a.recomputation is not None and b.recomputation is not None
        app.push_screen(
            CompareScreen(
                compare(a.recomputation, b.recomputation, label_a="a", label_b="b"), (a, b)
            )
        )
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert {"Export", "Swap A/B"} <= await _keys_agree(pilot, app)
        # the palette's key command does what the key does
        swap = next(
            call
            for title, call, _ in InspectorCommands(screen).commands()
            if title == "key v: Swap A/B"
        )
        result = swap()
        if hasattr(result, "__await__"):
            await result
        await settle(pilot)
        swapped = app.screen
        assert isinstance(swapped, CompareScreen) and swapped is not screen
        assert (swapped.comparison.label_a, swapped.comparison.label_b) == ("b", "a")
