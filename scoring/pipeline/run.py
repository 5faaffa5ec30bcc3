"""Locating and loading a run (docs/formats.md): its paths (``RunPaths``, ``paths_named``), the suite
manifest, the cohort, the attempts table and the reference the cohort names (when records/ is
there), as one ``Run`` (``load_run``)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from tcsexam.scoring.errors import InputError, Problem, Problems
from tcsexam.scoring.formats.attempts import AttemptsTable, load_attempts
from tcsexam.scoring.formats.inputs import Cohort, SuiteManifest, validate_object
from tcsexam.scoring.formats.json import collector_paused, parse_json_bytes
from tcsexam.scoring.formats.packed import RecordsSource, open_records
from tcsexam.scoring.grammar import meant
from tcsexam.scoring.pipeline.benchmark import (
    GIVEN_BENCHMARK,
    benchmark_origin,
    cohort_reference,
    is_not_found,
    locate_benchmark,
    missing_benchmark,
    sample_benchmark_notice,
    unheld_reference_notice,
)
from tcsexam.scoring.pipeline.reference import LoadedReference
from tcsexam.scoring.safety.files import FolderWatch, read_regular_file
from tcsexam.scoring.safety.names import check_name
from tcsexam.scoring.safety.terminal import escape_for_terminal, look_alikes
from tcsexam.scoring.vocab import (
    ATTEMPTS_FILE,
    COHORT_FILE,
    PACKED_RECORDS_FILE,
    RECORDS_FOLDER,
    TRACKS,
    BenchmarkSource,
)

SUITE_NAMES = ("lite", "full")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class RunPaths:
    attempts: Path
    cohort: Path
    records: Path | None
    benchmark: Path
    suite: str | None = None  # --suite as given: a name or a path
    benchmark_source: BenchmarkSource = GIVEN_BENCHMARK  # provenance.benchmark: how the benchmark folder was found
    benchmark_origin: str = ""  # the setting it came from: '--benchmark', 'TCSEXAM_BENCHMARK' ('' for the sample)
    cohort_read: CohortRead | None = field(default=None, compare=False, repr=False)  # ``read_cohort_ahead``
    # the run folder's records.jsonl, read as the run's records once it is there (``reserved``)
    packed_place: Path | None = None

    @property
    def folders(self) -> list[Path]:
        """The folders the run is read from (those of attempts.csv and cohort.json, and records/)."""
        return [self.attempts.parent, self.cohort.parent] + ([self.records] if self.records is not None else [])

    def records_input(self) -> tuple[list[Path], list[Path]]:
        """The records as an output is checked against them (docs/safety.md): a packed records file is
        an input file, a records folder an input folder (no output inside it)."""
        if self.records is None:
            return [], []
        return ([], [self.records]) if self.records.is_dir() else ([self.records], [])

    def reserved(self) -> list[Path]:
        """What no output may be though nothing is there yet (docs/safety.md): the run folder's
        records.jsonl, which a load of the run reads as its records once it is there."""
        return [self.packed_place] if self.packed_place is not None and self.packed_place != self.records else []


@dataclass
class CohortRead:
    """A run's cohort file read ahead of its load (``read_cohort_ahead``), with the identities of the run's
    folders, held open from before that read. The load uses it instead of reading the file again only
    when it holds the very same folders (docs/safety.md#a-run-folder-moved-while-it-is-read); the folders
    stay held while this lives in the process that read it (a loader process gets the identities only)."""

    cohort: Cohort
    data: bytes
    folders: list[tuple[str, tuple[int, int]]]
    watch: FolderWatch | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "watch": None}


class RunOptions(Protocol):
    """The options that name a run's inputs (docs/formats.md): the command line's and the dashboard's."""

    run_dir: str | None
    attempts: str | None
    cohort: str | None
    records: str | None
    benchmark: str | None
    suite: str | None


def paths_named(options: RunOptions, default_run: Path | None = None) -> RunPaths:
    """The run's input paths as ``options`` name them (``resolve_run_paths``)."""
    return resolve_run_paths(
        options.run_dir,
        attempts=options.attempts,
        cohort=options.cohort,
        records=options.records,
        benchmark=options.benchmark,
        suite=options.suite,
        default_run=default_run,
    )


def resolve_run_paths(
    run_dir: str | None,
    *,
    attempts: str | None = None,
    cohort: str | None = None,
    records: str | None = None,
    benchmark: str | None = None,
    suite: str | None = None,
    default_run: Path | None = None,
) -> RunPaths:
    """docs/formats.md: RUN_DIR (default: the current folder) locates attempts.csv, cohort.json and records/;
    the options override single paths."""
    base = Path(run_dir) if run_dir else default_run
    if base is None and not (attempts and cohort):
        base = Path(".")
    if base is not None and not base.exists() and not (attempts and cohort):
        raise InputError([Problem(str(base), "", "", "run directory not found")])
    if base is not None:
        refuse_a_file_as_run_dir(base)
    rec: Path | None
    if records:
        rec = Path(records)
        if not rec.is_dir() and not rec.is_file():
            raise InputError([Problem(records, "", "", "records directory not found")])
    else:
        rec = run_records(base) if base is not None else None
    place = base / PACKED_RECORDS_FILE if base is not None else None
    if base is None:  # then both --attempts and --cohort were given (checked above)
        assert attempts and cohort
        base = Path(".")
    bench, source = locate_benchmark(benchmark)
    return RunPaths(
        attempts=Path(attempts) if attempts else base / ATTEMPTS_FILE,
        cohort=Path(cohort) if cohort else base / COHORT_FILE,
        records=rec,
        benchmark=bench,
        suite=suite,
        benchmark_source=source,
        benchmark_origin=benchmark_origin(benchmark),
        packed_place=place,
    )


def run_records(base: Path) -> Path | None:
    """The records of the run folder ``base`` (docs/formats.md#packed-records): its records/ folder or
    its packed records.jsonl, None without either; both at once is a problem, as the two could differ."""
    folder, packed = base / RECORDS_FOLDER, base / PACKED_RECORDS_FILE
    if folder.is_dir() and os.path.lexists(packed):
        raise InputError(
            [
                Problem(
                    str(packed),
                    "",
                    "",
                    f"the run holds both {RECORDS_FOLDER}/ and {PACKED_RECORDS_FILE}, which could differ: keep one "
                    f"(move {RECORDS_FOLDER}/ away once {PACKED_RECORDS_FILE} holds its records, or remove "
                    f"{PACKED_RECORDS_FILE})",
                )
            ]
        )
    if folder.is_dir():
        return folder
    return packed if os.path.lexists(packed) else None


def load_suite_file(path: Path) -> tuple[SuiteManifest, bytes]:
    """docs/formats.md#suite-manifest: unique item names, every track has at least one task."""
    file = str(path)
    data = read_regular_file(path, "suite manifest")
    suite = validate_object(SuiteManifest, parse_json_bytes(data, file), file)
    problems = Problems()
    name_problem = check_name(suite.suite, "suite")
    if name_problem:
        problems.add(file, "", "suite", name_problem)
    seen: dict[str, int] = {}
    for i, task in enumerate(suite.tasks):
        name_problem = check_name(task.item, "item")
        if name_problem:
            problems.add(file, f"tasks[{i}]", "item", name_problem)
        if task.item in seen:
            problems.add(
                file, f"tasks[{i}]", "item", f"duplicate item '{task.item}' (first at tasks[{seen[task.item]}])"
            )
        seen.setdefault(task.item, i)
    for item, other in look_alikes(seen):
        problems.add(file, f"tasks[{seen[item]}]", "item", look_alike_problem("item", item, other))
    present = {t.track for t in suite.tasks}
    for track in TRACKS:
        if track not in present:
            problems.add(file, "", "tasks", f"track '{track}' has no task: every track needs at least one")
    problems.raise_if_any()
    return suite, data


def load_cohort_file(path: Path) -> tuple[Cohort, bytes]:
    file = str(path)
    data = read_regular_file(path, "cohort file")
    cohort = validate_object(Cohort, parse_json_bytes(data, file), file)
    check_cohort_names(cohort, file)
    return cohort, data


def check_cohort_names(cohort: Cohort, file: str) -> None:
    """docs/safety.md and README "Safety": the suite, the reference id, every model name and every item
    of ``attempts_per_item`` are names; an empty one, or one with surrounding white space (no
    attempts-table cell can match it), or one that could leave its folder is rejected; so are two
    model names that look the same on a screen (``look_alikes``)."""
    problems = Problems()
    for value, kind, where, field_name in (
        (cohort.suite, "suite", "", "suite"),
        (cohort.solver_reference_id, "reference id", "", "solver_reference_id"),
    ):
        problem = check_name(value, kind)
        if problem:
            problems.add(file, where, field_name, problem)
    for model, plan in cohort.models.items():
        problem = check_name(model, "model")
        if problem:
            problems.add(file, "models", model, problem)
        for item in plan.attempts_per_item or {}:
            problem = check_name(item, "item")
            if problem:
                problems.add(file, f"models.{model}.attempts_per_item", item, problem)
    for model, other in look_alikes(cohort.models):
        problems.add(file, "models", model, look_alike_problem("model", model, other))
    problems.raise_if_any()


def look_alike_problem(kind: str, name: str, other: str) -> str:
    """docs/safety.md#look-alike-names: ``name`` shows on a screen as the earlier ``other`` does.
    When neither shows an escape (names hold no backslash), they differ in encoding only (an accent
    written apart): their code points say how."""
    shown = escape_for_terminal(name) + escape_for_terminal(other)
    spelled = "" if "\\" in shown else f" ({name!a} and {other!a})"
    return (
        f"{kind} name looks the same as '{other}' on a screen (they differ only in invisible characters "
        f"or in how the same letters are encoded{spelled}): give each {kind} a name that looks different"
    )


def read_cohort_ahead(paths: RunPaths) -> RunPaths:
    """``paths`` with the cohort file read (``cohort_read``), for a check made before the run is loaded
    (``benchmark_notice``) whose read the load then reuses: the file is read once. ``paths`` as it is when
    the cohort cannot be read: the load reads it and reports why."""
    watch = FolderWatch(paths.folders)
    try:
        cohort, data = load_cohort_file(paths.cohort)
    except InputError:
        watch.close()
        return paths
    return replace(paths, cohort_read=CohortRead(cohort, data, watch.identities(), watch))


def benchmark_notice(paths: RunPaths) -> str | None:
    """The synthetic-sample rule (docs/formats.md) for a run not loaded yet, its cohort read ahead
    (``read_cohort_ahead``): its notice line, None, or a UsageError; None when the cohort could not be
    read (the load reports why)."""
    if paths.cohort_read is None:
        return None
    reference_id = paths.cohort_read.cohort.solver_reference_id
    return sample_benchmark_notice(paths.benchmark_source, paths.benchmark, reference_id)


def cohort_of(paths: RunPaths, folders: FolderWatch) -> tuple[Cohort, bytes]:
    """The run's cohort and its bytes: as read ahead (``read_cohort_ahead``) when that read held the
    folders this load holds, else read now."""
    ahead = paths.cohort_read
    if ahead is not None and ahead.folders == folders.identities():
        return ahead.cohort, ahead.data
    return load_cohort_file(paths.cohort)


def _checked(name: str, kind: str) -> str:
    problem = check_name(name, kind)
    if problem:  # the loaders reject such names where they are read: here it is a bug
        raise ValueError(problem)
    return name


def refuse_a_file_as_run_dir(base: Path) -> None:
    """docs/formats.md: RUN_DIR is a folder; a file given for it (attempts.csv named instead of its
    folder) is said to be one."""
    if base.exists() and not base.is_dir():
        raise InputError([Problem(str(base), "", "", "is a file, expected a run directory")])


def suite_path(benchmark: Path, name: str) -> Path:
    """BENCHMARK/suites/<name>.json for a suite name already checked (docs/safety.md)."""
    return benchmark / "suites" / f"{_checked(name, 'suite')}.json"


def benchmark_problem(benchmark: Path, origin: str, suite: str, cohort_path: Path) -> Problem | None:
    """The setting behind a suite manifest that is not there (docs/formats.md#the-benchmark-folder):
    a benchmark folder that does not exist, named with the option or variable it came from; a
    cohort suite the benchmark has no manifest for, as the cohort's field, listing the suites it has.
    None when the manifest is there (or is something else than nothing: its reader says what)."""
    missing = missing_benchmark(benchmark, origin)
    if missing:
        return missing
    if os.path.lexists(suite_path(benchmark, suite)):
        return None
    folder = benchmark / "suites"
    suites = sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
    has = f"its suites: {', '.join(suites)}" if suites else "it holds no suites/*.json"
    return Problem(str(cohort_path), "", "suite", f"'{suite}' is not a suite of the benchmark {benchmark} ({has})")


def suite_file(paths: RunPaths, declared: str | None, problems: Problems) -> Path | None:
    """docs/commands.md: the suite manifest comes from the cohort (the suite it ``declared``, or --suite,
    a name or a path); a --suite that disagrees with the cohort, or a manifest the benchmark lacks
    (``benchmark_problem``), is added to ``problems`` (None then when there is nothing to read)."""
    if paths.suite and paths.suite not in SUITE_NAMES:
        looks_named = "/" not in paths.suite and not paths.suite.endswith(".json")
        if looks_named and not os.path.lexists(paths.suite):  # neither a suite's name nor a file: 'lit'
            slip = meant(paths.suite, SUITE_NAMES)
            message = f"--suite names no suite ({', '.join(SUITE_NAMES)}) and no file{slip}"
            problems.add(paths.suite, "", "", message)
            return None
        return Path(paths.suite)
    if declared is None:
        return suite_path(paths.benchmark, paths.suite) if paths.suite else None
    if paths.suite and paths.suite != declared:
        problems.add(paths.cohort, "", "suite", f"cohort declares suite '{declared}' but --suite says '{paths.suite}'")
    problem = benchmark_problem(paths.benchmark, paths.benchmark_origin, declared, paths.cohort)
    if problem:
        problems.extend([problem])
        return None
    return suite_path(paths.benchmark, declared)


def suite_declared(path: Path) -> str | None:
    """The suite a cohort file that was rejected declares, when it declares one as a well-formed name:
    a problem of another field (a count written as text) no longer hides that the suite is not one
    of the benchmark's (docs/commands.md#validate); None when there is none to read."""
    try:
        value = parse_json_bytes(read_regular_file(path, "cohort file"), str(path))
    except InputError:
        return None
    suite = value.get("suite") if isinstance(value, dict) else None
    return suite if isinstance(suite, str) and check_name(suite, "suite") is None else None


@dataclass
class Run:
    """Everything a score needs, loaded and individually validated."""

    paths: RunPaths
    suite: SuiteManifest
    suite_path: Path
    cohort: Cohort
    attempts: AttemptsTable
    reference: LoadedReference | None
    sha256: dict[str, str] = field(default_factory=dict)  # input name -> sha256
    input_paths: dict[str, Path] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)  # row-level problems still to report
    records_root: RecordsSource | None = None  # docs/safety.md: the one way into records/ for this load
    notices: list[str] = field(default_factory=list)  # lines for standard error (the synthetic sample)
    folders: FolderWatch | None = None  # the run's folders, watched from before the first read

    def inputs(self) -> tuple[list[Path], list[Path], list[Path]]:
        """The run's input files (suite and reference included), its folders, and what it would read
        once it is there (``RunPaths.reserved``): what an output must never be, nor lie inside
        (docs/safety.md); ``check_output``'s arguments in order."""
        packed, folders = self.paths.records_input()
        return list(self.input_paths.values()) + packed, folders, self.paths.reserved()

    def check_folders(self) -> None:
        """docs/safety.md#a-run-folder-moved-while-it-is-read: an InputError when a folder of the
        run was moved, deleted or replaced since the load began; then it stops being watched."""
        if self.folders is not None:
            problems = self.folders.problems()
            self.folders.close()
            self.folders = None
            if problems:
                raise InputError(problems)


