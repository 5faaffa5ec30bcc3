"""Console text of the commands, for people and scripts: ASCII apart from the names shown, ``NA``
for a missing value, the dashboard's decimals (index 2, track means 3)."""

from __future__ import annotations

from tcsexam.scoring.grammar import counted
from tcsexam.scoring.reports.numbers import INDEX_DIGITS, TRACK_DIGITS, number
from tcsexam.scoring.reports.plan import unreached
from tcsexam.scoring.safety.terminal import escape_for_terminal, padded, width_on_screen
from tcsexam.scoring.vocab import NA, TRACK_LETTERS, TRACKS


def fmt(x: float | None, digits: int = TRACK_DIGITS, *, signed: bool = False, general: bool = False) -> str:
    """A number as text a script parses (scoring.reports.numbers.number, ``NA`` when missing): the
    number formatter of the console text."""
    return number(x, digits, null=NA, signed=signed, general=general)


def format_tau2_summary(m: dict) -> str:
    from tcsexam.scoring.tau2.metrics import audit_line, largest_k_note

    lines = [
        (
            f"{m['source']}: {counted(m['num_simulations'], 'run')} over {counted(m['num_tasks'], 'task')} "
            f"({counted(m['infra_errors'], 'infrastructure error')} dropped)"
        ),
        f"avg_reward {fmt(m['avg_reward'], 4)}   avg_agent_cost {fmt(m['avg_agent_cost'], 4)}",
        "pass^k  "
        + "  ".join(f"k={k}: {fmt(v, 4)}" for k, v in m["pass_hat_k"].items())
        + (f"  ({note})" if (note := largest_k_note(m)) else ""),
        "termination  " + ", ".join(f"{k} {v}" for k, v in m["termination_reasons"].items()),
        f"db  match {m['db']['match']}, mismatch {m['db']['mismatch']}, not checked {m['db']['not_checked']}",
        f"audit: {counted(len(m['audit']), 'finding')}",
    ]
    lines += [f"  {audit_line(a)}" for a in m["audit"][:20]]
    if len(m["audit"]) > 20:
        lines.append(f"  ... and {len(m['audit']) - 20} more (see --output)")
    return "\n".join(lines)


def format_comparison(result: dict) -> str:
    """The text ``compare`` prints: docs/rules.md#intervals intervals, then (when present) the per-task differences
    largest first, the solver tasks' instance counts and the MDE by attempts per task."""
    from tcsexam.scoring.reports.compare import incomplete_note, no_common_note

    a, b = result["models"]
    lines = [f"paired difference {a} - {b} over tasks both have scored (95% t intervals)"]
    note = incomplete_note(result)
    if note:
        lines.append(f"note: {note}")
    for t in TRACKS:
        r = result["tracks"].get(t)
        if r is None:
            lines.append(f"  {TRACK_LETTERS[t]} {t:<13} no task scored by both models")
            continue
        ci = (
            f"[{fmt(r['lo'], 4, signed=True)}, {fmt(r['hi'], 4, signed=True)}]"
            if r["lo"] is not None
            else "(no interval: m < 2)"
        )
        lines.append(f"  {TRACK_LETTERS[t]} {t:<13} {fmt(r['mean'], 4, signed=True)} {ci}  m={r['m']}")
    idx = result["index"]
    if idx is None:
        lines.append(f"  index: {no_common_note(result)}")
    else:
        ci = (
            f"[{fmt(idx['lo'], 2, signed=True)}, {fmt(idx['hi'], 2, signed=True)}]"
            if idx["lo"] is not None
            else "(no interval)"
        )
        excl = ""
        if idx["lo"] is not None:
            excl = "  (interval excludes 0)" if idx["lo"] > 0 or idx["hi"] < 0 else "  (interval includes 0)"
        what = "difference over the common tasks" if note else "index difference"
        lines.append(f"  {what} {fmt(idx['value'], 2, signed=True)} points {ci}{excl}")
    tasks = sorted(result.get("tasks", []), key=lambda x: -abs(x["difference"]))  # stable: ties in suite order
    if tasks:
        lines.append(f"per task, largest difference first ({a} - {b}):")
        width = max(len(x["item"]) for x in tasks)
        for x in tasks:
            lines.append(
                f"  {x['item']:<{width}} {TRACK_LETTERS[x['track']]}  {fmt(x['difference'], 4, signed=True)}"
                f"  ({x['a']:.4f} vs {x['b']:.4f})"
            )
    return "\n".join(lines + instance_lines(result) + mde_lines(result))


