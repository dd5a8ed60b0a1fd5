"""report.md: the run and its plan, the decision rule (before any figure),
the placebo and the decisions, then the tables per link and pass; the
sections after them are in sections.py."""

import os

from .config import loss_words, setting
from .decide import ALPHA, rounds_needed, smallest_p
from .figures import BASE_PROFILES, FIG, SATURATED_PCT
from .floors import INITIAL_WINDOW, download_floor
from .rawdata import FILE_BYTES, PAGE_BYTES
from .rule import EFFECTS, rule_text
from . import sections
from .sections import num


def invalid_mark(s):
    return " §%d" % s.invalid if s is not None and s.invalid else ""


def cell(summary, pas, link, prof, fig, floor=None):
    """A figure's median (min–max) and unit; its ratio to FLOOR; § and the
    rounds whose load was invalid."""
    s = summary.get((pas, link, prof, fig))
    if s is None:
        return "–"
    dec, unit = FIG[fig][3], FIG[fig][6]
    text = "%s (%s–%s)%s" % (num(s.median, dec), num(s.min, dec), num(s.max, dec), unit)
    if floor:
        text += " ×%s" % num(s.median / floor, 2)
    return text + invalid_mark(s)


def cpu_cell(summary, pas, link, prof, load):
    busy = summary.get((pas, link, prof, load + "_srv_busy"))
    per = summary.get((pas, link, prof, load + "_srv_ms"))
    if busy is None:
        return "–"
    text = "%s%%, %s ms" % (num(busy.median, 0), num(per.median if per else None, 1))
    if busy.median >= SATURATED_PCT:
        text += " ‡"
    return text


def floors(li, iw):
    """The link's floor for a new visitor's page and for the 2 MB download
    from an initial window of IW segments (bench/reportlib/floors.py)."""
    if not li or not li.get("rate_mbit"):
        return None, None
    args = (li["rtt_ms"], li["rate_mbit"], iw, li.get("mtu", 1500))
    return download_floor(PAGE_BYTES, *args), download_floor(FILE_BYTES, *args)


def machine(settings):
    w = []
    w.append("Run on %s with `bench/run`. Host: %s, %s CPUs, %s GiB, %s, kernel %s. VM: Debian %s, kernel %s, "
             "%s vCPUs, %s MiB, QEMU %s with %s. vCPU threads: %s. Package: %s. Wall time %s s (estimated %s s)." % (
                 settings.get("date", "?"), settings.get("host_cpu_model", "?"), settings.get("host_cpus", "?"),
                 settings.get("host_memory_gib", "?"), settings.get("host_os", "?"), settings.get("host_kernel", "?"),
                 settings.get("debian", "?"), settings.get("kernel", "?"), settings.get("cpus", "?"),
                 settings.get("vm_memory_mib", "?"), settings.get("qemu", "?"), settings.get("accel", "?").upper(),
                 settings.get("vcpu_pinning", "?"), settings.get("package", "?"), settings.get("wall_seconds", "?"),
                 settings.get("estimate_seconds", "?")))
    boots = settings.get("vm_boots", "1")
    if boots != "1":
        w.append("The VM was booted %s times: the guest died before the end (settings/boots.txt, the consoles in "
                 "settings/console-boot*.log), and a fresh copy of the image measured the cells still to do; "
                 "the cells finished before were kept." % boots)
    return w


RUN_KEYS = ["seed", "rounds", "ref_rounds", "decide_links", "ref_links", "decide_profiles", "ref_profiles",
            "wrk_duration_s", "wrk_timeout_s", "visits", "visitors", "visit_duration_s", "visit_timeout_s",
            "reader_idle_s", "compete_warmup_s", "fetches", "fetch_timeout_s", "cli_limit_pct",
            "page_priorities"]


