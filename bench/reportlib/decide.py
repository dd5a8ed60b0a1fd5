"""The exact paired sign-flip test, the statistics of the decision rule
(bench/reportlib/rule.py applies it to a run).

For a run design of n rounds where each round measures the candidate and
the reference side by side (paired within the round), one figure gives n
log ratios log(candidate / reference). If the candidate changes nothing,
each round's ratio is as likely to fall on either side of 1: every one of
the 2^n ways of flipping the signs of the log ratios is as likely as the one
observed. The one-sided p-value is the share of those flips whose mean is at
least as good for the candidate as the observed mean, counted exactly (all
2^n, n up to MAX_ROUNDS, counted by halves: the sums of each half's flips,
one half sorted). No normal approximation, no assumption on the spread:
what a handful of rounds can support.

The smallest p that n rounds can give is 1/2^n: with 3 or 4 rounds (1/8,
1/16) nothing can pass at 0.05, with 5 (1/32) only a candidate better in
every round.

The pooled test (pooled_p) judges a candidate against two copies of the
reference at once, each round measuring the three side by side in a
shuffled order: if the candidate changes nothing, the three are the same
profile, and which of a round's three cells carries the candidate's name
is as likely to be any of them. The p-value is the share of the 3^n ways
of naming one cell of each round the candidate whose mean log(candidate /
geometric mean of the other two) is at least as extreme as the one
observed: the smallest is 1/3^n, where the candidate is the worst of the
three in every round.

Besides the tests: the interval of the ratio its inversion gives, and the
share of sign flips of noise draws on which a rule passes (its false-pass
rate and power).
"""

import bisect
import itertools
import math
import random

ALPHA = 0.05
MIN_GAIN = 0.03
MAX_ROUNDS = 24  # 16.8 million flips, counted as two halves of 4096
MAX_POOLED_ROUNDS = 16  # 43 million namings, counted as two halves of 6561
# Means of log ratios that agree within this count as equal, so that the
# rounding of a value never decides a comparison.
TIE = 1e-9
# Power: beyond this many rounds, a seeded sample of 2^POWER_EXACT flips
# instead of all of them (each flip is a test of 2^n flips itself).
POWER_EXACT = 12
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
    return count_at_least(d, observed - tol) / 2 ** n


def flip_sums(d):
    """The sums of D under all 2^len(D) sign flips."""
    sums = [0.0]
    for x in d:
        sums = [s + x for s in sums] + [s - x for s in sums]
    return sums


def count_at_least(d, target):
    """How many of the 2^n sign flips of D sum to TARGET or more: the flips
    of each half summed apart, and for each sum of the first half the sums
    of the second (sorted) that reach TARGET with it counted by bisection."""
    h = len(d) // 2
    first, second = flip_sums(d[:h]), sorted(flip_sums(d[h:]))
    return sum(len(second) - bisect.bisect_left(second, target - a) for a in first)


def smallest_p(n, copies=1):
    """The smallest one-sided p that N rounds can give: 1/2^n against one
    copy of the reference (sign flips), 1/3^n against two (pooled_p)."""
    return (1.0 / (2 if copies == 1 else 3)) ** n


def rounds_needed(alpha, copies=1):
    """The fewest rounds whose smallest p is at most ALPHA."""
    n = 1
    while smallest_p(n, copies) > alpha * (1 + TIE):
        n += 1
    return n


def pooled_logs(triples):
    """Per-round log(candidate / geometric mean of the two copies), from
    TRIPLES (log candidate, log copy 1, log copy 2)."""
    return [a - (b + c) / 2 for a, b, c in triples]


def pooled_p(triples, better="lo"):
    """The exact one-sided p of the candidate against two copies of the
    reference (TRIPLES: per round, the logs of the candidate's value and
    of each copy's): the share of the 3^n namings of one cell per round as
    the candidate whose sum of log(named / geometric mean of the other
    two) is as good for the candidate as the observed one or better
    (lower where BETTER is "lo"). Ties within 1e-9 of the sum of |log
    ratio| count, as in sign_flip_p; no rounds, or three equal values in
    every round: p = 1."""
    if better not in ("lo", "hi"):
        raise ValueError("better is 'lo' or 'hi', not %r" % better)
    n = len(triples)
    if n > MAX_POOLED_ROUNDS:
        raise ValueError("%d rounds: more than %d to enumerate" % (n, MAX_POOLED_ROUNDS))
    sign = -1 if better == "lo" else 1  # > 0: the candidate better
    # Naming cell i of a round gives v_i - (the other two) / 2, that is
    # 1.5 (v_i - the round's mean); the first of each triple is observed.
    opts = [[sign * 1.5 * (v - sum(t) / 3) for v in t] for t in triples]
    observed = sum(o[0] for o in opts)
    tol = 1e-9 * sum(abs(x) for o in opts for x in o)
    if n == 0 or tol == 0:
        return 1.0
    h = n // 2

    def sums(part):
        out = [0.0]
        for o in part:
            out = [s + x for s in out for x in o]
        return out

    first, second = sums(opts[:h]), sorted(sums(opts[h:]))
    hits = sum(len(second) - bisect.bisect_left(second, observed - tol - a) for a in first)
    return hits / 3 ** n


