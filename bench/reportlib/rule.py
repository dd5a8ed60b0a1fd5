"""The decision rule, fixed before the run, applied to it: each
candidate's primary figure against each copy of the package (the package
and the placebo) and its guardrails against both at once (the pooled
test), paired by round, the guardrails' power, the placebo's verdict (a run where chance alone decided something
is void), each primary's effect and interval, the false-pass rate and
power the run's own placebo gives; decisions.csv.

RULE is the rule as the report states it; the code below is what it
states, with ALPHA, MIN_GAIN and GUARDRAILS."""

import csv
import math
import os

from .config import die, setting
from .decide import (ALPHA, MAX_POOLED_ROUNDS, MAX_ROUNDS, MIN_GAIN, better_by, geo_mean_ratio, loses, pass_rate,
                     passes, pooled_logs, pooled_p, ratio_interval, rounds_needed, sign_flip_p, smallest_p, worse_by)
from .figures import FIG
from .rawdata import fmt_csv

REFERENCE = "package"
DEFAULT_PRIMARY = "nv_p50"
# The figures that decide for every candidate: one per load, then the
# bottleneck's drops, the server's retransmissions and, on a link with
# competing flows, their throughput.
GUARDRAILS = ("nv_p50", "rd_next", "dl_time", "ka_rps", "netem_drop", "srv_retrans", "other_rate")
# Guardrails that apply only where the link has competing flows.
FLOW_GUARDRAILS = ("other_rate",)
# The true effects of the power table; 0 gives the false-pass rate.
EFFECTS = (0.0, 0.03, 0.05, 0.10)

RULE = [
    "Reference: the package, in the same pass (decide), round and link. For a candidate, a link and a figure, "
    "the per-round log ratios log(candidate / package) over the rounds where both cells exist, both loads are "
    "valid (the client's CPU at most {cli:g}% during the load) and both values are there. A value that never came "
    "(a failed visit, page or download: ∞) is replaced by its timeout (visit_timeout_s {vt:g} s for visits and "
    "the reader's pages, fetch_timeout_s {ft:g} s for the download), a keep-alive rate of 0 by one request over "
    "the run (1/wrk_duration_s, {kr:g}/s): a round where one side failed counts as the largest log ratio the "
    "timeout allows, against the side that failed; a round where both failed is left out.",
    "Primary: each candidate names its primary figure, chosen from its mechanism (bench/candidates primary=, "
    "default {primary}), and the links L where it is judged (links=, default every link of the decide pass). "
    "It passes if on at least one link of L the exact one-sided sign-flip p (better) is at most {alpha:g}/|L| "
    "(Bonferroni) and the geometric mean ratio is at least {gain:g}% better; it loses if on at least one link "
    "of L the one-sided p (worse) is at most {alpha:g}/|L| and the ratio at least {gain:g}% worse. Both against "
    "each copy of the package: the package and the placebo, paired by round the same way, so that the package's "
    "own cells, shared by every comparison, cannot decide alone (where there is no placebo, against the package).",
    "Guardrails: {guards}, less the primary, on every link of the decide pass (other_rate, the competing flows' "
    "throughput, on the links that have them), each judged against both copies of the package at once by a "
    "pooled test: in each round the candidate, the package and the placebo ran in a shuffled order, so where the "
    "candidate changes nothing each of the round's three cells is as likely to carry its name; p is the share of "
    "the 3^n namings of one cell per round whose mean log(named / geometric mean of the other two) is as bad as "
    "the candidate's or worse (at the least 1/3^n: the candidate the worst of the three in every round). One "
    "trips when that p is at most {alpha:g}/m (m = the guardrail-link pairs this run measured) and the ratio "
    "candidate / geometric mean of the two copies is at least {gain:g}% worse. Where there is no placebo, and for "
    "the placebo itself, the sign-flip test against the package (at the least 1/2^n). A guardrail whose rounds "
    "cannot reach its level cannot trip, and the report says so (the guardrails' power); one the run did not "
    "measure is named, never counted as passed.",
    "Verdict: **passes** when the primary passes, loses on no link and no guardrail trips; **fails** otherwise, "
    "with the reason. A kernel-default candidate puts one key of the package back to the kernel's default, so "
    "its verdict reads on the package's value: **package's value earns its place** when the candidate loses on "
    "its primary, **kernel default better** when it passes, **no difference shown** otherwise. A measure-only "
    "candidate is judged the same way, its verdict prefixed \"measured only:\".",
    "The placebo is the package's profile under a second name: it is judged as a candidate. If it passes or "
    "loses on its primary, or trips a guardrail (better or worse: for it both are a difference where there is "
    "none; its guardrails also take in the primary figure of every other candidate that is not measure-only), "
    "chance alone decided something "
    "and the run is **void**: every "
    "verdict is then shown as void, the would-be verdict in brackets. Without a placebo the rule cannot decide.",
    "Effect: the geometric mean ratio of each candidate's primary on each link, and its 95% interval: the ratios "
    "r for which the exact two-sided sign-flip p of (log ratios − log r) is above {alpha:g} (two-sided p = "
    "min(1, 2 × the smaller one-sided p)), its ends found by bisection.",
    "Rounds: n paired rounds give a p of 1/2^n at the least (1/3^n for the pooled test), and a candidate "
    "whose cells pair in fewer rounds "
    "than the rule needs cannot be decided. Ties: means of log ratios within 1e-9 of each other count as equal, "
    "so that the rounding of a value never decides.",
]


