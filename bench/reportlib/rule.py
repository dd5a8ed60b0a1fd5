"""The decision rule, fixed before the run, applied to it: each
candidate's primary figure and guardrails against the package, paired by
round, the placebo's verdict (a run where chance alone decided something
is void), each primary's effect and interval, the false-pass rate and
power the run's own placebo gives; decisions.csv.

RULE is the rule as the report states it; the code below is what it
states, with ALPHA, MIN_GAIN and GUARDRAILS."""

import csv
import math
import os

from .config import die, setting
from .decide import ALPHA, MAX_ROUNDS, MIN_GAIN, geo_mean_ratio, loses, pass_rate, passes, ratio_interval, sign_flip_p
from .figures import FIG
from .rawdata import fmt_csv

REFERENCE = "package"
DEFAULT_PRIMARY = "nv_p50"
# The figures that decide for every candidate: one per load.
GUARDRAILS = ("nv_p50", "rd_next", "dl_time", "ka_rps")
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
    "Guardrails: {guards}, less the primary, on every link of the decide pass. One trips when its one-sided p "
    "(worse) is at most {alpha:g}/m (m = the guardrails × the decide links) and its ratio is at least {gain:g}% "
    "worse.",
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
    "Rounds: n paired rounds give a p of 1/2^n at the least, and a candidate whose cells pair in fewer rounds "
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


def paired_logs(rounds, cand, link, fig, settings, ref=REFERENCE, left_out=None):
    """The per-round log(CAND / REF) of FIG on LINK, in the decide pass.
    LEFT_OUT, a list, gets the rounds where both values are there but a
    load was invalid."""
    logs = []
    for cell in sorted(rounds.figs):
        pas, rnd, lk, prof = cell
        if pas != "decide" or lk != link or prof != cand:
            continue
        a, a_ok = rounds.value(cell, fig)
        b, b_ok = rounds.value(("decide", rnd, link, ref), fig)
        if a is None or b is None:
            continue
        if not (a_ok and b_ok):
            if left_out is not None:
                left_out.append(rnd)
            continue
        lo = FIG[fig][4] == "lo"
        # A value that never came: infinitely slow, or a rate of 0. Any
        # other value outside (0, inf) has no ratio, and no bound either.
        failed_a, failed_b = (a == math.inf, b == math.inf) if lo else (a <= 0, b <= 0)
        usable_a, usable_b = failed_a or 0 < a < math.inf, failed_b or 0 < b < math.inf
        if (failed_a and failed_b) or not (usable_a and usable_b):
            continue
        if failed_a or failed_b:
            cap = bound(fig, settings)
            if cap is None:
                continue
            seen = b if failed_a else a
            cap = max(cap, seen) if lo else min(cap, seen)
            a, b = (cap if failed_a else a), (cap if failed_b else b)
        logs.append(math.log(a / b))
    return logs


class Comparison:
    """One figure of a candidate on one link: n, p (better), p (worse), the
    geometric mean ratio, whether it is better (passes) or worse (loses) at
    ALPHA_K; the ratio's 95% interval when asked; the rounds left out for
    an invalid load."""

    def __init__(self, rounds, name, link, fig, settings, alpha_k, interval=False, ref=REFERENCE):
        self.left_out = []
        logs = paired_logs(rounds, name, link, fig, settings, ref=ref, left_out=self.left_out)
        better = FIG[fig][4]
        self.n = len(logs)
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


def reachable(n, alpha):
    return n > 0 and 0.5 ** n <= alpha


class Judgement:
    """A candidate against the package: its primary on each link of L (and
    against SECOND, the placebo, the package's second copy), its guardrails
    on each decide link, its verdict."""

    def __init__(self, c, rounds, decide_links, settings, extra_guards=(), second=None):
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
        self.guard_figs = [g for g in dict.fromkeys(list(GUARDRAILS) + list(extra_guards)) if g != self.fig]
        m = len(self.guard_figs) * len(decide_links)
        self.alpha_guard = ALPHA / m if m else ALPHA
        self.guards = {(g, lk): Comparison(rounds, c.name, lk, g, settings, self.alpha_guard)
                       for g in self.guard_figs for lk in decide_links}
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
        elif not reachable(self.rounds, self.alpha_guard):
            why.append("%d paired round(s): the smallest p, %.4g, is above %.4g: no guardrail could trip" % (
                self.rounds, 0.5 ** self.rounds, self.alpha_guard))
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
               if not reachable(cmp_.n, self.alpha_guard)]
        return "; untestable guardrails, too few valid rounds: " + ", ".join(out) if out else ""

    def decide(self):
        """(verdict, reason) on the primary and the guardrails alone."""
        verdict, why = self.decide_tests()
        return verdict, why + (self.untestable() if verdict != "cannot decide" else "")

    def decide_tests(self):
        cannot = self.cannot()
        if cannot:
            return "cannot decide", cannot
        trips = ", ".join("%s on %s (%s, p %.4g, ×%.3f)" % (
            g, lk, "worse" if self.guards[(g, lk)].worse else "better",
            min(self.guards[(g, lk)].p_worse, self.guards[(g, lk)].p_better), self.guards[(g, lk)].ratio)
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


def judge_all(cands, rounds, decide_links, settings):
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
                             None if c.placebo else second)
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
                wr.writerow([name, lk, g, "guardrail", cmp_.n, p(cmp_.p_better), p(cmp_.p_worse),
                             fmt_csv(cmp_.ratio), "", "",
                             ("tripped" if cmp_.worse else "ok") if cmp_.n else unmeasured(cmp_)])
            wr.writerow([name, "all", j.fig, "verdict", "", "", "", "", "", "",
                         j.shown + (" (the run is void)" if state[0] and j.c.placebo else "")])