def plan_words(rounds, settings, plan, link_order, profiles):
    """The run's plan, from the cells done (and settings/plan.txt)."""
    w = []

    def order(p):
        return profiles.index(p) if p in profiles else len(profiles)

    shown = ["%s %s" % (k, settings[k]) for k in RUN_KEYS if k in settings]
    if shown:
        w.append("Settings (settings/run.txt): %s." % ", ".join(shown))
    per = {}
    for pas, rnd, link, prof in rounds.figs:
        per.setdefault(pas, {}).setdefault((link, prof), set()).add(rnd)
    dec = per.get("decide", {})
    if dec:
        links = [lk for lk in link_order if any(k[0] == lk for k in dec)]
        profs = sorted({k[1] for k in dec}, key=order)
        n = len(set().union(*dec.values()))
        how = ("the profiles' order shuffled per round and link with seed %s" % settings["seed"]
               if "seed" in settings else "no seed: a run of one pass in a fixed order, before the plan was "
               "shuffled and the reference pass split off; read here as the decide pass")
        w.append("Decide pass: %d round(s) × %d link(s) (%s) × %d profile(s) (%s), %s; every comparison is "
                 "paired within a round." % (n, len(links), ", ".join(links), len(profs), ", ".join(profs), how))
    ref = per.get("ref", {})
    if ref:
        links = [lk for lk in link_order if any(k[0] == lk for k in ref)]
        profs = sorted({k[1] for k in ref}, key=order)
        most = max(len(r) for r in ref.values())
        once = sorted("%s on %s" % (p, lk) for (lk, p), r in ref.items() if len(r) < most)
        w.append("Reference pass: %s on %s, %d round(s)%s." % (
            ", ".join(profs), ", ".join(links), most,
            "; fewer rounds (certain to stall: a link with an MTU below 1500 and a profile without "
            "tcp_mtu_probing): %s" % ", ".join(once) if once else ""))
    else:
        w.append("Reference pass: not run.")
    if plan:
        w.append("settings/plan.txt lists %d cell(s) in the order they ran (the orders are at the end)." % len(plan))
    return w


def reach_words(decide_links, nrounds, judgements):
    """Whether the rounds of this run can reach the rule's thresholds: n
    paired rounds give a p of 1/2^n at the least against one copy of the
    package, 1/3^n against both (the guardrails' pooled test)."""
    k = len(decide_links)
    if not k:
        return "No decide pass: nothing to decide."
    low = smallest_p(nrounds) if nrounds else 1.0
    text = ("With this run's %d round(s) the smallest p is 1/2^%d = %.4g against one copy of the package and "
            "1/3^%d = %.4g against both at once. A primary judged on all %d decide link(s) needs %.4g (%s)." % (
                nrounds, nrounds, low, nrounds, smallest_p(nrounds, 2) if nrounds else 1.0, k, ALPHA / k,
                "reachable" if low <= ALPHA / k else "out of reach"))
    parts, blocked = [], ALPHA / k < low
    for name, j in judgements.items():
        if not j.guards:
            continue
        ok = smallest_p(nrounds, j.guard_copies) <= j.alpha_guard * (1 + 1e-9)
        parts.append("%s, %d guardrail-link pair(s) (%s): %g/%d = %.4g, %s" % (
            name, len(j.guards), "pooled over both copies" if j.guard_copies == 2 else "against the package",
            ALPHA, len(j.guards), j.alpha_guard,
            "reachable" if ok else "**out of reach: no guardrail can trip with %d rounds, it takes %d**" % (
                nrounds, rounds_needed(j.alpha_guard, j.guard_copies))))
        blocked = blocked or (j.c.placebo and not ok)
    if parts:
        text += " The guardrails need: " + "; ".join(parts) + "."
    if blocked:
        text += " The rule cannot decide with %d round(s)." % nrounds
    return text


