"""What a run left: bench/links, bench/candidates, settings/, and the raw
files of each cell (wrk's and curl's output, the CPU marks) turned into the
rows of results.csv."""

import math
import os
import re
import sys


PAGE_BYTES = 69632
FILE_BYTES = 2097152


def read_links(path):
    """bench/links: name -> dict(rtt_ms, loss, rate_mbit, mtu, what)."""
    links = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split(None, 5)
            links[parts[0]] = {
                "rtt_ms": float(parts[1]),
                "loss": float(parts[2]),
                "rate_mbit": float(parts[3]),
                "mtu": int(parts[4]),
                "what": parts[5].strip() if len(parts) > 5 else "",
            }
    return links


def read_candidates(path):
    """bench/candidates: [(name, reason, measure_only, lines)]."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^\[([a-z0-9_-]+)( measure-only)?\]\s*(.*)$", line)
            if m:
                out.append([m.group(1), m.group(3), bool(m.group(2)), []])
            elif line and not line.startswith("#") and out:
                out[-1][3].append(line)
    return out


def read_settings(path):
    """settings/*.txt "key: value" lines, or {} when absent."""
    vals = {}
    for name in ("machine.txt", "run.txt", "cpu-split.txt"):
        p = os.path.join(path, name)
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                for line in f:
                    k, sep, v = line.partition(": ")
                    if sep and k not in vals:
                        vals[k] = v.strip()
    return vals


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
    if "netem_sent" in a and "netem_sent" in b:
        out["netem_sent"] = b["netem_sent"] - a["netem_sent"]
        out["netem_dropped"] = b["netem_dropped"] - a["netem_dropped"]
    return out


def raw_to_rows(raw, ticks):
    """Every cell's raw files -> CSV rows (lists of strings)."""
    rows = []
    tags = sorted(f[: -len("-cpu.txt")] for f in os.listdir(raw) if re.match(r"^r\d+-.*-cpu\.txt$", f))

    def read(name):
        p = os.path.join(raw, name)
        if not os.path.exists(p):
            return None
        with open(p, encoding="utf-8", errors="replace") as f:
            return f.read()

    for tag in tags:
        m = re.match(r"^r(\d+)-([a-z0-9_]+)-([a-z0-9_]+)$", tag)
        if not m:
            print(f"report: {tag}: not a cell's name, ignored", file=sys.stderr)
            continue
        rnd, link, prof = m.groups()

        def add(load, metric, value, rep=1):
            rows.append([rnd, link, prof, load, metric, str(rep), fmt_csv(value)])

        marks = parse_marks(read(tag + "-cpu.txt") or "")
        wrk = read(tag + "-wrk.txt")
        if wrk is not None:
            parsed = parse_wrk(wrk)
            if not parsed:
                print(f"report: {tag}-wrk.txt: no wrk summary", file=sys.stderr)
            for k, v in parsed.items():
                add("keepalive", k, v)
            cpu = interval(marks, "keepalive_start", "keepalive_end", ticks)
            for k in ("srv_busy_pct", "srv_cpu_s", "cli_busy_pct", "nginx_cpu_s") if cpu else ():
                add("keepalive", k, cpu[k])
        visits = read(tag + "-visits.txt")
        if visits is not None:
            n = 0
            for line in visits.splitlines():
                if not line.startswith("visit "):
                    continue
                v = kv(line)
                n += 1
                ok = v.get("http") == "200" and v.get("size") == str(PAGE_BYTES) and v.get("exit") == "0"
                add("visitor", "ttlb_s", float(v.get("total", "0")), n)
                add("visitor", "visit_ok", int(ok), n)
                add("visitor", "tls_s", float(v.get("tls", "0")), n)
            cpu = interval(marks, "visitor_start", "visitor_end", ticks)
            if cpu:
                add("visitor", "visit_run_s", cpu["seconds"])
                for k in ("srv_busy_pct", "srv_cpu_s", "cli_busy_pct", "nginx_cpu_s"):
                    add("visitor", k, cpu[k])
        fetch = read(tag + "-fetch.txt")
        if fetch is not None:
            for line in fetch.splitlines():
                if not line.startswith("fetch="):
                    continue
                v = kv(line)
                i = v["fetch"]
                ok = v.get("http") == "200" and v.get("size") == str(FILE_BYTES) and v.get("exit") == "0"
                add("download", "dl_time_s", float(v.get("time", "0")), i)
                add("download", "dl_ok", int(ok), i)
                add("download", "dl_MBps", float(v.get("speed", "0")) / 1e6, i)
                cpu = interval(marks, f"fetch_start n={i}", f"fetch_end n={i}", ticks)
                if cpu:
                    add("download", "srv_busy_pct", cpu["srv_busy_pct"], i)
                    add("download", "srv_cpu_s", cpu["srv_cpu_s"], i)
        cpu = interval(marks, "cell_start", "cell_end", ticks)
        if cpu and "netem_sent" in cpu:
            add("cell", "netem_sent_pkts", cpu["netem_sent"])
            add("cell", "netem_dropped_pkts", cpu["netem_dropped"])
    return rows


def fmt_csv(v):
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if math.isinf(v):
        return "inf"
    return ("%.4f" % v).rstrip("0").rstrip(".") if v != int(v) else str(int(v))
