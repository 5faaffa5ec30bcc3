"""Help: the bindings and what each tab shows."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from ..widgets.footer import DashboardFooter

HELP = """\
# tcsexam dashboard

The keys and tabs below are described at more length in docs/dashboard.md.

| key | action |
|---|---|
| `1`–`8` | switch tab: Overview, Coverage, Instances, pass^k, Compare, tau2, Diagnostics, Leaderboard |
| `R` | run switcher (`tcsexam tui RUN_DIR RUN_DIR...`): choose the run every tab shows |
| `Tab` / `shift+Tab` | move between the controls of a tab |
| `↑` `↓` `PgUp` `PgDn` `Home` `End` | move in a table |
| `Enter` | open what is under the cursor (see each tab) |
| `s` / `S` | sort by the next column / reverse the sort (or click a header; again reverses) |
| `e` | export the run shown as index.json (same writer and hash as `tcsexam score`; asks first while the view is stale) |
| `r` | reload every run and the tau2 file (`--watch` reloads on change) |
| `ctrl+p` | command palette: jump to a model or task, compare, filter instances, open a tau2 file, switch to a run, export, reload, copy, theme |
| `?` | this help; `escape` closes it |
| `q` | quit |

The mouse works too: click a tab, a row, a header (sorts), a cell (twice opens it).

The palette's own commands:

- **Compare A vs B**: "Compare MODEL vs OTHER" for every other model, MODEL being the one selected in
  the Overview: sets Compare's A and B and opens the Compare tab.
- **Filter instances**: "Filter instances: STATUS" (or "all statuses") opens Instances with that filter.
- **Open tau2 results…**: type the path of a tau2-bench results.json (or its folder) and `Enter`, as
  `--tau2 PATH`; `escape` cancels. A file that is missing or rejected is listed in Diagnostics and the
  tau2 file shown stays shown; once one is opened, `r` and `--watch` follow it.
- **Theme**: the theme picked is remembered in `$XDG_CONFIG_HOME/tcsexam/config.json`
  (`~/.config/tcsexam/config.json`).

## 1 Overview

One row per model: status, index and P/S/C/O means (± = the half-width of the 95% interval, a t interval
over the tasks; then tasks complete/total), the forest plot (● the index, ─ its 95% interval, one scale from
0 for every row; ○ and the reason without an index), "Uncertainty from" (how much of the index's variance each
track brings, in percent; docs/rules.md#variance-budget) and the rank (`best–worst`: the places the model could
hold among the models it is not clearly separated from, paired tests at 95% corrected for the number of pairs;
docs/rules.md#ranks). The top line names a leader only when rank 1 holds one model alone. A column header's
tooltip says what it means; the line under the table names the cursor row's model in full.
Moving the cursor selects the model for every other tab. `Enter` opens its Instances, `k` its pass^k;
`c` copies the run's table as Markdown, `C` as LaTeX (the same text as `tcsexam table`).

## 2 Coverage

A task × model grid, models in the Overview's order: ● complete, ◐ provisional, n/m attempts adopted
of planned, ✗ not valid, +x has excluded attempts. `Enter` on a solver task's cell opens its
instances, on any other cell its attempts; `a` always lists the attempts. Below the grid, every issue
and ignored row: `Enter` on one puts the cursor on its cell.

## 3 Instances

Per-instance A, mu, s, scale, z and Phi of the selected model, solver task and attempt. `s` / `S` sort,
`f` cycles the status filter, `/` searches the names (the instance of that name, else the first whose
name contains the text, letters in either case; `n` / `N` next / previous match, "match i of m" under
the table; `escape` back to the table).
The line under the table explains how the instance under the cursor got its Phi.

## 4 pass^k

pass^k = C(c,k)/C(n,k) per task, averaged over the tasks with n ≥ k, for the selected model.
Planning (docs/rules.md#planning-attempts): the projected 95% index half-width by attempts per task r = 1..10; type a
target H (index points) to see the attempts per task it needs.

## 5 Compare

The paired difference A − B per track and for the index, with 95% intervals, and the MDE by attempts
per task. A follows the selected model; choose B (and A) with the two selects. Below, every task's
A − B, largest first, with the solver tasks' instance counts (A better / B better / equal): `Enter`
on a solver task lists the instances where the two differ most.

## 6 tau2

With `--tau2 RESULTS_JSON`: the run's domain, agent and trials, per-task pass^k (`s` / `S` sort),
termination reasons and the reward-gate audit. Independent of the selected model.

## 7 Diagnostics

Every problem of rejected inputs (file, where, field, message), as `tcsexam validate` words it. While
the inputs on disk are rejected, the header says STALE and the other tabs keep the last good state.
With several runs it lists the problems of the run shown, and why the Leaderboard cannot table the
runs together.

## 8 Leaderboard

`tcsexam table` over every loaded run: one table per suite / solver protocol (never mixed), in the
order full/offline, full/online, lite/offline, lite/online, with the same cells (rank, ± = 95%
half-width, † provisional, — null). A model in two runs of one group is `table`'s rejection: the tab
and Diagnostics show it. `Enter` on a row shows its run with its model selected in the Overview; `c`
copies the leaderboard as Markdown, `C` as LaTeX.

## Several runs

`tcsexam tui A B C` opens three runs; the header names the run shown (folder, suite/protocol,
`run 2/3`). `R` (or the palette's "Switch to run NAME") switches every tab to another run, keeping the
selected model, task and attempt where it has them. `e` exports the run shown; `r` and `--watch`
reload every run, and a rejected run is marked stale on its own.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Markdown(HELP)
        yield DashboardFooter()
