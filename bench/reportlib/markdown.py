"""report.md: the tables per link, the candidates, the clean link's
question, the lossy link's limits, the targets, the profiles as applied."""

import csv
import math
import os
import re
import statistics

from .figures import (BASE_PROFILES, DECIDING, FIG, INF, SATURATED_PCT, compare, measured_on,
                      saturated)
from .floors import (HTTP_HEADER_BYTES, INITIAL_WINDOW, download_floor, page_ceiling, response_bytes,
                     wire_bytes)
from .rawdata import FILE_BYTES, PAGE_BYTES


def num(v, dec):
    if v is None:
        return "n/a"
    if math.isinf(v):
        return "∞"
    return "%.*f" % (dec, v)


def cell(summary, link, prof, fig, ratio_to=None):
    s = summary.get((link, prof, fig))
    if s is None:
        return "–"
    dec, unit = FIG[fig][3], FIG[fig][6]
    text = "%s (%s–%s)%s" % (num(s.median, dec), num(s.min, dec), num(s.max, dec), unit)
    if ratio_to and prof != ratio_to:
        r = ratio(summary, link, prof, ratio_to, fig)
        if r is not None:
            text += " ×%.2f" % r
    return text


def ratio(summary, link, a, b, fig):
    sa, sb = summary.get((link, a, fig)), summary.get((link, b, fig))
    if sa is None or sb is None or sb.median == 0 or math.isinf(sb.median) or math.isinf(sa.median):
        return None
    return sa.median / sb.median


def cpu_cell(summary, link, prof, load):
    busy = summary.get((link, prof, load + "_srv_busy"))
    per = summary.get((link, prof, load + "_srv_ms"))
    cli = summary.get((link, prof, load + "_cli_busy"))
    if busy is None:
        return "–"
    text = "%s%%, %s ms" % (num(busy.median, 0), num(per.median if per else None, 1))
    if busy.median >= SATURATED_PCT:
        text += " ‡"
    if cli is not None and cli.median >= SATURATED_PCT:
        text += " †"
    return text


def initial_window(cands, prof):
    """The initial window a profile starts with: a candidate's route
    attribute initcwnd, or Linux's."""
    for name, _, _, lines in cands:
        m = re.search(r"^route .*\binitcwnd ([0-9]+)", "\n".join(lines), re.M)
        if name == prof and m:
            return int(m.group(1))
    return INITIAL_WINDOW


def fig_list(summary, link, prof, ref, figs):
    parts = []
    for f in figs:
        s, r = summary[(link, prof, f)], summary[(link, ref, f)]
        d = FIG[f][3]
        parts.append("%s %s against %s–%s" % (FIG[f][2], num(s.median, d), num(r.min, d), num(r.max, d)))
    return "; ".join(parts)


def gain(new, old):
    if math.isinf(old) and not math.isinf(new):
        return "finishes where the package does not"
    if math.isinf(new) or old == 0:
        return "no gain"
    return "%+.0f%%" % (100 * (new - old) / old)


def targets(summary, links, link_info):
    out = []

    def mark(ok):
        return "**met**" if ok else "**not met**"

    def med(link, p, f):
        s = summary.get((link, p, f))
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
    inst = [lk for lk in links if measured_on(summary, [lk], "installer") and measured_on(summary, [lk], "package")]
    if inst:
        cmp_ = compare(summary, inst, "package", "installer")
        worse = {lk: cmp_[lk][1] for lk in inst if cmp_[lk][1]}
        better = {lk: cmp_[lk][0] for lk in inst if cmp_[lk][0]}
        out.append("Against the installer's script, at least as good on every figure of every link: %s.%s" % (
            mark(not worse and len(inst) == len(links)),
            "".join(" Worse on %s: %s." % (lk, fig_list(summary, lk, "package", "installer", f)) for lk, f in worse.items())))
        out.append("Against the installer's script, better beyond the spread on at least one figure: %s.%s" % (
            mark(bool(better)),
            "".join(" Better on %s: %s." % (lk, fig_list(summary, lk, "package", "installer", f)) for lk, f in better.items())))
    else:
        out.append("Against the installer's script: not measured.")
    if measured_on(summary, ["clean"], "package") and measured_on(summary, ["clean"], "stock"):
        _, losses = compare(summary, ["clean"], "package", "stock")["clean"]
        out.append("Clean link, no figure worse than stock beyond the spread: %s.%s" % (
            mark(not losses), (" Worse: %s; see the clean link's section for the server CPU per request." %
                               fig_list(summary, "clean", "package", "stock", losses)) if losses else ""))
    else:
        out.append("Clean link, no regression against stock: not measured.")
    return out


