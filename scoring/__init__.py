"""TCSExam scoring core: pure functions over the contract's inputs (no UI)."""

__version__ = "0.1.0"
