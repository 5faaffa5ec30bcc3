"""The RFC 8785 form that content_sha256 hashes (docs/formats.md#indexjson) is the ``rfc8785`` package's,
byte for byte: ``canonical_bytes`` writes plain documents with orjson and floats put the ECMAScript way,
and leaves the rest to ``rfc8785``. The package is the oracle here: every expected value below is
``rfc8785.dumps`` of the same document, or the error it raises."""

from __future__ import annotations

import enum
import math
import struct
from pathlib import Path

import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from tcsexam.scoring.formats.json import _orjson_form, canonical_bytes
from tcsexam.scoring.pipeline.benchmark import demo_run, sample_root
from tcsexam.scoring.pipeline.index import build_index
from tcsexam.scoring.pipeline.run import load_run, resolve_run_paths
from tests.bench.synth import write_cohort, write_run

SAFE = 2**53 - 1

# floats where writers part ways: whole floats, -0.0, the ends of ECMAScript's plain notation (1e-7, 1e21),
# Python's (1e-4, 1e16), the smallest subnormal and the largest double
EDGES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    1e-7,
    1e-6,
    1.5e-6,
    1e-5,
    1e-4,
    9.999999999999999e-5,
    1e15,
    1e16,
    1.5e16,
    1e20,
    9.999999999999999e20,
    1e21,
    1.2345678901234568e20,
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    2.0**53,
    -(2.0**53),
    0.1,
    1 / 3,
    123456789.125,
    4.35e-05,
]

FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(EDGES),
    st.builds(lambda m, e: m * 10.0**e, st.integers(-(10**17), 10**17), st.integers(-30, 30)),
    st.binary(min_size=8, max_size=8).map(lambda b: struct.unpack("<d", b)[0]).filter(math.isfinite),
)
INTEGERS = st.one_of(st.integers(-SAFE, SAFE), st.sampled_from([0, SAFE, -SAFE, 2**31, -(2**52) - 1]))
# control characters, quotes, backslashes, DEL, U+2028, the byte order mark, U+E000 to U+FFFF and astral ones
AWKWARD_CHARACTERS = st.sampled_from(
    [
        "\x00",
        "\x1f",
        "\x7f",
        '"',
        "\\",
        "/",
        "\b",
        "\t",
        "\n",
        "\r",
        "\f",
        "\u2028",
        "\ufeff",
        "\ue000",
        "\uffff",
        "\U00010000",
        "\U0001f600",
        "é",
        "a",
        "B",
        "1",
    ]
)
TEXT = st.text(st.one_of(AWKWARD_CHARACTERS, st.characters(exclude_categories=["Cs"])), max_size=6)
SCALARS = st.one_of(st.none(), st.booleans(), INTEGERS, FLOATS, TEXT)
DOCUMENTS = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(TEXT, inner, max_size=5), max_leaves=30
)


def beyond_bmp(doc: object) -> bool:
    """Whether a character beyond U+FFFF appears anywhere (key or string) in ``doc``."""
    return any(ord(c) > 0xFFFF for c in orjson.dumps(doc).decode("utf-8"))


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS)
def test_any_json_document_is_written_as_rfc8785_writes_it(doc):
    """Also: the fast path is the one tested, not a fallback to the oracle: only a character beyond
    U+FFFF (whose UTF-16 order differs from its code point's) sends a plain document to ``rfc8785``."""
    expected = rfc8785.dumps(doc)
    assert canonical_bytes(doc) == expected
    if isinstance(doc, (dict, list)):
        assert _orjson_form(doc) == (None if beyond_bmp(doc) else expected)


@settings(max_examples=1000, deadline=None)
@given(FLOATS)
def test_every_finite_float_is_written_as_ecmascript_does(f):
    assert canonical_bytes([f]) == rfc8785.dumps([f])
    assert _orjson_form([f]) is not None


def test_keys_sort_by_utf16_code_units():
    doc = {"\ue000": 1, "\U0001f600": 2, "b": 3, "a": 4, "é": 5, "": 6}
    assert canonical_bytes(doc) == rfc8785.dumps(doc)
    assert canonical_bytes(doc).index("\U0001f600".encode()) < canonical_bytes(doc).index("\ue000".encode())


def _raised(call, *args):
    try:
        call(*args)
    except Exception as exc:
        return exc
    raise AssertionError(f"{args!r} was accepted")


@pytest.mark.parametrize(
    "doc",
    [
        {"a": math.nan},
        [1.0, math.inf],
        {"deep": [{"x": -math.inf}]},
        {"a": "\ud800"},
        {"\udc00": 1},
        {1: "a"},
        {"a": {2.5: 1}},
        {"a": object()},
    ],
)
def test_the_same_documents_are_refused_with_the_same_messages(doc):
    expected, got = _raised(rfc8785.dumps, doc), _raised(canonical_bytes, doc)
    assert (type(got), str(got)) == (type(expected), str(expected))


@pytest.mark.parametrize("whole", [SAFE + 1, -(SAFE + 1), 2**63, 2**64, -(2**70), 10**30])
def test_a_whole_number_beyond_2_53_is_an_overflow_with_rfc8785s_message(whole):
    expected = _raised(rfc8785.dumps, {"n": [whole]})
    assert isinstance(expected, rfc8785.IntegerDomainError)
    got = _raised(canonical_bytes, {"n": [whole]})
    assert type(got) is OverflowError and str(got) == str(expected)


class Colour(enum.IntEnum):
    RED = 1


class Name(str):
    pass


@pytest.mark.parametrize(
    "doc",
    [
        {"t": (1.0, 2, "x")},
        {"e": Colour.RED},
        {"s": Name("x"), Name("k"): 1.5},
        "top",
        1.0,
        None,
        [],
        {},
        [[[[]]], {}],
    ],
)
def test_other_values_are_written_as_rfc8785_writes_them(doc):
    assert canonical_bytes(doc) == rfc8785.dumps(doc)


def test_numpy_floats_are_written_as_rfc8785_writes_them():
    np = pytest.importorskip("numpy")
    doc = {"a": np.float64(0.1), "b": [np.float64(1.0), np.float64(1e21)]}
    assert canonical_bytes(doc) == rfc8785.dumps(doc)


def _index(run: Path, benchmark: Path | None = None) -> dict:
    paths = resolve_run_paths(str(run), benchmark=str(benchmark) if benchmark else None)
    return build_index(load_run(paths))


@pytest.mark.parametrize("shape", ["demo", "cohort", "eight", "run"])
def test_index_documents_are_written_by_orjson_as_rfc8785_writes_them(tmp_path, shape):
    if shape == "demo":
        doc = _index(demo_run())
    elif shape in ("cohort", "eight"):  # ranks computed; with eight tasks every pair has a p-value
        made = write_cohort(tmp_path / "c", models=60, seed=5, eight=shape == "eight")
        doc = _index(Path(made["run"]), Path(made["benchmark"]))
    else:  # several attempts a task, records beside the table
        write_run(tmp_path / "r", models=4, attempts=3, seed=5)
        doc = _index(tmp_path / "r", sample_root() / "benchmark")
    for part in (doc, orjson.loads(orjson.dumps(doc))):  # as built, and as an index.json reader gets it
        expected = rfc8785.dumps(part)
        assert _orjson_form(part) == expected
        assert canonical_bytes(part) == expected