def rule_text(settings):
    """RULE with this run's numbers."""
    return [p.format(cli=setting(settings, "cli_limit_pct", 80), vt=setting(settings, "visit_timeout_s", 8),
                     ft=setting(settings, "fetch_timeout_s", 20), kr=1 / setting(settings, "wrk_duration_s", 8),
                     primary=DEFAULT_PRIMARY, alpha=ALPHA, gain=100 * MIN_GAIN, guards=", ".join(GUARDRAILS))
            for p in RULE]


def primary_of(c):
    return c.primary or DEFAULT_PRIMARY


def check_candidates(cands, link_names):
    """Each candidate's primary a figure that can be compared, its links
    known: a mistake there would change the decision, so it stops the
    report."""
    for c in cands:
        f = primary_of(c)
        if f not in FIG or FIG[f][4] is None:
            die("candidate %s: primary=%s is not a figure that is better one way" % (c.name, f))
        for lk in c.links or ():
            if lk not in link_names:
                die("candidate %s: links=%s: no link %s in bench/links" % (c.name, ",".join(c.links), lk))


def bound(fig, settings):
    """What a value that never came stands for: the timeout (lower is
    better) or one request over the run (keep-alive rate); None: none."""
    if fig.startswith(("nv_", "rd_")) and FIG[fig][6] == " s":
        return setting(settings, "visit_timeout_s", 8)
    if fig == "dl_time":
        return setting(settings, "fetch_timeout_s", 20)
    if fig == "ka_rps":
        return 1 / setting(settings, "wrk_duration_s", 8)
    return None


def round_values(rounds, profs, link, fig, settings, left_out=None, pas="decide"):
    """Per round of the pass PAS (the decide pass unless told), the values
    of FIG on LINK of PROFS (the candidate first), where every one is there
    and usable: [(v, ...)]. LEFT_OUT, a list, gets the rounds where all are
    there but a load was invalid."""
    out = []
    for cell in sorted(rounds.figs):
        pas_, rnd, lk, prof = cell
        if pas_ != pas or lk != link or prof != profs[0]:
            continue
        got = [rounds.value((pas, rnd, link, p), fig) for p in profs]
        vals = [v for v, _ in got]
        if any(v is None for v in vals):
            continue
        if not all(ok for _, ok in got):
            if left_out is not None:
                left_out.append(rnd)
            continue
        lo = FIG[fig][4] == "lo"
        # A value that never came: infinitely slow, or a rate of 0. Any
        # other value outside (0, inf) has no ratio, and no bound either.
        failed = [(v == math.inf) if lo else (v <= 0) for v in vals]
        usable = [f or 0 < v < math.inf for f, v in zip(failed, vals)]
        if all(failed) or not all(usable):
            continue
        if any(failed):
            cap = bound(fig, settings)
            if cap is None:
                continue
            seen = [v for f, v in zip(failed, vals) if not f]
            cap = max([cap] + seen) if lo else min([cap] + seen)
            vals = [cap if f else v for f, v in zip(failed, vals)]
        out.append(tuple(vals))
    return out


