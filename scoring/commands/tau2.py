"""``tau2``: tau2-bench results."""

from __future__ import annotations

from pathlib import Path

from scoring.commands.options import checked, output_target, say, write_to
from scoring.vocab import EXIT_OK


def cmd_tau2(args) -> int:
    from scoring.commands.text import format_tau2_summary
    from scoring.formats.json import dumps
    from scoring.formats.results import Tau2Output
    from scoring.tau2.files import locate
    from scoring.tau2.metrics import tau2_metrics_for_file

    meta, sims = locate(Path(args.results))  # a dir-format run: every file of simulations/ is input
    target = output_target(args, [meta], [sims] if sims is not None else []) if args.output else None
    metrics = tau2_metrics_for_file(Path(args.results))
    if args.output:
        write_to(target, dumps(checked(metrics, Tau2Output)))
    say(format_tau2_summary(metrics), args)
    return EXIT_OK
