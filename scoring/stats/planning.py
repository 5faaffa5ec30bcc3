"""Planning attempts and the variance budget (docs/rules.md#planning-attempts and docs/rules.md#variance-budget).

From an observed run, split each track's variance into a within-task part
(attempt noise, s_w²) and a between-task part (σ_b², floored at 0), then
project the index half-width, and the minimum detectable difference between
two models, for r attempts of every task. The inputs are plain: per track,
one list of attempt scores per task; the results are shaped as docs/rules.md#planning-attempts's
JSON (``tcsexam plan``, ``compare``'s ``mde``) and 12.4's ``shares``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from tcsexam.scoring.formats.results import ModelPlan, PlanDocument, TrackVariance
from tcsexam.scoring.stats.uncertainty import LEVEL, power_of_two_scale, stdtrit, t_quantile, welch_satterthwaite

POWER = 0.80


MDE_ATTEMPTS = 10  # docs/rules.md#planning-attempts: the keys of ``mde`` are always "1" to "10"


DEFAULT_MAX_ATTEMPTS = 10


ROUNDING = 1e-12  # docs/rules.md#planning-attempts: a between-task variance this near 0 (relative) is 0


# track -> one list per scored task of its valid adopted attempt scores x_ij
TasksByTrack = Mapping[str, Sequence[Sequence[float]]]


# track -> one (A's attempts, B's attempts) per task both models scored
PairedTasksByTrack = Mapping[str, Sequence[tuple[Sequence[float], Sequence[float]]]]


def _mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs)


def _sample_variance(xs: Sequence[float]) -> float:
    mean = _mean(xs)
    return math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1)


def within_variance(tasks: Sequence[Sequence[float]]) -> float | None:
    """docs/rules.md#planning-attempts: s_w² = Σ_i Σ_j (x_ij − x̄_i)² / Σ_i (r_i − 1) over tasks with r_i ≥ 2; None when none has two."""
    num: list[float] = []
    den = 0
    for xs in tasks:
        if len(xs) >= 2:
            mean = _mean(xs)
            num.extend((x - mean) ** 2 for x in xs)
            den += len(xs) - 1
    return math.fsum(num) / den if den else None


def track_variance(tasks: Sequence[Sequence[float]]) -> TrackVariance:
    """docs/rules.md#planning-attempts per track: m, s_w² and σ_b² = max(0, S² − s_w²·mean_i(1/r_i)).

    Tasks without an attempt have no task mean and are not counted. Both
    variances are None when m < 2 (docs/rules.md#planning-attempts defines them for m ≥ 2); σ_b² is
    None when s_w² is.
    """
    tasks = [xs for xs in tasks if len(xs)]
    m = len(tasks)
    if m < 2:
        return TrackVariance(m=m, s_w2=None, sigma_b2=None)
    s_w2 = within_variance(tasks)
    if s_w2 is None:
        return TrackVariance(m=m, s_w2=None, sigma_b2=None)
    return TrackVariance(m=m, s_w2=s_w2, sigma_b2=max(0.0, between_unclipped(tasks, s_w2)))


def between_unclipped(tasks: Sequence[Sequence[float]], s_w2: float) -> float:
    """S² − s_w²·mean_i(1/r_i) over tasks with an attempt: σ_b² before it is floored at 0 (docs/rules.md#planning-attempts)."""
    s2 = _sample_variance([_mean(xs) for xs in tasks])
    return _excess(s2, s_w2 * math.fsum(1.0 / len(xs) for xs in tasks) / len(tasks))


def _excess(spread: float, noise: float) -> float:
    """``spread − noise``, the between-task variance before it is floored; exactly 0 when it is within
    rounding of the two (docs/rules.md#planning-attempts): equal variances reached by two computations
    differ in their last bits, and such a difference is neither a variance (3.5e-18) nor a clip."""
    excess = spread - noise
    return 0.0 if abs(excess) <= ROUNDING * max(abs(spread), abs(noise)) else excess


def clipped_tracks(tasks_by_track: TasksByTrack, weights: Mapping[str, float]) -> list[str]:
    """The tracks whose σ_b² was floored at 0 (docs/rules.md#planning-attempts): their task means vary
    less than the attempt noise s_w² predicts, so the projection, which then counts s_w²/r alone, is
    conservative (wider than the run's own interval at its own attempts)."""
    out = []
    for t in weights:
        tasks = [xs for xs in tasks_by_track.get(t, ()) if len(xs)]
        v = track_variance(tasks)
        if v.s_w2 is not None and between_unclipped(tasks, v.s_w2) < 0.0:
            out.append(t)
    return out


def _half_width(terms: list[tuple[float, int]], quantile) -> float:
    """t·sqrt(var) for variance terms (w²·se², m) with Welch–Satterthwaite df; 0 when var = 0."""
    var = math.fsum(v for v, _ in terms)
    df = welch_satterthwaite(terms)
    if df is None:  # var = 0: every term is 0
        return 0.0
    return quantile(df) * math.sqrt(var)


def projected_half_width(
    tracks: Mapping[str, TrackVariance], weights: Mapping[str, float], r: int | None
) -> float | None:
    """docs/rules.md#planning-attempts: half-width(r) = t(0.975, df(r))·sqrt(Σ w²·(σ_b² + s_w²/r)/m); None when a track
    cannot be planned. ``r`` None: the limit with unlimited attempts, Σ w²·σ_b²/m alone (the spread between tasks)."""
    terms = []
    for t in weights:
        v = tracks.get(t)
        if v is None or v.sigma_b2 is None or v.s_w2 is None:
            return None
        terms.append((weights[t] ** 2 * (v.sigma_b2 + (v.s_w2 / r if r is not None else 0.0)) / v.m, v.m))
    return _half_width(terms, t_quantile)