def geo_mean_ratio(logs):
    """The geometric mean of the ratios candidate / reference."""
    return math.exp(sum(logs) / len(logs)) if logs else 1.0


def better_by(logs, better, min_gain=MIN_GAIN):
    """The geometric mean ratio at least MIN_GAIN better: at most 1 - gain
    where lower is better, at least 1 + gain where higher is (within TIE)."""
    mean = sum(logs) / len(logs) if logs else 0.0
    if better == "lo":
        return mean <= math.log(1 - min_gain) + TIE
    return mean >= math.log(1 + min_gain) - TIE


def worse_by(logs, better, min_gain=MIN_GAIN):
    """The geometric mean ratio at least MIN_GAIN worse: at least 1 + gain
    where lower is better, at most 1 - gain where higher is (within TIE)."""
    return better_by(logs, "hi" if better == "lo" else "lo", min_gain)


def passes(logs, better, alpha, min_gain=MIN_GAIN):
    """One comparison passes: p (better) at most ALPHA and the ratio at
    least MIN_GAIN better."""
    return bool(logs) and better_by(logs, better, min_gain) and sign_flip_p(logs, better) <= alpha


def loses(logs, better, alpha, min_gain=MIN_GAIN):
    """One comparison loses: p (worse) at most ALPHA and the ratio at least
    MIN_GAIN worse."""
    worse = "hi" if better == "lo" else "lo"
    return bool(logs) and better_by(logs, worse, min_gain) and sign_flip_p(logs, worse) <= alpha


def two_sided_p(logs):
    """The two-sided p: twice the smaller one-sided p, at most 1."""
    return min(1.0, 2 * min(sign_flip_p(logs, "lo"), sign_flip_p(logs, "hi")))


def ratio_interval(logs, alpha=ALPHA):
    """The interval of the ratio at 1 - ALPHA that the test gives by
    inversion: the ratios r for which the two-sided p of (LOGS - log r) is
    above ALPHA. Its ends are found by bisection, each between a shift that
    the test rejects (beyond every log ratio: all of one sign, p = 2/2^n)
    and the mean (p = 1). (0, inf) when n rounds cannot reject any shift
    (2/2^n > ALPHA: fewer than 6 rounds at 0.05)."""
    n = len(logs)
    if n == 0 or 2 / 2 ** n > alpha:
        return 0.0, math.inf
    mean = sum(logs) / n

    def edge(rejected, accepted):
        while True:
            mid = (rejected + accepted) / 2
            if mid in (rejected, accepted):
                return accepted
            if two_sided_p([x - mid for x in logs]) > alpha:
                accepted = mid
            else:
                rejected = mid

    return math.exp(edge(min(logs) - 1, mean)), math.exp(edge(max(logs) + 1, mean))


def pass_rate(draws, better, alpha, effect, min_gain=MIN_GAIN, seed=0):
    """The share of the sign flips s of DRAWS (per-round log ratios of a
    placebo: noise) on which a comparison passes (passes()) once a true
    effect is added: s x DRAWS + log(1 - EFFECT) where lower is better,
    log(1 + EFFECT) where higher is. EFFECT 0: the false-pass rate. All
    2^n flips up to POWER_EXACT rounds, a sample of 2^POWER_EXACT seeded
    with SEED beyond; None without draws."""
    n = len(draws)
    if n == 0:
        return None
    shift = math.log(1 - effect) if better == "lo" else math.log(1 + effect)
    if n <= POWER_EXACT:
        flips = itertools.product((1, -1), repeat=n)
    else:
        rng = random.Random(seed)
        flips = ([rng.choice((1, -1)) for _ in range(n)] for _ in range(2 ** POWER_EXACT))
    hits = total = 0
    for s in flips:
        total += 1
        hits += passes([si * x + shift for si, x in zip(s, draws)], better, alpha, min_gain)
    return hits / total


def rule(cand, ref, better="lo", alpha=ALPHA, min_gain=MIN_GAIN):
    """RULE on one figure, CAND and REF its per-round values, paired in
    order: (passes, p, geometric mean ratio, a sentence saying why).
    "At least 3% better": a geometric mean ratio of at most 1 - 0.03 where
    lower is better, at least 1 + 0.03 where higher is."""
    logs = log_ratios(cand, ref)
    p = sign_flip_p(logs, better)
    gm = geo_mean_ratio(logs)
    gain_ok = better_by(logs, better, min_gain)
    ok = p <= alpha and gain_ok
    why = "%s: p = %.4f (%s %g), geometric mean ratio %.3f (%s %.2f), %d round(s)" % (
        "passes" if ok else "fails", p, "<=" if p <= alpha else ">", alpha, gm,
        ("<=" if gain_ok else ">") if better == "lo" else (">=" if gain_ok else "<"),
        1 - min_gain if better == "lo" else 1 + min_gain, len(logs))
    return ok, p, gm, why
