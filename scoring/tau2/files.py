"""Reading tau2-bench results from disk, in either of its two formats (docs/tau2.md).

- **json**: one ``results.json`` holding ``info``, ``tasks`` and ``simulations``
  (what ``tau2 run`` writes for text runs, and the older single-file runs).
- **dir**: ``results.json`` holds the metadata and a ``simulation_index`` of
  ``{id, task_id, trial, reward, termination_reason, ...}``; each simulation
  is ``simulations/<id>.json`` beside it (what voice runs and
  ``tau2 convert-results PATH --to dir`` write).

The format is told apart as tau2-bench's ``Results._detect_format`` does: a
``simulations/`` folder beside ``results.json`` means the dir format. PATH may
be the run folder or its ``results.json``; a folder without ``simulations/`` is
read as the json format (what ``convert-results --to json`` leaves behind).

Every file is decoded by one msgspec decoder of the types below; a value of the
wrong type is worded here, naming the file, the simulation or index entry and
the field. The dir format's files are checked against the index: a listed
file that is missing, a file whose ``id``, ``task_id`` or ``trial`` disagrees
with its entry, a duplicate or unsafe id and a ``.json`` file in
``simulations/`` that the index does not list are rejected (tau2-bench's own
loader refuses unlisted files too). A disagreement of the index's ``reward``
or ``termination_reason`` with the file is an audit finding, not a rejection.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, TypeVar

import msgspec

from tcsexam.scoring.errors import InputError, Problem, Problems
from tcsexam.scoring.formats.decode import decode
from tcsexam.scoring.formats.json import json_body
from tcsexam.scoring.formats.read_keys import check_read_keys, check_read_keys_of_files, repeated_key_problem
from tcsexam.scoring.formats.wording import describe
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.safety.files import read_regular_file
from tcsexam.scoring.safety.names import check_name

T = TypeVar("T")

RESULTS_FILE = "results.json"


SIMULATIONS_DIR = "simulations"


WHAT = "tau2-bench results file"


HOLDS = (
    "a tau2-bench results file is a JSON object with 'info', 'tasks' and 'simulations' "
    "(or, in the dir format, a 'simulation_index' and a simulations/ folder beside it)"
)


class DBCheck(msgspec.Struct, gc=False):
    db_match: bool | None = None
    db_reward: float | None = None


class EnvAssertionCheck(msgspec.Struct, gc=False):
    met: bool | None = None
    reward: float | msgspec.UnsetType = msgspec.UNSET  # absent: 1 if met, else 0


class ActionCheck(msgspec.Struct, gc=False):
    action_match: bool | None = None
    action_reward: float | msgspec.UnsetType = msgspec.UNSET  # absent: 1 if matched, else 0


class MetCheck(msgspec.Struct, gc=False):
    """A communicate or NL-assertion check: only whether it was met counts."""

    met: bool | None = None


class RewardInfo(msgspec.Struct, gc=False):
    reward: float
    db_check: DBCheck | None = None
    env_assertions: list[EnvAssertionCheck] | None = None
    action_checks: list[ActionCheck] | None = None
    communicate_checks: list[MetCheck] | None = None
    nl_assertions: list[MetCheck] | None = None
    reward_basis: list[str] | None = None
    reward_breakdown: dict[str, float] | None = None


class Simulation(msgspec.Struct, gc=False):
    task_id: str | int
    termination_reason: str
    id: str | None = None
    trial: int | None = None
    agent_cost: float | None = None
    reward_info: RewardInfo | None = None


class LLMInfo(msgspec.Struct, gc=False):
    """The part of tau2-bench's ``agent_info`` / ``user_info`` that names the model."""

    llm: str | None = None


class EnvironmentInfo(msgspec.Struct, gc=False):
    domain_name: str | None = None


class Info(msgspec.Struct, gc=False):
    num_trials: Annotated[int, msgspec.Meta(ge=1)] | None = None
    agent_info: LLMInfo | None = None
    user_info: LLMInfo | None = None
    environment_info: EnvironmentInfo | None = None


class IndexEntry(msgspec.Struct, gc=False):
    """One entry of a dir-format run's ``simulation_index`` (tau2-bench's SimulationIndexEntry)."""

    id: str
    task_id: str | int
    trial: int
    reward: float | None = None
    termination_reason: str | None = None