def attempts_table(paths: RunPaths, have_cohort: bool, missing: int, problems: Problems) -> AttemptsTable | None:
    """The attempts table, or None with its problems added. Not there, in a run folder: with the
    cohort missing too there is no run here (``missing`` counts the cohort): in a folder that exists,
    where both have their usual names, that is the one problem (the folder is not a run); else it
    follows the files' own. With the cohort there, ``tcsexam init DIR`` writes the table."""
    try:
        return load_attempts(paths.attempts)
    except InputError as exc:
        folder = paths.cohort.parent
        in_folder = is_not_found(exc) and paths.attempts.parent == folder
        if in_folder and missing:
            no_run = Problem(
                str(folder),
                "",
                "",
                "no run here: a run folder holds cohort.json and attempts.csv (tcsexam docs formats); "
                "tcsexam demo DIR makes one to try",
            )
            usual = (paths.attempts.name, paths.cohort.name) == (ATTEMPTS_FILE, COHORT_FILE) and folder.is_dir()
            if usual:  # not a run folder: the files' 'not found' say nothing more
                problems.items[:] = [p for p in problems.items if p.file != str(paths.cohort)]
                exc.problems[:] = []
            exc.problems.append(no_run)
        elif in_folder and have_cohort:
            message = (
                f"attempts table not found: tcsexam init {paths.attempts.parent} writes one row per planned "
                "attempt of the cohort, to fill in"
            )
            exc.problems[:] = [Problem(str(paths.attempts), "", "", message)]
        problems.extend(exc.problems)
        return None


