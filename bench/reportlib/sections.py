"""report.md after the tables: the competing flows, the lossy link against
its physical limits, the clean link's question, the targets (from the
reference pass), the profiles as applied, the plan's orders, the timings
and how it was measured."""

import csv
import math
import os
import re
import statistics

from .decide import ALPHA
from .figures import FIG, INF, compare, measured_on, saturated
from .floors import (HTTP_HEADER_BYTES, INITIAL_WINDOW, download_floor, fair_share_floor, loss_floor, page_ceiling,
                     response_bytes,
                     wire_bytes)
from .rawdata import FILE_BYTES, PAGE_BYTES
from .rule import Comparison


def num(v, dec):
    if v is None:
        return "n/a"
    if math.isinf(v):
        return "∞"
    return "%.*f" % (dec, v)


def initial_window(cands, prof):
    """The initial window a profile starts with: a candidate's route
    attribute initcwnd or the window its "prog" line gives (windows_of),
    or Linux's."""
    for c in cands:
        w = windows_of(c) if c.name == prof else None
        if w:
            return w[1]
    return INITIAL_WINDOW


def target_pass(summary):
    """The reference pass where it ran; the one pass of an older run else."""
    return "ref" if any(k[0] == "ref" for k in summary) else "decide"


def fig_list(summary, pas, link, prof, ref, figs):
    parts = []
    for f in figs:
        s, r = summary[(pas, link, prof, f)], summary[(pas, link, ref, f)]
        d = FIG[f][3]
        parts.append("%s %s against %s–%s" % (FIG[f][2], num(s.median, d), num(r.min, d), num(r.max, d)))
    return "; ".join(parts)


def competing(summary, links, link_info, profiles):
    w = ["## Competing flows", ""]
    busy = [lk for lk in links if link_info.get(lk, {}).get("flows", 0) > 0]
    if not busy:
        return w + ["No link with competing flows in this run.", ""]
    for lk in busy:
        flows = link_info[lk]["flows"]
        w += ["Link %s: %d long cubic flow(s) beside the server's, from another sender through the same "
              "bottleneck (a buffer of %g BDP). One sender's fair share of the bytes toward the client: 1/%d = "
              "%.0f%%; the server's loads open several connections at once (wrk's ten), so stock's cubic share "
              "is the baseline to read the others against. Medians of each pass: the decide pass's rows are the "
              "profiles the rule judges, where the link is one of its links." % (
                  lk, flows, link_info[lk].get("buffer", 1), flows + 1, 100 / (flows + 1)), "",
              "| pass | profile | the server's share of the bytes | new visitor TTLB | reader's next page "
              "| 2 MB download |",
              "|---|---|---|---|---|---|"]
        shown = 0
        for pas in ("ref", "decide"):
            for p in profiles:
                if not any((pas, lk, p, f) in summary for f in ("srv_share", "nv_p50", "dl_time")):
                    continue
                shown += 1
                w.append("| %s | %s | %s |" % (pas, p, " | ".join(
                    cell_text(summary.get((pas, lk, p, f)), f)
                    for f in ("srv_share", "nv_p50", "rd_next", "dl_time"))))
        if not shown:
            w.append("| not run | | | | | |")
        w.append("")
    return w


def cell_text(s, fig):
    if s is None:
        return "–"
    dec = FIG[fig][3]
    return "%s (%s–%s)%s%s" % (num(s.median, dec), num(s.min, dec), num(s.max, dec), FIG[fig][6],
                                " §%d" % s.invalid if s.invalid else "")