def decision_rows(judgements, decide_links):
    w = ["| candidate | primary | %s | guardrails tripped | verdict |" % " | ".join(decide_links),
         "|---|---|%s---|---|" % ("---|" * len(decide_links))]
    for name, j in judgements.items():
        cols = []
        for lk in decide_links:
            c = j.primary.get(lk)
            if c is None:
                cols.append("–")
            elif not c.n:
                cols.append("no valid pair" if c.left_out else "not measured")
            else:
                c2 = j.primary2.get(lk)
                cols.append("p better %.4g, p worse %.4g, %s, n %d%s%s%s" % (
                    c.p_better, c.p_worse, sections.ratio_text(c), c.n,
                    " (%d left out)" % len(c.left_out) if c.left_out else "",
                    "; against the %s: p better %.4g, p worse %.4g, ×%.3f, n %d" % (
                        j.second, c2.p_better, c2.p_worse, c2.ratio, c2.n) if c2 is not None and c2.n else "",
                    " **better**" if lk in j.better_on else " **worse**" if lk in j.worse_on else ""))
        trips = ", ".join("%s on %s" % t for t in j.tripped) or "none"
        w.append("| %s | %s | %s | %s | **%s**: %s |" % (name, j.fig, " | ".join(cols), trips, j.shown, j.why))
    return w


def power_table(rows):
    if not rows:
        return ["No placebo in the run: no noise to estimate the false-pass rate and the power from."]
    w = ["| primary figure | link | α per link | placebo rounds | %s | candidates |" % " | ".join(
        ("d = 0 (false passes)" if d == 0 else "d = %g%%" % (100 * d)) for d in EFFECTS),
        "|---|---|---|---|%s---|" % ("---|" * len(EFFECTS))]
    for fig, lk, alpha, n, shares, names in rows:
        w.append("| %s | %s | %.4g | %d | %s | %s |" % (
            fig, lk, alpha, n, " | ".join("n/a" if s is None else "%.1f%%" % (100 * s) for s in shares),
            ", ".join(names)))
    return w