class ResultsFile(msgspec.Struct, gc=False):
    """results.json in either format; unused fields (``tasks``, messages, ...) are skipped."""

    info: Info = msgspec.field(default_factory=Info)
    simulations: list[Simulation] | msgspec.UnsetType = msgspec.UNSET
    simulation_index: list[IndexEntry] | msgspec.UnsetType | None = msgspec.UNSET


_RESULTS = msgspec.json.Decoder(ResultsFile)


_SIMULATION = msgspec.json.Decoder(Simulation)


@dataclass
class Tau2Results:
    """A run as read: its info, its simulations (in index order for the dir format), where each
    one came from (file, location) for messages, and for the dir format each simulation's index
    entry (its position and the entry), which the audit compares with the file."""

    info: Info
    simulations: list[Simulation]
    origins: list[tuple[str, str]] = field(default_factory=list)
    index: list[tuple[int, IndexEntry]] = field(default_factory=list)


def _simulation_label(path: list[str | int]) -> tuple[str, list[str | int]]:
    """'simulation 3' (or 'simulation_index entry 3') off the front of a results file's key path."""
    if len(path) >= 2 and path[0] in ("simulations", "simulation_index") and isinstance(path[1], int):
        label = "simulation " if path[0] == "simulations" else "simulation_index entry "
        return label + str(path[1]), path[2:]
    return "", path


def read_file(path: Path, what: str) -> bytes:
    """The bytes of a regular file (docs/safety.md: a folder, FIFO or device is rejected by
    ``read_regular_file``, never waited on)."""
    return read_regular_file(path, what)


def locate(path: Path) -> tuple[Path, Path | None]:
    """results.json and, for the dir format, the simulations/ folder beside it (else None)."""
    meta = path / RESULTS_FILE if path.is_dir() else path
    sims = meta.parent / SIMULATIONS_DIR
    return meta, (sims if sims.is_dir() else None)


def load_tau2_results(path: Path) -> Tau2Results:
    """Read a tau2-bench run: PATH is its results.json or the run folder, in the json or dir format."""
    meta, sims_dir = locate(Path(path))
    results = _decode_results(read_file(meta, WHAT), str(meta))
    return _load_dir(results, meta, sims_dir) if sims_dir is not None else _json_run(results, str(meta))


def parse_results_json(data: bytes, file: str = RESULTS_FILE) -> Tau2Results:
    """A run in the json format from the bytes of its results.json."""
    return _json_run(_decode_results(data, file), file)


def _decode_results(data: bytes, file: str) -> ResultsFile:
    """results.json decoded; its keys checked where they are read (docs/tau2.md#what-is-checked)."""
    return _decode_checked(data, ResultsFile, file, _RESULTS, where=_simulation_label, holds=HOLDS)


def _decode_simulation(data: bytes, file: str) -> Simulation:
    """A dir-format run's simulation file decoded; its keys are checked with the others' by
    ``check_read_keys_of_files`` (``_load_dir``)."""
    holds = "a simulation file holds one simulation object"
    return _decode_checked(data, Simulation, file, _SIMULATION, check=False, holds=holds)


def _decode_checked(
    data: bytes, type_: type[T], file: str, decoder: msgspec.json.Decoder, check: bool = True, **wording
) -> T:
    """``data`` decoded as ``type_`` and, with ``check``, its keys checked where they are read; a
    key twice is named even where the typed decode refused one of its values."""
    try:
        value = decode(data, type_, file, decoder, check_keys=False, **wording)
    except InputError:
        twice = repeated_key_problem(json_body(data, file), type_, file)
        if twice is None:
            raise
        raise InputError([twice]) from None
    if check:
        check_read_keys(json_body(data, file), type_, file)
    return value


# simulation files whose keys are checked together (``_load_dir``): about this many bytes at a time
CHECKED_TOGETHER = 8 * 2**20


def _disagreements(sim: Simulation, entry: IndexEntry, i: int, sim_file: str, file: str) -> list[Problem]:
    """Where a simulation file's id, task_id or trial differs from its simulation_index entry ``i``."""
    return [
        Problem(
            sim_file, "", name, f"{describe(ours)}, but {file}'s simulation_index entry {i} says {describe(theirs)}"
        )
        for name, ours, theirs in (
            ("id", sim.id, entry.id),
            ("task_id", sim.task_id, entry.task_id),
            ("trial", sim.trial, entry.trial),
        )
        if ours != theirs or type(ours) is not type(theirs)
    ]