def lossy_limits(summary, link_info, profiles, iws):
    w = ["## The lossy link against its physical limits", ""]
    li = link_info.get("lossy")
    rows = [(pas, p) for pas in ("ref", "decide") for p in profiles
            if ("lossy" in link_info and ((pas, "lossy", p, "ka_rps") in summary
                                          or (pas, "lossy", p, "dl_time") in summary))]
    if not li or not rows:
        return w + ["Not measured.", ""]
    rate, rtt, mtu = li["rate_mbit"], li["rtt_ms"], li.get("mtu", 1500)
    ceiling = page_ceiling(rate, PAGE_BYTES, mtu)
    minimum = {iw: download_floor(FILE_BYTES, rtt, rate, iw, mtu) for iw in set(iws.values()) | {INITIAL_WINDOW}}
    others = sorted(iw for iw in minimum if iw != INITIAL_WINDOW)
    w.append("Ceiling of the page: %g Mbit/s over the %d bytes a 68 KiB page takes on the wire = %.1f requests/s. "
             "Minimum time of the 2 MB download over a new connection: three round trips (TCP handshake, TLS 1.3 "
             "handshake, request), then slow start from an initial window of %d segments doubling per round trip "
             "until it covers the bandwidth-delay product, the rest at the link's rate: %.2f s%s. The same for "
             "the 68 KiB page gives each link's new-visitor floor. Assumed: TCP timestamps on, so a full segment "
             "is 1448 bytes of payload in a 1514-byte frame (netem's rate counts the Ethernet header); nginx's "
             "HTTP headers taken as %d bytes, TLS 1.3 records of 16 KiB at 22 bytes each; no loss, no "
             "receive-window limit, no CPU time (bench/reportlib/floors.py)." % (
                 rate, wire_bytes(response_bytes(PAGE_BYTES), mtu), ceiling, INITIAL_WINDOW,
                 minimum[INITIAL_WINDOW],
                 "".join("; %.2f s from an initial window of %d (%s, whose download is compared with it)" % (
                     minimum[iw], iw, ", ".join(p for p in profiles if iws[p] == iw)) for iw in others),
                 HTTP_HEADER_BYTES))
    w += ["", "| pass | profile | keep-alive req/s | share of the ceiling | 2 MB download, s | × the minimum |",
          "|---|---|---|---|---|---|"]
    for pas, p in rows:
        k, d = summary.get((pas, "lossy", p, "ka_rps")), summary.get((pas, "lossy", p, "dl_time"))
        w.append("| %s | %s | %s | %s | %s | %s |" % (
            pas, p, num(k.median, 1) if k else "–", "%.0f%%" % (100 * k.median / ceiling) if k else "–",
            num(d.median, 2) if d else "–", "×%s" % num(d.median / minimum[iws[p]], 2) if d else "–"))
    return w + [""]


def clean_link(summary, tp):
    w = ["## The clean link: is the package worse than stock?", ""]
    if not (measured_on(summary, tp, ["clean"], "package") and measured_on(summary, tp, ["clean"], "stock")):
        return w + ["Not measured (needs the clean link with stock and the package).", ""]
    _, losses = compare(summary, tp, ["clean"], "package", "stock")["clean"]
    if losses:
        w.append("Worse than stock beyond the spread: %s." % fig_list(summary, tp, "clean", "package", "stock", losses))
    else:
        w.append("No figure of the package is worse than stock beyond the spread.")
    w.append("")
    for load, what in (("ka", "keep-alive request"), ("nv", "visit"), ("dl", "download")):
        a, b = (summary.get((tp, "clean", p, load + "_srv_ms")) for p in ("stock", "package"))
        sa, sb = (summary.get((tp, "clean", p, load + "_srv_busy")) for p in ("stock", "package"))
        if a and b and sa and sb:
            w.append("* Server CPU per %s: stock %s ms, package %s ms (×%.2f); server busy %s%% and %s%%%s." % (
                what, num(a.median, 1), num(b.median, 1), b.median / a.median if a.median else 0,
                num(sa.median, 0), num(sb.median, 0),
                ", saturated" if saturated(summary, tp, "clean", "package", load) else ""))
    a, b = summary.get((tp, "clean", "stock", "ka_nginx_ms")), summary.get((tp, "clean", "package", "ka_nginx_ms"))
    if a and b:
        w.append("* Of that, nginx's own processes (user and system time) per keep-alive request: stock %s ms, "
                 "package %s ms; the rest is the kernel's work for the server's sockets outside nginx "
                 "(softirq: receiving, ACKs, where BBR runs; pacing)." % (num(a.median, 1), num(b.median, 1)))
    return w + [""]


