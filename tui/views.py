"""Pure functions from plain data (the scoring outputs) to what the panes display.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tcsexam.scoring.reports.numbers import INDEX_DIGITS, PM, TRACK_DIGITS, number
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import STATUS_ORDER, TRACKS, rank_text
from tcsexam.scoring.vocab import TRACK_LETTERS as LETTERS

if TYPE_CHECKING:
    from rich.text import Text

    from tcsexam.scoring.formats.results import Ranks

DASH = "—"

GLYPHS = {
    "complete": ("●", "complete: every planned attempt adopted and valid"),
    "provisional": ("◐", "provisional: complete, some attempt selected_provisional"),
    "missing": ("n/m", "n of m planned attempts adopted (the rest missing)"),
    "not_valid": ("✗", "an adopted attempt is judge_failed / not_finished / missing"),
    "excluded": ("+x", "suffix: the task also has excluded attempts"),
}


STATUS_STYLE = {"complete": "bold green", "provisional": "bold yellow", "incomplete": "bold red"}
KIND_STYLE = {"complete": "green", "provisional": "yellow", "missing": "bold red", "not_valid": "bold red"}


def plain(value) -> str:
    """A name or typed text as it may be shown on a terminal, escaped exactly as the command line
    escapes it (``scoring.safety.terminal.escape_for_terminal``): ESC becomes the four characters ``\\x1b``,
    bidi controls and line separators ``\\u202e`` and the like; everything else is kept as written.
    The result is still data: show it as rich ``Text`` or ``Content`` (``cells``, ``text``), never as
    markup.
    """
    return escape_for_terminal(str(value))


def text(*parts, style: str = ""):
    """Plain rich Text from strings (never markup) or (string, style) pairs; strings are ``plain``-ed."""
    from rich.text import Text

    out = Text(style=style)
    for part in parts:
        if isinstance(part, Text):
            out.append_text(part)
        elif isinstance(part, tuple):
            out.append(plain(part[0]), style=part[1])
        else:
            out.append(plain(part))
    return out


def cells(*values) -> list[Text]:
    """Table cells as plain rich Text: user data such as '[mobile]task' is never read as markup."""
    from rich.text import Text

    return [v if isinstance(v, Text) else Text(plain(v)) for v in values]


def fmt(x: float | None, digits: int = 4) -> str:
    return number(x, digits, null=DASH)


def half_width(ci: dict | None) -> float | None:
    if not ci or ci.get("hi") is None:
        return None
    return ci["hi"] - ci.get("mean", ci.get("value"))


def fmt_pm(x: float | None, pm: float | None, digits: int) -> str:
    if x is None:
        return DASH
    return f"{x:.{digits}f}" + (f" ±{pm:.{digits}f}" if pm is not None else "")


@dataclass(frozen=True)
class OverviewRow:
    model: str
    status: str
    index: float | None
    index_pm: float | None
    rank: (
        tuple[int, int] | None
    )  # (best, worst) from the document's ``ranks`` block (docs/rules.md#ranks); None: no index
    shares: (
        dict[str, float] | None
    )  # the index interval's variance budget (docs/rules.md#variance-budget); None: left out
    means: dict[str, float | None]
    pms: dict[str, float | None]
    complete: dict[str, int]
    total: dict[str, int]

    def cells(self) -> list[str]:
        out = [
            self.model,
            self.status,
            fmt_pm(self.index, self.index_pm, 2),
            shares_text(self.shares),
            rank_label(self.rank),
        ]
        for t in TRACKS:
            out.append(f"{fmt_pm(self.means[t], self.pms[t], 3)}  {self.complete[t]}/{self.total[t]}")
        return out

    def sort_key(self, column: int):
        """Sort key for a column; nulls sort last in ascending order."""
        if column == 0:
            return (0, self.model)
        if column == 1:
            return (0, STATUS_ORDER[self.status])
        if column == RANK_COLUMN:
            return (1, (0, 0)) if self.rank is None else (0, self.rank)
        if column == BUDGET_COLUMN:
            return (0, self.model)  # percents of four tracks have no order: by model
        value = self.index if column == 2 else self.means[TRACKS[column - 5]]
        return (1, 0.0) if value is None else (0, value)


OVERVIEW_COLUMNS = ["Model", "Status", "Index", "Var. budget", "Rank", *[f"{LETTERS[t]} ({t})" for t in TRACKS]]
BUDGET_COLUMN, RANK_COLUMN = 3, 4


def rank_label(rank: tuple[int, int] | None) -> str:
    """A rank as docs/rules.md#ranks shows it: ``best`` or ``best–worst`` (scoring.vocab.rank_text); — without an index."""
    return DASH if rank is None else rank_text(*rank)


