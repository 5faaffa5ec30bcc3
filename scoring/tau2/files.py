"""Reading tau2-bench results from disk, in either of its two formats (SPEC section 8).

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

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec

from scoring.errors import InputError, Problem, Problems
from scoring.formats.decode import reject_duplicate_keys
from scoring.formats.json import parse_json_bytes
from scoring.safety.files import read_regular_file

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


_MESSAGE = re.compile(r"^(?P<msg>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.DOTALL)


_TOKEN = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")


_KINDS = {
    "float": "a number",
    "int": "a whole number",
    "str": "a string",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def _tokens(path: str) -> list[str | int]:
    return [name if name else (int(i) if i.isdigit() else "...") for name, i in _TOKEN.findall(path[1:])]


def _lookup(data: bytes, tokens: list[str | int]) -> tuple[bool, Any]:
    """The value at ``tokens`` in the raw JSON (second pass, only to word a rejection)."""
    try:
        value = msgspec.json.decode(data)
        for t in tokens:
            if t == "...":  # a dict value: the first one that is not a number
                value = next(v for v in value.values() if isinstance(v, bool) or not isinstance(v, (int, float)))
            else:
                value = value[t]
        return True, value
    except (msgspec.DecodeError, RecursionError, LookupError, TypeError, AttributeError, StopIteration):
        # the raw JSON is broken further on, or the path is not there: word the problem without the value
        return False, None


def describe(value: Any) -> str:
    """A found value in a message: short, and never the whole of a list or object."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def _located(tokens: list[str | int], root: str) -> tuple[str, str]:
    """(where, field) for a path inside a file: ('simulation 3, reward_info', 'reward'); a trailing
    list index belongs to the field ('reward_basis[0]')."""
    prefix, rest = "", list(tokens)
    if (
        root == RESULTS_FILE
        and len(rest) >= 2
        and rest[0] in ("simulations", "simulation_index")
        and isinstance(rest[1], int)
    ):
        prefix = ("simulation " if rest[0] == "simulations" else "simulation_index entry ") + str(rest[1])
        rest = rest[2:]
    if rest and rest[-1] == "...":  # a value of a mapping such as reward_breakdown
        rest.pop()
    index = ""
    while rest and isinstance(rest[-1], int):
        index = f"[{rest.pop()}]" + index
    name = (str(rest.pop()) if rest else "") + index
    path = ""
    for t in rest:
        path += f"[{t}]" if isinstance(t, int) else (("." if path else "") + str(t))
    return ", ".join(p for p in (prefix, path) if p), name


def _word(exc: msgspec.ValidationError, data: bytes, file: str, root: str) -> Problem:
    m = _MESSAGE.match(str(exc))
    msg, path = (m.group("msg"), m.group("path") or "$") if m else (str(exc), "$")
    tokens = _tokens(path)
    missing = re.match(r"Object missing required field `(.+)`", msg)
    if missing:
        where, _ = _located([*tokens, missing.group(1)], root)
        return Problem(file, where, missing.group(1), "required field is missing")
    where, name = _located(tokens, root)
    found, value = _lookup(data, tokens)
    got = f", got {describe(value)}" if found else ""
    if msg == "Number out of range":
        return Problem(file, where, name, "number out of range (larger than a double can hold)")
    bound = re.match(r"Expected `int` >= (\d+)", msg)
    if bound:
        return Problem(file, where, name, f"must be a whole number of at least {bound.group(1)}{got}")
    expected = re.match(r"Expected `([^`]+)`, got `([^`]+)`", msg)
    if expected:
        if not tokens and expected.group(1) == "object":
            return Problem(
                file,
                "",
                "",
                f"expected a JSON object, found {_KINDS.get(expected.group(2), 'a value')}: "
                + (HOLDS if root == RESULTS_FILE else "a simulation file holds one simulation object"),
            )
        kinds = " or ".join(_KINDS.get(k, k) for k in expected.group(1).split(" | "))
        return Problem(file, where, name, f"must be {kinds}{got}")
    return Problem(file, where, name, msg[:1].lower() + msg[1:])


def decode(data: bytes, file: str, decoder: msgspec.json.Decoder, root: str) -> Any:
    """Decode one file with ``decoder``; any problem is an InputError naming the file and where."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        value = decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise InputError([_word(exc, data, file, root)]) from None
    except (msgspec.DecodeError, RecursionError) as exc:
        parse_json_bytes(data, file)  # words a syntax error with its line and column
        raise InputError([Problem(file, "", "", f"invalid JSON: {exc}")]) from None
    reject_duplicate_keys(data, file)  # README "Safety"
    return value


def _check_utf8(data: bytes, file: str) -> None:
    """The decoder skips the text of fields it does not read: reject a file that is not UTF-8 as a whole."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise InputError([Problem(file, f"line {line} column {column}", "", "invalid JSON: not valid UTF-8")]) from None


def read_file(path: Path, what: str) -> bytes:
    """The bytes of a regular file, whole UTF-8 (SPEC 13: a folder, FIFO or device is rejected by
    ``safety.read_regular_file``, never waited on)."""
    data = read_regular_file(path, what)
    _check_utf8(data, str(path))
    return data


def locate(path: Path) -> tuple[Path, Path | None]:
    """results.json and, for the dir format, the simulations/ folder beside it (else None)."""
    meta = path / RESULTS_FILE if path.is_dir() else path
    sims = meta.parent / SIMULATIONS_DIR
    return meta, (sims if sims.is_dir() else None)


def unsafe_id(sim_id: str) -> bool:
    """SPEC 13: an id names a file in simulations/ and must not leave it."""
    return sim_id in ("", ".", "..") or any(c in sim_id for c in "/\\\0")


def load_tau2_results(path: Path) -> Tau2Results:
    """Read a tau2-bench run: PATH is its results.json or the run folder, in the json or dir format."""
    meta, sims_dir = locate(Path(path))
    results = decode(read_file(meta, WHAT), str(meta), _RESULTS, RESULTS_FILE)
    return _load_dir(results, meta, sims_dir) if sims_dir is not None else _json_run(results, str(meta))


def parse_results_json(data: bytes, file: str = RESULTS_FILE) -> Tau2Results:
    """A run in the json format from the bytes of its results.json."""
    return _json_run(decode(data, file, _RESULTS, RESULTS_FILE), file)


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
            f"holds {len(results.simulations)} simulations, but a simulations/ "
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
        if unsafe_id(entry.id):
            problems.add(
                file,
                where,
                "id",
                f"{describe(entry.id)} cannot name a file in simulations/ "
                "(empty, '.', '..', or holds '/', '\\' or NUL)",
            )
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
    for i, entry in listed:
        sim_file = sims_dir / f"{entry.id}.json"
        try:
            sim = decode(
                read_file(sim_file, f"simulation file (listed in {file}, simulation_index entry {i})"),
                str(sim_file),
                _SIMULATION,
                SIMULATIONS_DIR,
            )
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        for name, ours, theirs in (
            ("id", sim.id, entry.id),
            ("task_id", sim.task_id, entry.task_id),
            ("trial", sim.trial, entry.trial),
        ):
            if ours != theirs or type(ours) is not type(theirs):
                problems.add(
                    str(sim_file),
                    "",
                    name,
                    f"{describe(ours)}, but {file}'s simulation_index entry {i} says {describe(theirs)}",
                )
        simulations.append(sim)
        origins.append((str(sim_file), ""))
        entries.append((i, entry))
    problems.raise_if_any()
    return Tau2Results(results.info, simulations, origins, entries)