def targets(summary, links, tp):
    out = []

    def mark(ok):
        return "**met**" if ok else "**not met**"

    def med(link, p, f):
        s = summary.get((tp, link, p, f))
        return None if s is None else s.median

    rps_p, rps_s = med("lossy", "package", "ka_rps"), med("lossy", "stock", "ka_rps")
    if rps_p is not None and rps_s:
        out.append("Lossy link, keep-alive requests/s at least +15%% over stock: %s. Package %s against %s (×%.2f)." % (
            mark(rps_p >= 1.15 * rps_s), num(rps_p, 1), num(rps_s, 1), rps_p / rps_s))
    else:
        out.append("Lossy link, keep-alive requests/s at least +15% over stock: not measured.")
    suc = med("lossy", "package", "ka_success")
    if suc is not None:
        out.append("Lossy link, success at least 99.5%%: %s. Package %s%%." % (mark(suc >= 99.5), num(suc, 2)))
    else:
        out.append("Lossy link, success at least 99.5%: not measured.")
    dl_p, dl_s = med("lossy", "package", "dl_time"), med("lossy", "stock", "dl_time")
    if dl_p is not None and dl_s is not None:
        speedup = INF if math.isinf(dl_s) and not math.isinf(dl_p) else (dl_s / dl_p if dl_p else 0)
        out.append("Lossy link, 2 MB download at least 3× faster than stock (median time): %s. Package %s s "
                   "against %s s (×%s)." % (mark(speedup >= 3), num(dl_p, 2), num(dl_s, 2), num(speedup, 2)))
    else:
        out.append("Lossy link, 2 MB download at least 3× faster than stock: not measured.")
    inst = [lk for lk in links
            if measured_on(summary, tp, [lk], "installer") and measured_on(summary, tp, [lk], "package")]
    if inst:
        cmp_ = compare(summary, tp, inst, "package", "installer")
        worse = {lk: cmp_[lk][1] for lk in inst if cmp_[lk][1]}
        better = {lk: cmp_[lk][0] for lk in inst if cmp_[lk][0]}
        out.append("Against the installer's script, at least as good on every figure of every link: %s.%s" % (
            mark(not worse and len(inst) == len(links)),
            "".join(" Worse on %s: %s." % (lk, fig_list(summary, tp, lk, "package", "installer", f))
                    for lk, f in worse.items())))
        out.append("Against the installer's script, better beyond the spread on at least one figure: %s.%s" % (
            mark(bool(better)),
            "".join(" Better on %s: %s." % (lk, fig_list(summary, tp, lk, "package", "installer", f))
                    for lk, f in better.items())))
    else:
        out.append("Against the installer's script: not measured.")
    if measured_on(summary, tp, ["clean"], "package") and measured_on(summary, tp, ["clean"], "stock"):
        _, losses = compare(summary, tp, ["clean"], "package", "stock")["clean"]
        out.append("Clean link, no figure worse than stock beyond the spread: %s.%s" % (
            mark(not losses), (" Worse: %s; see the clean link's section for the server CPU per request." %
                               fig_list(summary, tp, "clean", "package", "stock", losses)) if losses else ""))
    else:
        out.append("Clean link, no regression against stock: not measured.")
    return out


