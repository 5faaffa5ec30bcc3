"""``schema``: the JSON Schema of every format."""

from __future__ import annotations

from pathlib import Path

from tcsexam.scoring.commands.options import command_parser, output_argument, write_to
from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.vocab import EXIT_OK


def cmd_schema(args) -> int:
    """``tcsexam schema`` (docs/commands.md): one schema or all, on standard output or as DIR/<name>.schema.json."""
    import msgspec

    from tcsexam.scoring.formats.schemas import NAMES, schema, schema_bytes
    from tcsexam.scoring.safety.outputs import write_atomic

    names = [args.name] if args.name else list(NAMES)
    if args.output in (None, "-"):
        if args.name:
            data = schema_bytes(args.name)
        else:
            data = msgspec.json.format(msgspec.json.encode({n: schema(n) for n in names}), indent=2) + b"\n"
        write_to(None, data)
        return EXIT_OK
    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise InputError([Problem(str(folder), "", "--output", "is not a folder: schema --output names a DIR")])
    for name in names:
        write_atomic(folder / f"{name}.schema.json", schema_bytes(name))
    print(f"schema: {len(names)} file{'' if len(names) == 1 else 's'} written to {folder}")
    return EXIT_OK


def add_parsers(sub) -> None:
    from tcsexam.scoring.formats.schemas import NAMES

    p = command_parser(sub, "schema")
    p.add_argument("name", nargs="?", choices=NAMES, metavar="NAME", help=f"one of: {', '.join(NAMES)}")
    p.add_argument(
        "--output",
        metavar="DIR",
        type=output_argument,
        help="write DIR/<name>.schema.json (the folder is made when missing); - or none: standard output",
    )
    p.set_defaults(handler=cmd_schema)
