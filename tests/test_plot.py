"""``tcsexam plot`` (docs/commands.md#plot): the figures are checked as structures, from the Figure
and the written files (the elements drawn, where the document's values put them), never as
pixels. Expected values come from the documents and the rules of docs/commands.md#plot, computed
here by hand."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.reports.figures import build_figure, figure_bytes
from tcsexam.scoring.vocab import TRACKS, WEIGHTS

ROOT = Path(__file__).resolve().parents[1]
DOCS_FIGURES = {  # the figures docs/commands.md#plot and the README show, made from the demo
    "forest": ["--kind", "forest"],
    "tracks": ["--kind", "tracks"],
    "passk": ["--kind", "passk"],
    "compare": ["--kind", "compare", "--models", "atlas-70b", "borealis-8x22b"],
}


@pytest.fixture(scope="module")
def demo_index(tmp_path_factory) -> Path:
    """The demo run scored (exit 3: one model is incomplete by design)."""
    from tcsexam.scoring.commands.main import main
    from tcsexam.scoring.pipeline.benchmark import demo_run

    out = tmp_path_factory.mktemp("demo") / "index.json"
    assert main(["score", str(demo_run()), "--output", str(out)]) == 3
    return out


@pytest.fixture(scope="module")
def demo_doc(demo_index) -> dict:
    from tcsexam.scoring.reports.index_file import load_index

    return load_index(demo_index).document


# --- documents written by hand -------------------------------------------------------------------


def model(index: float | None, lo: float | None = None, hi: float | None = None, status: str = "complete") -> dict:
    """A model of an index.json with what the figures read: index, interval, track means, tasks."""
    tracks = {t: {"mean": 0.5, "se": 0.1, "lo": 0.3, "hi": 0.7, "df": 4.0, "m": 5} for t in TRACKS}
    return {
        "status": status,
        "index": index,
        "track_means": {t: 0.5 for t in TRACKS},
        "tasks": {f"{t}-{i}": {"track": t, "mean": 0.5, "valid": 1} for t in TRACKS for i in range(5)},
        "pass_hat_k": {t: {"threshold": 1.0, "tasks": 5, "by_k": {"1": 0.5}} for t in TRACKS},
        "ci": {
            "tracks": tracks,
            "index": None if index is None else {"value": index, "se": 1.0, "lo": lo, "hi": hi, "df": 10.0},
        },
    }


def document(models: dict[str, dict], ranks: dict[str, tuple[int, int]] | None = None, suite: str = "lite") -> dict:
    return {
        "suite": suite,
        "solver_protocol": "offline",
        "models": models,
        "ranks": {"models": {m: {"best": b, "worst": w} for m, (b, w) in (ranks or {}).items()}, "pairs": []},
    }


def many(n: int) -> dict:
    """n models, the k-th with index 100 - k and interval ± 2; ranks k+1 alone."""
    return document(
        {f"model-{k:02d}": model(100.0 - k, 98.0 - k, 102.0 - k) for k in range(n)},
        {f"model-{k:02d}": (k + 1, k + 1) for k in range(n)},
    )


def texts(fig, gid: str) -> list[str]:
    """The texts drawn with ``gid``, each on one line (a note is wrapped to the figure's width)."""
    return [" ".join(t.get_text().split()) for t in fig.findobj(Text) if t.get_gid() == gid]


def intervals(ax, gid: str = "interval") -> tuple[list[float], list[tuple[float, float]]]:
    """The points' x and the intervals' (lo, hi) of an errorbar drawn with ``gid``."""
    points = next(line for line in ax.get_lines() if line.get_gid() == gid)
    bars = next(c for c in ax.collections if c.get_gid() == gid)
    ends = [(float(s[0][0]), float(s[1][0])) for s in bars.get_segments()]
    return [float(x) for x in points.get_xdata()], ends


# --- forest ------------------------------------------------------------------------------------------


def test_forest_draws_each_model_at_its_index_and_interval_highest_first(demo_doc):
    fig = build_figure([("index.json", demo_doc)], "forest")
    with_index = [(m, v) for m, v in demo_doc["models"].items() if v["index"] is not None]
    expected = sorted(with_index, key=lambda mv: -mv[1]["index"])
    xs, ends = intervals(fig.axes[0])
    assert xs == pytest.approx([v["index"] for _, v in expected])
    assert ends == pytest.approx([(v["ci"]["index"]["lo"], v["ci"]["index"]["hi"]) for _, v in expected])
    assert texts(fig, "label") == ["atlas-70b", "borealis-8x22b †"]  # † provisional, as in table


def test_forest_shows_rank_intervals_and_marks_a_shared_first_rank(demo_doc):
    fig = build_figure([("index.json", demo_doc)], "forest")
    # the demo's two models are not separated: both rank 1 to 2, both in the top group
    assert texts(fig, "rank") == ["1–2 ★", "1–2 ★"]
    alone = build_figure([("a.json", many(3))], "forest")
    assert texts(alone, "rank") == ["1", "2", "3"]  # a leader alone is not marked


def test_forest_lists_a_model_without_index_apart_with_its_reason(demo_doc):
    fig = build_figure([("index.json", demo_doc)], "forest")
    assert "cirrus-mini" not in texts(fig, "label")
    # the demo's cirrus-mini misses a judge's result of thm-ramsey-bound and con-expander's attempt
    assert "cirrus-mini: no index: incomplete, 2 of 20 tasks without a result" in texts(fig, "notes")[0]


def test_above_sixty_models_the_top_sixty_are_drawn_and_the_rest_counted():
    fig = build_figure([("a.json", many(61))], "forest")
    xs, _ = intervals(fig.axes[0])
    assert xs == [100.0 - k for k in range(60)]
    assert "model-60" not in texts(fig, "label")
    assert "1 more model not shown (the top 60 are)" in texts(fig, "notes")[0]
    full = build_figure([("a.json", many(60))], "forest")
    assert len(intervals(full.axes[0])[0]) == 60 and "not shown" not in texts(full, "notes")[0]


def test_documents_of_two_suites_are_never_mixed_in_one_figure():
    lite, full = many(2), {**many(2), "suite": "full"}
    full["models"] = {"other": model(50.0, 40.0, 60.0)}
    with pytest.raises(InputError) as caught:
        build_figure([("lite.json", lite), ("full.json", full)], "forest")
    (problem,) = caught.value.problems
    assert (problem.file, problem.field) == ("full.json", "suite")


# --- the other kinds --------------------------------------------------------------------------------


def test_tracks_draws_each_track_mean_with_its_interval(demo_doc):
    fig = build_figure([("index.json", demo_doc)], "tracks")
    order = ["atlas-70b", "borealis-8x22b", "cirrus-mini"]  # by index, the null index last
    for ax, track in zip(fig.axes, TRACKS, strict=True):
        scored = [m for m in order if demo_doc["models"][m]["track_means"][track] is not None]
        xs, ends = intervals(ax, f"interval-{track}")
        assert xs == pytest.approx([demo_doc["models"][m]["track_means"][track] for m in scored])
        cis = [demo_doc["models"][m]["ci"]["tracks"][track] for m in scored]
        assert ends == pytest.approx([(c["lo"], c["hi"]) for c in cis])
        ys = next(line for line in ax.get_lines() if line.get_gid() == f"interval-{track}").get_ydata()
        assert [order[int(y)] for y in ys] == scored  # each on its model's row


@pytest.mark.parametrize("kind", ["forest", "tracks", "passk"])
def test_the_provisional_mark_is_explained_where_it_is_drawn(demo_doc, kind):
    fig = build_figure([("index.json", demo_doc)], kind)
    assert "† provisional" in texts(fig, "notes")[0]  # borealis-8x22b is provisional
    alone = document({"m": model(50.0, 40.0, 60.0)}, {"m": (1, 1)})
    assert "provisional" not in texts(build_figure([("a.json", alone)], kind), "notes")[0]


def test_passk_draws_pass_hat_k_and_the_tasks_counted_at_each_k(demo_doc):
    fig = build_figure([("index.json", demo_doc)], "passk")
    models = ["atlas-70b", "borealis-8x22b", "cirrus-mini"]
    for ax, track in zip(fig.axes, TRACKS, strict=True):
        lines = [line for line in ax.get_lines() if line.get_gid() == "passk"]
        counts = [t.get_text() for t in ax.texts if t.get_gid() == "tasks-at-k"]
        expected_counts = []
        for n, (line, name) in enumerate(zip(lines, models, strict=True)):
            by_k = demo_doc["models"][name]["pass_hat_k"][track]["by_k"]
            apart = (-0.12, 0.0, 0.12)[n]  # three models set apart sideways, centred on each k
            assert list(line.get_xdata()) == pytest.approx([int(k) + apart for k in by_k])
            assert list(line.get_ydata()) == pytest.approx(list(by_k.values()))
            tasks = [t for t in demo_doc["models"][name]["tasks"].values() if t["track"] == track]
            expected_counts += [str(sum(t["valid"] >= int(k) for t in tasks)) for k in by_k]
        assert counts == expected_counts
    # borealis ran one construction task twice: pass^2 averages over that one task
    construction = fig.axes[TRACKS.index("construction")]
    assert [t.get_text() for t in construction.texts if t.get_gid() == "tasks-at-k"][3:5] == ["5", "1"]


def test_passk_models_with_the_same_values_are_drawn_apart(demo_doc):
    """Two models with the same pass^k at every k were drawn on one another: their points are set apart
    sideways, each with its own marker, and the note says so."""
    twin = json.loads(json.dumps(demo_doc))
    twin["models"]["atlas-copy"] = twin["models"]["atlas-70b"]
    fig = build_figure([("index.json", twin)], "passk")
    for ax in fig.axes:
        lines = [line for line in ax.get_lines() if line.get_gid() == "passk"]
        points = {(round(x, 6), y) for line in lines for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)}
        assert len(points) == sum(len(line.get_xdata()) for line in lines)  # no two points on one another
        assert len({line.get_marker() for line in lines}) == len(lines)
    assert "set apart sideways" in texts(fig, "notes")[0]


