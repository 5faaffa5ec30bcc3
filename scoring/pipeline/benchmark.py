"""Where the benchmark folder is (given, or the bundled sample) and how a reference is found in it."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from tcsexam.scoring.errors import InputError, Problem, Problems, UsageError
from tcsexam.scoring.pipeline.reference import LoadedReference, load_reference
from tcsexam.scoring.safety.names import check_name
from tcsexam.scoring.vocab import BenchmarkSource


def sample_root() -> Path:
    """The bundled synthetic sample (package data of ``sample_runs``), installed or editable: the folder
    its ``__init__.py`` really lies in, since an editable install reaches the checkout's files through a
    tree of links, which the records' safety check rightly refuses (docs/development.md#one-import-name)."""
    return Path(str(resources.files("tcsexam.sample_runs") / "__init__.py")).resolve().parent


SAMPLE_BENCHMARK: BenchmarkSource = "bundled synthetic sample"  # provenance.benchmark when the sample was found


GIVEN_BENCHMARK: BenchmarkSource = "given"  # provenance.benchmark for --benchmark or $TCSEXAM_BENCHMARK


def locate_benchmark(option: str | Path | None) -> tuple[Path, BenchmarkSource]:
    """docs/formats.md: the benchmark folder (--benchmark, else $TCSEXAM_BENCHMARK, else the bundled
    sample) and how it was found, as provenance.benchmark words it."""
    if option:
        return Path(option), GIVEN_BENCHMARK
    env = os.environ.get("TCSEXAM_BENCHMARK")
    if env:
        return Path(env), GIVEN_BENCHMARK
    return sample_root() / "benchmark", SAMPLE_BENCHMARK


def benchmark_origin(option: str | Path | None) -> str:
    """Where ``locate_benchmark`` took the folder from, as a user would set it again: '--benchmark',
    'TCSEXAM_BENCHMARK', or '' for the bundled sample."""
    if option:
        return "--benchmark"
    return "TCSEXAM_BENCHMARK" if os.environ.get("TCSEXAM_BENCHMARK") else ""


def missing_benchmark(benchmark: Path, origin: str) -> Problem | None:
    """A benchmark folder that does not exist (or is a file), named with the setting it came from
    ('--benchmark', 'TCSEXAM_BENCHMARK': ``benchmark_origin``); None when it is a folder."""
    if benchmark.is_dir():
        return None
    came = f" (it came from {origin})" if origin else ""
    if benchmark.exists():
        return Problem(
            str(benchmark), "", "", f"is a file, not a benchmark folder{came}: name the folder that holds suites/"
        )
    return Problem(str(benchmark), "", "", f"benchmark folder does not exist{came}: check the path")


def sample_benchmark_notice(source: str, benchmark: Path, reference_id: str) -> str | None:
    """docs/formats.md: the synthetic sample is never used in silence. None for a given benchmark; the
    notice line for a cohort naming a reference the sample holds; else a usage error naming
    both ways to point at the real benchmark. ``reference_id`` is a checked name."""
    if source != SAMPLE_BENCHMARK:
        return None
    if (benchmark / "references" / reference_id).is_dir():
        return (
            f"note: the benchmark is the bundled synthetic sample (reference '{reference_id}'), "
            "not the real TCSExam benchmark"
        )
    raise UsageError(
        f"the cohort names reference '{reference_id}', which the bundled synthetic sample does not hold: "
        "point at the real benchmark folder with --benchmark DIR or TCSEXAM_BENCHMARK=DIR "
        "(tcsexam docs formats#the-benchmark-folder)"
    )


DEFAULT_REFERENCE_ID = "paper-k3-fixed-260925"


def reference_path(benchmark: Path, reference_id: str, suite: str) -> Path:
    """BENCHMARK/references/<id>/<suite>.json for an id and a suite already checked (docs/safety.md)."""
    for value, kind in ((reference_id, "reference id"), (suite, "suite")):
        problem = check_name(value, kind)
        if problem:  # the id and the suite are checked where they are read: here it is a bug
            raise ValueError(problem)
    return benchmark / "references" / reference_id / f"{suite}.json"


def default_reference_id(benchmark: Path) -> str:
    """docs/commands.md: the benchmark folder's only reference id when it holds exactly one, else the
    paper's (DEFAULT_REFERENCE_ID)."""
    root = benchmark / "references"
    ids = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    return ids[0] if len(ids) == 1 else DEFAULT_REFERENCE_ID