def ranks_block(document: dict) -> Ranks | None:
    """The document's ``ranks`` block (docs/rules.md#ranks) without its pairs, which the panes do not show (they
    are N(N-1)/2, or not listed); None when the ranks were not computed (``ranks.models`` null, the
    reason in ``ranks_reason``). An index.json written before ranks existed gets them from scoring.stats.ranks
    with the document's own weights."""
    import msgspec

    from tcsexam.scoring.formats.results import Ranks
    from tcsexam.scoring.stats.ranks import ranks_of_document

    if "ranks" not in document:
        return ranks_of_document(document, document["weights"])
    ranks = document["ranks"]
    if ranks.get("models") is None:
        return None
    fields = {key: value for key, value in ranks.items() if key in Ranks.__struct_fields__}
    return msgspec.convert({**fields, "pairs": []}, Ranks)


def ranks_reason(document: dict) -> str | None:
    """Why the document has no ranks (``ranks.models`` null, docs/rules.md#ranks), or None when it has them."""
    ranks = document.get("ranks")
    if ranks is None or ranks.get("models") is not None:
        return None
    return str(ranks.get("reason") or "the ranks were not computed")


def overview_rows(document: dict) -> list[OverviewRow]:
    rows = []
    ranks = ranks_block(document)
    ranked = (
        (ranks.models or {}) if ranks is not None else {}
    )  # models null: not ranked (scoring.stats.ranks.top_group)
    for name, m in document["models"].items():
        tracks_ci = m.get("ci", {}).get("tracks", {})
        complete = {t: 0 for t in TRACKS}
        total = {t: 0 for t in TRACKS}
        for task in m["tasks"].values():
            total[task["track"]] += 1
            complete[task["track"]] += task["status"] != "incomplete"
        rows.append(
            OverviewRow(
                model=name,
                status=m["status"],
                index=m["index"],
                index_pm=half_width(m.get("ci", {}).get("index")),
                rank=(ranked[name].best, ranked[name].worst) if name in ranked else None,
                shares=(m.get("ci", {}).get("index") or {}).get("shares"),
                means=dict(m["track_means"]),
                pms={t: half_width(tracks_ci.get(t)) for t in TRACKS},
                complete=complete,
                total=total,
            )
        )
    return rows


def sort_rows(rows: list[OverviewRow], column: int, reverse: bool = False) -> list[OverviewRow]:
    """Sort by a column; null values always go last."""
    present = [r for r in rows if r.sort_key(column)[0] == 0]
    absent = [r for r in rows if r.sort_key(column)[0] != 0]
    return sorted(present, key=lambda r: r.sort_key(column), reverse=reverse) + absent


def leader(document: dict) -> str | None:
    """The leader only when the top rank group holds one model alone (docs/rules.md#ranks, scoring.stats.ranks.leader)."""
    from tcsexam.scoring.stats.ranks import leader as ranks_leader

    ranks = ranks_block(document)
    return ranks_leader(ranks) if ranks is not None else None


def top_group(document: dict) -> list[str]:
    """The models whose best rank is 1 (docs/rules.md#ranks, scoring.stats.ranks.top_group)."""
    from tcsexam.scoring.stats.ranks import top_group as ranks_top_group

    ranks = ranks_block(document)
    return ranks_top_group(ranks) if ranks is not None else []


def ranked_scope(document: dict) -> str:
    """' among complete models (k of n)' when some model of the run has no index (it is incomplete and
    not ranked, docs/rules.md#ranks), else '': what a leader or a top group is chosen among."""
    models = document["models"]
    ranked = sum(1 for m in models.values() if m["index"] is not None)
    return "" if ranked == len(models) else f" among complete models ({ranked:,} of {len(models):,})"