def applied_profiles(setdir, profiles, names):
    applied = {}
    for p in profiles:
        path = os.path.join(setdir, "applied-%s.txt" % p)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                applied[p] = dict(line.rstrip("\n").split(" = ", 1) for line in f if " = " in line)
    if not applied:
        return []
    shown = [p for p in profiles if p in applied]
    w = ["## The profiles as applied (read back from the kernel)", "",
         "| key | %s |" % " | ".join(shown), "|---|%s" % ("---|" * len(shown))]
    for key in sorted(set().union(*[set(a) for a in applied.values()])):
        base = applied.get("stock", {}).get(key)
        vals = []
        for p in shown:
            v = applied[p].get(key, "")
            vals.append("**%s**" % v if base is not None and v != base else v)
        w.append("| %s | %s |" % (key, " | ".join(vals)))
    return w + ["", "Bold: differs from stock. Profiles: %s." % "; ".join(
        "%s: %s" % (p, names.get(p, p)) for p in shown), ""]


def orders(plan):
    """The order of the profiles in each round and link, as they ran."""
    if not plan:
        return []
    seq = {}
    for pas, rnd, link, prof in plan:
        seq.setdefault((pas, rnd, link), []).append(prof)
    w = ["## The plan as it ran (settings/plan.txt)", "", "| pass | round | link | profiles in order |",
         "|---|---|---|---|"]
    for (pas, rnd, link), profs in seq.items():
        w.append("| %s | %d | %s | %s |" % (pas, rnd, link, " ".join(profs)))
    return w + [""]


def timings(res):
    tpath = os.path.join(res, "timings.csv")
    if not os.path.exists(tpath):
        return []
    times = {}
    with open(tpath, encoding="utf-8") as f:
        for row in list(csv.reader(f))[1:]:
            times.setdefault(row[0], []).append(float(row[2]))
    if not times:
        return []
    w = ["## Install and apply times (same VM)", "", "| step | runs | median | min–max |", "|---|---|---|---|"]
    for k, label in (("apt_install", "`apt-get install ./wp-panel-nettune_*.deb`"),
                     ("apt_purge", "`apt-get purge wp-panel-nettune`"),
                     ("helper_apply", "`wp-panel-nettune apply` (after a `revert`)"),
                     ("helper_revert", "`wp-panel-nettune revert`")):
        if k in times:
            v = times[k]
            w.append("| %s | %d | %.2f s | %.2f–%.2f s |" % (label, len(v), statistics.median(v), min(v), max(v)))
    return w + [""]


def rest(res, summary, ctx, names, iws):
    links, link_info, profiles = ctx["links"], ctx["link_info"], ctx["profiles"]
    tp = target_pass(summary)
    w = competing(summary, links, link_info, profiles)
    w += lossy_limits(summary, link_info, profiles, iws)
    w += clean_link(summary, tp)
    w += ["## Targets", "", "From the %s pass." % ("reference" if tp == "ref" else "only"), ""]
    w += ["* " + line for line in targets(summary, [lk for lk in links if measured_on(summary, tp, [lk], "package")],
                                          tp)]
    w += ["", "\"Beyond the spread\": the median of one profile outside the other's min–max range, on the better "
          "or the worse side.", ""]
    w += applied_profiles(os.path.join(res, "settings"), profiles, names)
    w += orders(ctx["plan"])
    w += timings(res)
    settings = ctx["settings"]
    w += ["## How it was measured", "",
          "See bench/README for the method: the CPU split (the server alone on vCPU %s; client, router, "
          "competing sender, interrupts and everything else on vCPU %s; receive steering to match; QEMU's vCPU "
          "threads pinned to the host's CPUs), the links (bench/links, netem on the router), the HTTPS server "
          "(nginx, TLS 1.3, an ECDSA P-256 certificate made at run time), the loads and the definitions. The raw "
          "files are in %s, the settings read back in settings/, every measurement in results.csv, every "
          "figure's median and spread in summary.csv, every comparison of the rule in decisions.csv." % (
              settings.get("server_cpu", "1"), settings.get("client_cpu", "0"),
              "the archive named at the top (raw/ once unpacked)" if ctx["raw_archive"] else "raw/"), ""]
    return w


