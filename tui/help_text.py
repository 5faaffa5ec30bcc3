"""Help: the keys of the tab shown, the keys of every tab and what each tab shows, made from the
bindings and the tabs' registry (tui/panes/__init__.py), so that a key cannot be missing from it. The
help screen (tui/screens/help.py) shows this text; the app makes it, above the panes it reads."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode

from .panes import PANES, TAB, own_bindings

INTRO = """\
# tcsexam dashboard

The keys and tabs below are described at more length in `tcsexam docs dashboard`."""

# Textual's own keys, which the dashboard's bindings do not list
MOVING = [
    ("`Tab` / `shift+Tab`", "move between the controls of a tab"),
    ("`↑` `↓` `PgUp` `PgDn` `Home` `End`", "move in a table"),
    ("click", "a tab, a row, a header (sorts; again reverses), a cell (twice opens it), a key in the footer"),
]

PALETTE = """\
The palette's own commands (`ctrl+p`; each shows its key where it has one):

- **Compare A vs B**: "Compare MODEL vs OTHER" for every other model, MODEL being the one selected in
  the Overview: sets Compare's A and B and opens the Compare tab.
- **Filter instances**: "Filter instances: STATUS" (or "all statuses") opens Instances with that filter.
- **Open tau2 results…**: type the path of a tau2-bench results.json (or its folder) and `Enter`, as
  `--tau2 PATH`; `escape` cancels. A file that is missing or rejected is listed in Diagnostics and the
  tau2 file shown stays shown; once one is opened, `r` and `--watch` follow it.
- **Save figure of this tab**: the figure `tcsexam plot` draws (pass^k in pass^k, Compare's A − B in
  Compare, the forest of every model's index elsewhere) as a PDF one column wide, written beside the
  run's index.json (`--output`'s folder) as `figure-KIND.pdf`; the notification says where. It needs
  matplotlib, the optional extra "plot" (`tcsexam docs commands#plot`).
- **Theme**: the theme picked is remembered in `$XDG_CONFIG_HOME/tcsexam/config.json`
  (`~/.config/tcsexam/config.json`)."""

SEVERAL_RUNS = """\
## Several runs

`tcsexam tui A B C` opens three runs; the header names the run shown (folder, suite/protocol,
`run 2/3`). `R` (or the palette's "Switch to run NAME") switches every tab to another run, keeping the
selected model, task and attempt where it has them. `e` exports the run shown; `r` and `--watch`
reload every run, and a rejected run is marked stale on its own."""


def declared_bindings(node: DOMNode) -> list[Binding]:
    """The bindings the dashboard's own classes declare for ``node`` and every widget under it (not
    Textual's widgets' own: a table's cursor keys), one per key and description, in the order of the DOM."""
    found: dict[tuple[str, str], Binding] = {}
    for widget in node.walk_children(with_self=True):
        for binding in own_bindings(type(widget)):
            found.setdefault((binding.key, binding.description), binding)
    return list(found.values())


def key_table(app: App, bindings: list[Binding], extra: list[tuple[str, str]] | None = None) -> str:
    """A Markdown table of keys: each binding's key and its description (with its tooltip)."""
    rows = [(f"`{app.get_key_display(b)}`", b.description + (f": {b.tooltip}" if b.tooltip else "")) for b in bindings]
    rows += extra or []
    lines = ["| key | action |", "|---|---|"]
    lines += ["| " + key + " | " + what.replace("|", "\\|") + " |" for key, what in rows]
    return "\n".join(lines)


def help_text(app: App, main: DOMNode, shown: str | None) -> str:
    """The help: the keys of the tab ``shown`` first, then the keys of every tab, then each tab's keys
    and section. ``main``: the dashboard's screen, whose tabs are read."""
    everywhere = [b for b in Binding.make_bindings(type(app).BINDINGS) if b.show and app.check_action(b.action, ())]
    tabs = f"switch tab: {', '.join(tab.title for tab in PANES)}"
    everywhere_rows = [
        (f"`{PANES[0].key}`–`{PANES[-1].key}`", tabs),
        (f"`{app.get_key_display(Binding(app.COMMAND_PALETTE_BINDING, ''))}`", "command palette (below)"),
        *MOVING,
    ]
    # a key that does in a tab what it does everywhere (q in a field of its own) is listed once, with every tab's
    same = {(b.key, b.action) for b in everywhere}
    keys = {
        tab.id: [
            b
            for b in declared_bindings(main.query_one(f"TabPane#{tab.id}"))
            if (b.key, b.action.removeprefix("app.")) not in same
        ]
        for tab in PANES
    }
    parts = [INTRO]
    if shown in TAB:
        parts += [f"## Keys of this tab: {TAB[shown].label()}", key_table(app, keys[shown] + everywhere)]
    parts += ["## Keys in every tab", key_table(app, everywhere, everywhere_rows), PALETTE]
    for tab in PANES:
        parts.append(f"## {tab.label()}")
        if keys[tab.id]:
            parts.append(key_table(app, keys[tab.id]))
        parts.append(tab.help.strip())
    parts.append(SEVERAL_RUNS)
    return "\n\n".join(parts) + "\n"