def instance_lines(result: dict) -> list[str]:
    """``compare``'s instance counts of the solver tasks, then the solver tasks without them, those of one
    reason on one line (docs/rules.md#per-task-differences)."""
    from tcsexam.scoring.reports.compare import SHOWN_TASKS

    a, b = result["models"]
    lines = []
    instances = result.get("instances") or {}
    if instances:
        lines.append(f"solver instances (mean Phi over adopted attempts): {a} better / {b} better / equal")
        width = max(len(item) for item in instances)
        for item, c in instances.items():
            lines.append(
                f"  {item:<{width}} {c['a_better']:>5} / {c['b_better']:>5} / {c['equal']:>5}"
                f"  mean difference {fmt(c['mean_difference'], 4, signed=True)}"
            )
    by_reason: dict[str, list[str]] = {}
    for item, reason in (result.get("instances_left_out") or {}).items():
        by_reason.setdefault(reason, []).append(item)
    if by_reason:
        lines.append("solver tasks without instance counts (only attempts that count are compared):")
    for reason, items in by_reason.items():
        more = f" and {len(items) - SHOWN_TASKS} more" if len(items) > SHOWN_TASKS else ""
        lines.append(f"  {', '.join(items[:SHOWN_TASKS])}{more}: {reason}")
    return lines


def mde_lines(result: dict) -> list[str]:
    """``compare``'s MDE by attempts per task, and the note on a clipped variance (docs/rules.md#planning-attempts)."""
    from tcsexam.scoring.reports.compare import mde_note

    mde_values = result.get("mde")
    if mde_values is None:
        return []
    if all(v is None for v in mde_values.values()):
        return ["MDE: not available (a track has fewer than 2 common tasks or no task with 2 attempts)"]
    cells = "  ".join(f"r={r}: {v:.2f}" for r, v in mde_values.items() if v is not None)
    lines = [f"MDE (index points; 5% two-sided, power 80%) by attempts per task: {cells}"]
    if clipped := mde_note(result):
        lines.append(f"note: {clipped}")
    return lines


def format_plan(result: dict) -> str:
    """The text ``plan`` prints: per model the variance split per track, the projected 95% half-width
    of the index by attempts per task, and the attempts needed for the target."""
    lines = []
    target = result["target"]
    for name, m in result["models"].items():
        lines.append(f"{name}")
        for t in TRACKS:
            v = m["tracks"][t]
            lines.append(
                f"  {TRACK_LETTERS[t]} {t:<13} m={v['m']:<4} s_w²={fmt(v['s_w2'], 4, general=True)}  σ_b²={fmt(v['sigma_b2'], 4, general=True)}"
            )
        widths = m["half_width"]
        if all(h is None for h in widths.values()):
            lines.append("  half-width: not available (a track has fewer than 2 tasks or no task with 2 attempts)")
        else:
            cells = "  ".join(f"r={r}: {h:.2f}" for r, h in widths.items() if h is not None)
            lines.append(f"  index 95% half-width (points) by attempts per task: {cells}")
        lines += plan_notes(m)
        if target is not None and any(h is not None for h in widths.values()):
            r, limit = m["attempts_for_target"], m.get("half_width_limit")
            found = f"{counted(r, 'attempt')} per task" if r is not None else unreached(len(widths), limit, target)
            lines.append(f"  half-width <= {target:g}: {found}")
    return "\n".join(lines)


