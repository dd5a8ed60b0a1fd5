"""results.csv -> one figure per cell (pass, round, link, profile), each
load of a cell valid or not; the median and spread over the rounds;
comparisons beyond the spread (for the targets); summary.csv."""

import csv
import math
import os
import statistics

from . import page
from .config import die
from .rawdata import fmt_csv


# A server CPU this busy is marked saturated.
SATURATED_PCT = 90.0
# A load during which the client's vCPU (client, router, competing sender)
# was busier than this is invalid: its figures are shown, marked, and left
# out of every decision (settings/run.txt cli_limit_pct, when there).
CLI_LIMIT_PCT = 80.0
INF = math.inf

# Profiles measured besides the candidates of bench/candidates, in order.
BASE_PROFILES = [
    ("stock", "stock Debian 13"),
    ("installer", "the WP Panel installer script"),
    ("package", "this package"),
]
PASSES = ["decide", "ref"]
HEADER = ["pass", "round", "link", "profile", "load", "metric", "rep", "value"]

# The figures computed per cell: id, load, label, decimals, better (hi or
# lo, None: shown, never compared), whether it decides a comparison beyond
# the spread (the targets), unit.
FIGURES = [
    ("ka_rps", "keepalive", "keep-alive requests/s", 1, "hi", True, ""),
    ("ka_success", "keepalive", "keep-alive success", 2, "hi", True, "%"),
    ("ka_p50", "keepalive", "keep-alive latency p50", 0, "lo", False, " ms"),
    ("ka_p99", "keepalive", "keep-alive latency p99", 0, "lo", False, " ms"),
    ("ka_srv_busy", "keepalive", "server CPU busy, keep-alive", 0, None, False, "%"),
    ("ka_srv_ms", "keepalive", "server CPU per request, keep-alive", 1, "lo", False, " ms"),
    ("ka_cli_busy", "keepalive", "client CPU busy, keep-alive", 0, None, False, "%"),
    ("ka_nginx_ms", "keepalive", "nginx's own CPU per request, keep-alive", 1, None, False, " ms"),
    ("nv_p50", "visitor", "new visitor TTLB median", 2, "lo", True, " s"),
    ("nv_p95", "visitor", "new visitor TTLB p95", 2, "lo", True, " s"),
    ("nv_2s", "visitor", "new visitors within 2 s", 1, "hi", True, "%"),
    ("nv_tcp", "visitor", "new visitor TCP connect, median", 3, "lo", False, " s"),
    ("nv_tls", "visitor", "new visitor TLS handshake, median", 3, "lo", False, " s"),
    ("nv_wait", "visitor", "new visitor wait for the first byte, median", 3, "lo", False, " s"),
    ("nv_xfer", "visitor", "new visitor transfer, median", 3, "lo", False, " s"),
    ("nv_rate", "visitor", "new visitors served per second", 2, "hi", False, ""),
    ("nv_srv_busy", "visitor", "server CPU busy, new visitors", 0, None, False, "%"),
    ("nv_srv_ms", "visitor", "server CPU per visit", 1, "lo", False, " ms"),
    ("nv_cli_busy", "visitor", "client CPU busy, new visitors", 0, None, False, "%"),
    ("rd_first", "reader", "reader's first page TTLB", 2, "lo", False, " s"),
    ("rd_next", "reader", "reader's next page TTLB", 2, "lo", True, " s"),
    ("rd_pause", "reader", "reader's idle pause", 2, None, False, " s"),
    ("rd_srv_busy", "reader", "server CPU busy, reader", 0, None, False, "%"),
    ("rd_cli_busy", "reader", "client CPU busy, reader", 0, None, False, "%"),
    ("dl_time", "download", "2 MB download time", 2, "lo", True, " s"),
    ("dl_ok", "download", "2 MB downloads complete", 0, "hi", False, "%"),
    ("dl_srv_busy", "download", "server CPU busy, download", 0, None, False, "%"),
    ("dl_srv_ms", "download", "server CPU per download", 0, "lo", False, " ms"),
    ("dl_cli_busy", "download", "client CPU busy, download", 0, None, False, "%"),
    ("netem_drop", "cell", "drops at the bottleneck toward the client", 2, "lo", False, "%"),
    ("srv_retrans", "cell", "the server's retransmitted segments", 2, "lo", False, "%"),
    ("srv_share", "cell", "the server's share of the bytes toward the client", 0, None, False, "%"),
    ("other_rate", "cell", "the competing flows' throughput", 2, "hi", False, " Mbit/s"),
]
FIGURES += page.FIGURES
FIG = {f[0]: f for f in FIGURES}
DECIDING = [f[0] for f in FIGURES if f[5]]
# The loads whose client CPU makes them valid or not, and their figures'
# prefix.
LOADS = {"keepalive": "ka", "visitor": "nv", "reader": "rd", "download": "dl", **page.PREFIXES}


