"""TCSExam scoring core: pure functions over the contract's inputs (no UI)."""

__version__ = "0.1.0"

METRIC_ID = "tcsexam-index-original-30303010-v0.1"
TRACKS = ("theorem", "solver", "construction", "conjecture")
TRACK_LETTERS = {"theorem": "P", "solver": "S", "construction": "C", "conjecture": "O"}
WEIGHTS = {"theorem": 30, "solver": 30, "construction": 30, "conjecture": 10}