def paired_logs(rounds, cand, link, fig, settings, ref=REFERENCE, left_out=None, pas="decide"):
    """The per-round log(CAND / REF) of FIG on LINK, in the pass PAS.
    LEFT_OUT, a list, gets the rounds where both values are there but a
    load was invalid."""
    return [math.log(a / b) for a, b in round_values(rounds, (cand, ref), link, fig, settings, left_out, pas)]


class Comparison:
    """One figure of a candidate on one link, paired with REF by round in
    the pass PAS: n, p (better), p (worse), the geometric mean ratio, the
    rounds it did better in and those with no difference, whether it is better (passes) or worse (loses)
    at ALPHA_K; the ratio's 95% interval when asked; the rounds left out
    for an invalid load."""

    copies = 1

    def __init__(self, rounds, name, link, fig, settings, alpha_k, interval=False, ref=REFERENCE, pas="decide"):
        self.left_out = []
        logs = paired_logs(rounds, name, link, fig, settings, ref=ref, left_out=self.left_out, pas=pas)
        better = FIG[fig][4]
        self.n = len(logs)
        # The rounds in which the candidate did better than REF, and those
        # in which the two were equal.
        self.wins = sum(1 for x in logs if (x < 0 if better == "lo" else x > 0))
        self.ties = sum(1 for x in logs if x == 0)
        if self.n > MAX_ROUNDS:
            # More rounds than the test enumerates: no p (the verdict says
            # so), rather than a test of some of them.
            self.p_better = self.p_worse = 1.0
            self.ratio, self.better, self.worse = geo_mean_ratio(logs), False, False
            self.ci = (0.0, math.inf) if interval else None
            return
        self.p_better = sign_flip_p(logs, better)
        self.p_worse = sign_flip_p(logs, "hi" if better == "lo" else "lo")
        self.ratio = geo_mean_ratio(logs)
        self.better = passes(logs, better, alpha_k)
        self.worse = loses(logs, better, alpha_k)
        self.ci = ratio_interval(logs) if interval else None


class Pooled:
    """One guardrail of a candidate on one link against both copies of the
    package at once (decide.pooled_p): n, p (better), p (worse), the
    geometric mean ratio candidate / geometric mean of the two copies,
    whether it is better or worse at ALPHA_K (the p and at least MIN_GAIN);
    the rounds left out for an invalid load."""

    copies = 2

    def __init__(self, rounds, name, link, fig, settings, alpha_k, second):
        self.left_out = []
        vals = round_values(rounds, (name, REFERENCE, second), link, fig, settings, self.left_out)
        triples = [tuple(math.log(v) for v in t) for t in vals]
        better = FIG[fig][4]
        logs = pooled_logs(triples)
        self.n = len(triples)
        self.ratio = geo_mean_ratio(logs)
        self.ci = None
        if self.n > MAX_POOLED_ROUNDS:
            self.p_better = self.p_worse = 1.0
            self.better = self.worse = False
            return
        self.p_better = pooled_p(triples, better)
        self.p_worse = pooled_p(triples, "hi" if better == "lo" else "lo")
        self.better = bool(logs) and better_by(logs, better) and self.p_better <= alpha_k
        self.worse = bool(logs) and worse_by(logs, better) and self.p_worse <= alpha_k


def reachable(n, alpha, copies=1):
    return n > 0 and smallest_p(n, copies) <= alpha * (1 + 1e-9)


def measured(rounds, fig, link):
    """Whether the decide pass has FIG on LINK in any cell (for the
    competing flows' throughput: above 0 in one)."""
    return any(pas == "decide" and lk == link and (f.get(fig) or 0) > 0 if fig in FLOW_GUARDRAILS else
               pas == "decide" and lk == link and fig in f
               for (pas, _, lk, _), f in rounds.figs.items())