def load_csv(path):
    """results.csv -> {(pass, round, link, profile, load, metric): {rep:
    value}}. The header of the runs before the two passes, without the
    pass column, is read as the decide pass."""
    data = {}
    with open(path, encoding="utf-8", newline="") as f:
        r = csv.reader(f)
        header = next(r, None)
        if header == HEADER:
            width = 8
        elif header == HEADER[1:]:
            width = 7
        else:
            die(f"{path}: not a results.csv (header {header})")
        for row in r:
            if len(row) != width:
                die(f"{path}: a row of {len(row)} fields: {row}")
            if width == 7:
                row = ["decide"] + row
            pas, rnd, link, prof, load, metric, rep, value = row
            if pas not in PASSES:
                die(f"{path}: pass {pas!r}, not decide or ref: {row}")
            try:
                data.setdefault((pas, int(rnd), link, prof, load, metric), {})[int(rep)] = float(value)
            except ValueError:
                die(f"{path}: not a number in {row}")
    return data


def nearest_rank(values, q):
    s = sorted(values)
    return s[max(1, math.ceil(q * len(s))) - 1]


class Rounds:
    """Per cell (pass, round, link, profile): its figures (figs), and the
    loads that were invalid (invalid: the client's CPU above the limit)."""

    def __init__(self, figs, invalid):
        self.figs = figs
        self.invalid = invalid

    def value(self, cell, fig):
        """(value or None, whether its load was valid)."""
        figs = self.figs.get(cell)
        if figs is None:
            return None, False
        return figs.get(fig), FIG[fig][1] not in self.invalid.get(cell, ())


def cell_figures(data, cell):
    """One cell's figures from its rows."""
    fig = {}

    def one(load, metric):
        v = data.get(cell + (load, metric))
        return None if v is None else v[min(v)]

    def put(name, value):
        if value is not None:
            fig[name] = value

    # Keep-alive.
    done = one("keepalive", "completed")
    if done is not None:
        fig["ka_rps"] = one("keepalive", "req_per_s")
        tmo = one("keepalive", "timeouts") or 0
        bad = one("keepalive", "non_2xx") or 0
        err = one("keepalive", "errors_socket") or 0
        att = done + err
        fig["ka_success"] = 100 * (done - tmo - bad) / att if att else 0.0
        put("ka_p50", one("keepalive", "lat_p50_ms"))
        put("ka_p99", one("keepalive", "lat_p99_ms"))
        put("ka_srv_busy", one("keepalive", "srv_busy_pct"))
        put("ka_cli_busy", one("keepalive", "cli_busy_pct"))
        if done and one("keepalive", "srv_cpu_s") is not None:
            fig["ka_srv_ms"] = 1000 * one("keepalive", "srv_cpu_s") / done
        if done and one("keepalive", "nginx_cpu_s") is not None:
            fig["ka_nginx_ms"] = 1000 * one("keepalive", "nginx_cpu_s") / done
    # New visitors: a failed visit is infinitely slow; its phases are left
    # out (they end where it failed).
    ttlb = data.get(cell + ("visitor", "ttlb_s"))
    if ttlb:
        ok = data.get(cell + ("visitor", "visit_ok"), {})
        good = [i for i in ttlb if ok.get(i) == 1]
        times = [ttlb[i] if ok.get(i) == 1 else INF for i in ttlb]
        fig["nv_p50"] = statistics.median(times)
        fig["nv_p95"] = nearest_rank(times, 0.95)
        fig["nv_2s"] = 100 * sum(1 for t in times if t <= 2.0) / len(times)
        for name, metric in (("nv_tcp", "tcp_s"), ("nv_tls", "tls_s"), ("nv_wait", "wait_s"), ("nv_xfer", "xfer_s")):
            phase = data.get(cell + ("visitor", metric), {})
            vals = [phase[i] for i in good if i in phase]
            if vals:
                fig[name] = statistics.median(vals)
        run_s = one("visitor", "visit_run_s")
        if run_s:
            fig["nv_rate"] = len(good) / run_s
        put("nv_srv_busy", one("visitor", "srv_busy_pct"))
        put("nv_cli_busy", one("visitor", "cli_busy_pct"))
        if good and one("visitor", "srv_cpu_s") is not None:
            fig["nv_srv_ms"] = 1000 * one("visitor", "srv_cpu_s") / len(good)
    # The reader: two pages on one connection, an idle pause between; a
    # page that did not come (or not whole) is infinitely slow.
    pages = data.get(cell + ("reader", "ttlb_s"))
    if pages:
        ok = data.get(cell + ("reader", "read_ok"), {})
        for name, rep in (("rd_first", 1), ("rd_next", 2)):
            fig[name] = pages[rep] if rep in pages and ok.get(rep) == 1 else INF
        put("rd_pause", one("reader", "pause_s"))
        put("rd_srv_busy", one("reader", "srv_busy_pct"))
        put("rd_cli_busy", one("reader", "cli_busy_pct"))
    # The download.
    dl = data.get(cell + ("download", "dl_time_s"))
    if dl:
        ok = data.get(cell + ("download", "dl_ok"), {})
        fig["dl_time"] = statistics.median(dl[i] if ok.get(i) == 1 else INF for i in dl)
        fig["dl_ok"] = 100 * sum(1 for i in dl if ok.get(i) == 1) / len(dl)
        for name, metric in (("dl_srv_busy", "srv_busy_pct"), ("dl_cli_busy", "cli_busy_pct")):
            vals = data.get(cell + ("download", metric))
            if vals:
                fig[name] = statistics.median(vals.values())
        cpu_s = data.get(cell + ("download", "srv_cpu_s"))
        if cpu_s and any(ok.get(i) == 1 for i in cpu_s):
            fig["dl_srv_ms"] = statistics.median(1000 * cpu_s[i] for i in cpu_s if ok.get(i) == 1)
    page.cell_figures(one, put, INF)
    sent = one("cell", "netem_sent_pkts")
    if sent is not None:
        drop = one("cell", "netem_dropped_pkts") or 0
        fig["netem_drop"] = 100 * drop / (sent + drop) if sent + drop else 0.0
    srv, other = one("cell", "srv_bytes"), one("cell", "other_bytes")
    if srv is not None and other is not None and srv + other > 0:
        fig["srv_share"] = 100 * srv / (srv + other)
    # The competing flows' throughput over the cell (its seconds: the runs
    # before 2026-12-07 did not keep them in results.csv).
    cell_s = one("cell", "cell_s")
    if other is not None and cell_s:
        fig["other_rate"] = 8 * other / cell_s / 1e6
    out_segs, retrans = one("cell", "srv_out_segs"), one("cell", "srv_retrans_segs")
    if out_segs and retrans is not None:
        fig["srv_retrans"] = 100 * retrans / out_segs
    return {k: v for k, v in fig.items() if v is not None}


