"""results.csv -> one figure per round, link and profile; median and spread
over the rounds; comparisons beyond the spread and the candidates' verdicts;
summary.csv and decisions.csv."""

import csv
import math
import os
import statistics
import sys

from .rawdata import fmt_csv


# A server (client) CPU this busy is marked saturated.
SATURATED_PCT = 90.0

# The fewest rounds a candidate's decision rests on (the default of bench/run).
MIN_ROUNDS = 3
INF = math.inf

# Profiles measured besides the candidates of bench/candidates, in order.
BASE_PROFILES = [
    ("stock", "stock Debian 13"),
    ("installer", "the WP Panel installer script"),
    ("package", "this package"),
]

# The figures computed per round: id, load, label, decimals, better (hi or
# lo, None: shown, never compared), whether it decides a comparison, unit.
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
    ("nv_rate", "visitor", "new visitors served per second", 2, "hi", False, ""),
    ("nv_srv_busy", "visitor", "server CPU busy, new visitors", 0, None, False, "%"),
    ("nv_srv_ms", "visitor", "server CPU per visit", 1, "lo", False, " ms"),
    ("nv_cli_busy", "visitor", "client CPU busy, new visitors", 0, None, False, "%"),
    ("dl_time", "download", "2 MB download time", 2, "lo", True, " s"),
    ("dl_ok", "download", "2 MB downloads complete", 0, "hi", False, "%"),
    ("dl_srv_busy", "download", "server CPU busy, download", 0, None, False, "%"),
    ("dl_srv_ms", "download", "server CPU per download", 0, "lo", False, " ms"),
    ("netem_drop", "cell", "netem drops toward the client", 2, None, False, "%"),
]
FIG = {f[0]: f for f in FIGURES}
DECIDING = [f[0] for f in FIGURES if f[5]]


def die(msg):
    print(f"report: {msg}", file=sys.stderr)
    sys.exit(1)


def load_csv(path):
    """results.csv -> {(round, link, profile, load, metric): {rep: value}}."""
    data = {}
    with open(path, encoding="utf-8", newline="") as f:
        r = csv.reader(f)
        header = next(r, None)
        if header != ["round", "link", "profile", "load", "metric", "rep", "value"]:
            die(f"{path}: not a results.csv (header {header})")
        for row in r:
            if len(row) != 7:
                die(f"{path}: a row of {len(row)} fields: {row}")
            rnd, link, prof, load, metric, rep, value = row
            data.setdefault((int(rnd), link, prof, load, metric), {})[int(rep)] = float(value)
    return data


def nearest_rank(values, q):
    s = sorted(values)
    return s[max(1, math.ceil(q * len(s))) - 1]


def round_figures(data):
    """{(link, profile, figure): [value per round]} from the CSV's rows."""
    cells = sorted({k[:3] for k in data})
    out = {}

    def one(cell, load, metric):
        v = data.get(cell + (load, metric))
        return None if v is None else v[min(v)]

    for cell in cells:
        rnd, link, prof = cell
        fig = {}
        # Keep-alive.
        done = one(cell, "keepalive", "completed")
        if done is not None:
            fig["ka_rps"] = one(cell, "keepalive", "req_per_s")
            tmo = one(cell, "keepalive", "timeouts") or 0
            bad = one(cell, "keepalive", "non_2xx") or 0
            err = one(cell, "keepalive", "errors_socket") or 0
            att = done + err
            fig["ka_success"] = 100 * (done - tmo - bad) / att if att else 0.0
            for f, m in (("ka_p50", "lat_p50_ms"), ("ka_p99", "lat_p99_ms")):
                if one(cell, "keepalive", m) is not None:
                    fig[f] = one(cell, "keepalive", m)
            if one(cell, "keepalive", "srv_busy_pct") is not None:
                fig["ka_srv_busy"] = one(cell, "keepalive", "srv_busy_pct")
                fig["ka_cli_busy"] = one(cell, "keepalive", "cli_busy_pct")
                if done:
                    fig["ka_srv_ms"] = 1000 * one(cell, "keepalive", "srv_cpu_s") / done
                    if one(cell, "keepalive", "nginx_cpu_s") is not None:
                        fig["ka_nginx_ms"] = 1000 * one(cell, "keepalive", "nginx_cpu_s") / done
        # New visitors: a failed visit is infinitely slow.
        ttlb = data.get(cell + ("visitor", "ttlb_s"))
        if ttlb:
            ok = data[cell + ("visitor", "visit_ok")]
            times = [ttlb[i] if ok.get(i) == 1 else INF for i in ttlb]
            n_ok = sum(1 for i in ttlb if ok.get(i) == 1)
            fig["nv_p50"] = statistics.median(times)
            fig["nv_p95"] = nearest_rank(times, 0.95)
            fig["nv_2s"] = 100 * sum(1 for t in times if t <= 2.0) / len(times)
            run_s = one(cell, "visitor", "visit_run_s")
            if run_s:
                fig["nv_rate"] = n_ok / run_s
            if one(cell, "visitor", "srv_busy_pct") is not None:
                fig["nv_srv_busy"] = one(cell, "visitor", "srv_busy_pct")
                fig["nv_cli_busy"] = one(cell, "visitor", "cli_busy_pct")
                if n_ok:
                    fig["nv_srv_ms"] = 1000 * one(cell, "visitor", "srv_cpu_s") / n_ok
        # The download.
        dl = data.get(cell + ("download", "dl_time_s"))
        if dl:
            ok = data[cell + ("download", "dl_ok")]
            fig["dl_time"] = statistics.median(dl[i] if ok.get(i) == 1 else INF for i in dl)
            fig["dl_ok"] = 100 * sum(1 for i in dl if ok.get(i) == 1) / len(dl)
            busy = data.get(cell + ("download", "srv_busy_pct"))
            cpu_s = data.get(cell + ("download", "srv_cpu_s"))
            if busy:
                fig["dl_srv_busy"] = statistics.median(busy.values())
            if cpu_s and any(ok.get(i) == 1 for i in cpu_s):
                fig["dl_srv_ms"] = statistics.median(1000 * cpu_s[i] for i in cpu_s if ok.get(i) == 1)
        sent = one(cell, "cell", "netem_sent_pkts")
        if sent is not None:
            drop = one(cell, "cell", "netem_dropped_pkts")
            fig["netem_drop"] = 100 * drop / (sent + drop) if sent + drop else 0.0
        for f, v in fig.items():
            if v is not None:
                out.setdefault((link, prof, f), []).append(v)
    return out