def test_compare_orders_tasks_by_their_part_of_the_index_difference(demo_doc):
    a, b = "atlas-70b", "borealis-8x22b"
    fig = build_figure([("index.json", demo_doc)], "compare", models=(a, b))
    ma, mb = demo_doc["models"][a]["tasks"], demo_doc["models"][b]["tasks"]
    common = [i for i in ma if ma[i]["mean"] is not None and mb.get(i, {}).get("mean") is not None]
    m = {t: sum(ma[i]["track"] == t for i in common) for t in TRACKS}
    parts = {i: WEIGHTS[ma[i]["track"]] * (ma[i]["mean"] - mb[i]["mean"]) / m[ma[i]["track"]] for i in common}
    ax = fig.axes[0]
    bars = [line for line in ax.get_lines() if line.get_gid() == "task-part"]
    drawn = [float(line.get_xdata()[1]) for line in bars]
    assert drawn == pytest.approx(sorted(parts.values(), key=lambda p: -abs(p)))
    # the parts add up to the index difference, the first point drawn
    index_difference = sum(parts.values())
    xs, (index_ends, *_) = intervals(ax)
    assert xs[0] == pytest.approx(index_difference)
    assert index_difference == pytest.approx(demo_doc["models"][a]["index"] - demo_doc["models"][b]["index"])
    assert index_ends[0] < index_difference < index_ends[1]


