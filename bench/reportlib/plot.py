"""plot.png: one row of panels per pass and link (the reference pass
first), one panel per load, drawn by gnuplot from a script and data files
written here."""

import math
import os
import shutil
import subprocess
import sys
import tempfile

from .config import setting
from .figures import FIG, saturated
from .sections import num


COLORS = ["#8c8c8c", "#e69f00", "#0072b2", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#7f3c8d", "#f0e442"]
PANELS = [("ka_rps", "keep-alive, requests/s (wrk -t2 -c10); ‡ server CPU saturated"),
          ("nv_p50", "new visitors, time to last byte, s (median · share within 2 s)"),
          ("rd_next", "reader, the next page after an idle pause, s"),
          ("dl_time", "2 MB download, s (∞: did not finish)")]
PASS_NAMES = {"ref": "reference", "decide": "decide"}
WIDTH, ROW, TOP = 2100, 340, 140


def panel_lines(summary, pas, link, fig, profiles, order, settings):
    """The data lines of one panel, and the top of its range."""
    cap = {"nv_p50": setting(settings, "visit_timeout_s", 8), "rd_next": setting(settings, "visit_timeout_s", 8),
           "dl_time": setting(settings, "fetch_timeout_s", 20)}.get(fig, 0)
    lines, top = [], 0.0
    for i, p in enumerate(profiles):
        s = summary.get((pas, link, p, fig))
        if s is None:
            continue
        # A figure that never came is drawn at its timeout, labelled ∞.
        vals = [cap if math.isinf(v) else v for v in (s.median, s.min, s.max)]
        label = num(s.median, FIG[fig][3])
        if fig == "nv_p50" and (pas, link, p, "nv_2s") in summary:
            label += " · %s%%" % num(summary[(pas, link, p, "nv_2s")].median, 0)
        if saturated(summary, pas, link, p, fig[:2]):
            label += " ‡"
        if s.invalid:
            label += " §"
        top = max(top, vals[2])
        colour = COLORS[(order.index(p) if p in order else i) % len(COLORS)]
        lines.append('%d %f %f %f 0x%s "%s"' % (i + 1, vals[0], vals[1], vals[2], colour[1:], label))
    return lines, top


def plot(summary, ctx, out_png):
    """ctx: links, profiles (every profile's name, in order, so that one
    keeps its colour in any run), link_info, settings."""
    if shutil.which("gnuplot") is None:
        print("report: gnuplot is not installed: no plot", file=sys.stderr)
        return False
    settings, link_info, order = ctx["settings"], ctx["link_info"], ctx["profiles"]
    rows = [(pas, lk) for pas in ("ref", "decide") for lk in ctx["links"]
            if any(k[0] == pas and k[1] == lk for k in summary)]
    if not rows:
        return False
    tmp = tempfile.mkdtemp(prefix="bench-plot.")
    height = TOP + ROW * len(rows)
    script = [
        'set terminal pngcairo size %d,%d enhanced font "Sans,10"' % (WIDTH, height),
        "set output '%s'" % out_png,
        'set multiplot layout %d,%d title "%s" font "Sans,14" margins 0.04,0.99,0.04,%f spacing 0.05,%f' % (
            len(rows), len(PANELS), title(settings).replace('"', "'"), 1 - 90 / height, 100 / height),
        'set style fill solid 0.85 border rgb "#404040"',
        "set boxwidth 0.62",
        'set grid ytics lc rgb "#d8d8d8"',
        "set border 3",
        "set ytics nomirror",
        "set key off",
    ]
    for pas, link in rows:
        li = link_info.get(link, {})
        profiles = [p for p in order if any(k[0] == pas and k[1] == link and k[2] == p for k in summary)]
        head = "%s · %s: %g ms, %.3g%% loss%s, %g Mbit/s%s%s" % (
            PASS_NAMES[pas], link, li.get("rtt_ms", 0), li.get("loss", 0), " (bursty)" if li.get("ge") else "",
            li.get("rate_mbit", 0),
            ", MTU %d black hole" % li["mtu"] if li.get("mtu", 1500) < 1500 else "",
            ", %d flow(s)" % li["flows"] if li.get("flows") else "")
        script += ["set xrange [0.4:%f]" % (len(profiles) + 0.6),
                   "set xtics (%s) scale 0 font 'Sans,9'" % ", ".join(
                       '"%s" %d' % (p, i + 1) for i, p in enumerate(profiles))]
        for fig, what in PANELS:
            lines, top = panel_lines(summary, pas, link, fig, profiles, order, settings)
            dat = os.path.join(tmp, "%s-%s-%s.dat" % (pas, link, fig))
            with open(dat, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            script += ['set title "%s\\n%s"' % (head.replace('"', "'"), what),
                       "set yrange [0:%f]" % (max(top, 1.0) * 1.25)]
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
    return "wp-panel-nettune benchmark, %s: Debian 13 VM, 2 vCPUs split server/client (%s), %s rounds%s" % (
        settings.get("date", "?"), settings.get("accel", "?").upper(), settings.get("rounds", "?"),
        " (reference pass: %s)" % settings["ref_rounds"] if "ref_rounds" in settings else "")
