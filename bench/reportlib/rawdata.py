"""The raw files of each cell (wrk's and curl's output, the CPU and byte
marks) turned into the rows of results.csv:

    pass,round,link,profile,load,metric,rep,value

A cell is one (pass, round, link, profile); its files are TAG-*.txt with
TAG = {pass}{round}-{link}-{profile}, pass "decide" or "ref"; the tags of
the runs before the two passes, r{round}-{link}-{profile}, are read as the
decide pass. A cell is done when TAG-cpu.txt is there: the guest writes it
last."""

import math
import os
import re
import sys

from . import page

PAGE_BYTES = 69632
FILE_BYTES = 2097152


def wrk_ms(text):
    """A wrk duration (850.12us, 1.20ms, 2.00s, 1.00m) in ms."""
    m = re.match(r"^([0-9.]+)(us|ms|s|m|h)?$", text)
    if not m:
        return None
    n = float(m.group(1))
    return n * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000, "h": 3600000, None: 1}[m.group(2)]


def parse_wrk(text):
    """wrk's --latency output -> {metric: value}; {} when it has no summary."""
    out = {}
    dist = False
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if "Latency Distribution" in line:
            dist = True
        elif dist and words[0] in ("50%", "99%") and len(words) > 1:
            out["lat_p%s_ms" % words[0][:-1]] = wrk_ms(words[1])
        m = re.search(r"(\d+) requests in ([0-9.]+\w+),", line)
        if m:
            out["completed"] = int(m.group(1))
            out["wrk_runtime_s"] = wrk_ms(m.group(2)) / 1000
        if "Socket errors:" in line:
            for kind in ("connect", "read", "write", "timeout"):
                m = re.search(kind + r" (\d+)", line)
                if m:
                    out["err_" + kind] = int(m.group(1))
        m = re.search(r"Non-2xx or 3xx responses: (\d+)", line)
        if m:
            out["non_2xx"] = int(m.group(1))
        m = re.match(r"^Requests/sec:\s*([0-9.]+)", line)
        if m:
            out["req_per_s"] = float(m.group(1))
    if "completed" not in out:
        return {}
    res = {
        "req_per_s": out.get("req_per_s", 0.0),
        "completed": out["completed"],
        "timeouts": out.get("err_timeout", 0),
        "errors_socket": sum(out.get("err_" + k, 0) for k in ("connect", "read", "write")),
        "non_2xx": out.get("non_2xx", 0),
        "wrk_runtime_s": out["wrk_runtime_s"],
    }
    for k in ("lat_p50_ms", "lat_p99_ms"):
        if out.get(k) is not None:
            res[k] = out[k]
    return res