# --- names are data -------------------------------------------------------------------------------


HOSTILE = ["price$100$ and $\\alpha$", "evil\x1b[31mred", r"\textbf{x} %comment", "<b>&amp;</b>"]


def test_hostile_names_are_shown_as_written_never_as_mathtext_or_markup(tmp_path):
    doc = document(
        {name: model(80.0 - k, 70.0 - k, 90.0 - k) for k, name in enumerate(HOSTILE)},
        {name: (1, len(HOSTILE)) for name in HOSTILE},
    )
    svg = figure_bytes(build_figure([("a.json", doc)], "forest", "full"), ".svg").decode("utf-8")
    shown = ["".join(t.itertext()) for t in ElementTree.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    assert "price$100$ and $\\alpha$" in shown  # a $ stays a $: no mathtext
    assert "evil\\x1b[31mred" in shown and "\x1b" not in svg  # escaped as on a terminal
    assert r"\textbf{x} %comment" in shown and "<b>&amp;</b>" in shown


def test_a_long_name_is_shortened_in_the_middle():
    name = "a" * 30 + "-middle-" + "z" * 30
    fig = build_figure([("a.json", document({name: model(50.0, 40.0, 60.0)}, {name: (1, 1)}))], "forest")
    # 22 characters at column width: its first 11, an ellipsis, its last 10
    assert texts(fig, "label") == ["a" * 11 + "…" + "z" * 10]


def test_characters_the_font_lacks_are_named_once_not_warned_by_matplotlib():
    import warnings

    doc = document({"Qwen-通义": model(60.0, 50.0, 70.0), "通义-2": model(50.0, 40.0, 60.0)})
    missing: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure_bytes(build_figure([("a.json", doc)], "forest"), ".pdf", missing)
    assert missing == ["通", "义"]  # DejaVu Sans has no CJK ideographs
    assert [str(w.message) for w in caught] == []


# --- layout and files ------------------------------------------------------------------------------


def outside(fig) -> list[str]:
    """Every drawn text that reaches outside the figure."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    box = fig.bbox
    renderer = canvas.get_renderer()
    undrawn = set()  # the labels of ticks outside the axes' view: matplotlib keeps but does not draw them
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick, loc in zip(axis.get_major_ticks(), axis.get_majorticklocs(), strict=False):
                if not lo - 1e-9 * abs(hi - lo) <= loc <= hi + 1e-9 * abs(hi - lo):
                    undrawn |= {id(tick.label1), id(tick.label2)}
    out = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text() or id(t) in undrawn:
            continue
        e = t.get_window_extent(renderer)
        if e.x0 < box.x0 - 0.5 or e.y0 < box.y0 - 0.5 or e.x1 > box.x1 + 0.5 or e.y1 > box.y1 + 0.5:
            out.append(t.get_text())
    return out


@pytest.mark.parametrize("kind", ["forest", "tracks", "passk"])
@pytest.mark.parametrize("n", [2, 60])
@pytest.mark.parametrize("width", ["column", "full"])
def test_no_text_is_clipped_at_two_to_sixty_models(kind, n, width):
    doc = many(n)
    long = "x" * 70  # the longest names, shortened
    doc["models"][long] = doc["models"].pop("model-00")
    doc["ranks"]["models"][long] = doc["ranks"]["models"].pop("model-00")
    doc["models"]["no-index"] = model(None, status="incomplete")
    assert outside(build_figure([("a.json", doc)], kind, width)) == []


@pytest.mark.parametrize("width", ["column", "full"])
def test_no_text_is_clipped_in_compare(demo_doc, width):
    fig = build_figure([("index.json", demo_doc)], "compare", width, ("atlas-70b", "cirrus-mini"))
    assert outside(fig) == []


def test_the_pdf_embeds_its_fonts(demo_doc):
    pdf = figure_bytes(build_figure([("index.json", demo_doc)], "forest"), ".pdf")
    assert pdf.startswith(b"%PDF")
    assert b"/FontFile2" in pdf  # TrueType, embedded
    assert b"/Type3" not in pdf  # no bitmap-like Type 3 fonts


@pytest.fixture
def cli_plot(cli, demo_index):
    def run(*args: str):
        return cli("plot", str(demo_index), *args)

    return run


@pytest.mark.parametrize(("suffix", "magic"), [(".pdf", b"%PDF"), (".svg", b"<?xml"), (".PNG", b"\x89PNG")])
def test_the_output_suffix_gives_the_format(cli_plot, tmp_path, suffix, magic):
    out = tmp_path / f"figure{suffix}"
    code, stdout, _ = cli_plot("--output", str(out))
    assert code == 0 and out.read_bytes().startswith(magic)
    assert f"forest figure written to {out}" in stdout


def test_an_existing_output_is_replaced_and_nothing_else_is_left(cli_plot, tmp_path):
    out = tmp_path / "figure.svg"
    out.write_text("old")
    code, _, _ = cli_plot("--output", str(out))
    assert code == 0 and out.read_bytes().startswith(b"<?xml")
    assert [p.name for p in tmp_path.iterdir()] == ["figure.svg"]


@pytest.mark.parametrize("target", ["folder", "/dev/null"])
def test_a_folder_or_a_device_is_refused(cli_plot, tmp_path, target):
    if target == "folder":
        (tmp_path / "folder.pdf").mkdir()
        target = str(tmp_path / "folder.pdf")
    code, _, err = cli_plot("--output", target)
    assert code == 1 and target in err and ("directory" in err or "device" in err)


@pytest.mark.parametrize("output", ["figure.txt", "figure", "-"])
def test_an_output_that_is_no_figure_format_is_a_usage_error(cli_plot, tmp_path, output):
    target = output if output == "-" else str(tmp_path / output)
    code, stdout, err = cli_plot("--output", target)
    assert code == 2 and "*.pdf, *.svg or *.png" in err and stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_malformed_or_foreign_file_is_refused_with_its_field(cli, tmp_path):
    malformed = tmp_path / "index.json"
    malformed.write_text('{"metric_id": 3}')
    out = tmp_path / "figure.pdf"
    code, _, err = cli("plot", str(malformed), "--output", str(out))
    assert code == 1 and str(malformed) in err and "metric_id" in err
    assert not out.exists()


def test_compare_names_a_model_outside_the_cohort(cli_plot, tmp_path):
    out = tmp_path / "c.svg"
    code, _, err = cli_plot("--kind", "compare", "--models", "atlas-70b", "nobody", "--output", str(out))
    assert code == 1 and "--models" in err and "nobody" in err and not out.exists()
    code, _, err = cli_plot("--kind", "compare", "--output", str(out))
    assert code == 2 and "--models A B" in err
    code, _, err = cli_plot("--models", "atlas-70b", "borealis-8x22b", "--output", str(out))  # forest
    assert code == 2 and "--models is for --kind compare" in err and not out.exists()


def test_without_matplotlib_the_command_exits_2_naming_the_extra(demo_index, tmp_path):
    out = tmp_path / "figure.pdf"
    script = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from tcsexam.scoring.commands.main import main\n"
        f"sys.exit(main(['plot', {str(demo_index)!r}, '--output', {str(out)!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2, done.stderr
    assert (
        'pip install matplotlib into this environment (or the extra "plot": pip install "./tcsexam[plot]"'
        in done.stderr
        and "Traceback" not in done.stderr
    )
    assert not out.exists()


# --- the figures the docs show -------------------------------------------------------------------


def svg_texts(svg: bytes) -> list[tuple[str, float, float]]:
    """Every text of an SVG written by matplotlib, with its position (the translate of its transform)."""
    out = []
    for t in ElementTree.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"):
        place = re.search(r"translate\(([-\d.e]+)[ ,]+([-\d.e]+)\)", t.get("transform", ""))
        x, y = (float(place.group(1)), float(place.group(2))) if place else (float(t.get("x", 0)), float(t.get("y", 0)))
        out.append(("".join(t.itertext()), x, y))
    return out


@pytest.mark.parametrize("name", list(DOCS_FIGURES))
def test_the_docs_figures_are_those_of_the_demo(cli, demo_index, tmp_path, name):
    """docs/figure-NAME.svg is what ``tcsexam plot`` draws from the demo: the same texts at the same
    places (within 1 pt: a newer matplotlib may place them a little differently). With
    TCSEXAM_WRITE_FIGURES=1 the test writes them."""
    made = tmp_path / f"figure-{name}.svg"
    assert cli("plot", str(demo_index), *DOCS_FIGURES[name], "--output", str(made))[0] == 0
    shown = ROOT / "docs" / made.name
    if os.environ.get("TCSEXAM_WRITE_FIGURES") == "1":
        shown.write_bytes(made.read_bytes())
    ours, theirs = svg_texts(made.read_bytes()), svg_texts(shown.read_bytes())
    assert [t for t, _, _ in ours] == [t for t, _, _ in theirs]
    for (text, x, y), (_, x0, y0) in zip(ours, theirs, strict=True):
        assert (x, y) == (pytest.approx(x0, abs=1.0), pytest.approx(y0, abs=1.0)), text


def test_a_first_rank_is_shared_only_within_a_file():
    one, two = many(1), many(1)  # each file's own model ranks 1 alone
    two["models"] = {"other": two["models"].pop("model-00")}
    two["ranks"]["models"] = {"other": {"best": 1, "worst": 1}}
    fig = build_figure([("one.json", one), ("two.json", two)], "forest")
    assert texts(fig, "rank") == ["1", "1"]
    assert "ranks within each file's models" in texts(fig, "notes")[0]


def test_a_figure_of_models_without_an_index_lists_them_all():
    doc = document({"a": model(None, status="incomplete"), "b": model(None, status="incomplete")})
    fig = build_figure([("a.json", doc)], "forest")
    assert texts(fig, "label") == [] and outside(fig) == []
    assert texts(fig, "notes") == [
        "a: no index: incomplete, 0 of 20 tasks without a result b: no index: incomplete, 0 of 20 tasks without a result"
    ]
