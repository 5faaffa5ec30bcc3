"""content_sha256 is a hash anyone can recompute (docs/formats.md#indexjson): the sha256 of the RFC 8785
form of index.json less ``generated_at``, ``content_sha256`` and each input's ``path``; the document
names the method (``provenance.hash_method``), and a document of an earlier version, which names
none, is checked by the method it was hashed with: the sha256 of the tool's own canonical JSON
(orjson, sorted keys, no white space).

The expected hashes here are computed from those rules with ``rfc8785``, ``orjson`` and ``hashlib``
directly, never with the tool's hashing function."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcsexam.scoring.formats.json import content_sha256
from tcsexam.scoring.pipeline.index import build_index, write_index
from tcsexam.scoring.pipeline.run import load_run, resolve_run_paths
from tcsexam.scoring.reports.index_file import read_index

ROOT = Path(__file__).resolve().parents[1]
# tcsexam score of the demo run by the version before the RFC 8785 hash (commit 6c3dd55), as it wrote it
EARLIER = ROOT / "tests" / "data" / "index-before-rfc8785.json"


def hashed_part(doc: dict) -> dict:
    """The document as the rule hashes it: without generated_at, content_sha256 and the inputs' paths."""
    doc = copy.deepcopy(doc)
    provenance = doc["provenance"]
    del provenance["generated_at"], provenance["content_sha256"]
    for entry in provenance["inputs"].values():
        del entry["path"]
    return doc


def rfc8785_hash(doc: dict) -> str:
    return hashlib.sha256(rfc8785.dumps(hashed_part(doc))).hexdigest()


def earlier_hash(doc: dict) -> str:
    """The rule of earlier versions: sha256 of orjson's canonical JSON (sorted keys, no white space)."""
    return hashlib.sha256(orjson.dumps(hashed_part(doc), option=orjson.OPT_SORT_KEYS)).hexdigest()


