"""``tcsexam plan`` (SPEC section 12.3): attempts per task needed for a precision.

The run is loaded and scored once (``output.score_run``); each model's valid
adopted attempt scores, per task with a task mean, go to the planner
(``planning.plan``), and the document is converted through ``PlanDocument``
before it is written. Exit codes as ``score``: 0 complete or provisional,
3 incomplete (the plan of the tasks with a mean is still written), 1 rejected
input, 2 usage.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

from .vocab import EXIT_FOR_STATUS, NA, TRACK_LETTERS, TRACKS, WEIGHTS

if TYPE_CHECKING:
    from .rules import Checked

# numpy, scipy and msgspec are imported when the command runs: `tcsexam --help` does not pay for them

MAX_ATTEMPTS_LIMIT = 1000  # --max-attempts above this is a usage error: a plan, not a table of 10^9 rows


def plan_document(document: dict, checked: Checked, max_attempts: int, target: float | None) -> dict:
    """SPEC 12.3's output for a scored run: per model (cohort order) the planner over the scores of the
    valid adopted attempts of each task with a task mean, grouped by track in suite order."""
    import msgspec

    from .aggregate import attempt_scores
    from .planning import plan

    models = {}
    for name, entry in document["models"].items():
        by_track: dict[str, list[list[float]]] = {t: [] for t in TRACKS}
        for track, xs in attempt_scores(entry, checked.by_model.get(name, [])).values():
            by_track[track].append(xs)
        models[name] = by_track
    result = plan(models, WEIGHTS, max_attempts, target)
    return msgspec.to_builtins(result)


def _num(x: float | None, digits: int = 4) -> str:
    return NA if x is None else f"{x:.{digits}g}"


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
                f"  {TRACK_LETTERS[t]} {t:<13} m={v['m']:<4} s_w²={_num(v['s_w2'])}  σ_b²={_num(v['sigma_b2'])}"
            )
        widths = m["half_width"]
        if all(h is None for h in widths.values()):
            lines.append("  half-width: not available (a track has fewer than 2 tasks or no task with 2 attempts)")
        else:
            cells = "  ".join(f"r={r}: {h:.2f}" for r, h in widths.items() if h is not None)
            lines.append(f"  index 95% half-width (points) by attempts per task: {cells}")
        if target is not None:
            r = m["attempts_for_target"]
            found = f"{r} attempts per task" if r is not None else f"not reached with up to {len(widths)} attempts"
            lines.append(f"  half-width <= {target:g}: {found}")
    return "\n".join(lines)


def parse_max_attempts(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of attempts, got {text!r}") from None
    if not 1 <= value <= MAX_ATTEMPTS_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_ATTEMPTS_LIMIT}, got {value}")
    return value


def parse_target(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a half-width in index points, got {text!r}") from None
    if not math.isfinite(value) or value <= 0.0:
        raise argparse.ArgumentTypeError(f"must be a positive finite number of index points, got {text!r}")
    return value


def add_parsers(sub) -> dict:
    """Register ``plan`` on the ``tcsexam`` sub-parsers; returns command -> handler."""
    from .cli import add_output_argument, add_run_arguments, epilog

    p = sub.add_parser(
        "plan",
        help="attempts per task needed for a precision of the index",
        description="Per model: the within- and between-task variance of each track and the projected "
        "95% half-width of the index with r attempts of every task (docs/rules.md#planning-attempts).",
        epilog=epilog(
            "  tcsexam plan my-demo\n  tcsexam plan run/ --max-attempts 5 --target 5 --output plan.json",
            "exit codes:\n  0  planned (complete or provisional run)\n  3  planned from an incomplete run "
            "(its scored tasks only)\n  1  rejected input (nothing written)\n  2  usage error",
        ),
    )
    add_run_arguments(p)
    p.add_argument(
        "--max-attempts",
        type=parse_max_attempts,
        metavar="R",
        help="project half-widths for r = 1..R attempts per task (default 10)",
    )
    p.add_argument("--target", type=parse_target, metavar="H", help="the 95%% half-width wanted, in index points")
    add_output_argument(p, "also write the plan as JSON here")
    return {"plan": run_plan}


def run_plan(args) -> int:
    from .cli import checked, checked_output, load_for, output_target, run_inputs, say, thresholds_of, write_to
    from .jsonio import dumps
    from .output import score_run
    from .planning import DEFAULT_MAX_ATTEMPTS
    from .results import PlanDocument
    from .safety import escape_for_terminal

    if args.output:
        checked_output(args)
    run = load_for(args)
    target = output_target(args, *run_inputs(run)) if args.output else None
    document, checked_run = score_run(run, thresholds_of(args))
    max_attempts = DEFAULT_MAX_ATTEMPTS if args.max_attempts is None else args.max_attempts
    result = plan_document(document, checked_run, max_attempts, args.target)
    if args.output:
        write_to(target, dumps(checked(result, PlanDocument)))
    say("\n".join(map(escape_for_terminal, format_plan(result).splitlines())), args)
    if args.output and args.output != "-":
        say(f"{document['status']}: plan written to {args.output}", args)
    return EXIT_FOR_STATUS[document["status"]]