def load_run(paths: RunPaths) -> Run:
    """Load every input of a run. Problems of all files are collected and raised together. The
    run's folders (those of attempts.csv and cohort.json, and records/) are watched from here on
    (``Run.check_folders``)."""
    with collector_paused():  # the rows and records live until the run is scored: no garbage cycles
        return _load_run(paths)


def raise_every_problem(problems: Problems, attempts: AttemptsTable | None) -> None:
    """The run's input problems at once (docs/commands.md#validate), the attempts table's own rows'
    with them when it was read: a problem of the cohort hid them until the next run."""
    if problems and attempts is not None:
        problems.extend(attempts.problems)
    problems.raise_if_any()


def read_suite(
    spath: Path | None, cohort: Cohort | None, problems: Problems
) -> tuple[SuiteManifest | None, bytes | None]:
    """The suite manifest at ``spath`` (None: none to read) and its bytes, or (None, None) with its problems
    added; a manifest of another suite than the cohort declares is a problem of the manifest."""
    if spath is None:
        return None, None
    try:
        suite, data = load_suite_file(spath)
    except InputError as exc:
        problems.extend(exc.problems)
        return None, None
    if cohort is not None and suite.suite != cohort.suite:
        problems.add(spath, "", "suite", f"manifest is suite '{suite.suite}' but the cohort declares '{cohort.suite}'")
    return suite, data


