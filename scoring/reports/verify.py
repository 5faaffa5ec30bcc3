"""Proof that a stored index.json follows from its inputs (docs/commands.md#verify): its own hash, and
the document ``score`` makes now from the run folder and the benchmark folder, input by input and
value by value."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from tcsexam.scoring.errors import InputError, UsageError
from tcsexam.scoring.reports.index_file import IndexFile, _is_number
from tcsexam.scoring.safety.files import read_regular_file
from tcsexam.scoring.safety.names import check_name
from tcsexam.scoring.vocab import ATTEMPTS_FILE, COHORT_FILE, BenchmarkSource

RUN_FILES = {"attempts": ATTEMPTS_FILE, "cohort": COHORT_FILE}  # what a run folder holds (docs/formats.md)


class Unverifiable(Exception):
    """The inputs cannot be found: one finding that says where to point verify, instead of a list of
    files not found."""


def recorded_name(doc: dict, name: str) -> str:
    """The file name an input had at scoring (a plain name, else the run folder's usual one)."""
    block = doc["provenance"]["inputs"].get(name)
    recorded = Path(block["path"]).name if block is not None else ""
    return recorded if check_name(recorded, "item") is None else RUN_FILES[name]


def is_run_folder(folder: Path) -> bool:
    """A folder that holds a run's attempts.csv and cohort.json (docs/formats.md)."""
    return all(_holds(folder / name, Path.is_file) for name in RUN_FILES.values())


def is_benchmark_folder(folder: Path) -> bool:
    """A folder that holds suites/ and references/ (docs/formats.md#the-benchmark-folder)."""
    return _holds(folder / "suites", Path.is_dir) and _holds(folder / "references", Path.is_dir)


def _holds(path: Path, test: Callable[[Path], bool]) -> bool:
    try:
        return test(path)
    except (OSError, ValueError):  # a name too long, a NUL: a path a document made up
        return False


def _path_of(doc: dict, name: str) -> Path | None:
    block = doc["provenance"]["inputs"].get(name)
    return None if block is None or "\x00" in block["path"] else Path(block["path"])


def recorded_run_folder(doc: dict, index: str) -> Path:
    """Without RUN_DIR: the folder that held the attempts table and the cohort at scoring. It is read
    only while it is a run folder (docs/safety.md: a path a document names is not read elsewhere)."""
    attempts, cohort = _path_of(doc, "attempts"), _path_of(doc, "cohort")
    if attempts is None or cohort is None or attempts.parent != cohort.parent:
        raise Unverifiable(
            "the index does not record one run folder that held its attempts table and cohort: pass the run "
            f"folder: tcsexam verify {index} RUN_DIR"
        )
    folder = attempts.parent
    if not is_run_folder(folder):
        raise Unverifiable(
            f"the inputs are not at their recorded paths ({folder} holds no attempts.csv and cohort.json): "
            f"if the run folder moved, pass it: tcsexam verify {index} RUN_DIR"
        )
    return folder


def recorded_benchmark_folder(doc: dict) -> Path | None:
    """The benchmark folder of the suite (BENCHMARK/suites/<suite>.json) or reference
    (BENCHMARK/references/<id>/<suite>.json) the index records, or None."""
    suite, reference = _path_of(doc, "suite"), _path_of(doc, "reference")
    if suite is not None and suite.parent.name == "suites":
        return suite.parent.parent
    if reference is not None and reference.parent.parent.name == "references":
        return reference.parent.parent.parent
    return None


def verify_benchmark(doc: dict, option: str | None, index: str) -> tuple[Path, BenchmarkSource, list[str]]:
    """The benchmark folder verify reads, how it was found (provenance.benchmark's word), and the
    difference from the one recorded at scoring. ``--benchmark`` or TCSEXAM_BENCHMARK wins, and a
    document scored otherwise differs; without them a document scored on the bundled sample is checked
    against the sample, and one scored on a given folder against that folder while it is a benchmark
    folder (docs/decisions.md#the-benchmark-folder)."""
    from tcsexam.scoring.pipeline.benchmark import GIVEN_BENCHMARK, SAMPLE_BENCHMARK, locate_benchmark

    word = doc["provenance"]["benchmark"]
    if option or os.environ.get("TCSEXAM_BENCHMARK"):
        folder, source = locate_benchmark(option)
        found = []
        if word != source:
            how = "--benchmark" if option else "TCSEXAM_BENCHMARK"
            found.append(f"benchmark: the index was scored on the {word}, {how} names the folder {folder}")
        return folder, source, found
    if word == SAMPLE_BENCHMARK:
        folder, source = locate_benchmark(None)
        return folder, source, []
    recorded = recorded_benchmark_folder(doc)
    if recorded is None or not is_benchmark_folder(recorded):
        where = f"{recorded} holds no suites/ and references/" if recorded else "it records no suite path"
        raise Unverifiable(
            f"the benchmark folder recorded at scoring is not there ({where}): pass it: tcsexam verify {index} "
            "[RUN_DIR] --benchmark DIR (or TCSEXAM_BENCHMARK=DIR)"
        )
    return recorded, GIVEN_BENCHMARK, []


def input_locations(doc: dict, run_dir: Path | None, benchmark: str | None, index: str = "index.json"):
    """Where verify reads each input, as ``score`` would for the run folder (RUN_DIR, else the one the
    index records) and the benchmark folder (``verify_benchmark``): the RunPaths, and the benchmark's
    differences from the recorded one. Raises Unverifiable when the inputs cannot be found."""
    from tcsexam.scoring.pipeline.run import resolve_run_paths

    folder = run_dir if run_dir is not None else recorded_run_folder(doc, index)
    bench, source, found = verify_benchmark(doc, benchmark, index)
    paths = resolve_run_paths(
        str(folder),
        attempts=str(folder / recorded_name(doc, "attempts")),
        cohort=str(folder / recorded_name(doc, "cohort")),
        benchmark=str(bench),
    )
    return dataclasses.replace(paths, benchmark_source=source), found


def file_sha256(path: Path) -> str | None:
    """The sha256 of a regular file, None when it cannot be read (docs/safety.md: a FIFO is never waited on)."""
    try:
        return hashlib.sha256(read_regular_file(path, "input file")).hexdigest()
    except InputError:
        return None


def value_differences(a, b, where: str = "$", out: list | None = None, limit: int = 50) -> list[str]:
    """Every leaf that differs between two JSON values (at most ``limit``), by JSON path."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in [*a, *(k for k in b if k not in a)]:
            if k in a and k in b:
                value_differences(a[k], b[k], f"{where}.{k}", out, limit)
            else:
                out.append(f"{where}.{k}: only in the {'stored' if k in a else 'recomputed'} document")
    elif isinstance(a, list) and isinstance(b, list):
        _list_differences(a, b, where, out, limit)
    elif a != b or (type(a) is not type(b) and not (_is_number(a) and _is_number(b))):
        out.append(f"{where}: stored {a!r}, recomputed {b!r}")
    return out


def _list_differences(a: list, b: list, where: str, out: list[str], limit: int) -> None:
    """``value_differences`` of two lists: item by item when they are as long; a list of names that
    grew or shrank as what changed (``list_change``), not both whole; any other pair whole."""
    if len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            value_differences(x, y, f"{where}[{k}]", out, limit)
    elif all(isinstance(x, str) for x in (*a, *b)):
        out.append(f"{where}: {list_change(a, b)}")
    else:
        out.append(f"{where}: stored {a!r}, recomputed {b!r}")


LISTED = 10  # names of a list change shown, at most, on each side


def list_change(stored: list[str], recomputed: list[str]) -> str:
    """How a list of names (a model's tasks not valid, say) differs: its lengths, and the names only in
    the stored and only in the recomputed list (the first ``LISTED`` of each, in their order), rather
    than both whole lists, which ran to thousands of characters."""

    def first(names: list[str]) -> str:
        shown = ", ".join(repr(n) for n in names[:LISTED])
        return shown + (f" and {len(names) - LISTED:,} more" if len(names) > LISTED else "")

    stored_set, recomputed_set = set(stored), set(recomputed)
    gone = [n for n in stored if n not in recomputed_set]
    new = [n for n in recomputed if n not in stored_set]
    parts = [f"{len(stored)} stored, {len(recomputed)} recomputed"]
    if gone:
        parts.append(f"only stored: {first(gone)}")
    if new:
        parts.append(f"only recomputed: {first(new)}")
    return "; ".join(parts)


def recorded_thresholds(doc: dict) -> dict[str, float]:
    """The pass^k thresholds the stored document was computed with (they are part of its content)."""
    found: dict[str, float] = {}
    for m in doc["models"].values():
        for track, block in m["pass_hat_k"].items():
            found.setdefault(track, float(block["threshold"]))
    return found


BOM = b"\xef\xbb\xbf"
ONLY_FORM = "differs from the recorded file only in"  # the words of a change of line endings or byte-order mark


def _endings(body: bytes) -> str:
    """The line endings of ``body``: LF, CRLF, or both."""
    crlf = body.count(b"\r\n")
    if crlf == 0:
        return "LF"
    return "CRLF" if crlf == body.count(b"\n") else "CRLF and LF"


def only_in_form(data: bytes, recorded: str) -> str | None:
    """docs/commands.md#verify: how ``data`` differs from the file the provenance recorded by its sha256
    ``recorded`` when it differs only in line endings or a UTF-8 byte-order mark, else None. The recorded
    bytes are not known, only their sha256: every form of ``data`` with its line endings made LF or CRLF,
    with and without a byte-order mark, is hashed against it."""
    has_bom = data.startswith(BOM)
    body = data.removeprefix(BOM)
    lf = body.replace(b"\r\n", b"\n")
    for text in (body, lf, lf.replace(b"\n", b"\r\n")):
        for bom in (has_bom, not has_bom):
            candidate = BOM + text if bom else text
            if candidate != data and hashlib.sha256(candidate).hexdigest() == recorded:
                parts = [] if text == body else [f"line endings ({_endings(body)}, recorded {_endings(text)})"]
                if bom != has_bom:
                    had = "the file has one, the recorded file had none" if has_bom else "the recorded file had one"
                    parts.append(f"a byte-order mark ({had})")
                return " and ".join(parts)
    return None


def changed_input(name: str, path: str, sha256: str, recorded: str) -> str:
    """The finding of an input whose sha256 is not the recorded one, saying so when only its line endings
    or its byte-order mark differ (a checkout that converted them: docs/commands.md#verify)."""
    try:
        form = only_in_form(read_regular_file(path, "input file"), recorded)
    except InputError:  # the records folder's digest, or a file gone since
        form = None
    if form is None:
        return f"input {name}: {path} has sha256 {sha256}, the provenance says {recorded}"
    return f"input {name}: {path} {ONLY_FORM} {form}: sha256 {sha256}, the provenance says {recorded}"


def input_findings(stored: dict, fresh: dict, names) -> list[str]:
    """The inputs whose sha256 now differs from the recorded one (``stored``/``fresh``: name -> path, sha256)."""
    found = []
    for name in names:
        old, new = stored.get(name), fresh.get(name)
        if new is None and old is not None:
            found.append(f"input {name}: the index was scored with it ({old['path']}), it is not there now")
        elif old is None and new is not None:
            found.append(f"input {name}: {new['path']} is there now, the index was scored without it")
        elif old is not None and new is not None and old["sha256"] != new["sha256"]:
            found.append(changed_input(name, new["path"], new["sha256"], old["sha256"]))
    return found


@dataclasses.dataclass(frozen=True)
class Verification:
    """What verify found (docs/commands.md#verify): every difference (none: the document follows from its
    inputs); whether the document recomputed from the files as they are holds the stored document's
    values, apart from the provenance (None: it could not be recomputed); and whether an input differs
    from its recorded file only in line endings or a byte-order mark."""

    findings: list[str]
    values_match: bool | None = None
    only_form: bool = False
    run_folder: Path | None = None  # the folder the run's inputs were read from


def verify_index(
    loaded: IndexFile,
    run_dir: Path | None,
    benchmark: str | None,
    recompute: Callable[[object, dict], dict],
) -> Verification:
    """docs/commands.md#verify: every difference found, and whether the recomputed values match.

    ``recompute(paths, thresholds)`` builds the document from the inputs at ``paths`` with the pipeline
    ``score`` runs, so every check of ``score`` holds for whatever the folders hold now."""
    from tcsexam.scoring.formats.json import content_sha256

    doc = loaded.document
    findings = [loaded.edited] if loaded.edited else []
    try:
        paths, found = input_locations(doc, run_dir, benchmark, loaded.file)
    except Unverifiable as exc:
        return Verification([*findings, str(exc)])
    findings += found
    folder = paths.attempts.parent
    stored_inputs = doc["provenance"]["inputs"]
    try:
        fresh = recompute(paths, recorded_thresholds(doc))
    except (InputError, UsageError) as exc:
        read_now = {}
        for name, path in (("attempts", paths.attempts), ("cohort", paths.cohort)):
            digest = file_sha256(path)
            read_now[name] = None if digest is None else {"path": str(path), "sha256": digest}
        problems = exc.problems if isinstance(exc, InputError) else [exc]
        changed = input_findings(stored_inputs, read_now, read_now)
        failed = [f"recomputing failed: {p}" for p in problems]
        return Verification([*findings, *changed, *failed], None, any(ONLY_FORM in f for f in changed), folder)
    fresh = hashed_as_stored(fresh, doc)
    fresh_inputs = fresh["provenance"]["inputs"]
    changed = input_findings(stored_inputs, fresh_inputs, sorted(set(stored_inputs) | set(fresh_inputs)))
    findings += changed
    stored, again = doc["provenance"]["content_sha256"], content_sha256(fresh)
    if stored != again:
        findings.append(f"recomputed content_sha256 {again} differs from the stored {stored}")
    skip = ("generated_at", "content_sha256", "inputs", "benchmark")  # compared above
    a = {**doc, "provenance": {k: v for k, v in doc["provenance"].items() if k not in skip}}
    b = {**fresh, "provenance": {k: v for k, v in fresh["provenance"].items() if k not in skip}}
    values = value_differences(a, b)  # what changed, value by value (an edited number, a moved score)
    findings += values
    values_match = all(v.startswith("$.provenance.") for v in values)
    return Verification(findings, values_match, any(ONLY_FORM in f for f in changed), folder)


def outside_note(index: str, folder: Path) -> str | None:
    """When the index.json file sits in another run folder than the one it was checked against (in a
    copy of a run, whose index records the original's paths; ``build/index.json`` or beside the run's
    files): a line saying which run was checked, and how to check the one the index sits in. None
    otherwise (an index kept apart, in a paper's folder, is checked against its run without a word)."""
    here = Path(os.path.realpath(index)).parent  # resolved, as the provenance records the run's paths
    checked = Path(os.path.realpath(folder))
    sits_in = next((f for f in (here, here.parent) if is_run_folder(f)), None)
    if sits_in is None or sits_in == checked:
        return None
    return (
        f"note: {index} sits in the run folder {sits_in}, but records the run in {folder}, which is the one "
        f"checked: to check the run it sits in, pass it: tcsexam verify {index} {sits_in}"
    )


def hashed_as_stored(fresh: dict, doc: dict) -> dict:
    """``fresh`` under the stored document's hash method (docs/formats.md#indexjson): a document of an
    earlier version names none and is checked by the method it was hashed with, the tool's own writer."""
    provenance = {k: v for k, v in fresh["provenance"].items() if k != "hash_method"}
    if "hash_method" in doc["provenance"]:
        provenance["hash_method"] = doc["provenance"]["hash_method"]
    return {**fresh, "provenance": provenance}


def recompute_with_pipeline(paths, thresholds: dict) -> dict:
    """The one call into the scoring pipeline that verify makes: what ``score`` makes of the inputs."""
    from tcsexam.scoring.pipeline.index import build_index
    from tcsexam.scoring.pipeline.run import load_run

    return build_index(load_run(paths), thresholds)