class Judgement:
    """A candidate against the package: its primary on each link of L (and
    against SECOND, the placebo, the package's second copy), its guardrails
    on each decide link, its verdict."""

    def __init__(self, c, rounds, decide_links, settings, extra_guards=(), second=None, flows=None):
        self.c = c
        self.fig = primary_of(c)
        self.links = c.links or list(decide_links)
        self.alpha_primary = ALPHA / len(self.links) if self.links else ALPHA
        self.primary = {lk: Comparison(rounds, c.name, lk, self.fig, settings, self.alpha_primary, interval=True)
                        for lk in self.links}
        # The same test against the placebo: a primary passes or loses on
        # a link only where it does against both copies of the package.
        self.second = second
        self.primary2 = {lk: Comparison(rounds, c.name, lk, self.fig, settings, self.alpha_primary, ref=second)
                         for lk in self.links} if second else {}
        # EXTRA_GUARDS: for the placebo, the other candidates' primary
        # figures, so that it is tested wherever a candidate is.
        # The guardrail-link pairs: those this run measured count in m; one
        # it did not measure (a figure older runs lack) is named, never a
        # pass. The competing flows' throughput only where there are flows
        # (FLOWS: link -> competing flows; None: wherever it was measured).
        self.guard_figs = [g for g in dict.fromkeys(list(GUARDRAILS) + list(extra_guards)) if g != self.fig]
        pairs = [(g, lk) for g in self.guard_figs for lk in decide_links
                 if g not in FLOW_GUARDRAILS or (flows.get(lk, 0) > 0 if flows is not None
                                                  else measured(rounds, g, lk))]
        self.unmeasured = [k for k in pairs if not measured(rounds, *k)]
        pairs = [k for k in pairs if k not in self.unmeasured]
        m = len(pairs)
        self.alpha_guard = ALPHA / m if m else ALPHA
        # Against both copies of the package at once (the pooled test);
        # the placebo, one of the copies, against the other alone.
        self.pooled = bool(second) and not c.placebo
        self.guard_copies = 2 if self.pooled else 1
        if self.pooled:
            self.guards = {(g, lk): Pooled(rounds, c.name, lk, g, settings, self.alpha_guard, second)
                           for g, lk in pairs}
            self.guards_each = {(g, lk): (Comparison(rounds, c.name, lk, g, settings, self.alpha_guard),
                                          Comparison(rounds, c.name, lk, g, settings, self.alpha_guard, ref=second))
                                for g, lk in pairs}
        else:
            self.guards = {(g, lk): Comparison(rounds, c.name, lk, g, settings, self.alpha_guard)
                           for g, lk in pairs}
            self.guards_each = {}
        # The rounds that pair on every decide link: what the rule can reach.
        cells = {(r, lk) for (pas, r, lk, p) in rounds.figs if pas == "decide" and p == c.name}
        refs = {(r, lk) for (pas, r, lk, p) in rounds.figs if pas == "decide" and p == REFERENCE}
        self.rounds = min((len({r for r, lk2 in cells & refs if lk2 == lk}) for lk in decide_links), default=0)
        self.better_on = [lk for lk in self.links if self.primary[lk].better and
                          (not second or self.primary2[lk].better)]
        self.worse_on = [lk for lk in self.links if self.primary[lk].worse and
                         (not second or self.primary2[lk].worse)]
        # Better or worse against the package alone: the package's own
        # cells, which the placebo does not share.
        self.package_only = [lk for lk in self.links if second and lk not in self.better_on + self.worse_on and
                             (self.primary[lk].better or self.primary[lk].worse)]
        # A placebo trips a guardrail either way: better or worse, it is a
        # difference where there is none.
        self.tripped = [k for k, cmp_ in self.guards.items()
                        if cmp_.worse or (c.placebo and cmp_.better)]
        self.verdict, self.why = self.decide()

    def cannot(self):
        """Why the rule cannot decide with these rounds, or None."""
        why = []
        if self.rounds > MAX_ROUNDS:
            why.append("%d rounds: more than the %d the test enumerates" % (self.rounds, MAX_ROUNDS))
        if not reachable(self.rounds, self.alpha_primary):
            why.append("%d paired round(s): the smallest p, 1/2^%d = %.4g, is above %.4g for the primary" % (
                self.rounds, self.rounds, 0.5 ** self.rounds, self.alpha_primary))
        elif self.guards and not reachable(self.rounds, self.alpha_guard, self.guard_copies):
            why.append("%d paired round(s): the smallest p of the guardrails' test, %.4g, is above %.4g (%g/%d): "
                       "no guardrail could trip, it takes %d rounds" % (
                           self.rounds, smallest_p(self.rounds, self.guard_copies), self.alpha_guard, ALPHA,
                           len(self.guards), rounds_needed(self.alpha_guard, self.guard_copies)))
        elif self.pooled and self.rounds > MAX_POOLED_ROUNDS:
            why.append("%d rounds: more than the %d the guardrails' pooled test enumerates" % (
                self.rounds, MAX_POOLED_ROUNDS))
        return "; ".join(why) or None

    def against_second(self, lk, side):
        """"; against the placebo: p P, ×R" for the primary on LK, or ""."""
        if not self.second:
            return ""
        cmp_ = self.primary2[lk]
        return "; against the %s: p %.4g, ×%.3f" % (self.second, getattr(cmp_, side), cmp_.ratio)

    def untestable(self):
        """The guardrails whose valid rounds (a load left out where the
        client's CPU was too busy) cannot reach their alpha: they cannot
        trip, and the verdict says so."""
        out = ["%s on %s (n %d)" % (g, lk, cmp_.n) for (g, lk), cmp_ in self.guards.items()
               if not reachable(cmp_.n, self.alpha_guard, cmp_.copies)]
        text = "; untestable guardrails, too few valid rounds: " + ", ".join(out) if out else ""
        if self.unmeasured:
            text += "; guardrails not measured in this run (not passed): " + ", ".join(
                "%s on %s" % k for k in self.unmeasured)
        return text

    def decide(self):
        """(verdict, reason) on the primary and the guardrails alone."""
        verdict, why = self.decide_tests()
        return verdict, why + (self.untestable() if verdict != "cannot decide" else "")

    def decide_tests(self):
        cannot = self.cannot()
        if cannot:
            return "cannot decide", cannot
        trips = ", ".join("%s on %s (%s, p %.4g, ×%.3f%s)" % (
            g, lk, "worse" if self.guards[(g, lk)].worse else "better",
            min(self.guards[(g, lk)].p_worse, self.guards[(g, lk)].p_better), self.guards[(g, lk)].ratio,
            " against both copies" if self.pooled else "")
            for g, lk in self.tripped)
        better = "; ".join("%s better on %s (p %.4g, ×%.3f%s)" % (
            self.fig, lk, self.primary[lk].p_better, self.primary[lk].ratio, self.against_second(lk, "p_better"))
            for lk in self.better_on)
        worse = "; ".join("%s worse on %s (p %.4g, ×%.3f%s)" % (
            self.fig, lk, self.primary[lk].p_worse, self.primary[lk].ratio, self.against_second(lk, "p_worse"))
            for lk in self.worse_on)
        alone = "; ".join("%s %s than the package alone on %s (p %.4g, ×%.3f), not than the placebo (%s)" % (
            self.fig, "better" if self.primary[lk].better else "worse", lk,
            min(self.primary[lk].p_better, self.primary[lk].p_worse), self.primary[lk].ratio,
            self.against_second(lk, "p_better" if self.primary[lk].better else "p_worse").lstrip("; "))
            for lk in self.package_only)
        if self.c.placebo:
            if self.worse_on:
                return "loses", worse
            if self.better_on and not self.tripped:
                return "passes", better
            if self.tripped:
                return "trips a guardrail", "guardrail tripped: %s" % trips
            return "no difference shown", "neither better nor worse on its primary, no guardrail tripped"
        if self.worse_on:
            verdict, why = "fails", worse
        elif self.better_on and not self.tripped:
            verdict, why = "passes", better + "; no guardrail tripped"
        elif self.better_on:
            verdict, why = "fails", better + ", but guardrail tripped: " + trips
        else:
            best = min(self.links, key=lambda lk: self.primary[lk].p_better, default=None)
            why = "primary not better" + (" (best: %s, p %.4g against %.4g, ×%.3f)" % (
                best, self.primary[best].p_better, self.alpha_primary, self.primary[best].ratio) if best else "")
            if alone:
                why += "; " + alone
            if self.tripped:
                why += "; guardrail tripped: " + trips
            verdict = "fails"
        if self.c.kernel_default:
            verdict = ("package's value earns its place" if self.worse_on else
                       "kernel default better" if verdict == "passes" else "no difference shown")
        return verdict, why


