"""``tau2``: tau2-bench results."""

from __future__ import annotations

from pathlib import Path

from tcsexam.scoring.commands.options import add_output_argument, checked, command_parser, output_target, say, write_to
from tcsexam.scoring.vocab import EXIT_OK


def cmd_tau2(args) -> int:
    from tcsexam.scoring.commands.text import format_tau2_summary, written
    from tcsexam.scoring.formats.json import collector_paused, dumps
    from tcsexam.scoring.formats.results import Tau2Output
    from tcsexam.scoring.tau2.files import locate
    from tcsexam.scoring.tau2.metrics import tau2_metrics_for_file

    meta, sims = locate(Path(args.results))  # a dir-format run: every file of simulations/ is input
    target = output_target(args, [meta], [sims] if sims is not None else []) if args.output else None
    with collector_paused():  # the simulations and the key check's objects make no cycles, as in ``score``
        metrics = tau2_metrics_for_file(Path(args.results))
    if args.output:
        write_to(target, dumps(checked(metrics, Tau2Output)))
    say(format_tau2_summary(metrics), args)
    if target is not None:
        say(written("tau2 metrics", args.output), args)
    return EXIT_OK


def add_parsers(sub) -> None:
    p = command_parser(sub, "tau2")
    p.add_argument("results", metavar="PATH", help="a run's results.json or its folder (json or dir format)")
    add_output_argument(p, "also write the metrics as JSON here")
    p.set_defaults(handler=cmd_tau2)
