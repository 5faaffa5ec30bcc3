"""index.json (docs/formats.md#indexjson): document assembly and provenance; its content hash is
``formats.json.content_sha256``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec

from tcsexam.scoring import __version__
from tcsexam.scoring.errors import InputError
from tcsexam.scoring.formats.json import collector_paused, content_sha256, write_json
from tcsexam.scoring.formats.results import IndexDocument, InputDigest, Provenance
from tcsexam.scoring.pipeline.aggregate import evaluate_run
from tcsexam.scoring.pipeline.crosscheck import records_digest
from tcsexam.scoring.pipeline.rules import Checked
from tcsexam.scoring.pipeline.run import Run
from tcsexam.scoring.vocab import HASH_METHOD, METRIC_ID, WEIGHTS


def provenance(run: Run, records_used: dict[str, str], generated_at: str | None = None) -> Provenance:
    """docs/formats.md#indexjson: where the document came from; its ``content_sha256`` is a stand-in until ``score_run``
    hashes the rest (it is left out of its own hash)."""
    inputs = {
        name: InputDigest(str(Path(run.input_paths[name]).resolve()), digest)
        for name, digest in sorted(run.sha256.items())
    }
    if records_used:
        assert run.paths.records is not None
        inputs["records"] = InputDigest(
            str(run.paths.records.resolve()), records_digest(records_used), len(records_used)
        )
    return Provenance(
        tool_version=__version__,
        generated_at=generated_at or datetime.now(UTC).isoformat(timespec="seconds"),
        benchmark=run.paths.benchmark_source,
        metric_id=METRIC_ID,
        weights=dict(WEIGHTS),
        solver_reference_id=run.cohort.solver_reference_id,
        adoption_rule=run.cohort.adoption_rule,
        inputs=inputs,
        content_sha256="0" * 64,
        hash_method=HASH_METHOD,
    )


def build_index(run: Run, thresholds: dict[str, float] | None = None, generated_at: str | None = None) -> dict:
    """The whole index.json document for a loaded run (raises InputError on rejected input)."""
    return score_run(run, thresholds, generated_at)[0]


def score_run(
    run: Run, thresholds: dict[str, float] | None = None, generated_at: str | None = None
) -> tuple[dict, Checked]:
    """index.json for a loaded run and the checked rows it was made from (with the re-scored attempts'
    per-instance scores): what ``compare`` and ``plan`` need beside the document, scored once. A
    run folder moved or deleted while it was read is rejected here, before anything is written
    (``Run.check_folders``)."""
    with collector_paused():  # the run's objects and the document hold no garbage cycles: at 10,000
        # models the collector walking them again and again took a fifth of score (docs/performance.md)
        return _score_run(run, thresholds, generated_at)


def _score_run(run: Run, thresholds: dict[str, float] | None, generated_at: str | None) -> tuple[dict, Checked]:
    try:
        result, checked = evaluate_run(run, thresholds)
    except InputError:
        run.check_folders()  # a folder moved away explains what went missing: that is what is reported
        raise
    run.check_folders()
    typed = IndexDocument(
        metric_id=METRIC_ID,
        suite=run.cohort.suite,
        solver_protocol=run.cohort.solver_protocol,
        solver_reference_id=run.cohort.solver_reference_id,
        weights=dict(WEIGHTS),
        status=result.status,
        models=result.models,
        ranks=result.ranks,
        ignored_rows=result.ignored_rows,
        unused_records=result.unused_records,
        provenance=provenance(run, checked.records_used, generated_at),
    )
    del result
    document = msgspec.to_builtins(typed)  # the JSON shape, which every reader of index.json takes
    del typed
    document["provenance"]["content_sha256"] = content_sha256(document)
    return document, checked


def write_index(path: Path, document: dict) -> None:
    """The one writer of index.json, used by ``tcsexam score`` and the dashboard's export. Its numbers
    are checked where they are made (``aggregate``, ``uncertainty``, ``ranks``: docs/safety.md)."""
    write_json(path, document, finite=True)
