"""``pack``: a run's records/ folder written as one packed file, RUN_DIR/records.jsonl
(docs/commands.md#pack, docs/formats.md#packed-records).

Each records file becomes one line, ``{"model", "item", "attempt", "records"}``, its list written
back compact: the same values (a double is written as the shortest text that reads back as the
same double), so the packed run scores as the folder did. Every file is read and checked before
anything is written; records/ is never changed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import orjson

from tcsexam.scoring.errors import InputError, Problem, Problems
from tcsexam.scoring.formats.json import parse_json_bytes
from tcsexam.scoring.pipeline.lineup import discover_records
from tcsexam.scoring.safety.files import RecordsRoot
from tcsexam.scoring.safety.names import check_name
from tcsexam.scoring.safety.outputs import check_output, write_atomic
from tcsexam.scoring.vocab import PACKED_RECORDS_FILE, RECORDS_FOLDER


@dataclass(frozen=True)
class PackReport:
    """What ``pack_run`` wrote: the packed file, its lines (one per records file) and records."""

    target: Path
    lines: int
    records: int
    size: int


def pack_run(run_dir: Path, *, overwrite: bool = False) -> PackReport:
    """docs/commands.md#pack: write RUN_DIR/records.jsonl from RUN_DIR/records/, atomically. An
    InputError, nothing written, when there is no records/, when records.jsonl is there and
    ``overwrite`` is not given, or when any records file cannot be packed (every one listed)."""
    from tcsexam.scoring.pipeline.run import refuse_a_file_as_run_dir

    refuse_a_file_as_run_dir(run_dir)
    folder, target = run_dir / RECORDS_FOLDER, run_dir / PACKED_RECORDS_FILE
    if not folder.is_dir():
        raise InputError([Problem(str(folder), "", "", "records folder not found: pack reads the run's records/")])
    if os.path.lexists(target) and not overwrite:
        raise InputError(
            [Problem(str(target), "", "", "already there: pass --overwrite to replace it (records/ is never changed)")]
        )
    check_output(str(target), [], [str(folder)])
    lines, count = packed_lines(RecordsRoot(folder))
    write_atomic(target, lines)
    return PackReport(target, len(lines), count, sum(map(len, lines)))


def packed_lines(root: RecordsRoot) -> tuple[list[bytes], int]:
    """One line per records file under ``root``, in path order, and how many records they hold;
    an InputError listing every file that cannot be packed."""
    problems = Problems()
    lines: list[bytes] = []
    count = 0
    for f in discover_records(root):
        shown = os.path.join(root.root, f.rel)
        if f.model is None or f.item is None or f.attempt is None:
            problems.add(shown, "", "", "not at records/<model>/<item>/<attempt>.json: a packed line needs all three")
            continue
        names = {"model": f.model, "item": f.item, "attempt": f.attempt}
        bad = [(name, problem) for name, value in names.items() if (problem := check_name(value, name))]
        if bad:
            problems.extend(Problem(shown, "", name, problem) for name, problem in bad)
            continue
        try:
            path = root.path(f.model, f.item, f.attempt)
            data = root.read_path(path)
            if data is None:  # gone since the walk
                raise InputError([Problem(path, "", "", "records file not found")])
            value = parse_json_bytes(data, path)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        if not isinstance(value, list):
            kind = type(value).__name__.replace("dict", "object").replace("str", "string")
            problems.add(path, "", "", f"expected a JSON list of instance records, found {kind}")
            continue
        lines.append(orjson.dumps({**names, "records": value}) + b"\n")
        count += len(value)
    problems.raise_if_any()
    return lines, count
