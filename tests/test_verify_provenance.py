"""``tcsexam verify`` checks what the folders hold now, with the benchmark the user points at
(docs/commands.md#verify, docs/decisions.md#the-benchmark-folder), and ``diff`` says a change of
reference or of benchmark in words."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tcsexam.scoring.pipeline.benchmark import demo_run, sample_root

SAMPLE_ID = "sample-k3-synthetic"


def own_benchmark(folder: Path, reference_id: str) -> Path:
    """A copy of the bundled sample benchmark whose reference is called ``reference_id``."""
    shutil.copytree(sample_root() / "benchmark", folder)
    refs = folder / "references"
    (refs / SAMPLE_ID).rename(refs / reference_id)
    for path in (refs / reference_id).glob("*.json"):
        path.write_text(path.read_text().replace(SAMPLE_ID, reference_id))
    return folder


def own_run(folder: Path, reference_id: str) -> Path:
    """The demo run whose cohort and rows name ``reference_id``."""
    shutil.copytree(demo_run(), folder)
    for name in ("cohort.json", "attempts.csv"):
        path = folder / name
        path.write_text(path.read_text().replace(SAMPLE_ID, reference_id))
    return folder


@pytest.fixture
def scored_on_own_benchmark(tmp_path, cli):
    """A run scored with --benchmark ../mybench, its index.json inside the run folder."""
    bench = own_benchmark(tmp_path / "mybench", "mylab-k3-2026")
    run = own_run(tmp_path / "own-bench", "mylab-k3-2026")
    index = run / "index.json"
    code, _, err = cli("score", str(run), "--benchmark", str(bench), "--output", str(index))
    assert code == 3, err  # the demo has an incomplete model
    return run, bench, index


def test_verify_with_run_dir_uses_the_benchmark_recorded_at_scoring(scored_on_own_benchmark, cli):
    run, _, index = scored_on_own_benchmark
    code, out, err = cli("verify", str(index), str(run))
    assert code == 0 and "verified" in out, out + err


def test_a_moved_run_is_said_to_have_moved_naming_verify_with_run_dir(scored_on_own_benchmark, cli, tmp_path):
    run, _, index = scored_on_own_benchmark
    moved = tmp_path / "own-bench-renamed"
    run.rename(moved)
    code, out, _ = cli("verify", str(moved / "index.json"))
    assert code == 1 and "NOT verified, 1 difference:" in out
    assert "the inputs are not at their recorded paths" in out
    assert f"tcsexam verify {moved / 'index.json'} RUN_DIR" in out and "demo" not in out
    assert cli("verify", str(moved / "index.json"), str(moved))[0] == 0  # as the message says


def test_a_moved_benchmark_is_said_to_have_moved_naming_the_option(scored_on_own_benchmark, cli, tmp_path):
    run, bench, index = scored_on_own_benchmark
    bench.rename(tmp_path / "bench-moved")
    code, out, _ = cli("verify", str(index), str(run))
    assert code == 1 and "NOT verified, 1 difference:" in out
    assert f"the benchmark folder recorded at scoring is not there ({bench} holds no suites/" in out
    assert "--benchmark DIR" in out and "bundled synthetic sample does not hold" not in out
    assert cli("verify", str(index), str(run), "--benchmark", str(tmp_path / "bench-moved"))[0] == 0


def test_the_benchmark_variable_wins_over_the_recorded_folder(tmp_path, cli, monkeypatch):
    """An index scored on the sample relabelled as the paper's reference is not verified against the
    real benchmark (here: the same reference id, its file written differently)."""
    fake = own_benchmark(tmp_path / "fake", "paper-k3-fixed-260925")
    real = own_benchmark(tmp_path / "real", "paper-k3-fixed-260925")
    ref = real / "references" / "paper-k3-fixed-260925" / "lite.json"
    ref.write_text(json.dumps(json.loads(ref.read_text()), indent=4))
    run = own_run(tmp_path / "run", "paper-k3-fixed-260925")
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--benchmark", str(fake), "--output", str(index))[0] == 3
    assert cli("verify", str(index))[0] == 0  # no variable, no flag: the recorded folder
    monkeypatch.setenv("TCSEXAM_BENCHMARK", str(real))
    code, out, _ = cli("verify", str(index))
    digest = hashlib.sha256(ref.read_bytes()).hexdigest()
    assert code == 1 and f"input reference: {ref} has sha256 {digest}" in out
    monkeypatch.delenv("TCSEXAM_BENCHMARK")
    code, out, _ = cli("verify", str(index), "--benchmark", str(real))
    assert code == 1 and f"input reference: {ref} has sha256 {digest}" in out


def test_a_given_benchmark_against_an_index_of_the_bundled_sample_is_a_difference(tmp_path, cli):
    run = tmp_path / "demo"
    shutil.copytree(demo_run(), run)
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--output", str(index))[0] == 3
    bench = own_benchmark(tmp_path / "bench", SAMPLE_ID)  # the same files, found another way
    code, out, _ = cli("verify", str(index), "--benchmark", str(bench))
    assert code == 1
    assert (
        f"benchmark: the index was scored on the bundled synthetic sample, --benchmark names the folder {bench}" in out
    )


def test_verify_rechecks_records_put_back_after_scoring(tmp_path, cli):
    """Scored with records/ moved away and a solver score edited by hand: with records/ back, verify
    rejects the folder as score does."""
    run = tmp_path / "demo"
    shutil.copytree(demo_run(), run)
    (run / "records").rename(tmp_path / "records-away")
    attempts = run / "attempts.csv"
    lines = attempts.read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith("atlas-70b,solver,maxcut-mqlib,1,"))
    cells = lines[k].split(",")
    cells[4] = "0.99"
    lines[k] = ",".join(cells)
    attempts.write_text("".join(lines))
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--output", str(index))[0] == 3
    (tmp_path / "records-away").rename(run / "records")
    assert cli("score", str(run), "--output", str(tmp_path / "again.json"))[0] == 1
    code, out, _ = cli("verify", str(index), str(run))
    assert code == 1 and f"recomputing failed: {attempts}: line {k + 1}: field 'score': CSV score 0.99" in out
    code, out, _ = cli("verify", str(index))
    assert code == 1 and "CSV score 0.99" in out


def test_records_there_now_are_a_difference_even_when_they_agree(tmp_path, cli):
    run = tmp_path / "demo"
    shutil.copytree(demo_run(), run)
    (run / "records").rename(tmp_path / "records-away")
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--output", str(index))[0] == 3
    (tmp_path / "records-away").rename(run / "records")
    code, out, _ = cli("verify", str(index), str(run))
    assert code == 1 and f"input records: {(run / 'records').resolve()} is there now" in out


def test_paths_a_document_names_outside_its_folders_are_not_read(tmp_path, cli):
    """A document whose provenance names files outside a run folder (the paths are not part of its hash):
    verify reads none of them and prints no digest of them."""
    run = tmp_path / "demo"
    shutil.copytree(demo_run(), run)
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--output", str(index))[0] == 3
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "keys.csv").write_text("user,password\nroot,hunter2\n")
    (secrets / "config.json").write_text('{"token": "abc"}')
    digests = [hashlib.sha256((secrets / n).read_bytes()).hexdigest() for n in ("keys.csv", "config.json")]
    doc = json.loads(index.read_text())
    doc["provenance"]["inputs"]["attempts"]["path"] = str(secrets / "keys.csv")
    doc["provenance"]["inputs"]["cohort"]["path"] = str(secrets / "config.json")
    index.write_text(json.dumps(doc))
    code, out, err = cli("verify", str(index))
    assert code == 1
    assert f"the inputs are not at their recorded paths ({secrets} holds no attempts.csv and cohort.json)" in out
    assert not any(d in out + err for d in digests) and "hunter2" not in out + err and "token" not in out + err
    doc["provenance"]["inputs"]["attempts"]["path"] = "/etc/passwd"
    index.write_text(json.dumps(doc))
    code, out, err = cli("verify", str(index))
    assert code == 1 and "one run folder" in out and "/etc/passwd" not in out + err


def test_a_recorded_benchmark_path_that_is_not_a_benchmark_folder_is_not_read(scored_on_own_benchmark, cli, tmp_path):
    run, bench, index = scored_on_own_benchmark
    doc = json.loads(index.read_text())
    elsewhere = tmp_path / "elsewhere" / "suites" / "lite.json"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text((bench / "suites" / "lite.json").read_text())
    doc["provenance"]["inputs"]["suite"]["path"] = str(elsewhere)  # no references/ beside suites/
    index.write_text(json.dumps(doc))
    code, out, _ = cli("verify", str(index), str(run))
    assert code == 1 and f"({tmp_path / 'elsewhere'} holds no suites/ and references/)" in out


# --- line endings and byte-order marks (docs/commands.md#verify) -----------------------------------

BOM = b"\xef\xbb\xbf"
SAME_NUMBERS = "the numbers recomputed from the files as they are match the stored index"
HINT = "`*.csv -text`"


def crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def scored_then_converted(tmp_path, cli, name: str, before, after) -> tuple[Path, Path, str]:
    """The demo run with ``name`` written as ``before(bytes)``, scored, then rewritten as ``after(bytes)``:
    a checkout that converts the file after the index was made. Returns the file, the index and the
    sha256 of the file as it was scored."""
    run = tmp_path / "demo"
    shutil.copytree(demo_run(), run)
    path = run / name
    original = path.read_bytes()
    assert b"\r" not in original and not original.startswith(BOM)  # the demo's files: LF, no BOM
    path.write_bytes(before(original))
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--output", str(index))[0] == 3
    path.write_bytes(after(original))
    return path, index, hashlib.sha256(before(original)).hexdigest()


CONVERSIONS = [
    ("attempts.csv", lambda b: b, crlf, "line endings (CRLF, recorded LF)"),
    ("attempts.csv", crlf, lambda b: b, "line endings (LF, recorded CRLF)"),
    (
        "attempts.csv",
        lambda b: b,
        lambda b: BOM + b,
        "a byte-order mark (the file has one, the recorded file had none)",
    ),
    ("attempts.csv", lambda b: BOM + b, lambda b: b, "a byte-order mark (the recorded file had one)"),
    (
        "attempts.csv",
        lambda b: b,
        lambda b: BOM + crlf(b),
        "line endings (CRLF, recorded LF) and a byte-order mark (the file has one, the recorded file had none)",
    ),
    ("cohort.json", lambda b: b, crlf, "line endings (CRLF, recorded LF)"),
]


@pytest.mark.parametrize(
    ("name", "before", "after", "how"),
    CONVERSIONS,
    ids=["to-crlf", "to-lf", "bom-added", "bom-removed", "to-crlf-and-bom", "cohort-to-crlf"],
)
def test_verify_says_when_an_input_differs_only_in_line_endings_or_a_bom(tmp_path, cli, name, before, after, how):
    path, index, recorded = scored_then_converted(tmp_path, cli, name, before, after)
    now = hashlib.sha256(path.read_bytes()).hexdigest()
    code, out, _ = cli("verify", str(index))
    # the input's sha256 and content_sha256
    assert code == 1 and f"NOT verified against the run in {index.parent / 'demo'}, 2 differences:" in out
    what = name.split(".")[0]
    line = f"input {what}: {path} differs from the recorded file only in {how}: sha256 {now}, the provenance says"
    assert f"{line} {recorded}\n" in out
    assert f"\n{SAME_NUMBERS}\n" in out and HINT in out


def test_a_changed_number_in_a_converted_file_is_no_mere_conversion(tmp_path, cli):
    def edited(data: bytes) -> bytes:  # CRLF, and the first theorem score 1 made 0
        row = b"atlas-70b,theorem,thm-sensitivity,1,1,"
        assert row in data
        return crlf(data.replace(row, b"atlas-70b,theorem,thm-sensitivity,1,0,", 1))

    path, index, _ = scored_then_converted(tmp_path, cli, "attempts.csv", lambda b: b, edited)
    code, out, _ = cli("verify", str(index))
    assert code == 1 and f"input attempts: {path} has sha256 " in out
    assert "only in" not in out and HINT not in out and SAME_NUMBERS not in out
    assert "$.models.atlas-70b.tasks.thm-sensitivity.mean: stored 1.0, recomputed " in out
    assert "the numbers recomputed from the files as they are differ from the stored index" in out


def test_an_index_edited_by_hand_has_numbers_that_differ_from_the_files(tmp_path, cli):
    run = tmp_path / "demo"
    shutil.copytree(demo_run(), run)
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--output", str(index))[0] == 3
    doc = json.loads(index.read_text())
    doc["models"]["atlas-70b"]["index"] = 99.0
    index.write_text(json.dumps(doc))
    code, out, _ = cli("verify", str(index))
    assert code == 1 and "the numbers recomputed from the files as they are differ from the stored index" in out


# --- diff -----------------------------------------------------------------------------------------


def test_diff_says_a_change_of_reference_and_benchmark_in_words(tmp_path, cli):
    old_run = tmp_path / "old"
    shutil.copytree(demo_run(), old_run)
    old = tmp_path / "old.json"
    assert cli("score", str(old_run), "--output", str(old))[0] == 3
    bench = own_benchmark(tmp_path / "mybench", "mylab-k3-2026")
    run = own_run(tmp_path / "own-bench", "mylab-k3-2026")
    new = tmp_path / "new.json"
    assert cli("score", str(run), "--benchmark", str(bench), "--output", str(new))[0] == 3
    out_json = tmp_path / "d.json"
    code, out, _ = cli("diff", str(old), str(new), "--output", str(out_json))
    assert code == 0
    assert "solver_reference_id: sample-k3-synthetic -> mylab-k3-2026\n" in out
    assert "benchmark: bundled synthetic sample -> given\n" in out
    d = json.loads(out_json.read_text())
    assert d["solver_reference_id"] == {"old": "sample-k3-synthetic", "new": "mylab-k3-2026"}
    assert d["benchmark"] == {"old": "bundled synthetic sample", "new": "given"}
    code, out, _ = cli("diff", str(old), str(old))
    assert code == 0 and "solver_reference_id:" not in out and "benchmark:" not in out  # only what changed


def test_only_the_form_of_a_file_is_found_from_its_recorded_sha256():
    from tcsexam.scoring.reports.verify import only_in_form

    def sha(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()

    lf = b"model,score\na,1\n"
    assert only_in_form(b"model,score\r\na,1\n", sha(lf)) == "line endings (CRLF and LF, recorded LF)"
    assert only_in_form(BOM + b"model,score\r\na,1\r\n", sha(BOM + lf)) == "line endings (CRLF, recorded LF)"
    assert only_in_form(b"model,score\r\na,2\r\n", sha(lf)) is None  # another number: not a conversion
    assert only_in_form(lf, sha(lf)) is None  # the same bytes: nothing to explain


def test_verify_names_the_run_it_checked_and_notes_an_index_in_another_run(tmp_path, cli):
    """A copy of a scored run keeps an index that records the original's paths: verify without RUN_DIR
    checks the original, and said only "verified" (a new user's review changed a score in the copy).
    It now names the run folder it read, and says on standard error when the index sits in another run."""
    original = tmp_path / "mine"
    shutil.copytree(demo_run(), original)
    assert cli("score", str(original))[0] == 3
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    attempts = copy / "attempts.csv"
    lines = attempts.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace(",1,", ",0,", 1) if ",1," in lines[1] else lines[1]
    attempts.write_text("".join(lines))
    assert attempts.read_bytes() != (original / "attempts.csv").read_bytes()

    code, out, err = cli("verify", str(original / "build/index.json"))
    assert code == 0 and f"verified against the run in {original}:" in out
    assert "note" not in err

    code, out, err = cli("verify", str(copy / "build/index.json"))
    assert code == 0 and f"verified against the run in {original}:" in out  # what was checked, named
    assert f"note: {copy / 'build/index.json'} sits in the run folder {copy}, but records the run in {original}" in err
    assert f"tcsexam verify {copy / 'build/index.json'} {copy}" in err

    code, out, err = cli("verify", str(copy / "build/index.json"), str(copy))
    assert code == 1 and f"NOT verified against the run in {copy}," in out and "note" not in err
    apart = tmp_path / "paper" / "index.json"  # an index kept apart from any run: checked without a note
    assert cli("score", str(original), "--output", str(apart))[0] == 3
    code, out, err = cli("verify", str(apart))
    assert code == 0 and f"verified against the run in {original}:" in out and "note" not in err


def test_a_list_of_names_that_changed_is_shown_as_its_change():
    """A model's list of tasks not valid, grown by one, was printed whole twice ('stored [...],
    recomputed [...]': thousands of characters, a new user's review): verify names the lengths and
    the names only on each side."""
    from tcsexam.scoring.reports.verify import LISTED, list_change, value_differences

    stored = [f"task-{k}" for k in range(300)]
    assert value_differences({"not_valid": stored}, {"not_valid": [*stored, "task-new"]}) == [
        "$.not_valid: 300 stored, 301 recomputed; only recomputed: 'task-new'"
    ]
    assert (
        list_change(["a", "b", "c"], ["c", "d"])
        == "3 stored, 2 recomputed; only stored: 'a', 'b'; only recomputed: 'd'"
    )
    many = list_change([], [f"t{k}" for k in range(LISTED + 5)])
    assert many.endswith(f"'t{LISTED - 1}' and 5 more") and f"'t{LISTED}'" not in many
    assert value_differences({"x": [1, 2]}, {"x": [1, 2, 3]}) == ["$.x: stored [1, 2], recomputed [1, 2, 3]"]  # numbers


def test_an_index_reached_through_a_link_is_not_in_another_run(tmp_path, cli):
    """The provenance records the run's paths resolved: a run reached through a symbolic link (a linked
    home, macOS's /tmp) got the note that its index sits in another run (a maintainer's review)."""
    real = tmp_path / "real"
    real.mkdir()
    shutil.copytree(demo_run(), real / "run")
    (tmp_path / "link").symlink_to(real)
    linked = tmp_path / "link" / "run"
    assert cli("score", str(linked))[0] == 3
    code, out, err = cli("verify", str(linked / "build/index.json"))
    assert code == 0 and "verified against the run in" in out and "note" not in err
