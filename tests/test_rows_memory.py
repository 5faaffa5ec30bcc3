"""What a run's attempt rows hold (docs/performance.md#the-attempt-rows): a run keeps one checked row per
line of attempts.csv, 10^6 at the largest the tool is measured on, and the dashboard holds them and
receives them from its loader process. Measured in allocated bytes (tracemalloc), which do not depend on
the machine's speed or load."""

from __future__ import annotations

import gc
import pickle
import tracemalloc

from tcsexam.scoring.formats.attempts import load_attempts
from tests.bench.synth import write_cohort

MODELS = 3000  # 21,000 rows, seven a model: every model and task name its own cells, as read from a file

# A pydantic model per row held 1,478 bytes a row on such a table (its dict of fields and its set of the
# fields set, besides the cells); a class with slots holds about 330. The bound sits between the two.
BYTES_PER_ROW_MAX = 700


def held_per_row(load) -> tuple[object, float]:
    gc.collect()
    tracemalloc.start()
    try:
        table = load()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return table, held / len(table.rows)


def test_a_parsed_attempts_table_holds_a_few_hundred_bytes_a_row(tmp_path):
    write_cohort(tmp_path, models=MODELS)
    path = tmp_path / "run" / "attempts.csv"
    load_attempts(path)  # the imports and caches of a first read are not the rows'
    table, per_row = held_per_row(lambda: load_attempts(path))
    assert len(table.rows) == 7 * MODELS
    assert per_row < BYTES_PER_ROW_MAX, f"{per_row:.0f} bytes a row"


def test_the_rows_cross_a_process_boundary_as_they_were(tmp_path):
    """The dashboard's loader process pickles the checked rows (tui/loader.py): they come back equal,
    with their derived properties, and as small as they left."""
    write_cohort(tmp_path, models=50)
    table = load_attempts(tmp_path / "run" / "attempts.csv")
    back = pickle.loads(pickle.dumps(table.rows, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == table.rows
    assert [(r.key, r.adopted, r.line) for r in back] == [(r.key, r.adopted, r.line) for r in table.rows]
    assert not hasattr(back[0], "__dict__")  # no per-row dict came back with them