def top_line(document: dict) -> tuple:
    """The Overview's first sentence as ``text`` parts: a leader only when the top group holds one model
    (docs/rules.md#ranks), else the top group, whose order is not supported by the data."""
    reason = ranks_reason(document)
    if reason is not None:  # said once here; the Rank column shows — for every model
        return ((f"No ranks (Rank column —): {reason}", ""),)
    group = top_group(document)
    if not group:
        return (("No model has an index yet", ""),)
    if len(group) == 1:
        lead = group[0]
        return (
            (f"Leader{ranked_scope(document)}: ", ""),
            (lead, "bold"),
            (f" with {fmt(document['models'][lead]['index'], 2)} points", ""),
        )
    named = group[:TOP_GROUP_NAMED] if len(group) > TOP_GROUP_NAMED + 1 else group
    parts: list = [
        (f"No single leader: top group of {len(group):,}: " if named != group else "No single leader: top group ", "")
    ]
    for i, model in enumerate(named):
        parts += [((", " if i else ""), ""), (model, "bold")]
    if named != group:
        parts.append((f", and {len(group) - len(named):,} more", ""))
    parts.append((" (rank 1 not separated at 95%, Holm-corrected)", ""))
    return tuple(parts)


TOP_GROUP_NAMED = 8  # a larger top group is named by its first models and counted (hundreds would fill the screen)


def coverage_cell(task: dict, model_coverage: dict, item: str) -> tuple[str, str]:
    """(glyph, kind) of one model × task cell."""
    excluded = any(e["item"] == item for e in model_coverage["excluded"])
    suffix = "+x" if excluded else ""
    if any(e["item"] == item for e in model_coverage["not_valid"]):
        return "✗" + suffix, "not_valid"
    if task["adopted"] < task["planned"]:
        return f"{task['adopted']}/{task['planned']}" + suffix, "missing"
    if task["status"] == "provisional":
        return "◐" + suffix, "provisional"
    return "●" + suffix, "complete"


def coverage_grid(document: dict) -> tuple[list[str], dict[str, list[tuple[str, str]]]]:
    """Items (columns) and, per model, the glyph of each task."""
    models = document["models"]
    items = list(next(iter(models.values()))["tasks"]) if models else []
    grid = {
        name: [coverage_cell(m["tasks"][item], m["coverage"], item) for item in items] for name, m in models.items()
    }
    return items, grid


LEGEND = "● complete  ◐ provisional  n/m adopted of planned  ✗ not valid  +x has excluded"


def legend_text() -> str:
    """The grid's glyphs in one line (? gives the long form)."""
    return LEGEND


@dataclass(frozen=True)
class IssueRow:
    model: str
    item: str
    attempt: str
    kind: str
    reason: str


def issue_rows(document: dict) -> list[IssueRow]:
    """Every issue of every model, then every ignored row (a likely typo as a warning), then every
    records file that no adopted row uses, worded as ``tcsexam validate`` words them: what a
    researcher must fix."""
    from tcsexam.scoring.pipeline.aggregate import ignored_row_finding, unused_records_finding

    out = []
    for name, m in document["models"].items():
        for i in m["issues"]:
            out.append(IssueRow(name, i["item"], i["attempt"] or DASH, i["kind"], i["message"]))
        for p in m["coverage"]["provisional"]:
            out.append(IssueRow(name, p["item"], p["attempt"], "provisional", "adopted as selected_provisional"))
    for r in document["ignored_rows"]["rows"]:
        kind, message = ignored_row_finding(r)
        out.append(IssueRow(r["model"], r["item"], r["attempt"], kind, f"line {r['line']}: {message}"))
    for u in document.get("unused_records", []):
        where = (u["model"] or DASH, u["item"] or DASH, u["attempt"] or DASH)
        out.append(IssueRow(*where, "unused records", unused_records_finding(u)))
    return out


def passk_rows(document: dict, model: str) -> tuple[int, list[list[str]]]:
    """(largest k, rows of track, threshold, tasks, pass^1..pass^K)."""
    pk = document["models"][model]["pass_hat_k"]
    kmax = max((len(v["by_k"]) for v in pk.values()), default=0)
    rows = []
    for t in TRACKS:
        v = pk[t]
        rows.append(
            [f"{LETTERS[t]} {t}", f"{v['threshold']:g}", str(v["tasks"])]
            + [fmt(v["by_k"].get(str(k))) for k in range(1, kmax + 1)]
        )
    return kmax, rows


def histogram_counts(phi, bins: int = 10) -> list[int]:
    """Counts of Phi over [0, 1] in equal bins (the last bin includes 1)."""
    import numpy as np

    counts, _ = np.histogram(phi, bins=bins, range=(0.0, 1.0))
    return counts.tolist()


