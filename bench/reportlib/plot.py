"""plot.png: one panel per link and load, drawn by gnuplot from a script
and data files written here."""

import math
import os
import shutil
import subprocess
import sys
import tempfile

from .figures import FIG, saturated
from .markdown import num


COLORS = ["#8c8c8c", "#e69f00", "#0072b2", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#7f3c8d", "#f0e442"]
PANELS = [("ka_rps", "keep-alive, requests/s (wrk -t2 -c10); ‡ server CPU saturated"),
          ("nv_p50", "new visitors, time to last byte, s (median · share within 2 s)"),
          ("dl_time", "2 MB download, s (∞: did not finish)")]


def plot(summary, links, profiles, link_info, settings, out_png, order):
    """order: every profile's name, so that one keeps its colour in any run."""
    if shutil.which("gnuplot") is None:
        print("report: gnuplot is not installed: no plot", file=sys.stderr)
        return False
    tmp = tempfile.mkdtemp(prefix="bench-plot.")
    script = [
        'set terminal pngcairo size %d,%d enhanced font "Sans,10"' % (1650, 140 + 340 * len(links)),
        "set output '%s'" % out_png,
        'set multiplot layout %d,%d title "%s" font "Sans,14" margins 0.04,0.99,0.04,%f spacing 0.05,%f' % (
            len(links), len(PANELS), title(settings).replace('"', "'"), 1 - 90 / (140 + 340 * len(links)),
            100 / (140 + 340 * len(links))),
        'set style fill solid 0.85 border rgb "#404040"',
        "set boxwidth 0.62",
        "set xrange [0.4:%f]" % (len(profiles) + 0.6),
        "set xtics (%s) scale 0 font 'Sans,9'" % ", ".join('"%s" %d' % (p, i + 1) for i, p in enumerate(profiles)),
        'set grid ytics lc rgb "#d8d8d8"',
        "set border 3",
        "set ytics nomirror",
        "set key off",
    ]
    for link in links:
        li = link_info.get(link, {})
        head = "%s: %g ms RTT, %g%% loss, %g Mbit/s%s" % (
            link, li.get("rtt_ms", 0), li.get("loss", 0), li.get("rate_mbit", 0),
            ", MTU %d black hole" % li["mtu"] if li.get("mtu", 1500) < 1500 else "")
        for fig, what in PANELS:
            dat = os.path.join(tmp, "%s-%s.dat" % (link, fig))
            top = 0.0
            lines = []
            for i, p in enumerate(profiles):
                s = summary.get((link, p, fig))
                if s is None:
                    continue
                cap = {"nv_p50": float(settings.get("visit_timeout_s", 10)),
                       "dl_time": float(settings.get("fetch_timeout_s", 20))}.get(fig, 0)
                vals = [cap if math.isinf(v) else v for v in (s.median, s.min, s.max)]
                label = num(s.median, FIG[fig][3])
                if fig == "nv_p50" and (link, p, "nv_2s") in summary:
                    label += " · %s%%" % num(summary[(link, p, "nv_2s")].median, 0)
                load = FIG[fig][1]
                if saturated(summary, link, p, {"keepalive": "ka", "visitor": "nv", "download": "dl"}[load]):
                    label += " ‡"
                top = max(top, vals[2])
                lines.append('%d %f %f %f 0x%s "%s"' % (i + 1, vals[0], vals[1], vals[2], COLORS[order.index(p) % len(COLORS) if p in order else i % len(COLORS)][1:], label))
            with open(dat, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            script += [
                'set title "%s\\n%s"' % (head, what),
                "set yrange [0:%f]" % (max(top, 1.0) * 1.25),
            ]
            if not lines:
                script += ["set label 1 'not measured' at graph 0.4,0.5", "plot NaN notitle", "unset label 1"]
                continue
            script.append(
                "plot '%s' using 1:2:5 with boxes lc rgb variable, "
                "'' using 1:2:3:4:2 with candlesticks fs empty lc rgb '#202020' lw 1.2 whiskerbars 0.5, "
                "'' using 1:4:6 with labels offset 0,0.8 font 'Sans,8'" % dat)
    script.append("unset multiplot")
    gp = os.path.join(tmp, "plot.gp")
    with open(gp, "w", encoding="utf-8") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0:
        print("report: gnuplot failed:\n" + r.stderr, file=sys.stderr)
        return False
    shutil.rmtree(tmp)
    return True


def title(settings):
    return "wp-panel-nettune benchmark, %s: Debian 13 VM, 2 vCPUs split server/client (%s), %s rounds" % (
        settings.get("date", "?"), settings.get("accel", "?").upper(), settings.get("rounds", "?"))