def default_reference_suite(benchmark: Path, reference_id: str | None) -> str:
    """``solver-score`` without ``--reference``: the suite of the reference's only file
    (BENCHMARK/references/<id>/<suite>.json); several or none is a problem naming them."""
    rid = reference_id or default_reference_id(benchmark)
    folder = benchmark / "references" / rid
    suites = sorted(p.stem for p in folder.glob("*.json") if p.stem in ("lite", "full")) if folder.is_dir() else []
    if len(suites) == 1:
        return suites[0]
    if not suites:  # a missing input (exit 1)
        raise InputError(
            [Problem(str(folder), "", "", "it holds no lite.json or full.json: pass --reference-id or --benchmark")]
        )
    raise UsageError(f"{folder}: it holds {' and '.join(suites)}: pass --reference lite, full or a PATH")


def is_not_found(exc: InputError) -> bool:
    """True when ``exc`` is ``read_regular_file``'s "not found" and nothing else (a FIFO, folder
    or device at the path stays its own problem)."""
    return len(exc.problems) == 1 and exc.problems[0].message.endswith(" not found")


def reference_if_there(path: Path) -> LoadedReference | None:
    """The reference file at ``path``; None when there is no file there (any other problem raised)."""
    try:
        return load_reference(path)
    except InputError as exc:
        if not is_not_found(exc):
            raise
        return None


def cohort_reference(benchmark: Path, reference_id: str, suite: str, needed: str, cohort: Path) -> LoadedReference:
    """The reference a cohort names (docs/formats.md#reference), loaded from BENCHMARK/references/ and checked to be
    the one named; one not there is a single problem of the ``cohort`` file's ``solver_reference_id``,
    saying what it is ``needed`` for and which references the benchmark holds (a FIFO or a folder at its
    path stays its own problem)."""
    path = reference_path(benchmark, reference_id, suite)
    reference = reference_if_there(path)
    if reference is None:
        message = f"'{reference_id}': {path} not found ({references_held(benchmark, suite)}): {needed}"
        raise InputError([Problem(str(cohort), "", "solver_reference_id", message)])
    check_reference_identity(reference, reference_id, suite)
    return reference


def unheld_reference_notice(benchmark: Path, reference_id: str, suite: str, cohort: Path) -> str | None:
    """A run without records whose cohort names a reference the benchmark does not hold is scored (its
    solver scores were typed in), with this warning: nothing can check them against that reference
    (docs/formats.md#reference). None when the benchmark holds it."""
    path = reference_path(benchmark, reference_id, suite)
    if os.path.lexists(path):
        return None
    return (
        f"warning: {cohort}: solver_reference_id '{reference_id}': {path} not found "
        f"({references_held(benchmark, suite)}): the solver scores typed into the attempts table cannot be "
        "re-scored against it"
    )


def references_held(benchmark: Path, suite: str) -> str:
    """Which references the benchmark holds for ``suite``, as a problem says it."""
    root = benchmark / "references"
    held = sorted(p.parent.name for p in root.glob(f"*/{suite}.json")) if root.is_dir() else []
    return (
        f"the benchmark's references for suite '{suite}': {', '.join(held)}"
        if held
        else (f"the benchmark {benchmark} holds no reference for suite '{suite}'")
    )


def resolve_reference(spec: str, benchmark: Path, reference_id: str | None) -> LoadedReference:
    """docs/commands.md: ``lite``/``full`` resolve to BENCHMARK/references/<id>/<suite>.json (id: ``reference_id``,
    else ``default_reference_id``); anything else is a path."""
    if spec in ("lite", "full") and not (os.sep in spec or Path(spec).suffix):
        rid = reference_id or default_reference_id(benchmark)
        path = reference_path(benchmark, rid, spec)
        loaded = reference_if_there(path)
        if loaded is None:
            root = benchmark / "references"
            known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
            hint = f" (available: {', '.join(known)})" if known else ""
            message = (
                f"reference '{rid}' for suite '{spec}' not found{hint}; pass --reference-id, or "
                "--benchmark DIR (or TCSEXAM_BENCHMARK=DIR) for the benchmark that holds it"
            )
            raise InputError([Problem(str(path), "", "", message)])
        check_reference_identity(loaded, rid, spec)
        return loaded
    loaded = load_reference(Path(spec))
    if reference_id and loaded.reference_id != reference_id:
        raise InputError(
            [
                Problem(
                    spec,
                    "",
                    "reference_id",
                    f"file declares '{loaded.reference_id}' but --reference-id asks for '{reference_id}'",
                )
            ]
        )
    return loaded


def check_reference_identity(loaded: LoadedReference, reference_id: str, suite: str) -> None:
    """A file found under references/<id>/<suite>.json must declare that id and suite (R5: versioned)."""
    problems = Problems()
    if loaded.reference_id != reference_id:
        problems.add(
            loaded.path,
            "",
            "reference_id",
            f"file declares '{loaded.reference_id}' but was looked up as '{reference_id}'",
        )
    if loaded.suite != suite:
        problems.add(loaded.path, "", "suite", f"file declares suite '{loaded.suite}', expected '{suite}'")
    problems.raise_if_any()


def demo_run() -> Path:
    return sample_root() / "demo"