def binding_floor(s: float, mu: float, scale: float, relative: float) -> str:
    """Which term of scale = max(s, relative·|mu|, absolute) is the maximum."""
    if scale == s:
        return "s"
    if scale == relative * abs(mu):
        return f"relative floor {relative:g}·|mu|"
    return "absolute floor"


def explain_instance(
    name: str,
    status: str,
    A: float,
    mu: float,
    s: float,
    scale: float,
    z: float,
    phi: float,
    direction: str,
    relative: float,
) -> str:
    """Why an instance scored its Phi, in the contract's words (docs/rules.md#solver-score)."""
    if status != "ok":
        return f"{name}: status '{status}' is a solver failure, so the instance scores 0 (docs/rules.md#solver-score)."
    formula = "(A − mu)/scale" if direction == "maximize" else "(mu − A)/scale"
    return (
        f"{name}: A = {A:.6g}; mu = {mu:.6g}, s = {s:.6g}; scale = max(s, relative·|mu|, absolute) = "
        f"{scale:.6g} ({binding_floor(s, mu, scale, relative)}); {direction}: z = {formula} = {z:.4f}; "
        f"Phi(z) = {phi:.4f}"
    )


def short(name: str, width: int) -> str:
    """A long name cut to ``width`` characters with an ellipsis (the full name is shown elsewhere)."""
    name = plain(name)
    return name if len(name) <= width else name[: max(width - 1, 0)] + "…"


TAU2_ID_MIN = 12  # the task_id column never narrower than this (the table then scrolls sideways)


def tau2_columns(metrics: dict) -> list[str]:
    kmax = max((len(t["pass_hat_k"]) for t in metrics["tasks"]), default=0)
    return ["task_id", "n", "successes", "avg reward", *[f"pass^{k}" for k in range(1, kmax + 1)], "termination"]


def _task_id_key(task_id):
    """Task ids sort as numbers when they are numbers, else as text: 2 before 10."""
    text_id = str(task_id)
    return (0, int(text_id), "") if text_id.lstrip("-").isdigit() else (1, 0, text_id)


def tau2_sorted(metrics: dict, column: int = 0, reverse: bool = False) -> list[dict]:
    """The per-task results sorted by a column of ``tau2_columns`` (nulls last either way)."""
    columns = tau2_columns(metrics)
    name = columns[column]

    def value(t):
        if name == "task_id":
            return _task_id_key(t["task_id"])
        if name == "termination":
            return ", ".join(sorted(t["termination_reasons"]))
        if name.startswith("pass^"):
            return t["pass_hat_k"].get(name[5:])
        return t[{"n": "n", "successes": "successes", "avg reward": "avg_reward"}[name]]

    present = [t for t in metrics["tasks"] if value(t) is not None]
    absent = [t for t in metrics["tasks"] if value(t) is None]
    return sorted(present, key=value, reverse=reverse) + absent


def tau2_task_rows(
    metrics: dict, tasks: list[dict] | None = None, width: int | None = None
) -> tuple[int, list[list[str]]]:
    """(largest k, one row per task: id, n, successes, avg reward, pass^k…, reasons). The id takes the
    width the other columns leave of ``width`` (the table's, in cells: each column pads 1 either side,
    and a scrollbar may take 2), cut with an ellipsis only beyond it; no cut without ``width``."""
    kmax = max((len(t["pass_hat_k"]) for t in metrics["tasks"]), default=0)
    rows = []
    for t in metrics["tasks"] if tasks is None else tasks:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(t["termination_reasons"].items()))
        rows.append(
            [plain(str(t["task_id"])), str(t["n"]), str(t["successes"]), fmt(t["avg_reward"])]
            + [fmt(t["pass_hat_k"].get(str(k))) for k in range(1, kmax + 1)]
            + [reasons]
        )
    if width is not None and rows:
        headers = tau2_columns(metrics)
        others = sum(max(len(h), *(len(r[i]) for r in rows)) + 2 for i, h in enumerate(headers) if i)
        free = max(TAU2_ID_MIN, width - others - 2 - 2)
        for r in rows:
            r[0] = short(r[0], free)
    return kmax, rows


TAU2_SIMULATION_COLUMNS = ("trial", "reward", "success", "termination reason", "agent cost (USD)")


