"""A decision rule stated before a run: the exact paired sign-flip test.

For a run design of n rounds where each round measures the candidate and
the reference side by side (paired within the round), one figure gives n
log ratios log(candidate / reference). If the candidate changes nothing,
each round's ratio is as likely to fall on either side of 1: every one of
the 2^n ways of flipping the signs of the log ratios is as likely as the one
observed. The one-sided p-value is the share of those flips whose mean is at
least as good for the candidate as the observed mean, counted exactly (all
2^n enumerated; n up to MAX_ROUNDS). No normal approximation, no
assumption on the spread: what a handful of rounds can support.

The rule (RULE): a candidate passes on a figure if p <= 0.05 and the
geometric mean ratio is at least 3% better (at most 0.97 where lower is
better, at least 1.03 where higher is). The smallest p that n rounds can
give is 1/2^n: with 3 or 4 rounds (1/8, 1/16) nothing can pass, with 5
(1/32) only a candidate better in every round.

Not yet used by the report's verdicts (figures.decide): that needs the new
run design, with the rounds paired and the rule stated before the run.
"""

import math

ALPHA = 0.05
MIN_GAIN = 0.03
MAX_ROUNDS = 16  # 65536 flips
RULE = ("pass if the exact paired sign-flip p-value is at most %g and the geometric mean ratio is at least "
        "%g%% better" % (ALPHA, 100 * MIN_GAIN))


def log_ratios(cand, ref):
    """Per-round log(candidate / reference), the rounds paired in order.
    Every value must be finite and above 0 (a failed download or a 0% share
    has no ratio: a run design must give it a value first, as its
    timeout)."""
    if len(cand) != len(ref):
        raise ValueError("%d rounds of the candidate, %d of the reference" % (len(cand), len(ref)))
    for v in list(cand) + list(ref):
        if not 0 < v < math.inf:
            raise ValueError("no log ratio of %r" % v)
    return [math.log(c / r) for c, r in zip(cand, ref)]


def sign_flip_p(logs, better="lo"):
    """The exact one-sided p-value of the mean of LOGS (per-round
    log(candidate / reference)) under all 2^n sign flips: the share of the
    flips whose mean is as good for the candidate as the observed one or
    better (lower where BETTER is "lo", higher where "hi").

    Ties: a flip whose mean equals the observed one counts (the test is
    conservative); equal means are compared with a tolerance of 1e-9 of
    the sum of |log ratio|, so that rounding never splits a tie. Zeros: a
    round with a ratio of exactly 1 gives the same mean under both signs,
    so it doubles the flips counted and the flips in all: p is the same as
    without that round (a tie within a round is no evidence either way).
    All zeros, or no rounds: p = 1."""
    if better not in ("lo", "hi"):
        raise ValueError("better is 'lo' or 'hi', not %r" % better)
    n = len(logs)
    if n > MAX_ROUNDS:
        raise ValueError("%d rounds: more than %d to enumerate" % (n, MAX_ROUNDS))
    d = [-x for x in logs] if better == "lo" else list(logs)  # > 0: the candidate better
    observed = sum(d)
    tol = 1e-9 * sum(abs(x) for x in d)
    if n == 0 or tol == 0:
        return 1.0
    sums = [0.0]
    for x in d:
        sums = [s + x for s in sums] + [s - x for s in sums]
    return sum(1 for s in sums if s >= observed - tol) / len(sums)


def geo_mean_ratio(logs):
    """The geometric mean of the ratios candidate / reference."""
    return math.exp(sum(logs) / len(logs)) if logs else 1.0


def rule(cand, ref, better="lo", alpha=ALPHA, min_gain=MIN_GAIN):
    """RULE on one figure, CAND and REF its per-round values, paired in
    order: (passes, p, geometric mean ratio, a sentence saying why).
    "At least 3% better": a geometric mean ratio of at most 1 - 0.03 where
    lower is better, at least 1 + 0.03 where higher is."""
    logs = log_ratios(cand, ref)
    p = sign_flip_p(logs, better)
    gm = geo_mean_ratio(logs)
    gain_ok = gm <= 1 - min_gain if better == "lo" else gm >= 1 + min_gain
    passes = p <= alpha and gain_ok
    why = "%s: p = %.4f (%s %g), geometric mean ratio %.3f (%s %.2f), %d round(s)" % (
        "passes" if passes else "fails", p, "<=" if p <= alpha else ">", alpha, gm,
        ("<=" if gain_ok else ">") if better == "lo" else (">=" if gain_ok else "<"),
        1 - min_gain if better == "lo" else 1 + min_gain, len(logs))
    return passes, p, gm, why