# The figures the page's paired comparisons show, per load: its time to
# the last object, and to the last byte of the style sheets and fonts a
# first paint waits for; the head-to-head of two mechanisms adds the rule's
# primary for the initial window, the new visitor's small page.
PAGE_FIGS = [f for f in FIG if f.startswith("pg") and f.endswith(("_ttlo", "_paint"))]


def windows_of(c):
    """(mechanism, congestion window, receive window) of a candidate that
    gives the initial windows, or None: "route" from a route line's
    initcwnd and initrwnd, "prog" from a prog line (0: the kernel's)."""
    text = "\n".join(c.lines)
    m = re.search(r"^prog ([0-9]+) ([0-9]+)$", text, re.M)
    if m:
        return "prog", int(m.group(1)), int(m.group(2))
    m = re.search(r"^route .*\binitcwnd ([0-9]+)", text, re.M)
    if m:
        r = re.search(r"\binitrwnd ([0-9]+)", text)
        return "route", int(m.group(1)), int(r.group(1)) if r else 0
    return None


def twins(cands, profiles):
    """Pairs (program, route) of the candidates measured that give the same
    windows by the two mechanisms."""
    given = {c.name: windows_of(c) for c in cands if c.name in profiles}
    return [(a, b) for a, wa in given.items() for b, wb in given.items()
            if wa and wb and wa[0] == "prog" and wb[0] == "route" and wa[1:] == wb[1:]]


def ratio_text(c):
    """A Comparison's geometric mean ratio and its 95% interval."""
    lo, hi = c.ci
    return "×%.3f [%s]" % (c.ratio, "0–∞" if math.isinf(hi) else "%.3f–%.3f" % (lo, hi))


def paired_text(c):
    """A Comparison as the page's tables show it."""
    if c is None or not c.n:
        return "–"
    return "%s, p better %.3g, p worse %.3g, n %d" % (ratio_text(c), c.p_better, c.p_worse, c.n)


def page_section(summary, rounds, ctx):
    """What WP Panel serves: the WordPress-like page's first visits, their
    medians per pass, link and profile, each candidate paired against both
    copies of the package, and the two mechanisms of the initial window
    head to head. Shown beside the rule, not judged by it."""
    loads = [f for f in PAGE_FIGS if any(k[3] == f for k in summary)]
    w = ["## What WP Panel serves: the WordPress-like page", ""]
    if not loads:
        return w + ["Not measured in this run (the runs before 2026-12-07 had no page loads).", ""]
    w += ["A first visit of bench/pageload's page as a browser without a cache makes it: the HTML over a new "
          "TCP connection and a full TLS 1.3 handshake, then its subresources, over HTTP/2 on the one connection "
          "(IPv4 and IPv6) and over HTTP/1.1 on up to six (IPv4), %s. The figures: the time to the last object's "
          "last byte%s; a page that did not come whole counted as ∞. Median (min–max) over the rounds." % (
              "each HTTP/2 request with the priority a browser gives it (style sheets and fonts first, then "
              "scripts, then images: settings/run.txt page_priorities browser)"
              if ctx["settings"].get("page_priorities") == "browser" else
              "the HTTP/2 requests without priorities (the runs before 2026-12-08 sent none: every stream "
              "of the same weight)",
              ", and to the last byte of the style sheets and fonts, what a first paint waits for"
              if any(f.endswith("_paint") for f in loads) else ""), "",
          "| pass | link | profile | %s |" % " | ".join(FIG[f][2] for f in loads),
          "|---|---|---|%s" % ("---|" * len(loads))]
    for pas in ("decide", "ref"):
        for lk in ctx["links"]:
            for p in ctx["profiles"]:
                if any((pas, lk, p, f) in summary for f in loads):
                    w.append("| %s | %s | %s | %s |" % (pas, lk, p, " | ".join(
                        cell_text(summary.get((pas, lk, p, f)), f) for f in loads)))
    settings, decide = ctx["settings"], ctx["decide_links"]
    cands = [c for c in ctx["cands"] if c.name in ctx["profiles"] and not c.placebo]
    second = next((c.name for c in ctx["cands"] if c.placebo and c.name in ctx["profiles"]), None)
    w += ["", "Paired by round in the decide pass, the way the rule pairs a primary: the geometric mean ratio "
          "candidate / copy of the package [its 95%% interval], the exact one-sided sign-flip p better and worse, "
          "the paired rounds; against the package, then against the %s. The rule's figures were fixed before "
          "the page was measured: these comparisons inform, they decide no verdict." % (second or "placebo (none)"),
          "", "| candidate | link | figure | against the package | against the %s |" % (second or "placebo"),
          "|---|---|---|---|---|"]
    for c in cands:
        for lk in decide:
            for f in loads:
                one = Comparison(rounds, c.name, lk, f, settings, ALPHA, interval=True)
                if not one.n:
                    continue
                two = Comparison(rounds, c.name, lk, f, settings, ALPHA, interval=True, ref=second) \
                    if second else None
                w.append("| %s | %s | %s | %s | %s |" % (c.name, lk, FIG[f][2], paired_text(one), paired_text(two)))
    pairs = twins(ctx["cands"], ctx["profiles"])
    if pairs:
        w += ["", "The initial windows by two mechanisms, head to head: the package's sock_ops program and the "
              "route attributes, the same windows. Expected the same first flight, so the same figures: the "
              "geometric mean ratio program / route [95% interval] and the two-sided p (twice the smaller "
              "one-sided one, at most 1), per link; an interval that holds ×1 is no difference shown.", "",
              "| program | route | link | figure | program / route |", "|---|---|---|---|---|"]
        for a, b in pairs:
            for lk in decide:
                for f in ["nv_p50"] + loads:
                    c = Comparison(rounds, a, lk, f, settings, ALPHA, interval=True, ref=b)
                    if c.n:
                        w.append("| %s | %s | %s | %s | %s, n %d, two-sided p %.3g |" % (
                            a, b, lk, FIG[f][2], ratio_text(c), c.n, min(1.0, 2 * min(c.p_better, c.p_worse))))
    return w + [""]