def attempts_for_target(half_width: Mapping[str, float | None], target: float | None) -> int | None:
    """docs/rules.md#planning-attempts: the smallest r whose half-width ≤ target; None when none does or there is no target."""
    if target is None:
        return None
    for r, h in sorted(((int(k), h) for k, h in half_width.items())):
        if h is not None and h <= target:
            return r
    return None


def plan_model(
    tasks_by_track: TasksByTrack,
    weights: Mapping[str, float],
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    target: float | None = None,
) -> ModelPlan:
    """One model's entry of ``tcsexam plan`` (docs/rules.md#planning-attempts); every track of ``weights`` is listed (m = 0 if absent)."""
    tracks = {t: track_variance(tasks_by_track.get(t, ())) for t in weights}
    half = {str(r): projected_half_width(tracks, weights, r) for r in range(1, max_attempts + 1)}
    return ModelPlan(
        tracks=tracks,
        half_width=half,
        attempts_for_target=attempts_for_target(half, target),
        clipped=clipped_tracks(tasks_by_track, weights),
        half_width_limit=projected_half_width(tracks, weights, None),
    )


def plan(
    models: Mapping[str, TasksByTrack],
    weights: Mapping[str, float],
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    target: float | None = None,
) -> PlanDocument:
    """The document ``tcsexam plan`` writes (docs/rules.md#planning-attempts), models in the given (cohort) order."""
    return PlanDocument(
        models={name: plan_model(t, weights, max_attempts, target) for name, t in models.items()},
        target=target,
        level=LEVEL,
    )


def _power_quantile(df: float) -> float:
    """t(0.975, df) + t(0.80, df): two-sided 5% test, power 80% (docs/rules.md#planning-attempts)."""
    return t_quantile(df) + float(stdtrit(df, POWER))


def mde(paired: PairedTasksByTrack, weights: Mapping[str, float]) -> dict[str, float | None]:
    """``compare``'s ``mde`` (docs/rules.md#planning-attempts): the smallest index difference detected with r = 1..10 attempts per task.

    Per track over the tasks both scored: σ_bd² = max(0, S_d² − mean_i(s_wA²/r_Ai + s_wB²/r_Bi)),
    se_dt(r)² = (σ_bd² + (s_wA² + s_wB²)/r)/m, MDE(r) = (t(0.975, df) + t(0.80, df))·sqrt(Σ w²·se_dt²).
    Every value is None when a track has m < 2 or a null s_w² for either model.
    """
    keys = [str(r) for r in range(1, MDE_ATTEMPTS + 1)]
    parts = mde_parts(paired, weights)
    if parts is None:
        return dict.fromkeys(keys)
    out: dict[str, float | None] = {}
    for key in keys:
        r = int(key)
        terms = [(weights[t] ** 2 * (max(0.0, sb) + sw / r) / m, m) for t, (sb, sw, m) in parts.items()]
        out[key] = _half_width(terms, _power_quantile)
    return out


def mde_parts(paired: PairedTasksByTrack, weights: Mapping[str, float]) -> dict[str, tuple[float, float, int]] | None:
    """Per track (σ_bd² before it is floored at 0, s_wA² + s_wB², m) of docs/rules.md#planning-attempts's MDE; None when a
    track has m < 2 or a null s_w² for either model."""
    parts = {}
    for t in weights:
        tasks = [(a, b) for a, b in paired.get(t, ()) if len(a) and len(b)]
        m = len(tasks)
        s_wa = within_variance([a for a, _ in tasks]) if m >= 2 else None
        s_wb = within_variance([b for _, b in tasks]) if m >= 2 else None
        if s_wa is None or s_wb is None:
            return None
        s_d2 = _sample_variance([_mean(a) - _mean(b) for a, b in tasks])
        noise = math.fsum(s_wa / len(a) + s_wb / len(b) for a, b in tasks) / m
        parts[t] = (_excess(s_d2, noise), s_wa + s_wb, m)
    return parts


def mde_clipped(paired: PairedTasksByTrack, weights: Mapping[str, float]) -> list[str]:
    """The tracks whose σ_bd² was floored at 0 in the MDE (docs/rules.md#planning-attempts): the MDE is
    then conservative (a smaller difference may well be detected, as the observed interval shows)."""
    parts = mde_parts(paired, weights) or {}
    return [t for t, (sb, _, _) in parts.items() if sb < 0.0]


def shares(track_se: Mapping[str, float | None], weights: Mapping[str, float]) -> dict[str, float] | None:
    """docs/rules.md#variance-budget: each track's part w²·se²/var of the index variance, summing to 1.

    None (the ``shares`` key is then left out of ``ci.index``) when var = 0 or a track has no se.
    """
    if any(track_se.get(t) is None for t in weights):
        return None
    spread = {t: weights[t] * track_se[t] for t in weights}  # type: ignore[operator]
    largest = max(map(abs, spread.values()))
    if largest == 0.0:
        return None
    unit = power_of_two_scale(largest)  # a ratio: squares taken in units that cannot overflow (docs/safety.md)
    terms = {t: (v / unit) ** 2 for t, v in spread.items()}
    var = math.fsum(terms.values())
    if var == 0.0:
        return None
    return {t: v / var for t, v in terms.items()}


def shares_of_ci(ci: Mapping, weights: Mapping[str, float]) -> dict[str, float] | None:
    """docs/rules.md#variance-budget from a model's docs/rules.md#intervals ``ci`` block: the ``shares`` to put in ``ci.index`` (None: leave it out)."""
    return shares({t: ci["tracks"].get(t, {}).get("se") for t in weights}, weights)