def guard_power_table(rows, nrounds):
    """The guardrails' power: what each one's rounds can reach."""
    if not rows:
        return ["No guardrail was judged."]
    short = ["%s's %s on %s (%d rounds, needs %d)" % (name, g, lk, n, need)
             for name, g, lk, _, n, _, _, need, can, _, res in rows if not can and res not in ("not measured", "tripped")]
    w = []
    if short:
        w += ["**Guardrails that cannot trip with these rounds**: %s." % ", ".join(short), ""]
    w += ["Per guardrail and link: the test (pooled: against both copies of the package at once, its smallest p "
          "1/3^n; against the package: the sign-flip test, 1/2^n), the paired rounds n, its level α = 0.05/m, "
          "the smallest p of n rounds, the fewest rounds that can reach α, and the ratio to the better copy of "
          "each round at which it trips whatever the noise: the rule's 3% times the largest ratio between the "
          "package and the placebo in one round of this run (a candidate that much worse than the better copy of "
          "each round is 3% worse than both in every round: the smallest p, a trip wherever n reaches α). Below "
          "it a trip needs the candidate worse than both in nearly every round.", "",
          "| candidate | guardrail | link | test | rounds | α | smallest p | rounds needed | trips for certain at "
          "| result |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name, g, lk, copies, n, alpha, low, need, can, worst, res in rows:
        if res == "not measured":
            w.append("| %s | %s | %s | %s | – | %.4g | – | – | – | **not measured** (not passed) |" % (
                name, g, lk, "pooled" if copies == 2 else "against the package", alpha))
            continue
        w.append("| %s | %s | %s | %s | %d | %.4g | %s | %d | %s | %s |" % (
            name, g, lk, "pooled" if copies == 2 else "against the package", n, alpha,
            "1/%d^%d = %.4g" % (3 if copies == 2 else 2, n, low), need,
            "×%.3f" % worst if worst is not None else "–",
            res if can or res == "tripped" else "**%s** (needs %d)" % (
                "no valid pair, cannot trip" if not n else "cannot trip with %d rounds" % n, need)))
    return w


def drop_table(summary, links, link_info, profiles):
    """Drops and retransmissions at the bottleneck, and the competing
    flows' throughput, per pass, link and profile."""
    w = ["netem's counters on the router toward the client (its random loss and what its buffer could not hold, "
         "of every sender's packets: the competing flows' too) as the share of the packets dropped; the server's "
         "retransmitted segments over the segments it sent (its network namespace's TCP counters); the competing "
         "flows' throughput over the cell, where the link has them. Median (min–max) over the rounds. A figure "
         "this run's results.csv does not hold is **not measured**: the runs before 2026-12-07 did not count the "
         "retransmissions, and their results.csv holds no cell's seconds (their raw files do: bench/report makes "
         "results.csv again from raw/ where it is there). A cell where netem dropped nothing has no log ratio: it "
         "is left out of the drops' guardrail.", "",
         "| pass | link | profile | drops | the server's retransmissions | the competing flows' throughput |",
         "|---|---|---|---|---|---|"]
    shown = 0
    for pas in ("decide", "ref"):
        for lk in links:
            for p in profiles:
                if not any((pas, lk, p, f) in summary for f in ("netem_drop", "nv_p50", "dl_time", "ka_rps")):
                    continue
                shown += 1
                flows = link_info.get(lk, {}).get("flows", 0)
                w.append("| %s | %s | %s | %s | %s | %s |" % (
                    pas, lk, p, cell(summary, pas, lk, p, "netem_drop")
                    if (pas, lk, p, "netem_drop") in summary else "not measured",
                    cell(summary, pas, lk, p, "srv_retrans") if (pas, lk, p, "srv_retrans") in summary
                    else "not measured",
                    ("no competing flows" if not flows else
                     cell(summary, pas, lk, p, "other_rate") if (pas, lk, p, "other_rate") in summary
                     else "not measured")))
    if not shown:
        w.append("| not run | | | | | |")
    return w


def link_tables(summary, pas, link, profiles, li, iws):
    """The tables of one pass on one link: the loads, then the new visitors'
    phases and the reader."""
    present = [p for p in profiles if any(k[0] == pas and k[1] == link and k[2] == p for k in summary)]
    if not present:
        return ["Not run on this link."]
    w = ["| profile | keep-alive req/s | server CPU, keep-alive | new visitor TTLB (× floor) "
         "| server CPU per visit | reader's next page | 2 MB download (× floor) | server CPU per download |",
         "|---|---|---|---|---|---|---|---|"]
    for p in present:
        f_nv, f_dl = floors(li, iws.get(p, INITIAL_WINDOW))
        w.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            p, cell(summary, pas, link, p, "ka_rps"), cpu_cell(summary, pas, link, p, "ka"),
            cell(summary, pas, link, p, "nv_p50", f_nv), cpu_cell(summary, pas, link, p, "nv"),
            cell(summary, pas, link, p, "rd_next"), cell(summary, pas, link, p, "dl_time", f_dl),
            cpu_cell(summary, pas, link, p, "dl")))
    w += ["", "| profile | TCP connect | TLS handshake | wait for the first byte | transfer | TTLB p95 "
          "| within 2 s | reader's first page | reader's pause |", "|---|---|---|---|---|---|---|---|---|"]
    for p in present:
        w.append("| %s | %s |" % (p, " | ".join(cell(summary, pas, link, p, f) for f in (
            "nv_tcp", "nv_tls", "nv_wait", "nv_xfer", "nv_p95", "nv_2s", "rd_first", "rd_pause"))))
    return w


