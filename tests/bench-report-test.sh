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
check_match "the lossy link's ceiling: 20 Mbit/s / 68 KiB" 'Mbit/s / 68 KiB = 35\.9 requests/s' "$report"
check_match "the 2 MB minimum: 3 x 160 ms + 2 MiB at 20 Mbit/s" 'at 20 Mbit/s = 1\.32 s\.' "$report"
check_match "the package against the ceiling and the minimum" '^\| package \| 16\.0 \| 45% \| 2\.10 \| ×1\.6 \|$' "$report"
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