def round_figures(data, cli_limit=CLI_LIMIT_PCT):
    """Rounds from the CSV's rows: every cell's figures, and each load
    invalid where the client's CPU was above CLI_LIMIT during it."""
    figs, invalid = {}, {}
    for cell in sorted({k[:4] for k in data}):
        figs[cell] = cell_figures(data, cell)
        bad = {load for load, pre in LOADS.items() if figs[cell].get(pre + "_cli_busy", 0) > cli_limit}
        if bad:
            invalid[cell] = bad
    return Rounds(figs, invalid)


class Stat:
    """A figure over the rounds: n, median, min, max, and how many of the
    rounds had its load invalid."""

    def __init__(self, values, invalid=0):
        self.n = len(values)
        self.median = statistics.median(values)
        self.min = min(values)
        self.max = max(values)
        self.invalid = invalid


def summarize(rounds):
    """{(pass, link, profile, figure): Stat} over the rounds."""
    vals, bad = {}, {}
    for cell in sorted(rounds.figs):
        pas, _, link, prof = cell
        for f, v in rounds.figs[cell].items():
            key = (pas, link, prof, f)
            vals.setdefault(key, []).append(v)
            if FIG[f][1] in rounds.invalid.get(cell, ()):
                bad[key] = bad.get(key, 0) + 1
    return {k: Stat(v, bad.get(k, 0)) for k, v in vals.items()}


def beyond(s, ref, fig):
    """+1: s better than ref beyond ref's spread, -1: worse, 0: neither."""
    better = FIG[fig][4]
    if s is None or ref is None or better is None:
        return 0
    if better == "hi":
        return 1 if s.median > ref.max else -1 if s.median < ref.min else 0
    return 1 if s.median < ref.min else -1 if s.median > ref.max else 0


def compare(summary, pas, links, prof, ref, figures=DECIDING):
    """{link: ([figures better beyond ref's spread], [worse])} in pass PAS."""
    out = {}
    for link in links:
        wins, losses = [], []
        for f in figures:
            b = beyond(summary.get((pas, link, prof, f)), summary.get((pas, link, ref, f)), f)
            if b > 0:
                wins.append(f)
            elif b < 0:
                losses.append(f)
        out[link] = (wins, losses)
    return out


def measured_on(summary, pas, links, prof):
    return [lk for lk in links if any((pas, lk, prof, f) in summary for f in DECIDING)]


def saturated(summary, pas, link, prof, load):
    busy = summary.get((pas, link, prof, load + "_srv_busy"))
    return busy is not None and busy.median >= SATURATED_PCT


def write_summary(res, summary, links, profiles):
    with open(os.path.join(res, "summary.csv"), "w", encoding="utf-8", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["pass", "link", "profile", "figure", "n", "median", "min", "max", "invalid"])
        for pas in PASSES:
            for link in links:
                for p in profiles:
                    for fig in FIGURES:
                        s = summary.get((pas, link, p, fig[0]))
                        if s is not None:
                            wr.writerow([pas, link, p, fig[0], s.n, fmt_csv(s.median), fmt_csv(s.min),
                                         fmt_csv(s.max), s.invalid])