def write_report(res, summary, rounds, ctx, judgements, state, power, guard_power, plotted):
    """CTX: links (in order), decide_links, profiles, cands, link_info,
    settings, plan."""
    settings, link_info = ctx["settings"], ctx["link_info"]
    L = []
    w = L.append
    names = dict(BASE_PROFILES)
    for c in ctx["cands"]:
        names[c.name] = "candidate: " + c.reason
    iws = {p: sections.initial_window(ctx["cands"], p) for p in ctx["profiles"]}
    nrounds = len({r for (pas, r, _, _) in rounds.figs if pas == "decide"})

    w("# Benchmark: what a visitor gets, in a Debian 13 VM")
    w("")
    if ctx["raw_archive"]:
        w("Raw files: `%s`, SHA-256 `%s` (raw.sha256), kept outside git: attached to the release that follows "
          "the run, and on the machine that made it in bench/raw-archive's store "
          "(/var/cache/wp-panel-nettune-dev/bench-raw by default). `bench/run --report DIR` checks the archive "
          "against that SHA-256 and unpacks it into raw/ (bench/README, \"The raw files of each run\")." % (
              ctx["raw_archive"][1], ctx["raw_archive"][0]))
        w("")
    for para in (machine(settings) if settings else []) + plan_words(rounds, settings, ctx["plan"], ctx["links"],
                                                                          ctx["profiles"]):
        w(para)
        w("")
    w("## The decision rule, fixed before the run")
    w("")
    for para in rule_text(settings):
        w("* " + para)
    w("")
    w(reach_words(ctx["decide_links"], nrounds, judgements))
    w("")
    w("## The placebo")
    w("")
    w("%s%s." % ("**Void.** " if state[0] else "", state[1][0].upper() + state[1][1:]))
    w("")
    w("## Decisions")
    w("")
    if judgements:
        w("Per link: the one-sided p of the primary, better and worse, the geometric mean ratio candidate / package "
          "[its 95%% interval], "
          "the paired rounds; then the same against the placebo, the package's second copy (better or worse "
          "takes both). Bonferroni: a primary judged on |L| links at %g/|L|, each guardrail at %g/m." % (
              ALPHA, ALPHA))
        w("")
        L.extend(decision_rows(judgements, ctx["decide_links"]))
    else:
        w("No candidate was measured in the decide pass.")
    w("")
    w("False passes and power, from this run's own placebo: for each primary figure and link, the placebo's "
      "per-round log ratios against the package are draws of the noise; for a true effect d, the share of all "
      "2^n sign flips of those draws, shifted by log(1 − d) (log(1 + d) where higher is better), on which the "
      "primary passes on that link against one copy of the package (p at most α per link, the ratio at least 3% "
      "better). d = 0: the false-pass rate. The rule asks for a pass against both copies, so the rule's own "
      "false-pass rate and power are at most these. Beyond 12 rounds, a seeded sample of 4096 flips.")
    w("")
    L.extend(power_table(power))
    w("")
    w("## The guardrails' power")
    w("")
    L.extend(guard_power_table(guard_power, nrounds))
    w("")
    w("## Drops and retransmissions at the bottleneck")
    w("")
    L.extend(drop_table(summary, ctx["links"], link_info, ctx["profiles"]))
    w("")
    L.extend(sections.floor_section(summary, ctx, iws))
    w("Each figure below: median (min–max) over the rounds, each round's figure computed from that round's "
      "measurements. × floor: the median over the link's floor (the lossy link's section says how it is "
      "computed), from the profile's initial window. Server CPU: the server's vCPU busy share during the load "
      "and its busy time per request (visit, download) completed; ‡ the server's CPU was saturated (median busy "
      ">= %d%%). §N: in N round(s) the client's CPU was above %g%% during the load: shown, and left out of the "
      "decisions. ∞: the visit, page or download did not finish." % (
          SATURATED_PCT, setting(settings, "cli_limit_pct", 80)))
    w("")
    for link in ctx["links"]:
        li = link_info.get(link, {})
        w("## Link %s: %g ms RTT, %s, %g Mbit/s, MTU %d, buffer %g BDP, %d competing flow(s) (%s)" % (
            link, li.get("rtt_ms", 0), loss_words(li), li.get("rate_mbit", 0), li.get("mtu", 1500),
            li.get("buffer", 1), li.get("flows", 0), li.get("what", "")))
        w("")
        for pas, what in (("decide", "Decide pass"), ("ref", "Reference pass")):
            w("### %s" % what)
            w("")
            L.extend(link_tables(summary, pas, link, ctx["profiles"], li, iws))
            w("")
    if plotted:
        w("![one panel per link and load: medians, min–max whiskers](plot.png)")
        w("")
    L.extend(sections.page_section(summary, rounds, ctx))
    L.extend(sections.installer_section(summary, rounds, ctx))
    L.extend(sections.rest(res, summary, ctx, names, iws))
    with open(os.path.join(res, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(L))