def tau2_simulation_rows(simulations: list[dict]) -> list[list[str]]:
    """One row per simulation of a task (scoring.tau2.trajectory.task_simulations), as the table shows it."""
    return [
        [
            DASH if s["trial"] is None else str(s["trial"]),
            fmt(s["reward"]),
            "✓" if s["success"] else "✗",
            s["termination_reason"],
            DASH if s["agent_cost"] is None else f"{s['agent_cost']:.4f}",
        ]
        for s in simulations
    ]


def plain_lines(value: str) -> str:
    """Multi-line text shown as plain text: each line escaped (``plain``), the line breaks kept."""
    return "\n".join(plain(line) for line in str(value).split("\n"))


def tau2_message_blocks(trajectory: dict) -> list[tuple[str, str]]:
    """(heading, body) per message of a simulation (scoring.tau2.trajectory.simulation_trajectory): the
    turn and role, then its text and each tool call as ``→ name(arguments)``; escaped, plain text."""
    blocks = []
    for m in trajectory["messages"]:
        heading = " · ".join(
            x
            for x in (
                "" if m["turn"] is None else f"turn {m['turn']}",
                plain(m["role"]),
                "tool error" if m["error"] else "",
            )
            if x
        )
        body = [plain_lines(m["text"])] if m["text"] else []
        body += [f"→ {plain_lines(call)}" for call in m["tool_calls"]]
        blocks.append((heading, "\n".join(body) or DASH))
    return blocks


TAU2_REWARD_COLUMNS = ("part", "name", "outcome", "reward")


def tau2_reward_rows(reward: dict) -> list[list[str]]:
    """The reward of a simulation, one row each: the stored and re-derived reward, each component of its
    reward_basis (value and where it was read), then each named check with its outcome."""

    def outcome(met) -> str:
        return DASH if met is None else ("met" if met else "not met")

    rows = [
        ["reward", "stored", "", fmt(reward["stored"])],
        ["reward", "re-derived", reward.get("gate") or "product of the basis", fmt(reward["derived"])],
    ]
    for c in reward["components"]:
        where = f"from {c['source']}" if c["source"] else "not evaluated"
        rows.append(["basis", c["component"], where, fmt(c["value"])])
    for check in reward["checks"]:
        rows.append([check["section"], check["name"], outcome(check["met"]), fmt(check["reward"])])
    return rows


def tau2_meta_line(meta: dict) -> str:
    """Domain, agent, user simulator and trials of a tau2-bench run, as far as its ``info`` names them."""
    parts = [
        f"domain {meta.get('domain') or DASH}",
        f"agent {meta.get('agent') or DASH}",
        f"user {meta.get('user') or DASH}",
        f"trials {meta.get('trials') or DASH}",
    ]
    return " · ".join(parts)


def cost_text(cost: float | None) -> str:
    """tau2's avg_agent_cost: 0 means that no cost was recorded, not a free agent."""
    if cost is None:
        return DASH
    return "0 (no cost recorded)" if cost == 0 else f"{cost:.4f}"


def status_counts(status) -> dict[str, int]:
    """Instances per status code, in STATUS_CODES order, only the statuses that occur."""
    import numpy as np

    from .state import STATUS_CODES

    counts = np.bincount(np.asarray(status, dtype=np.int64), minlength=len(STATUS_CODES))
    return {s: int(counts[i]) for i, s in enumerate(STATUS_CODES) if counts[i]}


def counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {s}" for s, n in counts.items()) or "no instances"


def filter_note(shown: int, total: int, status: str | None) -> str:
    """What the filter leaves: a sentence when it leaves nothing."""
    if status is None:
        return f"{total:,} instances"
    if shown == 0:
        return f"0 of {total:,} instances have status {status}: nothing to show (f changes the filter)"
    return f"{shown:,} of {total:,} instances with status {status}"


def problem_rows(problems: list, base=None) -> list[list[str]]:
    """Rows (file, where, field, message) of rejected inputs; a file under ``base`` is named relative to it."""
    import os

    rows = []
    for p in problems:
        name = p.file
        if base is not None:
            try:
                rel = os.path.relpath(p.file, base)
                name = rel if not rel.startswith("..") else p.file
            except ValueError:
                pass
        rows.append([name, p.where or DASH, p.field or DASH, p.message])
    return rows