def _json_run(results: ResultsFile, file: str) -> Tau2Results:
    if results.simulations is msgspec.UNSET:
        if results.simulation_index not in (None, msgspec.UNSET):
            raise InputError(
                [
                    Problem(
                        file,
                        "",
                        "simulations",
                        "required field is missing: this results.json "
                        "has a simulation_index (the dir format) but no simulations/ folder beside it",
                    )
                ]
            )
        raise InputError([Problem(file, "", "simulations", "required field is missing")])
    origins = [(file, f"simulation {i}") for i in range(len(results.simulations))]
    return Tau2Results(results.info, results.simulations, origins)


def _load_dir(results: ResultsFile, meta: Path, sims_dir: Path) -> Tau2Results:
    file = str(meta)
    problems = Problems()
    if results.simulations not in (msgspec.UNSET, []):
        problems.add(
            file,
            "",
            "simulations",
            f"holds {counted(len(results.simulations), 'simulation')}, but a simulations/ "
            "folder is beside it (the dir format keeps them there only): keep one copy of the run",
        )
    index = results.simulation_index
    if not isinstance(index, list):
        problems.add(
            file,
            "",
            "simulation_index",
            "required field is missing: a dir-format run lists its simulations/ files there",
        )
        raise InputError(problems.items)
    seen: dict[str, int] = {}
    listed: list[tuple[int, IndexEntry]] = []
    for i, entry in enumerate(index):
        where = f"simulation_index entry {i}"
        if unsafe := check_name(entry.id, "simulation id"):
            problems.add(file, where, "id", f"{describe(entry.id)}: {unsafe}")
        elif entry.id in seen:
            problems.add(
                file,
                where,
                "id",
                f"duplicate id {describe(entry.id)} (also entry {seen[entry.id]}): "
                f"two simulations for {sims_dir / (entry.id + '.json')}",
            )
        else:
            seen[entry.id] = i
            listed.append((i, entry))
    try:
        on_disk = sorted(p.name for p in sims_dir.iterdir() if p.name.endswith(".json"))
    except OSError as exc:
        problems.add(str(sims_dir), "", "", f"cannot list the folder: {exc.strerror or exc}")
        on_disk = []
    for name in on_disk:
        if name[: -len(".json")] not in seen:
            problems.add(
                str(sims_dir / name),
                "",
                "",
                f"not listed in {file}'s simulation_index: a file of "
                "another run, or of a write that did not finish (tau2-bench's loader refuses it too)",
            )
    simulations: list[Simulation] = []
    origins: list[tuple[str, str]] = []
    entries: list[tuple[int, IndexEntry]] = []
    found: dict[str, list[Problem]] = {}  # each simulation file's problems, in the index's order
    pending: list[tuple[int, IndexEntry, Simulation, bytes, str]] = []
    pending_bytes = 0

    def check_pending() -> None:
        """The keys of the files decoded since the last check, then each good file against its entry."""
        for problem in check_read_keys_of_files([(body, name) for *_, body, name in pending], Simulation):
            found[problem.file].append(problem)
        for i, entry, sim, _, name in pending:
            if not found[name]:
                found[name].extend(_disagreements(sim, entry, i, name, file))
                simulations.append(sim)
                origins.append((name, ""))
                entries.append((i, entry))
        pending.clear()

    for i, entry in listed:
        sim_file = sims_dir / f"{entry.id}.json"
        name = str(sim_file)
        found[name] = []
        try:
            data = read_file(sim_file, f"simulation file (listed in {file}, simulation_index entry {i})")
            sim = _decode_simulation(data, name)
        except InputError as exc:
            found[name].extend(exc.problems)
            continue
        pending.append((i, entry, sim, json_body(data, name), name))
        pending_bytes += len(data)
        if pending_bytes >= CHECKED_TOGETHER:
            check_pending()
            pending_bytes = 0
    check_pending()
    for items in found.values():
        problems.extend(items)
    problems.raise_if_any()
    return Tau2Results(results.info, simulations, origins, entries)