def plan_notes(m: dict) -> list[str]:
    """Beside a model's projection: the run's own half-width at its own attempts, the attempts where the
    projection is narrowest when more make it wider, and which tracks' σ_b² was clipped at 0
    (docs/rules.md#planning-attempts)."""
    lines = []
    observed = m.get("observed")
    if observed is not None:
        at = f"at r={observed['attempts']}" if observed["attempts"] is not None else "with attempts varying by task"
        lines.append(f"  observed: index 95% half-width {fmt(observed['half_width'], 2)} {at} (the run's own interval)")
    widths = [(r, h) for r, h in m["half_width"].items() if h is not None]
    best = min(widths, key=lambda rh: rh[1]) if widths else None
    if best is not None and f"{widths[-1][1]:.2f}" != f"{best[1]:.2f}":  # wider at the most attempts, as printed
        lines.append(
            f"  note: the projection is narrowest at r={best[0]} ({best[1]:.2f}); beyond it the t quantile grows "
            "faster than the variance falls (fewer degrees of freedom as the tracks with little spread weigh less)"
        )
    if m.get("clipped"):
        lines.append(
            f"  note: σ_b² clipped at 0 for {', '.join(m['clipped'])} (task means vary less than attempt noise "
            "predicts): the projection is conservative"
        )
    return lines


def format_diff(d: dict) -> str:
    return "\n".join(escape_for_terminal(line) for line in diff_lines(d))


def change_text(change: float | None, digits: int) -> str:
    """A value's change in ``diff``'s text: ' (+0.25)', or nothing when one side has no value."""
    return "" if change is None else f" ({fmt(change, digits, signed=True)})"


def diff_lines(d: dict) -> list[str]:
    old, new = d["status"]["old"], d["status"]["new"]
    lines = [f"status: {old} -> {new}" if old != new else f"status: {old} (unchanged)"]
    for key in ("solver_reference_id", "benchmark"):  # said in words: the inputs' sha256 alone do not say it
        if d[key]["old"] != d[key]["new"]:
            lines.append(f"{key}: {d[key]['old']} -> {d[key]['new']}")
    grew = {g["model"]: g for g in d["half_width_grew"]}
    marked = False
    for name, e in d["models"].items():
        i = e["index"]
        status = (
            f"; status {e['status']['old'] or 'NA'} -> {e['status']['new'] or 'NA'}" if e["status"]["changed"] else ""
        )
        lines.append(
            f"{name}: index {fmt(i['old'], 2)} -> {fmt(i['new'], 2)}{change_text(i['change'], 2)}"
            f"{half_width_verdict(i)}{status}"
        )
        if name in grew:
            g = grew[name]
            lines.append(f"{name}: index 95% half-width {fmt(g['old'], 2)} -> {fmt(g['new'], 2)}, more than twofold")
        moved = track_lines(e["tracks"])
        marked = marked or any(line.endswith(" *") for line in moved)  # the lines made just above
        lines += moved
    if marked:
        lines.append("* the track mean moved by more than its 95% half-width (the old one, else the new one)")
    for name in d["added"]:
        lines.append(f"added: {name}")
    for name in d["removed"]:
        lines.append(f"removed: {name}")
    for inp in d["inputs_changed"]:
        lines.append(f"input changed: {inp['input']}: {inp['old'] or 'NA'} -> {inp['new'] or 'NA'}")
    return lines


def track_lines(tracks: dict) -> list[str]:
    """``diff``'s line of each track mean that moved, marked ``*`` when it moved by more than its half-width."""
    return [
        f"  {TRACK_LETTERS[t]}: {fmt(c['old'], 3)} -> {fmt(c['new'], 3)}{change_text(c['change'], 3)}"
        + (" *" if c["exceeds_half_width"] else "")
        for t, c in tracks.items()
        if c["old"] != c["new"]
    ]