def wrap_messages(rows: list[list[str]], width: int, least: int = 40) -> list[list]:
    """``problem_rows`` with each message as the list of its lines that fit what the table leaves of ``width``
    columns beside file, where and field (each cell padded by 1 on both sides, a scrollbar of 2), never
    narrower than ``least``: a Diagnostics row is read in full, not cut at the screen's edge."""
    import textwrap

    beside = sum(
        max([len(header), *(len(r[i]) for r in rows)]) + 2 for i, header in enumerate(("file", "where", "field"))
    )
    fits = max(least, width - beside - 2 - 2)
    return [[*r[:3], textwrap.wrap(r[3], fits, break_on_hyphens=False) or [r[3]]] for r in rows]


COMPARE_COLUMNS = ("track", "A − B", "se", "95% interval", "tasks", "df")


def compare_rows(result: dict) -> list[list[str]]:
    """Rows of COMPARE_COLUMNS: per track and for the index (df only for the index)."""
    rows = []
    for t in TRACKS:
        r = result["tracks"].get(t)
        if r is None:
            rows.append([f"{LETTERS[t]} {t}", DASH, DASH, DASH, "0", ""])
        else:
            ci = DASH if r["lo"] is None else f"[{r['lo']:+.4f}, {r['hi']:+.4f}]"
            rows.append(
                [
                    f"{LETTERS[t]} {t}",
                    f"{r['mean']:+.4f}",
                    DASH if r["se"] is None else f"{r['se']:.4f}",
                    ci,
                    str(r["m"]),
                    "",
                ]
            )
    idx = result["index"]
    if idx is None:
        rows.append(["Index (points)", DASH, DASH, DASH, "", DASH])
    else:
        ci = DASH if idx["lo"] is None else f"[{idx['lo']:+.2f}, {idx['hi']:+.2f}]"
        rows.append(
            [
                "Index (points)",
                f"{idx['value']:+.2f}",
                DASH if idx["se"] is None else f"{idx['se']:.2f}",
                ci,
                "",
                DASH if idx["df"] is None else f"{idx['df']:.1f}",
            ]
        )
    return rows


TASK_DIFF_COLUMNS = ("task", "track", "A", "B", "A − B", "inst. A>B/B>A/=")


def task_difference_rows(result: dict) -> list[tuple[str, list[str]]]:
    """(item, row of TASK_DIFF_COLUMNS) per task both models scored, largest |A − B| first (ties in suite
    order); solver tasks with per-instance counts (docs/rules.md#per-task-differences ``instances``) show them, others —."""
    counts = result.get("instances", {})
    order = sorted(result["tasks"], key=lambda t: -abs(t["difference"]))  # sorted() is stable
    rows = []
    for t in order:
        c = counts.get(t["item"])
        inst = DASH if c is None else f"{c['a_better']} / {c['b_better']} / {c['equal']}"
        rows.append(
            (
                t["item"],
                [
                    t["item"],
                    f"{LETTERS[t['track']]} {t['track']}",
                    f"{t['a']:.4f}",
                    f"{t['b']:.4f}",
                    f"{t['difference']:+.4f}",
                    inst,
                ],
            )
        )
    return rows


INSTANCE_DIFF_COLUMNS = ("instance", "A", "B", "A − B")


def instance_difference_rows(diffs: list[dict]) -> list[list[str]]:
    """Rows of INSTANCE_DIFF_COLUMNS from scoring.stats.differences.largest_instance_differences (its order kept)."""
    return [[d["instance"], f"{d['a']:.4f}", f"{d['b']:.4f}", f"{d['difference']:+.4f}"] for d in diffs]


def mde_text(mde: dict, note: str | None = None) -> str:
    """``compare``'s ``mde`` (docs/rules.md#planning-attempts) in one line: index points detectable with r attempts per task;
    ``note`` (scoring.reports.compare.mde_note) after it when a variance was clipped at 0."""
    values = sorted(((int(r), v) for r, v in mde.items()), key=lambda rv: rv[0])
    if not values or all(v is None for _, v in values):
        return (
            "MDE (80% power, 5% two-sided): not available — a track has < 2 common tasks, or a model "
            "has no task with 2 valid attempts."
        )
    line = "MDE (80% power, 5% two-sided), index points by attempts per task r: " + "  ".join(
        f"r={r} {fmt(v, 2)}" for r, v in values
    )
    return f"{line}. Note: {note}." if note else line


def shares_text(shares: dict | None) -> str:
    """docs/rules.md#variance-budget's variance budget of an index interval as whole percents in track order (P S C O);
    — when the document leaves ``shares`` out (var = 0 or a track without se)."""
    if not shares:
        return DASH
    return " ".join(f"{LETTERS[t]}{round(100 * shares[t])}" for t in TRACKS if t in shares) + " %"