def write_report(res, summary, links, profiles, cands, link_info, settings, decisions, plotted):
    setdir = os.path.join(res, "settings")
    L = []
    w = L.append
    names = dict(BASE_PROFILES)
    for c in cands:
        names[c[0]] = "candidate: " + c[1]
    has = set(p for (_, p, _) in summary)
    rounds = max((s.n for s in summary.values()), default=0)

    w("# Benchmark: what a visitor gets, in a Debian 13 VM")
    w("")
    if settings:
        w("Run on %s with `bench/run`. Host: %s, %s CPUs, %s GiB, %s, kernel %s. VM: Debian %s, kernel %s, "
          "%s vCPUs, %s MiB, QEMU %s with %s. vCPU threads: %s. Package: %s. Wall time %s s (estimated %s s)." % (
              settings.get("date", "?"), settings.get("host_cpu_model", "?"), settings.get("host_cpus", "?"),
              settings.get("host_memory_gib", "?"), settings.get("host_os", "?"), settings.get("host_kernel", "?"),
              settings.get("debian", "?"), settings.get("kernel", "?"), settings.get("cpus", "?"),
              settings.get("vm_memory_mib", "?"), settings.get("qemu", "?"), settings.get("accel", "?").upper(),
              settings.get("vcpu_pinning", "?"), settings.get("package", "?"), settings.get("wall_seconds", "?"),
              settings.get("estimate_seconds", "?")))
        boots = settings.get("vm_boots", "1")
        if boots != "1":
            w("")
            w("The VM was booted %s times: the guest died before the end (settings/boots.txt, the consoles in "
              "settings/console-boot*.log), and a fresh copy of the image measured the cells still to do; "
              "the cells finished before were kept." % boots)
        w("")
        w("Per cell: `wrk -t2 -c10 -d%ss --timeout %ss` over HTTPS (keep-alive); %s new-visitor streams for %s s, "
          "each visit a new curl process (new TCP connection, full TLS 1.3 handshake, the 68 KiB page; "
          "given up after %s s); %s download(s) of 2 MiB, a new connection each (given up after %s s)." % (
              settings.get("wrk_duration_s", "?"), settings.get("wrk_timeout_s", "?"), settings.get("visitors", "?"),
              settings.get("visit_duration_s", "?"), settings.get("visit_timeout_s", "?"),
              settings.get("fetches", "?"), settings.get("fetch_timeout_s", "?")))
        w("")
    w("Each figure: median (min–max) over %d round(s), each round's figure computed from that round's "
      "measurements. ×: ratio to stock on the same link. Server CPU: the server's vCPU busy share during the "
      "load and its busy time per request (visit, download) completed; ‡ the server's CPU was saturated "
      "(median busy >= %d%%), † the client's was. ∞: the visit or download did not finish." % (rounds, SATURATED_PCT))
    w("")

    for link in links:
        li = link_info.get(link, {})
        w("## Link %s: %g ms RTT, %g%% loss, %g Mbit/s, MTU %d (%s)" % (
            link, li.get("rtt_ms", 0), li.get("loss", 0), li.get("rate_mbit", 0), li.get("mtu", 1500), li.get("what", "")))
        w("")
        w("| profile | keep-alive req/s | success | server CPU, keep-alive | new visitor TTLB median | p95 "
          "| within 2 s | server CPU per visit | 2 MB download (× stock's time) | server CPU per download |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for p in profiles:
            if p not in has:
                continue
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                p, cell(summary, link, p, "ka_rps", "stock"), cell(summary, link, p, "ka_success"),
                cpu_cell(summary, link, p, "ka"), cell(summary, link, p, "nv_p50"), cell(summary, link, p, "nv_p95"),
                cell(summary, link, p, "nv_2s"), cpu_cell(summary, link, p, "nv"),
                cell(summary, link, p, "dl_time", "stock"), cpu_cell(summary, link, p, "dl")))
        w("")
    if plotted:
        w("![one panel per link and load: medians, min–max whiskers](plot.png)")
        w("")

    # --- candidates ---
    w("## Candidates beyond the installer's profile")
    w("")
    w("Each candidate is the package's profile plus one change, measured on every link against the package. "
      "It passes if it wins on at least one link beyond the spread and loses on none, over the "
      "figures %s. Passing is needed to go into the profile, not enough: with three rounds a median falls "
      "outside another's range by chance too, so the profile takes a candidate that passes only with a mechanism "
      "that explains its wins (DESIGN.md says which were taken). A verdict needs the full run: a quick look "
      "(fewer rounds, links or profiles) decides nothing." %
      ", ".join(FIG[f][2] for f in DECIDING))
    w("")
    if not any(c[0] in has for c in cands):
        w("No candidate was measured in this run.")
    else:
        w("| candidate | %s | verdict |" % " | ".join(links))
        w("|---|%s---|" % ("---|" * len(links)))
    for name, reason, mo, lines in cands:
        if name not in has:
            continue
        verdict, why, cmp_ = decisions[name]
        row = []
        for link in links:
            wins, losses = cmp_[link]
            row.append("wins: %s; loses: %s" % (", ".join(wins) or "–", ", ".join(losses) or "–"))
        w("| %s (%s) | %s | **%s**: %s |" % (name, "; ".join(lines), " | ".join(row), verdict, why))
    w("")
    for name, reason, mo, lines in cands:
        if name in has and mo:
            w("Measured only, %s: %s. On the new-visitor load against the package:" % (name, reason))
            w("")
            for link in links:
                if (link, name, "nv_p50") not in summary or (link, "package", "nv_p50") not in summary:
                    continue
                s, r = summary[(link, name, "nv_p50")], summary[(link, "package", "nv_p50")]
                s95, r95 = summary[(link, name, "nv_p95")], summary[(link, "package", "nv_p95")]
                s2, r2 = summary[(link, name, "nv_2s")], summary[(link, "package", "nv_2s")]
                w("* %s: TTLB median %s s against %s s (%s), p95 %s s against %s s, within 2 s %s%% against %s%%." % (
                    link, num(s.median, 2), num(r.median, 2), gain(s.median, r.median), num(s95.median, 2),
                    num(r95.median, 2), num(s2.median, 1), num(r2.median, 1)))
            w("")

    # --- the clean link ---
    w("## The clean link: is the package worse than stock?")
    w("")
    if ("clean", "package", "ka_rps") in summary and ("clean", "stock", "ka_rps") in summary:
        _, losses = compare(summary, ["clean"], "package", "stock")["clean"]
        if losses:
            w("Worse than stock beyond the spread: %s." % fig_list(summary, "clean", "package", "stock", losses))
        else:
            w("No figure of the package is worse than stock beyond the spread.")
        w("")
        for load, what in (("ka", "keep-alive request"), ("nv", "visit"), ("dl", "download")):
            a, b = summary.get(("clean", "stock", load + "_srv_ms")), summary.get(("clean", "package", load + "_srv_ms"))
            if a and b:
                w("* Server CPU per %s: stock %s ms, package %s ms (×%.2f); server busy %s%% and %s%%%s." % (
                    what, num(a.median, 1), num(b.median, 1), b.median / a.median if a.median else 0,
                    num(summary[("clean", "stock", load + "_srv_busy")].median, 0),
                    num(summary[("clean", "package", load + "_srv_busy")].median, 0),
                    ", saturated" if saturated(summary, "clean", "package", load) else ""))
        a, b = summary.get(("clean", "stock", "ka_nginx_ms")), summary.get(("clean", "package", "ka_nginx_ms"))
        if a and b:
            w("* Of that, nginx's own processes (user and system time) per keep-alive request: stock %s ms, "
              "package %s ms; the rest is the kernel's work for the server's sockets outside nginx "
              "(softirq: receiving, ACKs, where BBR runs; pacing)." % (num(a.median, 1), num(b.median, 1)))
        w("")
    else:
        w("Not measured (needs the clean link with stock and the package).")
        w("")

    # --- ceilings ---
    w("## The lossy link against its physical limits")
    w("")
    li = link_info.get("lossy")
    if li and any(("lossy", p, "ka_rps") in summary or ("lossy", p, "dl_time") in summary for p in profiles):
        rate, rtt, mtu = li["rate_mbit"], li["rtt_ms"], li.get("mtu", 1500)
        ceiling = page_ceiling(rate, PAGE_BYTES, mtu)
        iws = {p: initial_window(cands, p) for p in profiles}
        minimum = {iw: download_floor(FILE_BYTES, rtt, rate, iw, mtu) for iw in set(iws.values()) | {INITIAL_WINDOW}}
        others = sorted(iw for iw in minimum if iw != INITIAL_WINDOW)
        w("Ceiling of the page: %g Mbit/s over the %d bytes a 68 KiB page takes on the wire = %.1f requests/s. "
          "Minimum time of the 2 MB download over a new connection: three round trips (TCP handshake, TLS 1.3 "
          "handshake, request), then slow start from an initial window of %d segments doubling per round trip "
          "until it covers the bandwidth-delay product, the rest at the link's rate: %.2f s%s. Assumed: TCP "
          "timestamps on, so a full segment is 1448 bytes of payload in a 1514-byte frame (netem's rate counts the "
          "Ethernet header); nginx's HTTP headers taken as %d bytes, TLS 1.3 records of 16 KiB at 22 bytes each; "
          "no loss, no receive-window limit, no CPU time (bench/reportlib/floors.py)." % (
              rate, wire_bytes(response_bytes(PAGE_BYTES), mtu), ceiling, INITIAL_WINDOW,
              minimum[INITIAL_WINDOW],
              "".join("; %.2f s from an initial window of %d (%s, whose download is compared with it)" % (
                  minimum[iw], iw, ", ".join(p for p in profiles if iws[p] == iw)) for iw in others),
              HTTP_HEADER_BYTES))
        w("")
        w("| profile | keep-alive req/s | share of the ceiling | 2 MB download, s | × the minimum |")
        w("|---|---|---|---|---|")
        for p in profiles:
            k, d = summary.get(("lossy", p, "ka_rps")), summary.get(("lossy", p, "dl_time"))
            if k is None and d is None:
                continue
            w("| %s | %s | %s | %s | %s |" % (
                p, num(k.median, 1) if k else "–", "%.0f%%" % (100 * k.median / ceiling) if k else "–",
                num(d.median, 2) if d else "–", "×%s" % num(d.median / minimum[iws[p]], 2) if d else "–"))
        w("")
    else:
        w("Not measured.")
        w("")

    # --- targets ---
    w("## Targets")
    w("")
    for line in targets(summary, links, link_info):
        w("* " + line)
    w("")
    w("\"Beyond the spread\": the median of one profile outside the other's min–max range, on the better or "
      "the worse side.")
    w("")

    # --- profiles as applied ---
    applied = {}
    for p in profiles:
        path = os.path.join(setdir, "applied-%s.txt" % p)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                applied[p] = dict(line.rstrip("\n").split(" = ", 1) for line in f if " = " in line)
    if applied:
        shown = [p for p in profiles if p in applied]
        w("## The profiles as applied (read back from the kernel)")
        w("")
        w("| key | %s |" % " | ".join(shown))
        w("|---|%s" % ("---|" * len(shown)))
        keys = sorted(set().union(*[set(a) for a in applied.values()]))
        for key in keys:
            base = applied.get("stock", {}).get(key)
            vals = []
            for p in shown:
                v = applied[p].get(key, "")
                vals.append("**%s**" % v if base is not None and v != base else v)
            w("| %s | %s |" % (key, " | ".join(vals)))
        w("")
        w("Bold: differs from stock. Profiles: %s." % "; ".join("%s: %s" % (p, names.get(p, p)) for p in shown))
        w("")

    # --- timings ---
    tpath = os.path.join(res, "timings.csv")
    if os.path.exists(tpath):
        times = {}
        with open(tpath, encoding="utf-8") as f:
            for row in list(csv.reader(f))[1:]:
                times.setdefault(row[0], []).append(float(row[2]))
        if times:
            w("## Install and apply times (same VM)")
            w("")
            w("| step | runs | median | min–max |")
            w("|---|---|---|---|")
            for k, label in (("apt_install", "`apt-get install ./wp-panel-nettune_*.deb`"),
                             ("apt_purge", "`apt-get purge wp-panel-nettune`"),
                             ("helper_apply", "`wp-panel-nettune apply` (after a `revert`)"),
                             ("helper_revert", "`wp-panel-nettune revert`")):
                if k in times:
                    v = times[k]
                    w("| %s | %d | %.2f s | %.2f–%.2f s |" % (label, len(v), statistics.median(v), min(v), max(v)))
            w("")

    w("## How it was measured")
    w("")
    w("See bench/README for the method: the CPU split (the server alone on vCPU %s; client, router, interrupts "
      "and everything else on vCPU %s; receive steering to match; QEMU's vCPU threads pinned to the host's CPUs), "
      "the links (bench/links, netem on the router), the HTTPS server (nginx, TLS 1.3, an ECDSA P-256 certificate "
      "made at run time), the loads and the definitions. The raw files are in raw/, the settings read back in "
      "settings/, every measurement in results.csv, every figure's median and spread in summary.csv." % (
          settings.get("server_cpu", "1"), settings.get("client_cpu", "0")))
    w("")
    with open(os.path.join(res, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(L))
