"""``h`` explains a value's interval with the digits ``inspector stats`` prints, and says how
the tables round it (issue 49, item 7): the tree shows .10–.97 for software-engineering where
``stats`` prints [0.1026, 0.9603]."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from inspector.app.app import InspectorApp
from inspector.app.screens.explain import ExplainScreen
from inspector.app.screens.overview import OverviewScreen
from inspector.cli.main import main
from inspector.views.audit import Scope

from .helpers import pilot_test, settle, static_text

NODE = "overall/engineering/software-engineering"


def _stats_bounds(path, series: str, scope: str) -> str:  # type: ignore[no-untyped-def]
    """The ``95% CI`` text of ``scope``'s row under ``series`` in ``inspector stats``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["stats", str(path)]) == 0
    block = out.getvalue().split(f"{series} (", 1)[1]
    row = next(line for line in block.splitlines() if line.startswith(f"{scope} "))
    found = re.search(r"\[[^\]]+\]", row)
    assert found is not None, row
    return found.group(0)


async def _summary(pilot) -> str:  # type: ignore[no-untyped-def]
    """The explain screen's summary, once it is on top, as one line."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ExplainScreen)
    return " ".join(static_text(screen.summary, width=400).split())


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (140, 45)])
@pilot_test
async def test_h_gives_the_interval_as_stats_prints_it(run_path, size) -> None:  # type: ignore[no-untyped-def]
    path = run_path("k3_avg_hierarchy")
    series_bounds = _stats_bounds(path, "correct.avg@3", "node overall")  # h: the tree root
    node_bounds = _stats_bounds(path, "correct.avg@3", f"node {NODE}")
    assert node_bounds == "[0.1026, 0.9603]"
    app = InspectorApp([path])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        await pilot.press("h")
        text = await _summary(pilot)
        assert f"95% interval {series_bounds}" in text, text
        assert "(n = 14;" in text
        await pilot.press("escape")
        await settle(pilot)
        overview.open_explain("correct.avg@3", Scope(node=NODE))
        text = await _summary(pilot)
        assert f"95% interval {node_bounds}" in text, text
        assert "the tables show .10–.97: the bounds rounded outwards to hundredths" in text
