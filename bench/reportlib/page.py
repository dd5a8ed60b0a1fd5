"""The WordPress-like page's loads (bench/pageload, bench/guest.sh): raw
files -> results.csv rows, and the rows -> each cell's page figures.

A cell's TAG-page.txt holds, per load of BENCH_PAGE_LOADS, an "object ..."
line per object and a "page proto=h2 family=4 objects=21 ok=21 bytes=...
connects=1 tcp=... tls=... html=... total=... exit=0" line last; its
TAG-cpu.txt the marks "page_start n=h2:4" and "page_end n=h2:4" around it.

Each load is a load of results.csv of its own, page_h2_4, page_h2_6,
page_h1_4 or page_h1_6 (protocol, address family), with the metrics
ttlo_s (time to the last object), page_ok (every object whole, HTTP 200),
objects, bytes, connects, tcp_s, tls_s (the handshake alone), html_s (the
HTML's last byte), paint_s (the last byte of the objects a first paint
waits for, the style sheets and the preloaded fonts, from the object
lines), and the CPU counters of its interval."""

PROTOS = {"h2": "HTTP/2", "h1": "HTTP/1.1, six connections"}
FAMILIES = {"4": "IPv4", "6": "IPv6"}
LOADS = [f"page_{p}_{f}" for p in PROTOS for f in FAMILIES]
# What a first paint waits for: the style sheets, and the fonts the page
# preloads (bench/pageload gives them its highest HTTP/2 priority).
PAINT = (".css", ".woff2", ".woff", ".ttf", ".otf")

# The figures, as reportlib.figures.FIGURES has them: id, load, label,
# decimals, better, whether it decides a comparison beyond the spread,
# unit. None decides a comparison beyond the spread (the targets) or is a
# guardrail: which of them should is the decision rule's to say.
FIGURES = []
for _p in PROTOS:
    for _f in FAMILIES:
        _load = f"page_{_p}_{_f}"
        _pre = f"pg{_p[1]}{_f}"
        _what = f"page over {PROTOS[_p]}, {FAMILIES[_f]}"
        FIGURES += [
            (_pre + "_ttlo", _load, _what + ": time to the last object", 2, "lo", False, " s"),
            (_pre + "_html", _load, _what + ": the HTML's last byte", 2, "lo", False, " s"),
            (_pre + "_paint", _load, _what + ": the style sheets' and fonts' last byte", 2, "lo", False, " s"),
            (_pre + "_srv_busy", _load, _what + ": server CPU busy", 0, None, False, "%"),
            (_pre + "_cli_busy", _load, _what + ": client CPU busy", 0, None, False, "%"),
        ]
# A load's figures' prefix, for the client-CPU check of reportlib.figures.
PREFIXES = {f[1]: f[0].split("_")[0] for f in FIGURES}


def kv(line):
    out = {}
    for word in line.split()[1:]:
        k, sep, v = word.partition("=")
        if sep:
            out[k] = v
    return out


def number(v, key):
    try:
        return float(v[key])
    except (KeyError, ValueError):
        return None


def page_rows(text, add, add_cpu):
    """TAG-page.txt's summary lines -> rows through ADD(load, metric,
    value); ADD_CPU(load, start mark, end mark, keys) adds the CPU
    counters. A load whose line is missing (the client died) has page_ok
    0 and an infinite time: it was not served."""
    paint = []  # the ends of this load's style sheets and fonts
    for line in text.splitlines():
        if line.startswith("object "):
            o = kv(line)
            if o.get("path", "").split("?", 1)[0].endswith(PAINT) and number(o, "end") is not None:
                paint.append(number(o, "end"))
            continue
        if not line.startswith("page "):
            continue
        v, ends, paint = kv(line), paint, []
        proto, family = v.get("proto"), v.get("family")
        if proto not in PROTOS or family not in FAMILIES:
            continue
        load = f"page_{proto}_{family}"
        ok = v.get("exit") == "0" and v.get("ok") == v.get("objects")
        add(load, "page_ok", int(ok))
        add(load, "ttlo_s", number(v, "total") or 0.0)
        for key, metric in (("html", "html_s"), ("tcp", "tcp_s")):
            if number(v, key) is not None:
                add(load, metric, number(v, key))
        if ends:
            add(load, "paint_s", max(ends))
        if number(v, "tls") is not None and number(v, "tcp") is not None:
            add(load, "tls_s", number(v, "tls") - number(v, "tcp"))
        for key in ("objects", "bytes", "connects"):
            if number(v, key) is not None:
                add(load, key, int(number(v, key)))
        mark = f"{proto}:{family}"
        add_cpu(load, f"page_start n={mark}", f"page_end n={mark}",
                ("srv_busy_pct", "srv_cpu_s", "cli_busy_pct"))


def cell_figures(one, put, inf):
    """A cell's page figures from its rows: ONE(load, metric) the value or
    None, PUT(figure, value). A load that failed is infinitely slow."""
    for load in LOADS:
        ok = one(load, "page_ok")
        if ok is None:
            continue
        pre = PREFIXES[load]
        put(pre + "_ttlo", one(load, "ttlo_s") if ok == 1 else inf)
        if ok == 1:
            put(pre + "_html", one(load, "html_s"))
        if one(load, "paint_s") is not None:
            put(pre + "_paint", one(load, "paint_s") if ok == 1 else inf)
        put(pre + "_srv_busy", one(load, "srv_busy_pct"))
        put(pre + "_cli_busy", one(load, "cli_busy_pct"))