def judge_all(cands, rounds, decide_links, settings, flows=None):
    """{name: Judgement} for the candidates measured in the decide pass,
    and the run's state: (void, a sentence). Each Judgement's shown
    verdict (shown) says void or cannot decide where the run does."""
    measured = {p for (pas, _, _, p) in rounds.figs if pas == "decide"}
    # A measure-only candidate decides nothing, so its figure is not one the
    # placebo must guard: with it, a fifth figure on four links would put
    # the placebo's guardrails out of 8 rounds' reach (0.05/16 < 1/256).
    primaries = [primary_of(c) for c in cands if c.name in measured and not c.placebo and not c.measure_only]
    second = next((c.name for c in cands if c.placebo and c.name in measured), None)
    out = {c.name: Judgement(c, rounds, decide_links, settings, primaries if c.placebo else (),
                             None if c.placebo else second, flows)
           for c in cands if c.name in measured}
    placebos = [j for j in out.values() if j.c.placebo]
    # Without a placebo that the rounds can judge, nothing shows that chance
    # alone decides nothing: the other verdicts cannot stand.
    blocked = None
    if REFERENCE not in measured:
        blocked = "the package was not measured in the decide pass: nothing to decide against"
    elif not placebos:
        blocked = "no placebo was measured: the rule cannot decide"
    elif any(j.verdict == "cannot decide" for j in placebos):
        blocked = "the placebo cannot be decided with these rounds, so neither can the rest"
    void = blocked is None and any(j.verdict != "no difference shown" for j in placebos)
    if blocked:
        state = (False, blocked)
    elif void:
        state = (True, "the run is void, chance alone decided something: %s" % "; ".join(
            "%s %s (%s)" % (j.c.name, j.verdict, j.why) for j in placebos if j.verdict != "no difference shown"))
    else:
        state = (False, "the placebo shows no difference: the run stands")
    for j in out.values():
        v = j.verdict
        if not j.c.placebo:
            if void:
                v = "void [%s]" % v
            elif blocked and v != "cannot decide":
                v, j.why = "cannot decide", "%s (would be: %s; %s)" % (blocked, v, j.why)
        j.shown = ("measured only: " + v) if j.c.measure_only else v
    return out, state