def recipe() -> str:
    """The Python recipe of docs/formats.md#indexjson, as it stands there."""
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    section = text.split("\n## index.json\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    return "\n".join(line.removeprefix("  ") for line in block.splitlines())


@pytest.fixture(scope="module")
def demo_doc() -> dict:
    from tcsexam.scoring.pipeline.benchmark import demo_run

    return build_index(load_run(resolve_run_paths(str(demo_run()))))


def test_the_stored_hash_is_the_sha256_of_the_rfc8785_form(demo_doc):
    assert demo_doc["provenance"]["hash_method"] == "rfc8785-sha256"
    assert demo_doc["provenance"]["content_sha256"] == rfc8785_hash(demo_doc)
    # the demo holds numbers the two writers put differently (0.0 is 0 in RFC 8785): the methods differ
    assert earlier_hash(demo_doc) != rfc8785_hash(demo_doc)


def test_the_recipe_of_formats_md_recomputes_the_stored_hash(tmp_path, demo_copy, cli):
    code, _, err = cli("score", str(demo_copy), "--output", str(tmp_path / "index.json"))
    assert code == 3, err  # the demo has an incomplete model
    stored = json.loads((tmp_path / "index.json").read_text())["provenance"]["content_sha256"]
    source = recipe()
    assert "rfc8785.dumps" in source and "tcsexam" not in source  # the standard's form, not the tool's code
    done = subprocess.run([sys.executable, "-c", source], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == stored


# numbers where Python's json, orjson and RFC 8785 write differently: below 1e-4, from 1e16 up, whole floats
AWKWARD = st.one_of(
    st.floats(min_value=1e-300, max_value=1e-4, exclude_max=True),
    st.floats(min_value=1e16, max_value=1e300),
    st.integers(min_value=-(10**6), max_value=10**6).map(float),
    st.sampled_from([123.0, 5e-05, 1e16, 1.5e-7, 0.0, -0.0, 1e21, 2.0**53]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=AWKWARD, b=AWKWARD, c=AWKWARD)
def test_the_stored_hash_equals_the_rfc8785_hash_of_the_written_file(demo_doc, tmp_path, a, b, c):
    doc = copy.deepcopy(demo_doc)
    model = doc["models"]["atlas-70b"]
    model["index"], model["ci"]["index"]["se"], model["track_means"]["conjecture"] = a, b, c
    doc["provenance"]["content_sha256"] = content_sha256(doc)
    path = tmp_path / "index.json"
    write_index(path, doc)
    again = json.loads(path.read_text(encoding="utf-8"))  # what an outside verifier reads
    assert again["provenance"]["content_sha256"] == rfc8785_hash(again)


def test_a_fixed_document_with_awkward_numbers_hashes_as_rfc8785_says(demo_doc):
    doc = copy.deepcopy(demo_doc)
    model = doc["models"]["atlas-70b"]
    model["index"], model["ci"]["index"]["se"], model["track_means"]["conjecture"] = 123.0, 2.5e16, 5e-05
    doc["provenance"]["content_sha256"] = content_sha256(doc)
    canonical = rfc8785.dumps(hashed_part(doc))
    # RFC 8785 section 3.2.2.3 writes these three as 123, 25000000000000000 and 0.00005
    assert b'"index":123,' in canonical and b'"se":25000000000000000' in canonical and b":0.00005" in canonical
    assert doc["provenance"]["content_sha256"] == hashlib.sha256(canonical).hexdigest()
    assert read_index(orjson.dumps(doc), "index.json").edited is None


def test_a_document_of_an_earlier_version_is_checked_by_its_own_method(cli):
    doc = json.loads(EARLIER.read_text(encoding="utf-8"))
    assert "hash_method" not in doc["provenance"]
    stored = doc["provenance"]["content_sha256"]
    assert earlier_hash(doc) == stored and rfc8785_hash(doc) != stored
    assert read_index(EARLIER.read_bytes(), str(EARLIER)).edited is None
    code, out, err = cli("table", str(EARLIER))
    assert code == 0 and "| atlas-70b |" in out and err == ""  # no warning: its hash holds by its method


def test_an_edited_document_of_an_earlier_version_is_still_caught(tmp_path, cli):
    doc = json.loads(EARLIER.read_text(encoding="utf-8"))
    doc["models"]["atlas-70b"]["index"] = 99.0
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = cli("table", str(edited))
    assert code == 0 and f"warning: {edited}: the document does not hash to its content_sha256" in err


def test_an_earlier_document_takes_whole_numbers_of_64_bits(tmp_path, cli):
    doc = json.loads(EARLIER.read_text(encoding="utf-8"))
    doc["models"]["atlas-70b"]["tasks"]["thm-sensitivity"]["adopted"] = 2**60
    doc["provenance"]["content_sha256"] = earlier_hash(doc)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert read_index(path.read_bytes(), str(path)).edited is None


def test_an_unknown_hash_method_is_rejected_naming_the_field(tmp_path, cli):
    doc = json.loads(EARLIER.read_text(encoding="utf-8"))
    doc["provenance"]["hash_method"] = "md5"
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = cli("table", str(path))
    assert code == 1 and out == ""
    assert f"{path}: provenance: field 'hash_method'" in err and "rfc8785-sha256" in err


def earlier_index(run: Path, index: Path, cli) -> dict:
    """``run`` scored, then written as an earlier version wrote it: no hash_method, the earlier hash."""
    code, _, err = cli("score", str(run), "--output", str(index))
    assert code == 3, err
    doc = json.loads(index.read_text(encoding="utf-8"))
    del doc["provenance"]["hash_method"]
    doc["provenance"]["content_sha256"] = earlier_hash(doc)
    index.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return doc


def test_verify_checks_a_document_of_an_earlier_version_by_its_own_method(tmp_path, demo_copy, cli):
    index = tmp_path / "index.json"
    earlier_index(demo_copy, index, cli)
    code, out, err = cli("verify", str(index))
    assert code == 0 and f"{index}: verified" in out, out + err


def test_verify_still_finds_an_edited_number_in_a_document_of_an_earlier_version(tmp_path, demo_copy, cli):
    index = tmp_path / "index.json"
    doc = earlier_index(demo_copy, index, cli)
    doc["models"]["atlas-70b"]["index"] = 99.0
    index.write_text(json.dumps(doc), encoding="utf-8")
    code, out, _ = cli("verify", str(index))
    assert code == 1 and "NOT verified" in out
    assert "the document does not hash to its content_sha256" in out
    assert "$.models.atlas-70b.index: stored 99.0" in out
    assert "hash_method" not in out  # the method is not a difference
