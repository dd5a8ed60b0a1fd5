#!/bin/sh
# bench/report's arithmetic on a small results.csv whose figures were worked
# out by hand (tests/fixtures/bench: three rounds, two links, five profiles;
# its settings/ holds the two links and four candidates the test uses).
#
#   lossy, stock, keep-alive requests/s 10 12 11        -> 11 (10-12)
#   lossy, package, success (199-1)/(199+1) 100 100     -> 100 (99-100)
#   lossy, package, server CPU 1.99 s/199 2.4/200 2.2/200 -> 11 ms (10-12)
#   lossy, stock, visits 1.0 1.5 2.5 failed             -> median 2.0, p95 inf, 50%
#                        1.2 1.4 1.8 2.2                -> 1.6, 2.2, 75%
#                        1.1 1.3 1.9 2.1                -> 1.6, 2.1, 75%
#   lossy, stock, download 6 8 failed                   -> 8 (6-inf)
#   clean: the package 65 (60-70) req/s against stock 80-90: worse;
#          lowat 52 < 60: it loses there; mtu's visits 0.25 < 0.35: it wins
# Then the physical floors and the sign-flip test, each function alone, on
# numbers worked out below.
#
# usage: tests/bench-report-test.sh
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

command -v python3 >/dev/null 2>&1 || {
	echo "bench-report-test: SKIP, no python3 on this machine"
	exit 0
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/fixtures/bench" "$tmp/res"

check "the report runs on a results.csv alone" "$top/bench/report" --no-plot "$tmp/res"
for f in summary.csv decisions.csv report.md; do
	check "it writes $f" test -s "$tmp/res/$f"
done
check "it draws no plot with --no-plot" test ! -e "$tmp/res/plot.png"

# summary.csv: link,profile,figure,n,median,min,max
for want in \
	lossy,stock,ka_rps,3,11,10,12 \
	lossy,package,ka_success,3,100,99,100 \
	lossy,package,ka_srv_ms,3,11,10,12 \
	lossy,stock,nv_p50,3,1.6,1.6,2 \
	lossy,stock,nv_p95,3,2.2,2.1,inf \
	lossy,stock,nv_2s,3,75,50,75 \
	lossy,package,nv_p50,3,1,0.95,1.1 \
	lossy,package,nv_p95,3,1.3,1.1,2.4 \
	lossy,initcwnd,nv_p50,3,0.65,0.65,0.7 \
	lossy,stock,dl_time,3,8,6,inf \
	clean,package,ka_srv_ms,3,8,8,8 \
	clean,package,ka_srv_busy,3,92,91,95; do
	check "summary: $want" grep -Fqx -- "$want" "$tmp/res/summary.csv"
done
check "summary: initcwnd ran no keep-alive load" sh -c "! grep -q '^lossy,initcwnd,ka_' '$tmp/res/summary.csv'"

cat >"$tmp/decisions.want" <<'EOF'
candidate,link,wins,losses,verdict
mtu,lossy,,,passes
mtu,clean,nv_p50 nv_p95,,passes
lowat,lossy,,,fails
lowat,clean,,ka_rps,fails
initcwnd,lossy,nv_p50 nv_p95 dl_time,,measured only
initcwnd,clean,,,measured only
EOF
check "decisions.csv: wins and losses beyond the spread, the verdicts" \
	diff -u "$tmp/decisions.want" "$tmp/res/decisions.csv"

report=$(cat "$tmp/res/report.md")
check_match "target: requests/s +15% met (16 against 11)" \
	'^\* Lossy link, keep-alive requests/s at least \+15% over stock: \*\*met\*\*\. Package 16\.0 against 11\.0 \(×1\.45\)\.$' "$report"
check_match "target: success 99.5% met" \
	'^\* Lossy link, success at least 99\.5%: \*\*met\*\*\. Package 100\.00%\.$' "$report"
check_match "target: download 3x met (8 / 2.1)" \
	'^\* Lossy link, 2 MB download at least 3× faster than stock \(median time\): \*\*met\*\*\. Package 2\.10 s against 8\.00 s \(×3\.81\)\.$' "$report"
check_match "target: at least as good as the installer's on every figure" \
	"^\\* Against the installer's script, at least as good on every figure of every link: \\*\\*met\\*\\*\\.$" "$report"
check_match "target: better than the installer's beyond the spread, on both links" \
	"^\\* Against the installer's script, better beyond the spread on at least one figure: \\*\\*met\\*\\*\\. Better on lossy: new visitor TTLB median 1\\.00 against 1\\.05–1\\.20\\. Better on clean: keep-alive requests/s 65\\.0 against 60\\.0–64\\.0\\.$" "$report"
check_match "target: the clean link not met, requests/s worse" \
	'^\* Clean link, no figure worse than stock beyond the spread: \*\*not met\*\*\. Worse: keep-alive requests/s 65\.0 against 80\.0–90\.0' "$report"
check_match "the clean link: server CPU per request, stock 5 ms, package 8 ms" \
	'^\* Server CPU per keep-alive request: stock 5\.0 ms, package 8\.0 ms \(×1\.60\); server busy 70% and 92%, saturated\.$' "$report"
check_match "a saturated server is marked" '^\| package \| 65\.0 \(60\.0–70\.0\) ×0\.76 \| 100\.00 \(100\.00–100\.00\)% \| 92%, 8\.0 ms ‡ \|' "$report"
check_match "the lossy link's ceiling: 20 Mbit/s over 73226 bytes" \
	'20 Mbit/s over the 73226 bytes a 68 KiB page takes on the wire = 34\.1 requests/s\.' "$report"
check_match "the 2 MB minimum: 1.97 s at IW10, 1.71 s at IW32 (initcwnd)" \
	"the rest at the link's rate: 1\\.97 s; 1\\.71 s from an initial window of 32 \\(initcwnd," "$report"
check_match "the package against the ceiling and the minimum (16 / 34.14, 2.10 / 1.974)" \
	'^\| package \| 16\.0 \| 47% \| 2\.10 \| ×1\.06 \|$' "$report"
check_match "initcwnd against the minimum at IW32 (1.90 / 1.710)" '^\| initcwnd \| – \| – \| 1\.90 \| ×1\.11 \|$' "$report"
check_match "mtu passes" '^\| mtu \(.*\*\*passes\*\*: wins on clean, loses on none \|$' "$report"
check_match "lowat fails" '^\| lowat \(.*\*\*fails\*\*: loses on clean \|$' "$report"
check_match "initcwnd: the gain on new visitors" \
	'^\* lossy: TTLB median 0\.65 s against 1\.00 s \(-35%\), p95 0\.90 s against 1\.30 s' "$report"

# One round decides nothing, however clear its figures.
mkdir "$tmp/one"
cp -r "$tmp/res/settings" "$tmp/one/"
grep -E '^(round|1),' "$tmp/res/results.csv" >"$tmp/one/results.csv"
check "the report runs on one round" "$top/bench/report" --no-plot "$tmp/one"
check "one round: mtu not decided (66 against 60 and faster visits)" grep -Fqx 'mtu,clean,ka_rps nv_p50 nv_p95,,not decided' "$tmp/one/decisions.csv"
check_match "... and the report says why" '\*\*not decided\*\*: 1 round\(s\), fewer than 3 \|$' "$(cat "$tmp/one/report.md")"

# The physical floors (bench/reportlib/floors.py), worked by hand. A full
# segment: 1448 bytes of payload in a 1514-byte frame (66 bytes of headers).
#   the 68 KiB page: 69632 + 250 of HTTP headers = 69882 bytes in
#     ceil(69882 / 16384) = 5 TLS records, + 5 x 22 = 69992 bytes of payload,
#     ceil(69992 / 1448) = 49 segments, + 49 x 66 = 73226 bytes on the wire
#   lossy, 20 Mbit/s = 2500000 bytes/s: 2500000 / 73226 = 34.14 requests/s
#   thin, 5 Mbit/s: 625000 / 73226 = 8.535 requests/s
#   the 2 MiB file: 2097152 + 250 = 2097402 in 129 records (128 x 16384 =
#     2097152), + 129 x 22 = 2100240, 1451 segments (1450 x 1448 = 2099600),
#     + 1451 x 66 = 2196006 bytes on the wire
#   lossy, 160 ms: a frame s = 1514 x 8 / 20e6 = 0.6056 ms, the file's wire
#     time 2196006 x 8 / 20e6 = 0.8784024 s, 3 RTT = 0.48 s; a window of W
#     waits 0.16 - (W - 1) s while that is positive:
#     IW10: W = 10 20 40 80 160 (then 320: 319 s > 0.16):
#       5 x 0.16 - (9 + 19 + 39 + 79 + 159) s = 0.8 - 0.184708 = 0.615292,
#       0.48 + 0.8784024 + 0.615292 = 1.9736944 s
#     IW32: W = 32 64 128 256: 0.64 - 476 s = 0.3517344,
#       0.48 + 0.8784024 + 0.3517344 = 1.7101368 s
#   thin, 300 ms, 5 Mbit/s: s = 2.4224 ms, wire time 3.5136096 s, 3 RTT 0.9 s
#     IW10: W = 10 20 40 80 (160: 159 s > 0.3): 1.2 - 146 s = 0.8463296,
#       5.2599392 s; IW32: W = 32 64 (128: 127 s > 0.3): 0.6 - 94 s =
#       0.3722944, 4.785904 s
#   one segment: a 1000-byte body, 1250 + 22 = 1272 bytes, 1338 on the wire:
#     0.48 + 1338 x 8 / 20e6 = 0.4805352 s at any IW
py() {
	python3 -B -c "import sys; sys.path.insert(0, '$top/bench')
from reportlib.floors import *
from reportlib.decide import *
print($1)" 2>&1
}
check_eq "floors: a full segment is a 1514-byte frame" 1514 "$(py 'wire_bytes(1448)')"
check_eq "floors: one byte more is a second frame, 67 bytes" 1581 "$(py 'wire_bytes(1449)')"
check_eq "floors: a 1000-byte body in one TLS record" 1272 "$(py 'response_bytes(1000)')"
check_eq "floors: the page's wire bytes" 73226 "$(py 'wire_bytes(response_bytes(69632))')"
check_eq "floors: the file's wire bytes" 2196006 "$(py 'wire_bytes(response_bytes(2097152))')"
check_eq "floors: lossy page ceiling" 34.14 "$(py '"%.2f" % page_ceiling(20, 69632)')"
check_eq "floors: thin page ceiling" 8.535 "$(py '"%.3f" % page_ceiling(5, 69632)')"
check_eq "floors: lossy 2 MB minimum, IW10" 1.973694 "$(py '"%.6f" % download_floor(2097152, 160, 20)')"
check_eq "floors: lossy 2 MB minimum, IW32" 1.710137 "$(py '"%.6f" % download_floor(2097152, 160, 20, 32)')"
check_eq "floors: thin 2 MB minimum, IW10" 5.259939 "$(py '"%.6f" % download_floor(2097152, 300, 5)')"
check_eq "floors: thin 2 MB minimum, IW32" 4.785904 "$(py '"%.6f" % download_floor(2097152, 300, 5, 32)')"
check_eq "floors: one segment, 3 RTT and one frame" "0.4805352 0.4805352" \
	"$(py '"%.7f %.7f" % (download_floor(1000, 160, 20), download_floor(1000, 160, 20, 32))')"

# The sign-flip test (bench/reportlib/decide.py), worked by hand.
#   8 rounds, the candidate better in each: only the observed signs reach
#     the observed mean: p = 1/256 = 0.00390625; 7 of them and one round of
#     ratio 1 (both signs give the same mean): 2/256 = 1/128 = 0.0078125
#   3, -1, 2 (higher better): the sums of +-3 +-1 +-2 are 6 2 4 0 0 -4 -2 -6,
#     two of eight at least 4: p = 0.25; -3, 1, -2 with lower better too
#   0.1, 0.1, -0.1: sums 0.3 once, 0.1 three times, ties counted: 4/8 = 0.5
#   all zeros, no rounds: p = 1
#   rule: 8 rounds at 0.9 x the reference: p 1/256, ratio 0.9 <= 0.97, passes;
#     at 0.99: p 1/256 but 0.99 > 0.97, fails; 4 rounds at 0.9: p = 1/16 =
#     0.0625 > 0.05, fails; higher better, 8 rounds at 1.05 >= 1.03: passes
check_eq "sign flip: 8 rounds all better" 0.00390625 "$(py 'sign_flip_p([-0.1] * 8)')"
check_eq "sign flip: 7 better, 1 zero" 0.0078125 "$(py 'sign_flip_p([-0.1] * 7 + [0.0])')"
check_eq "sign flip: 3 -1 2, higher better" 0.25 "$(py 'sign_flip_p([3, -1, 2], "hi")')"
check_eq "sign flip: -3 1 -2, lower better" 0.25 "$(py 'sign_flip_p([-3, 1, -2])')"
check_eq "sign flip: ties count" 0.5 "$(py 'sign_flip_p([0.1, 0.1, -0.1], "hi")')"
check_eq "sign flip: the candidate worse in every round" 1.0 "$(py 'sign_flip_p([0.2, 0.1, 0.3])')"
check_eq "sign flip: all zeros, no rounds" "1.0 1.0" "$(py 'sign_flip_p([0.0, 0.0]), sign_flip_p([])')"
check_eq "rule: 8 rounds 10% faster pass" "True 0.0039 0.900" \
	"$(py '"%s %.4f %.3f" % rule([0.9 * v for v in range(1, 9)], list(range(1, 9)))[:3]')"
check_eq "rule: 8 rounds 1% faster fail on the effect" "False 0.0039" \
	"$(py '"%s %.4f" % rule([0.99] * 8, [1] * 8)[:2]')"
check_eq "rule: 4 rounds cannot pass" "False 0.0625" "$(py '"%s %.4f" % rule([0.9] * 4, [1] * 4)[:2]')"
check_eq "rule: higher better, 8 rounds 5% more pass" True "$(py 'rule([105] * 8, [100] * 8, "hi")[0]')"
check_match "rule: says why" '^fails: p = 0\.0625 \(> 0\.05\), geometric mean ratio 0\.900 \(<= 0\.97\), 4 round\(s\)$' \
	"$(py 'rule([0.9] * 4, [1] * 4)[3]')"
check_eq "log ratios: a failed download has none" ValueError \
	"$(py 'log_ratios([float("inf")], [1])' | sed -n 's/^\([A-Za-z]*Error\):.*/\1/p')"
check_eq "log ratios: the rounds must pair" ValueError \
	"$(py 'log_ratios([1, 2], [1])' | sed -n 's/^\([A-Za-z]*Error\):.*/\1/p')"

# Bad input: a clear one-line error, exit 1.
mkdir "$tmp/empty"
check_rc "a folder without raw/ or results.csv" 1 "$top/bench/report" --no-plot "$tmp/empty"
check_match "... says so" '^report: neither raw/ nor results.csv in ' "$out"
printf 'a,b\n1,2\n' >"$tmp/empty/results.csv"
check_rc "a CSV that is not results.csv" 1 "$top/bench/report" --no-plot "$tmp/empty"
check_match "... says so" '^report: .*results.csv: not a results.csv' "$out"
check_rc "no folder given" 1 "$top/bench/report"
check_match "... prints the usage" '^report: usage: bench/report \[--no-plot\] RESULTS_DIR$' "$out"

summary