def kv(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def parse_marks(text):
    """cpu_mark lines -> {label: {key: number}} (label with n=I for fetches)."""
    marks = {}
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        label = words[0]
        if len(words) > 1 and words[1].startswith("n="):
            label += " " + words[1]
        marks[label] = {k: float(v) for k, v in kv(line).items() if k != "n"}
    return marks


def interval(marks, start, end, ticks):
    """CPU figures between two marks, or None when one is missing."""
    a, b = marks.get(start), marks.get(end)
    if a is None or b is None:
        return None
    wall = b["up"] - a["up"]
    out = {"seconds": wall}
    # Busy = the wall time less the idle time. An emulated CPU loses timer
    # ticks while it is busy, so /proc/stat's busy columns (sampled at the
    # tick) fall short, while its idle time is measured on entering and
    # leaving idle: exact, and it agrees with nginx's own CPU time.
    for side in ("srv", "cli"):
        idle = (b[side + "_total"] - a[side + "_total"]) - (b[side + "_busy"] - a[side + "_busy"])
        busy = min(max(wall * ticks - idle, 0.0), wall * ticks)
        out[side + "_busy_pct"] = 100 * busy / (wall * ticks) if wall > 0 else 0.0
        out[side + "_cpu_s"] = busy / ticks
    out["nginx_cpu_s"] = (b["nginx"] - a["nginx"]) / ticks
    for k in ("netem_sent", "netem_dropped", "srv_bytes", "other_bytes", "srv_out_segs", "srv_retrans_segs"):
        if k in a and k in b:
            out[k] = b[k] - a[k]
    return out


TAG = re.compile(r"^(decide|ref|r)(\d+)-([a-z0-9_]+)-([a-z0-9_]+)$")
PASS_ORDER = {"decide": 0, "ref": 1}


def cell_tags(raw):
    """The done cells of RAW: [(tag, pass, round, link, profile)], in pass,
    round, link and profile order."""
    out = []
    for name in os.listdir(raw):
        if not name.endswith("-cpu.txt"):
            continue
        tag = name[: -len("-cpu.txt")]
        m = TAG.match(tag)
        if not m:
            print(f"report: {tag}: not a cell's name, ignored", file=sys.stderr)
            continue
        pas, rnd, link, prof = m.groups()
        out.append((tag, "decide" if pas == "r" else pas, int(rnd), link, prof))
    return sorted(out, key=lambda t: (PASS_ORDER[t[1]], t[2], t[3], t[4]))


def curl_ok(v, size):
    """A transfer that got all of it: HTTP 200, SIZE bytes, curl's exit 0."""
    return v.get("http") == "200" and v.get("size") == str(size) and v.get("exit") == "0"


def number(v, key):
    try:
        return float(v[key])
    except (KeyError, ValueError):
        return None


def phases(v):
    """curl's cumulative times of a transfer -> the time of each phase: TCP
    connect, the TLS handshake alone (appconnect - connect), the wait for
    the first byte (starttransfer - appconnect), the transfer (total -
    starttransfer). A phase the transfer never reached (its end at 0) has
    no time."""
    t = [number(v, k) for k in ("tcp", "tls", "ttfb", "total")]
    out = {}
    if t[0] is not None:
        out["tcp_s"] = t[0]
    for name, a, b in (("tls_s", t[0], t[1]), ("wait_s", t[1], t[2]), ("xfer_s", t[2], t[3])):
        if a is not None and b is not None and a > 0 and b > 0:
            out[name] = b - a
    return out


def raw_to_rows(raw, ticks):
    """Every done cell's raw files -> CSV rows (lists of strings)."""
    rows = []

    def read(name):
        p = os.path.join(raw, name)
        if not os.path.exists(p):
            return None
        with open(p, encoding="utf-8", errors="replace") as f:
            return f.read()

    for tag, pas, rnd, link, prof in cell_tags(raw):

        def add(load, metric, value, rep=1):
            rows.append([pas, str(rnd), link, prof, load, metric, str(rep), fmt_csv(value)])

        def add_cpu(load, start, end, keys, rep=1):
            cpu = interval(marks, start, end, ticks)
            for k in keys if cpu else ():
                add(load, k, cpu[k], rep)
            return cpu

        marks = parse_marks(read(tag + "-cpu.txt") or "")
        wrk = read(tag + "-wrk.txt")
        if wrk is not None:
            parsed = parse_wrk(wrk)
            if not parsed:
                print(f"report: {tag}-wrk.txt: no wrk summary", file=sys.stderr)
            for k, v in parsed.items():
                add("keepalive", k, v)
            add_cpu("keepalive", "keepalive_start", "keepalive_end",
                    ("srv_busy_pct", "srv_cpu_s", "cli_busy_pct", "nginx_cpu_s"))
        visits = read(tag + "-visits.txt")
        if visits is not None:
            n = 0
            for line in visits.splitlines():
                if not line.startswith("visit "):
                    continue
                v = kv(line)
                n += 1
                add("visitor", "ttlb_s", number(v, "total") or 0.0, n)
                add("visitor", "visit_ok", int(curl_ok(v, PAGE_BYTES)), n)
                for k, t in phases(v).items():
                    add("visitor", k, t, n)
                if number(v, "connects") is not None:
                    add("visitor", "connects", int(number(v, "connects")), n)
            cpu = add_cpu("visitor", "visitor_start", "visitor_end",
                          ("srv_busy_pct", "srv_cpu_s", "cli_busy_pct", "nginx_cpu_s"))
            if cpu:
                add("visitor", "visit_run_s", cpu["seconds"])
        reader = read(tag + "-reader.txt")
        if reader is not None:
            reader_rows(reader, add)
            add_cpu("reader", "reader_start", "reader_end", ("srv_busy_pct", "cli_busy_pct"))
        fetch = read(tag + "-fetch.txt")
        if fetch is not None:
            for line in fetch.splitlines():
                if not line.startswith("fetch="):
                    continue
                v = kv(line)
                i = v["fetch"]
                add("download", "dl_time_s", number(v, "time") or 0.0, i)
                add("download", "dl_ok", int(curl_ok(v, FILE_BYTES)), i)
                add("download", "dl_MBps", (number(v, "speed") or 0.0) / 1e6, i)
                add_cpu("download", f"fetch_start n={i}", f"fetch_end n={i}",
                        ("srv_busy_pct", "srv_cpu_s", "cli_busy_pct"), i)
        page_text = read(tag + "-page.txt")
        if page_text is not None:
            page.page_rows(page_text, add, add_cpu)
        cpu = interval(marks, "cell_start", "cell_end", ticks)
        for k, metric in (("netem_sent", "netem_sent_pkts"), ("netem_dropped", "netem_dropped_pkts"),
                          ("srv_bytes", "srv_bytes"), ("other_bytes", "other_bytes"),
                          ("srv_out_segs", "srv_out_segs"), ("srv_retrans_segs", "srv_retrans_segs")):
            if cpu and k in cpu:
                add("cell", metric, cpu[k])
        if cpu:
            add("cell", "cell_s", cpu["seconds"])
    return rows


def reader_rows(text, add):
    """The reader's file: "spacing=S", then one "read n=I ..." line per page
    (n = 0 and 1; the second on the same connection after an idle pause).
    Rows per page (rep 1 and 2): ttlb_s, read_ok, connects; and the idle
    pause, S less page 1's time to the last byte, or 0 where page 1 took
    longer than S (curl then asks for page 2 at once) (rep 1)."""
    spacing = None
    first_total = None
    rep = 0
    for line in text.splitlines():
        v = kv(line)
        if line.startswith("spacing="):
            spacing = number(v, "spacing")
        elif line.startswith("read "):
            rep = int(v["n"]) + 1 if v.get("n", "").isdigit() else rep + 1
            total = number(v, "total") or 0.0
            add("reader", "ttlb_s", total, rep)
            add("reader", "read_ok", int(curl_ok(v, PAGE_BYTES)), rep)
            if number(v, "connects") is not None:
                add("reader", "connects", int(number(v, "connects")), rep)
            if rep == 1:
                first_total = total
    if spacing is not None and first_total is not None:
        add("reader", "pause_s", max(0.0, spacing - first_total))


def fmt_csv(v):
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if math.isinf(v):
        return "inf"
    return ("%.4f" % v).rstrip("0").rstrip(".") if v != int(v) else str(int(v))