def plan_row(plan_entry: dict) -> tuple[list[str], list[str]]:
    """(column labels r=1.., the projected 95% index half-widths in points) of one model's plan (docs/rules.md#planning-attempts)."""
    keys = sorted(plan_entry["half_width"], key=int)
    return [f"r={k}" for k in keys], [fmt(plan_entry["half_width"][k], 2) for k in keys]


def plan_summary(plan_entry: dict) -> str:
    """Per track the planner's inputs (m tasks, s_w² within, σ_b² between) in one line."""
    parts = []
    for t in TRACKS:
        v = plan_entry["tracks"][t]
        parts.append(f"{LETTERS[t]} m={v['m']} s_w²={fmt(v['s_w2'], 4)} σ_b²={fmt(v['sigma_b2'], 4)}")
    return "   ".join(parts)


def target_text(target: float | None, needed: int | None, attempts: int) -> str:
    """What the target half-width H asks for (docs/rules.md#planning-attempts attempts_for_target)."""
    if target is None:
        return "Type a target half-width H (index points) to see the attempts per task it needs."
    if needed is None:
        return f"H = {target:g}: not reached with up to {attempts} attempts per task."
    return f"H = {target:g}: {needed} attempt{'s' if needed != 1 else ''} per task."


def parse_target(value: str) -> float | None:
    """The target field: a positive number of index points, else None (nothing asked)."""
    try:
        x = float(value)
    except ValueError:
        return None
    return x if x > 0 and x != float("inf") else None


# --- Leaderboard (docs/commands.md: the groups and cells of `tcsexam table`) -----------------------------------


@dataclass
class LeaderboardGroup:
    """One (suite, solver_protocol) table of the Leaderboard: its title, the rows' cells as
    scoring.reports.table.text_cells gives them, and per row the source (run) and model it came from."""

    title: str
    header: list[str]
    rows: list[list[str]]
    keys: list[tuple[str, str]]  # (source, model) per row
    notes: list[str]


def leaderboard_groups(docs: list[tuple[str, dict]]) -> tuple[list[LeaderboardGroup], list]:
    """The Leaderboard of the loaded runs' index documents: (groups, []) in docs/commands.md's order, or
    ([], problems) when ``tcsexam table`` would reject them (a model twice in a group). Every cell is
    scoring.reports.table's (build_groups, text_cells: 2 decimals for the index, 3 for the tracks, † for a
    provisional row, — for null, rank ``best–worst``); nothing is rounded here."""
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.reports.table import HEADER, NULL, PROVISIONAL_MARK, build_groups, footnotes, text_cells

    try:
        groups = build_groups(docs)
    except InputError as exc:
        return [], list(exc.problems)
    out = []
    for g in groups:
        rows = [text_cells(r, INDEX_DIGITS, TRACK_DIGITS, PM, NULL, "–", " " + PROVISIONAL_MARK) for r in g.rows]
        keys = [(r.source, r.model) for r in g.rows]
        out.append(LeaderboardGroup(g.title, list(HEADER), rows, keys, [n for n in footnotes(g) if n]))
    return out, []


RUN_COLUMNS = ("run", "name", "suite / protocol", "status", "RUN_DIR")


def run_row(number: int, current: bool, name: str, source: str, document: dict | None, note: str) -> list[str]:
    """A row of the run switcher: its number (▶ the run shown), name, group, status (or why there is
    none: ``note``) and the RUN_DIR as typed. Names are data: the caller shows them as Text (``cells``)."""
    group = f"{document['suite']} / {document['solver_protocol']}" if document is not None else DASH
    status = document["status"] if document is not None else note
    if document is not None and note:
        status += f" ({note})"
    return [("▶ " if current else "  ") + str(number), name, group, status, source]


def run_header(name: str, document: dict | None, number: int, count: int) -> list[str]:
    """The header's parts naming the run shown (docs/commands.md ``tcsexam tui RUN_DIR...``): its folder name, suite
    and solver protocol, and ``run N/M`` when several are open; control characters escaped (``plain``)."""
    parts = [plain(name)]
    if document is not None:
        parts.append(f"{plain(document['suite'])}/{plain(document['solver_protocol'])}")
    if count > 1:
        parts.append(f"run {number}/{count}")
    return parts
