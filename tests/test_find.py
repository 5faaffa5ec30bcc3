"""Find and order without a terminal (tui/find.py): the filter's words and status terms, the count
line, the sort picker's choice, B's default neighbour in Compare, and a model's worst instances."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tcsexam.tui.find import count_note, filtered, neighbour, parse_query, sort_choice, sort_labels, worst_instances


def test_every_word_must_occur_in_the_name_in_any_case():
    query = parse_query("  GPT  mini ")
    assert query.matches("openai/gpt-4o-mini")
    assert not query.matches("openai/gpt-4o")
    assert not query.matches("mini-llama")
    assert parse_query("").empty and parse_query("   ").empty
    assert parse_query("").matches("anything", "incomplete")


def test_status_terms_match_a_status_by_its_start_and_commas_give_alternatives():
    assert parse_query("status:inc").matches("m", "incomplete")
    assert not parse_query("status:inc").matches("m", "complete")
    assert not parse_query("status:complete").matches("m", "incomplete")  # the start, not anywhere
    either = parse_query("status:prov,inc")
    assert either.matches("m", "provisional") and either.matches("m", "incomplete")
    assert not either.matches("m", "complete")
    both = parse_query("gpt STATUS:Complete")
    assert both.matches("gpt-4", "complete") and not both.matches("llama", "complete")
    # a row of several statuses (a tau2 task's termination reasons) passes when one of them does
    assert parse_query("status:max").matches("7", ["user_stop", "max_steps"])
    assert not parse_query("status:max").matches("7", ["user_stop"])
    assert parse_query("status:").empty  # a status term still being typed asks nothing


def test_filtered_keeps_the_rows_order_and_the_count_names_an_unknown_status():
    rows = [("b-1", "complete"), ("a-2", "incomplete"), ("b-3", "incomplete")]
    query = parse_query("b status:inc")
    assert filtered(rows, query, lambda r: r[0], lambda r: r[1]) == [("b-3", "incomplete")]
    assert filtered(rows, parse_query(""), lambda r: r[0], lambda r: r[1]) == rows
    assert count_note(12, 2000, "models") == "12 of 2,000 models"
    known = ["complete", "provisional", "incomplete"]
    note = count_note(0, 3, "models", parse_query("status:done"), known)
    assert note == "0 of 3 models · no status starts with done (statuses: complete, provisional, incomplete)"
    assert count_note(1, 3, "models", parse_query("status:inc"), known) == "1 of 3 models"


def test_the_sort_picker_sorts_a_new_column_its_natural_way_and_reverses_the_current_one():
    assert sort_choice(4, 2, True, False) == (4, False)
    assert sort_choice(4, 2, True, True) == (4, True)
    assert sort_choice(2, 2, True, True) == (2, False)
    assert sort_choice(2, 2, False, True) == (2, True)
    labels = sort_labels(["Model", "Index"], 1, True)
    assert labels[0] == "Model" and labels[1].startswith("Index") and "▼" in labels[1]


def test_b_is_the_model_below_a_in_the_overviews_order_or_above_the_last():
    order = ["c", "a", "d", "b"]
    assert neighbour(order, "c") == "a"
    assert neighbour(order, "d") == "b"
    assert neighbour(order, "b") == "d"  # the last: the one above it
    assert neighbour(["x"], "x") is None
    assert neighbour(order, "zz") == "c"  # not in the order: the first one


@dataclass
class Columns:
    """What worst_instances reads of an attempt's tui.state.InstanceColumns."""

    names: np.ndarray
    phi: np.ndarray
    z: np.ndarray
    status: np.ndarray


def attempt(names: list[str], phi: list[float], z: list[float], status: list[int]) -> Columns:
    return Columns(
        np.array([n.encode() for n in names], dtype="S"),
        np.array(phi, dtype=float),
        np.array(z, dtype=float),
        np.array(status, dtype=np.uint8),
    )


STATUSES = ("ok", "invalid", "timeout")


def test_worst_instances_lists_the_models_instances_across_tasks_lowest_phi_first():
    columns = {
        ("m", "tsp", "1"): attempt(["t1", "t2", "t3"], [0.9, 0.0, 0.4], [1.3, np.nan, -0.3], [0, 2, 0]),
        ("m", "sat", "2"): attempt(["s1", "s2"], [0.2, 0.0], [-0.8, np.nan], [0, 1]),
        ("m", "sat", "1"): attempt(["s1", "s2"], [0.6, 0.7], [0.3, 0.5], [0, 0]),
        ("other", "tsp", "1"): attempt(["t1"], [0.0], [np.nan], [1]),  # another model: not listed
    }
    rows, total, attempts = worst_instances(columns, "m", STATUSES)
    assert (total, attempts) == (7, 3)
    listed = [(r.item, r.attempt, r.instance, r.phi, r.status) for r in rows]
    assert listed == [
        ("sat", "2", "s2", 0.0, "invalid"),  # ties of Phi: by task, then attempt
        ("tsp", "1", "t2", 0.0, "timeout"),
        ("sat", "2", "s1", 0.2, "ok"),
        ("tsp", "1", "t3", 0.4, "ok"),
        ("sat", "1", "s1", 0.6, "ok"),
        ("sat", "1", "s2", 0.7, "ok"),
        ("tsp", "1", "t1", 0.9, "ok"),
    ]
    assert rows[0].cells() == ["sat", "2", "s2", "0.000", "—", "invalid"]
    assert rows[2].cells()[4] == "-0.800"
    few, total, _ = worst_instances(columns, "m", STATUSES, limit=2)
    assert [r.instance for r in few] == ["s2", "t2"] and total == 7
    assert worst_instances(columns, "nobody", STATUSES) == ([], 0, 0)


def test_names_sort_as_read_numbers_as_numbers():
    """Model ▲ put model-1999 after model-999 in a generated run of 2,000 (a review), while tau2's task ids
    sorted 2 before 10: one order for every name, the digits read as numbers."""
    from tcsexam.tui.find import natural_key

    names = ["model-1999", "model-10", "model-999", "Model-2", "model-2", "x1y10", "x1y2", "7", "10"]
    assert sorted(names, key=natural_key) == [
        "7", "10", "Model-2", "model-2", "model-10", "model-999", "model-1999", "x1y2", "x1y10",
    ]  # fmt: skip
    assert sorted([10, 2, "2a"], key=natural_key) == [2, "2a", 10]  # tau2 ids may be numbers in the file
