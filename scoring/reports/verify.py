"""Proof that a stored index.json follows from its inputs: its own hash, its inputs' hashes, and a
recomputation."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from scoring.errors import InputError, Problem
from scoring.reports.index_file import _is_number
from scoring.safety.files import read_regular_file


def stored_hash_findings(doc: dict) -> list[str]:
    """The stored document must hash to its own content_sha256 (SPEC 11)."""
    from scoring.pipeline.index import content_sha256

    stored = (doc.get("provenance") or {}).get("content_sha256")
    if not isinstance(stored, str):
        return ["provenance.content_sha256 is missing"]
    actual = content_sha256(doc)
    if actual != stored:
        return [
            (
                f"the stored document does not hash to its content_sha256 (stored {stored}, its content hashes to "
                f"{actual}): it was edited after it was written"
            )
        ]
    return []


def input_locations(doc: dict, run_dir: Path | None, benchmark: Path | None, file: str = "index.json"):
    """Where verify reads each input: the provenance paths, or with RUN_DIR the same file names
    inside RUN_DIR (suite and reference stay in the benchmark folder). Returns the RunPaths."""
    from scoring.pipeline.benchmark import SAMPLE_BENCHMARK
    from scoring.pipeline.run import resolve_run_paths

    found_sample = (doc.get("provenance") or {}).get("benchmark") == SAMPLE_BENCHMARK
    inputs = (doc.get("provenance") or {}).get("inputs") or {}
    path = {k: (v or {}).get("path") for k, v in inputs.items() if isinstance(v, dict)}
    if run_dir is not None:
        attempts = run_dir / Path(path.get("attempts") or "attempts.csv").name
        cohort = run_dir / Path(path.get("cohort") or "cohort.json").name
        records = run_dir / "records" if "records" in inputs else None
        bench = benchmark  # None: found as score finds it
        suite = None
    else:
        if not path.get("attempts") or not path.get("cohort"):
            raise InputError(
                [
                    Problem(
                        file, "provenance.inputs", "path", "the provenance names no attempts/cohort path: give RUN_DIR"
                    )
                ]
            )
        attempts, cohort = Path(str(path["attempts"])), Path(str(path["cohort"]))
        records = Path(str(path["records"])) if path.get("records") else None
        suite = path.get("suite")
        bench = benchmark or (Path(suite).parent.parent if suite and not found_sample else None)
        if benchmark is not None:
            suite = None
    paths = resolve_run_paths(
        None,
        attempts=str(attempts),
        cohort=str(cohort),
        records=str(records) if records is not None and records.is_dir() else None,
        benchmark=str(bench) if bench is not None else None,
        suite=suite,
    )
    return paths


def file_sha256(path: Path) -> str | None:
    """The sha256 of a regular file, None when it cannot be read (SPEC 13: a FIFO is never waited on)."""
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
            if k not in b:
                out.append(f"{where}.{k}: only in the stored document")
            elif k not in a:
                out.append(f"{where}.{k}: only in the recomputed document")
            else:
                value_differences(a[k], b[k], f"{where}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            value_differences(x, y, f"{where}[{k}]", out, limit)
    elif a != b or (type(a) is not type(b) and not (_is_number(a) and _is_number(b))):
        out.append(f"{where}: stored {a!r}, recomputed {b!r}")
    return out


def recorded_thresholds(doc: dict) -> dict[str, float]:
    """The pass^k thresholds the stored document was computed with (they are part of its content)."""
    found: dict[str, float] = {}
    for m in (doc.get("models") or {}).values():
        for track, block in ((m or {}).get("pass_hat_k") or {}).items():
            if isinstance(block, dict) and _is_number(block.get("threshold")):
                found.setdefault(track, float(block["threshold"]))
    return found


def verify_index(
    doc: dict,
    run_dir: Path | None,
    benchmark: Path | None,
    recompute: Callable[[object, dict], dict],
    file: str = "index.json",
) -> list[str]:
    """SPEC 11 verify: every difference found (empty: the document follows from its inputs).

    ``recompute(paths, thresholds)`` builds the document from the inputs at ``paths``."""
    from scoring.pipeline.index import content_sha256

    findings = stored_hash_findings(doc)
    paths = input_locations(doc, run_dir, benchmark, file)
    stored_inputs = (doc.get("provenance") or {}).get("inputs") or {}
    located = {"attempts": paths.attempts, "cohort": paths.cohort}
    for name, block in stored_inputs.items():
        if name in located and isinstance(block, dict):
            actual = file_sha256(located[name])
            if actual is None:
                findings.append(f"input {name}: {located[name]} cannot be read")
            elif actual != block.get("sha256"):
                findings.append(
                    f"input {name}: {located[name]} has sha256 {actual}, the provenance says {block.get('sha256')}"
                )
    try:
        fresh = recompute(paths, recorded_thresholds(doc))
    except InputError as exc:
        return findings + [f"recomputing failed: {p}" for p in exc.problems]
    fresh_inputs = fresh["provenance"]["inputs"]
    for name in sorted(set(stored_inputs) | set(fresh_inputs)):
        if name in located:
            continue  # read directly above
        old, new = (stored_inputs.get(name) or {}).get("sha256"), (fresh_inputs.get(name) or {}).get("sha256")
        if old != new:
            where = (fresh_inputs.get(name) or {}).get("path", "")
            findings.append(f"input {name}: {where} has sha256 {new}, the provenance says {old}")
    stored, again = (doc.get("provenance") or {}).get("content_sha256"), content_sha256(fresh)
    if stored != again:
        findings.append(f"recomputed content_sha256 {again} differs from the stored {stored}")
    skip = ("generated_at", "content_sha256", "inputs")  # compared above
    a = {**doc, "provenance": {k: v for k, v in (doc.get("provenance") or {}).items() if k not in skip}}
    b = {**fresh, "provenance": {k: v for k, v in fresh["provenance"].items() if k not in skip}}
    findings.extend(value_differences(a, b))  # what changed, value by value (an edited number, a moved score)
    return findings


def recompute_with_pipeline(paths, thresholds: dict) -> dict:
    """The one call into the scoring pipeline that verify makes."""
    from scoring.pipeline.index import build_index
    from scoring.pipeline.run import load_run

    return build_index(load_run(paths), thresholds)