def power_rows(judgements, rounds, settings):
    """The false-pass rate and power of each primary figure (and its
    Bonferroni share), on each link it is judged on, from the placebo's
    per-round log ratios against the package: [(figure, link, alpha, n,
    [share per EFFECT], candidates)]."""
    placebo = next((j.c.name for j in judgements.values() if j.c.placebo), None)
    if placebo is None:
        return []
    groups = {}
    for j in judgements.values():
        for lk in j.links:
            groups.setdefault((j.fig, lk, j.alpha_primary), []).append(j.c.name)
    rows = []
    for (fig, lk, alpha), names in groups.items():
        draws = paired_logs(rounds, placebo, lk, fig, settings)
        shares = [pass_rate(draws, FIG[fig][4], alpha, d) if len(draws) <= MAX_ROUNDS else None for d in EFFECTS]
        rows.append((fig, lk, alpha, len(draws), shares, names))
    return rows


def copies_spread(rounds, link, fig, settings, second):
    """The largest ratio between the package's and the placebo's values of
    FIG on LINK in one round (at least 1): a candidate this much worse than
    the better copy of each round is worse than both in every round, where
    a guardrail's test reaches its smallest p. None without a placebo or a
    round where both are there."""
    if not second:
        return None
    logs = paired_logs(rounds, second, link, fig, settings)
    return math.exp(max(abs(x) for x in logs)) if logs else None