def half_width_verdict(c: dict) -> str:
    """Whether a change of ``diff`` exceeds the 95% half-width it was judged against, and which: the old
    document's, or the new one's when the old has none (docs/commands.md#diff); "" when not judged."""
    if c["exceeds_half_width"] is None:
        return ""
    word = "exceeds" if c["exceeds_half_width"] else "within"
    if c["judged_against"] == "old":
        return f" ({word} the old 95% half-width)"
    return f" ({word} the new 95% half-width: the old has none)"


SUMMARY_NAME_WIDTH = (24, 48)  # the model column of ``score``'s summary: at least, at most


def summary_table(document: dict) -> str:
    """The ``score`` summary: one line per model, the dashboard's decimals. The model column is as wide
    as the widest name, within ``SUMMARY_NAME_WIDTH``; a longer name has a line of its own above its
    values, so that the columns stay aligned."""
    shown = {name: escape_for_terminal(name) for name in document["models"]}
    least, most = SUMMARY_NAME_WIDTH
    width = min(most, max([least, *map(width_on_screen, shown.values())]))
    rows = [
        f"{padded('model', width)} {'status':<12} {'index':>8}  " + "  ".join(f"{TRACK_LETTERS[t]:>6}" for t in TRACKS)
    ]
    for name, m in document["models"].items():
        values = f"{m['status']:<12} {fmt(m['index'], INDEX_DIGITS):>8}  " + "  ".join(
            f"{fmt(m['track_means'][t]):>6}" for t in TRACKS
        )
        if width_on_screen(shown[name]) > width:
            rows += [shown[name], f"{'':{width}} {values}"]
        else:
            rows.append(f"{padded(shown[name], width)} {values}")
    return "\n".join(rows)


def ignored_rows_line(document: dict, args) -> str | None:
    """``score``'s line on the ignored rows, with the command that lists them; None without any."""
    import shlex

    ign = document["ignored_rows"]["count"]
    if not ign:
        return None
    words = ["tcsexam", "validate"] + ([args.run_dir] if args.run_dir else [])
    for option in ("suite", "attempts", "cohort", "records", "benchmark"):
        if getattr(args, option, None):
            words += [f"--{option}", getattr(args, option)]
    return (
        f"ignored rows (models outside the cohort, items outside the suite): {ign}; "
        f"run `{shlex.join(words)}` to list them"
    )


def reference_list_text(document: dict, source: str, again: str = "") -> str:
    """``reference`` with no REFERENCE_ID: the benchmark folder and each reference with its suites;
    ``again``: the options the next command needs too (`` --benchmark DIR``)."""
    from tcsexam.scoring.pipeline.benchmark import SAMPLE_BENCHMARK

    where = "the bundled synthetic sample" if source == SAMPLE_BENCHMARK else "benchmark"
    refs = document["references"]
    lines = [f"{where} {document['benchmark']}: {counted(len(refs), 'reference')}"]
    lines += [f"  {r['reference_id']}  suites: {', '.join(r['suites']) or 'none'}" for r in refs]
    if refs:
        lines.append(f"its tasks: tcsexam reference {refs[0]['reference_id']}{again}")
    return "\n".join(lines)


def suite_list_text(document: dict, source: str, again: str = "") -> str:
    """``suite`` with no NAME: the benchmark folder and each suite with its tasks by track; ``again`` as
    for ``reference_list_text``."""
    from tcsexam.scoring.pipeline.benchmark import SAMPLE_BENCHMARK
    from tcsexam.scoring.vocab import TRACK_LETTERS

    where = "the bundled synthetic sample" if source == SAMPLE_BENCHMARK else "benchmark"
    suites = document["suites"]
    width = max((len(s["suite"]) for s in suites), default=0)
    lines = [f"{where} {document['benchmark']}: {counted(len(suites), 'suite')}"]
    for s in suites:
        tracks = ", ".join(f"{TRACK_LETTERS[t]} {n}" for t, n in s["by_track"].items())
        lines.append(f"  {s['suite']:<{width}}  {counted(s['tasks'], 'task')} ({tracks})")
    if suites:
        lines.append(f"its tasks: tcsexam suite {suites[0]['suite']}{again}")
    return "\n".join(lines)


