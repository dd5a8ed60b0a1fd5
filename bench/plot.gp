# The benchmark's plot, drawn by bench/report:
#   gnuplot -e "dir='...'; out='plot.png'; maintitle='...'; dur=30" \
#           -e "note_lossy='...'; note_clean='...'" \
#           -e "y1=..; y2=..; y3=..; y4=.." plot.gp
# note_LINK, when not empty, is a third title line for that link's panels.
# Four panels: the lossy link on top, the clean one below; requests/s on the
# left, 2 MB download throughput on the right; y1..y4 are their y maxima. In each: one bar per profile (median),
# whiskers min-max, a dot per measurement, the median and the ratio to stock
# written above. Data files (from bench/report), per panel LINK-METRIC:
#   LINK-METRIC.dat      x median min max rgb "label"
#   LINK-METRIC-pts.dat  x value

set terminal pngcairo size 1400,1080 enhanced font "Sans,12" linewidth 1.2
set output out
set multiplot layout 2,2 title maintitle font "Sans,15"

set style fill solid 0.85 border rgb "#404040"
set boxwidth 0.62
set xrange [0.4:3.6]
set xtics ("A: stock\nDebian 13" 1, "B: WP Panel\nscript" 2, "C: this\npackage" 3) scale 0
set grid ytics lc rgb "#d8d8d8"
set border 3
set ytics nomirror
set key off
set tmargin 4
set bmargin 4.5

dat(p) = sprintf("%s/%s.dat", dir, p)
pts(p) = sprintf("%s/%s-pts.dat", dir, p)

# The plot command of one panel, P its data name.
panel(p) = sprintf("plot '%s' using 1:2:5 with boxes lc rgb variable, '' using 1:2:3:4:2 with candlesticks fs empty lc rgb '#202020' lw 1.5 whiskerbars 0.5, '%s' using 1:2 with points pt 7 ps 0.7 lc rgb '#70000000', '%s' using 1:4:6 with labels offset 0,1.1 font 'Sans,12'", dat(p), pts(p), dat(p))

with_note(t, n) = (strlen(n) > 0) ? t . "\n" . n : t
set title with_note(sprintf("Lossy link: 160 ms RTT, 1%% loss, 20 Mbit/s\nrequests/s (wrk -t2 -c10 -d%ds, 68 KB page)", dur), note_lossy)
set ylabel "requests/s"
set yrange [0:y1]
eval panel("lossy-req_per_s")

set title with_note("Lossy link: 160 ms RTT, 1% loss, 20 Mbit/s\n2 MB download (curl), MB/s", note_lossy)
set ylabel "MB/s"
set yrange [0:y2]
eval panel("lossy-dl_MBps")

set title with_note(sprintf("Clean link: 20 ms RTT, no loss, 100 Mbit/s\nrequests/s (wrk -t2 -c10 -d%ds, 68 KB page)", dur), note_clean)
set ylabel "requests/s"
set yrange [0:y3]
eval panel("clean-req_per_s")

set title with_note("Clean link: 20 ms RTT, no loss, 100 Mbit/s\n2 MB download (curl), MB/s", note_clean)
set ylabel "MB/s"
set yrange [0:y4]
eval panel("clean-dl_MBps")

unset multiplot
