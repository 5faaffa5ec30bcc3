"""The Instances pane's pure functions: an instance's score explained, the status counts, the filter's note.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...views import (
    fmt,
    fmt_sig,
)

if TYPE_CHECKING:
    pass


def binding_floor(s: float, mu: float, scale: float, relative: float) -> str:
    """Which term of scale = max(s, relative·|mu|, absolute) is the maximum."""
    if scale == s:
        return "s"
    if scale == relative * abs(mu):
        return f"relative floor {relative:g}·|mu|"
    return "absolute floor"


def explain_instance(
    name: str,
    status: str,
    A: float,
    mu: float,
    s: float,
    scale: float,
    z: float,
    phi: float,
    direction: str,
    relative: float,
) -> str:
    """Why an instance scored its Phi, in the contract's words (docs/rules.md#solver-score)."""
    if status != "ok":
        return f"{name}: status '{status}' is a solver failure, so the instance scores 0 (tcsexam docs rules#solver-score)."
    formula = "(A − mu)/scale" if direction == "maximize" else "(mu − A)/scale"
    return (
        f"{name}: A = {fmt_sig(A)}; mu = {fmt_sig(mu)}, s = {fmt_sig(s)}; scale = max(s, relative·|mu|, absolute) "
        f"= {fmt_sig(scale)} ({binding_floor(s, mu, scale, relative)}); {direction}: z = {formula} = {fmt(z)}; "
        f"Phi(z) = {fmt(phi)}"
    )


def status_counts(status) -> dict[str, int]:
    """Instances per status code, in STATUS_CODES order, only the statuses that occur."""
    import numpy as np

    from ...state import STATUS_CODES

    counts = np.bincount(np.asarray(status, dtype=np.int64), minlength=len(STATUS_CODES))
    return {s: int(counts[i]) for i, s in enumerate(STATUS_CODES) if counts[i]}


def counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {s}" for s, n in counts.items()) or "no instances"


def filter_note(shown: int, total: int, status: str | None) -> str:
    """What the filter leaves: a sentence when it leaves nothing."""
    if status is None:
        return f"{total:,} instances"
    if shown == 0:
        return f"0 of {total:,} instances, as none has status {status} (f changes the filter)"
    return f"{shown:,} of {total:,} instances with status {status}"