def suite_tasks_text(document: dict) -> str:
    """``suite NAME``: one line per task, in the suite's order: its track, its item and the index points
    a score of 1 on it is worth."""
    from tcsexam.scoring.vocab import TRACK_LETTERS

    tasks = document["tasks"]
    width = max((len(t["item"]) for t in tasks), default=4)
    lines = [
        f"suite {document['suite']} ({document['file']}): {counted(len(tasks), 'task')}",
        f"  {'track':<14}  {'item':<{width}}  points",
    ]
    for t in tasks:
        track = f"{TRACK_LETTERS[t['track']]} {t['track']}"
        lines.append(f"  {track:<14}  {t['item']:<{width}}  {t['points']:6.2f}")
    lines.append("points: what a score of 1 on the task adds to the index (its track's weight over its tasks)")
    return "\n".join(lines)


def reference_tasks_text(document: dict, again: str = "") -> str:
    """``reference ID``: one line per solver task: kind, direction, scored and unscored instances;
    ``again`` as for ``reference_list_text``."""
    tasks = document["tasks"]
    width = max((len(t["task"]) for t in tasks), default=4)
    lines = [
        f"reference {document['reference_id']}, suite {document['suite']} ({document['file']}): "
        f"{counted(len(tasks), 'solver task')}",
        f"  {'task':<{width}}  kind       direction  scored  unscored",
    ]
    lines += [
        f"  {t['task']:<{width}}  {t['kind']:<9}  {t['direction']:<9}  {t['scored']:>6}  {t['unscored']:>8}"
        for t in tasks
    ]
    if tasks:
        lines.append(
            f"a task's instances: tcsexam reference {document['reference_id']} --suite {document['suite']} "
            f"--task {tasks[0]['task']}{again}"
        )
    return "\n".join(lines)


def task_instances_text(document: dict) -> str:
    """``reference ID --task ITEM``: every scored instance (mu, s, scale), then every unscored one."""
    scored, unscored = document["scored"], document["unscored"]
    lines = [
        f"reference {document['reference_id']}, suite {document['suite']}, task {document['task']}: "
        f"{document['kind']}, {document['direction']}; {counted(len(scored), 'scored instance')}, "
        f"{counted(len(unscored), 'unscored instance')}",
        "scored (instance, mu, s, scale):",
    ]
    lines += [
        f"  {i['instance']}  {fmt(i['mu'], 10, general=True)}  {fmt(i['s'], 10, general=True)}  {fmt(i['scale'], 10, general=True)}"
        for i in scored
    ]
    if unscored:
        lines.append("unscored (instance, reference values):")
        lines += [f"  {u['instance']}  {', '.join(fmt(v, 10, general=True) for v in u['values'])}" for u in unscored]
    return "\n".join(lines)


def written(what: str, output: str) -> str:
    """The line a command prints once it has written its ``--output`` file: what, and the path as given
    (docs/commands.md#scripting-against-it)."""
    return f"{what} written to {output}"


def glyphs_missing(chars: list[str]) -> str:
    """``plot``: the characters of names that the figure's font cannot draw (docs/commands.md#plot)."""
    shown = " ".join(escape_for_terminal(c) for c in chars[:20]) + (" ..." if len(chars) > 20 else "")
    return (
        f"warning: the figure's font, DejaVu Sans, has no glyph for {shown}: drawn as boxes "
        "(names keep their characters in the SVG's text)"
    )