# The figures the package and the installer's profile are paired on in the
# reference pass: what a visitor and a site's owner see, and what the
# bottleneck pays.
INSTALLER_FIGS = ["ka_rps", "nv_p50", "rd_next", "dl_time", "pg24_ttlo", "pg26_ttlo", "pg14_ttlo",
                  "pg24_paint", "pg26_paint", "pg14_paint",
                  "netem_drop", "srv_retrans", "other_rate"]


def installer_section(summary, rounds, ctx):
    """The package against the WP Panel installer's profile, paired by
    round in the reference pass on every link both ran: the medians, the
    geometric mean ratio package / installer and its interval, the rounds
    the package did better in, the two-sided p. Beside the rule: the rule
    judges candidates against the package, not the package itself."""
    w = ["## The package against the installer's profile", ""]
    ref = [lk for lk in ctx["links"]
           if all(any(k[:3] == ("ref", lk, p) for k in summary) for p in ("installer", "package"))]
    if not ref:
        return w + ["Not measured in this run: its reference pass did not have both the installer's profile "
                    "and the package.", ""]
    settings = ctx["settings"]
    w += ["Paired by round in the reference pass: in each round both profiles ran on each link, one after the "
          "other in an order shuffled from the seed. Median (min–max) of each over the rounds; package / "
          "installer, the geometric mean ratio of the rounds' figures [its 95% interval]; the rounds in which "
          "the package did better; the exact two-sided sign-flip p (twice the smaller one-sided p, at most 1; "
          "with n rounds it is at least 2/2^n: 0.0078 for 8). A figure is read alone: an interval that holds ×1 "
          "is no difference shown on it. A cell certain to stall (the installer's profile does not probe the "
          "path's MTU, so it cannot cross the PMTU black hole) ran one round, and a round left out (§) is not paired: "
          "a figure with fewer than two rounds of both is shown unpaired.", "",
          "| link | figure | installer | package | package / installer | package better | two-sided p |",
          "|---|---|---|---|---|---|---|"]
    for lk in ref:
        for f in INSTALLER_FIGS:
            a, b = summary.get(("ref", lk, "installer", f)), summary.get(("ref", lk, "package", f))
            if a is None or b is None or (f == "other_rate" and not ctx["link_info"].get(lk, {}).get("flows")):
                continue
            c = Comparison(rounds, "package", lk, f, settings, ALPHA, interval=True, ref="installer", pas="ref")
            if c.n < 2:
                pair = ["not paired: %d round(s) of both%s" % (
                    c.n, ", %d left out (§)" % len(c.left_out) if c.left_out else ""), "–", "–"]
            else:
                pair = [ratio_text(c), "%d of %d%s" % (c.wins, c.n, " (%d equal)" % c.ties if c.ties else ""),
                        "%.3g" % min(1.0, 2 * min(c.p_better, c.p_worse))]
            w.append("| %s | %s | %s | %s | %s |" % (lk, FIG[f][2], cell_text(a, f), cell_text(b, f), " | ".join(pair)))
    return w + [""]