def _load_run(paths: RunPaths) -> Run:
    folders = FolderWatch(paths.folders)
    problems = Problems()
    sha: dict[str, str] = {}
    where: dict[str, Path] = {}

    cohort = attempts = suite = None
    notices: list[str] = []
    missing = 0  # 1 when the cohort file is not there
    try:
        cohort, data = cohort_of(paths, folders)
        sha["cohort"], where["cohort"] = sha256_bytes(data), paths.cohort
    except InputError as exc:
        problems.extend(exc.problems)
        missing += is_not_found(exc)
    if cohort is not None:  # docs/formats.md: before anything else is read
        notice = sample_benchmark_notice(paths.benchmark_source, paths.benchmark, cohort.solver_reference_id)
        notices += [notice] if notice else []
    attempts = attempts_table(paths, cohort is not None, missing, problems)
    if attempts is not None:
        sha["attempts"], where["attempts"] = attempts.sha256, paths.attempts
    declared = cohort.suite if cohort is not None else None if missing else suite_declared(paths.cohort)
    spath = suite_file(paths, declared, problems)
    suite, suite_bytes = read_suite(spath, cohort, problems)
    if spath is not None and suite_bytes is not None:
        sha["suite"], where["suite"] = sha256_bytes(suite_bytes), spath

    reference = None
    if paths.records is not None and cohort is not None and spath is not None:
        try:
            reference = cohort_reference(
                paths.benchmark,
                cohort.solver_reference_id,
                cohort.suite,
                "needed to re-score the records",
                paths.cohort,
            )
            sha["reference"], where["reference"] = reference.sha256, reference.path
        except InputError as exc:
            problems.extend(exc.problems)
    elif cohort is not None and spath is not None:
        notice = unheld_reference_notice(paths.benchmark, cohort.solver_reference_id, cohort.suite, paths.cohort)
        notices += [notice] if notice else []

    records_root = None
    if paths.records is not None:
        try:
            records_root = open_records(paths.records)
        except InputError as exc:
            problems.extend(exc.problems)

    raise_every_problem(problems, attempts)
    assert cohort is not None and attempts is not None and suite is not None and spath is not None
    return Run(
        replace(paths, cohort_read=None),  # the read ahead is used: its folders need not stay held
        suite,
        spath,
        cohort,
        attempts,
        reference,
        sha,
        where,
        list(attempts.problems),
        records_root,
        notices,
        folders,
    )
