"""Help: the bindings and what each tab shows."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# tcsexam dashboard

| key | action |
|---|---|
| `1`–`7` | switch tab: Overview, Coverage, Instances, pass^k, Compare, tau2, Diagnostics |
| `↑` `↓` | move; selecting a model in the Overview sets it for the other tabs |
| `s` / `S` | Overview: sort by the next column / reverse (or click a header) |
| `Enter` | Coverage: list the attempts of the task under the cursor |
| `/` | Instances: jump to an instance by name (`escape` back to the table) |
| `e` | export index.json (same writer and hash as `tcsexam score`) |
| `r` | reload the inputs (`--watch` reloads on change) |
| `ctrl+p` | command palette: jump to a model or task, export, reload |
| `?` | this help; `escape` closes it |
| `q` | quit |

**Overview**: status, index and P/S/C/O means (± = 95% half-width, then tasks complete/total).
**Coverage**: ● complete, ◐ provisional, n/m attempts adopted of planned, ✗ not valid, +x has excluded attempts.
**Instances**: per-instance A, mu, s, scale, z and Phi; the line under the table explains the cursor's Phi.
**pass^k**: C(c,k)/C(n,k) averaged over the tasks with n ≥ k.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Markdown(HELP)
