"""The dashboard's settings file (docs/dashboard.md#command-palette): whatever it holds, the dashboard starts,
with one notice; an empty HOME is no home, and then nothing is saved."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcsexam.tui.app import create_app
from tcsexam.tui.settings import NO_HOME, config_path, read_theme, save_theme
from tests.support.dashboard import notifications, wait_until

THEMES = ["nord", "textual-dark"]
DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (DEEP, "not JSON that can be read: nested too deeply"),
        (b'{"theme": ' + b"1" * 5001 + b"}", "not JSON that can be read: a number too long"),
        (b'{"theme": {"a": ' * 3000 + b"1" + b"}" * 3000 + b"}", "not JSON that can be read: nested too deeply"),
    ],
    ids=["arrays-100000-deep", "theme-5001-digits", "objects-3000-deep"],
)
def test_a_settings_file_that_cannot_be_read_is_ignored_with_its_reason(isolated_config, content, why):
    path = isolated_config / "tcsexam" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    theme, problem = read_theme(THEMES)
    assert theme is None and problem is not None and problem.startswith(f"{path}: {why}")


json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text() | st.sampled_from(THEMES),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["theme", "x", ""]), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(st.binary(max_size=64), json_values.map(lambda v: json.dumps(v).encode())))
def test_any_settings_file_gives_a_theme_or_a_reason_never_an_exception(isolated_config, content):
    path = isolated_config / "tcsexam" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    theme, problem = read_theme(THEMES)
    assert theme is None or (theme in THEMES and problem is None)
    assert problem is None or problem.startswith(f"{path}: ")


@pytest.mark.dashboard
async def test_the_dashboard_starts_whatever_its_settings_file_holds(isolated_config):
    path = isolated_config / "tcsexam" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(DEEP)
    app = create_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.state is not None, "the demo run loaded")
        assert app.theme == "textual-dark"
        notices = [m for m in notifications(app) if m.startswith("Theme not restored")]
        assert notices == [f"Theme not restored: {path}: not JSON that can be read: nested too deeply."]
    assert app.return_code in (0, None)


@pytest.mark.parametrize("home", ["", "relative/home"])
@pytest.mark.parametrize("xdg", [None, "", "relative/xdg"])
def test_an_empty_or_relative_home_is_no_home(monkeypatch, tmp_path, home, xdg):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", home)
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    assert config_path() is None
    assert read_theme(THEMES) == (None, None)
    assert save_theme("nord") == NO_HOME
    assert list(tmp_path.iterdir()) == []  # nothing made in the current folder (nor in /.config)


def test_an_absolute_xdg_config_home_is_used_without_a_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", "")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_path() == tmp_path / "tcsexam" / "config.json"
    assert save_theme("nord") is None and read_theme(THEMES) == ("nord", None)