def guard_power_rows(judgements, rounds, settings):
    """The guardrails' power: per candidate, guardrail and link, [(name,
    figure, link, copies, n, alpha, smallest p, rounds needed, whether n
    rounds can trip it, the ratio to the better copy of each round at
    which it trips whatever the noise: the rule's minimum times the
    copies' spread, on the worse side (then the candidate is at least 3%
    worse than both copies in every round: the smallest p; None: no
    placebo), result)]."""
    placebo = next((j.c.name for j in judgements.values() if j.c.placebo), None)
    rows = []
    for name, j in judgements.items():
        for (g, lk), cmp_ in j.guards.items():
            spread = copies_spread(rounds, lk, g, settings, placebo)
            worst = None
            if spread is not None:
                worst = (1 + MIN_GAIN) * spread if FIG[g][4] == "lo" else (1 - MIN_GAIN) / spread
            can = reachable(cmp_.n, j.alpha_guard, cmp_.copies)
            rows.append((name, g, lk, cmp_.copies, cmp_.n, j.alpha_guard, smallest_p(cmp_.n, cmp_.copies),
                         rounds_needed(j.alpha_guard, cmp_.copies), can, worst, guard_result(cmp_, j)))
        for g, lk in j.unmeasured:
            rows.append((name, g, lk, j.guard_copies, 0, j.alpha_guard, None, None, False, None, "not measured"))
    return rows


def guard_result(cmp_, j):
    """A guardrail's result as decisions.csv and the power table write it."""
    if not cmp_.n:
        return "no valid pair" if cmp_.left_out else "not measured"
    if cmp_.worse or (j.c.placebo and cmp_.better):
        return "tripped"
    if not reachable(cmp_.n, j.alpha_guard, cmp_.copies):
        return "cannot trip with %d rounds" % cmp_.n
    return "ok"


def write_decisions(res, judgements, state):
    def p(v):
        return "%.6g" % v

    def unmeasured(cmp_):
        return "no valid pair" if cmp_.left_out else "not measured"

    def result(cmp_):
        if not cmp_.n:
            return unmeasured(cmp_)
        return "better" if cmp_.better else "worse" if cmp_.worse else "no difference"

    with open(os.path.join(res, "decisions.csv"), "w", encoding="utf-8", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["candidate", "link", "figure", "role", "n", "p_better", "p_worse", "ratio", "ci_low",
                     "ci_high", "result"])
        for name, j in judgements.items():
            for lk in j.links:
                cmp_ = j.primary[lk]
                wr.writerow([name, lk, j.fig, "primary", cmp_.n, p(cmp_.p_better), p(cmp_.p_worse),
                             fmt_csv(cmp_.ratio), fmt_csv(cmp_.ci[0]), fmt_csv(cmp_.ci[1]), result(cmp_)])
                if j.second:
                    cmp2 = j.primary2[lk]
                    wr.writerow([name, lk, j.fig, "primary against " + j.second, cmp2.n, p(cmp2.p_better),
                                 p(cmp2.p_worse), fmt_csv(cmp2.ratio), "", "", result(cmp2)])
            for (g, lk), cmp_ in j.guards.items():
                wr.writerow([name, lk, g, "guardrail against both copies" if cmp_.copies == 2 else "guardrail",
                             cmp_.n, p(cmp_.p_better), p(cmp_.p_worse), fmt_csv(cmp_.ratio), "", "",
                             guard_result(cmp_, j)])
                for ref, each in zip((REFERENCE, j.second), j.guards_each.get((g, lk), ())):
                    wr.writerow([name, lk, g, "guardrail, against %s alone" % ref, each.n, p(each.p_better),
                                 p(each.p_worse), fmt_csv(each.ratio), "", "", result(each)])
            for g, lk in j.unmeasured:
                wr.writerow([name, lk, g, "guardrail", 0, "", "", "", "", "", "not measured"])
            wr.writerow([name, "all", j.fig, "verdict", "", "", "", "", "", "",
                         j.shown + (" (the run is void)" if state[0] and j.c.placebo else "")])