class Stat:
    def __init__(self, values):
        self.n = len(values)
        self.median = statistics.median(values)
        self.min = min(values)
        self.max = max(values)


def summarize(per_round):
    return {k: Stat(v) for k, v in per_round.items()}


def beyond(s, ref, fig):
    """+1: s better than ref beyond ref's spread, -1: worse, 0: neither."""
    better = FIG[fig][4]
    if s is None or ref is None or better is None:
        return 0
    if better == "hi":
        return 1 if s.median > ref.max else -1 if s.median < ref.min else 0
    return 1 if s.median < ref.min else -1 if s.median > ref.max else 0


def compare(summary, links, prof, ref, figures=DECIDING):
    """{link: ([figures better beyond ref's spread], [worse])}."""
    out = {}
    for link in links:
        wins, losses = [], []
        for f in figures:
            b = beyond(summary.get((link, prof, f)), summary.get((link, ref, f)), f)
            if b > 0:
                wins.append(f)
            elif b < 0:
                losses.append(f)
        out[link] = (wins, losses)
    return out


def measured_on(summary, links, prof):
    return [lk for lk in links if any((lk, prof, f) in summary for f in DECIDING)]


def decide(summary, all_links, links, name, measure_only):
    """A candidate's verdict against the package: (verdict, reason)."""
    cmp_ = compare(summary, links, name, "package")
    if measure_only:
        return "measured only", "a setting to measure, not to adopt (bench/candidates)", cmp_
    missing = [lk for lk in all_links if lk not in measured_on(summary, links, name)
               or lk not in measured_on(summary, links, "package")]
    if missing:
        return "not decided", "not measured on every link against the package (missing: %s)" % ", ".join(missing), cmp_
    rounds = min(s.n for (lk, p, f), s in summary.items() if p in (name, "package") and f in DECIDING)
    if rounds < MIN_ROUNDS:
        return "not decided", "%d round(s), fewer than %d" % (rounds, MIN_ROUNDS), cmp_
    won = [lk for lk in links if cmp_[lk][0]]
    lost = [lk for lk in links if cmp_[lk][1]]
    if won and not lost:
        return "passes", "wins on %s, loses on none" % ", ".join(won), cmp_
    if lost:
        return "fails", "loses on %s" % ", ".join(lost), cmp_
    return "fails", "wins on no link beyond the spread", cmp_


def saturated(summary, link, prof, load):
    busy = summary.get((link, prof, load + "_srv_busy"))
    return busy is not None and busy.median >= SATURATED_PCT


def write_summary(res, summary, links, profiles):
    with open(os.path.join(res, "summary.csv"), "w", encoding="utf-8", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["link", "profile", "figure", "n", "median", "min", "max"])
        for link in links:
            for p in profiles:
                for fig in FIGURES:
                    s = summary.get((link, p, fig[0]))
                    if s is not None:
                        wr.writerow([link, p, fig[0], s.n, fmt_csv(s.median), fmt_csv(s.min), fmt_csv(s.max)])


def write_decisions(res, decisions, links):
    with open(os.path.join(res, "decisions.csv"), "w", encoding="utf-8", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow(["candidate", "link", "wins", "losses", "verdict"])
        for name, (verdict, _, cmp_) in decisions.items():
            for link in links:
                wins, losses = cmp_[link]
                wr.writerow([name, link, " ".join(wins), " ".join(losses), verdict])
