"""Every key discoverable (docs/dashboard.md#keys): every tab opens with its number key from every
other tab, `?` lists the keys of the tab shown, the footer keeps `?` and `q`, the palette shows keys."""

from __future__ import annotations

import pytest
from textual.widgets import TabbedContent

from tests.support.dashboard import settle, wait_until
from tui.app import create_app
from tui.panes import PANES

SIZES = {"80x24": (80, 24), "200x50": (200, 50)}


def active(app) -> str:
    return app.main.query_one(TabbedContent).active


@pytest.mark.parametrize("size", SIZES)
async def test_every_tab_key_opens_its_tab_from_every_tab(size):
    """`7` from Coverage, pass^k or Compare used to leave the tab open: the focus stayed on the tab
    left (Diagnostics' table is hidden while there are no problems) and the tabs follow the focus."""
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for start in PANES:
            for target in PANES:
                await pilot.press(start.key)
                await wait_until(pilot, lambda start=start: active(app) == start.id, f"tab {start.id}")
                await pilot.press(target.key)
                await settle(pilot)
                assert active(app) == target.id, f"{target.key} from {start.id}"