def link_floors(li, iw, body):
    """The three floors of BODY bytes over a new connection on link LI from
    an initial window of IW: lossless, loss-aware, at a fair share."""
    if not li or not li.get("rate_mbit"):
        return None
    args = (li["rtt_ms"], li["rate_mbit"])
    mtu = li.get("mtu", 1500)
    return (download_floor(body, *args, iw, mtu),
            loss_floor(body, *args, iw, mtu, li.get("loss", 0.0), li.get("ge")),
            fair_share_floor(body, *args, li.get("flows", 0), iw, mtu))


def floor_section(summary, ctx, iws):
    """Each link's floors for the new visitor's page and the 2 MB download,
    lossless, loss-aware and at a fair share, and every profile's medians
    against each."""
    w = ["## The floors: lossless, loss-aware, at a fair share", "",
         "Three floors per link, for the new visitor's 68 KiB page and the 2 MB download over a new connection, "
         "from the profile's initial window (bench/reportlib/floors.py): **lossless**, the handshakes, slow start "
         "and the wire time at the link's rate; **loss-aware**, a lower bound of the median under the link's loss: "
         "one round trip more when fewer than half of the transfers would lose none of their segments (a lost "
         "segment is sent again a round trip after it left at the soonest), for independent loss (1 − p)^N, for "
         "the Gilbert-Elliott links from the model's chain; **fair share**, the lossless time at 1/(k + 1) of "
         "the rate beside k competing flows: not a bound (below 1, the connection took more than its share). "
         "Where a link has no loss or no competing flow, that floor is the lossless one. Each median over each.",
         "", "| pass | link | profile | new visitor TTLB | × lossless | × loss-aware | × fair share "
         "| 2 MB download | × lossless | × loss-aware | × fair share |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    shown = 0
    for pas in ("decide", "ref"):
        for lk in ctx["links"]:
            li = ctx["link_info"].get(lk)
            for p in ctx["profiles"]:
                cols = []
                for fig, body in (("nv_p50", PAGE_BYTES), ("dl_time", FILE_BYTES)):
                    s = summary.get((pas, lk, p, fig))
                    fl = link_floors(li, iws.get(p, INITIAL_WINDOW), body)
                    if s is None or fl is None:
                        cols += ["–"] * 4
                        continue
                    cols.append(num(s.median, FIG[fig][3]) + FIG[fig][6])
                    cols += ["×" + num(s.median / f, 2) + " (%s s)" % num(f, 2) for f in fl]
                if any(c != "–" for c in cols):
                    shown += 1
                    w.append("| %s | %s | %s | %s |" % (pas, lk, p, " | ".join(cols)))
    if not shown:
        w.append("| not run | | | | | | | | | | |")
    return w + [""]
