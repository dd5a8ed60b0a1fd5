#!/bin/sh
# bench/report's arithmetic on a small results.csv whose figures were worked
# out by hand (tests/fixtures/bench, written by its make-results.py from the
# patterns it lists; its settings/ holds the links, the candidates, run.txt
# and plan.txt the test uses).
#
# The reference pass, 3 rounds of stock, installer and package:
#   lossy, stock, keep-alive requests/s 10 12 11          -> 11 (10-12)
#   lossy, package, success (199-1)/(199+1) 100 100        -> 100 (99-100)
#   lossy, package, server CPU 1.99 s/199 2.4/200 2.2/200  -> 11 ms (10-12)
#   lossy, stock, visits 1.0 1.5 2.5 failed                -> median 2.0, p95 inf, 50%
#                        1.2 1.4 1.8 2.2                   -> 1.6, 2.2, 75%
#                        1.1 1.3 1.9 2.1                   -> 1.6, 2.1, 75%
#     TCP connect of the visits, round 1: 0.16 0.17 0.20 and 0.9 for the
#     failed one, left out: 0.17; rounds 2 and 3: 0.16    -> 0.16 (0.16-0.17)
#     transfer = TTLB - TCP - 0.32 (TLS) - 0.17 (wait): round 1 0.35 0.84
#     1.81 -> 0.84; round 2 0.55 0.75 1.15 1.55 -> 0.95; round 3 0.45 0.65
#     1.25 1.45 -> 0.95                                    -> 0.95 (0.84-0.95)
#   lossy, stock, reader's next page 0.9 1.0 failed        -> 1 (0.9-inf)
#     pause: 5 s spacing - 1.2 s of the first page         -> 3.8
#   lossy, stock, download 6 8 failed                     -> 8 (6-inf)
#   compete, stock, the server's bytes of all toward the client:
#     1/(1+3) 1/(1+4) 3/(3+7)                              -> 25 (20-30)%
#
# The decide pass, 8 rounds on lossy and clean; the package's times in round
# r are a base times 1.00 1.10 0.95 1.05 0.90 1.00 1.08 0.97; each candidate
# is the package times a ratio per round:
#   placebo  new visitor TTLB x 1.01^(+ - + - - + + -) on both links: logs
#            +-c, c = log 1.01, four each. p (better) = the flips with at
#            least as many - as +: (70+56+28+8+1)/256 = 163/256 = 0.636719,
#            p (worse) the same, ratio 1. Interval: a shift t beyond c leaves
#            all 8 of one sign, p = 2/256 < 0.05, rejected; at t < c, 16
#            flips or more (any subset of the 4 on the far side) reach the
#            observed sum, p >= 2 x 16/256, kept: [1/1.01, 1.01] =
#            [0.9901, 1.01]. Median on lossy: 0.8911 0.9595 0.9604 1.01 1.01
#            1.0396 1.0891 1.0908 -> 1.01 (0.8911-1.0908)
#   lowat    primary ka_srv_ms: clean, server CPU x 0.9 (4.5 ms against 5),
#            x 1.5 in round 3, where the client's CPU was at 85%: that round
#            is left out, n 7, p = 1/128 = 0.0078125 <= 0.05/2, x 0.9
#            (with it: n 8, x 0.959). passes. Its summary still shows the
#            round: 4.5 (4.5-7.5), 1 invalid
#   bigbuf   primary dl_time: lossy x 0.8 in every round, p 1/256, passes;
#            new visitor TTLB x 1.05 in rounds 1-7, x 0.99 in round 8.
#            Guardrails nv_p50 rd_next ka_rps (dl_time is the primary; no
#            drops, retransmissions or competing flows in this results.csv)
#            on 2 links: m = 6, alpha 0.05/6 = 0.00833, each judged against
#            both copies at once (the pooled test). Per round the logs of
#            bigbuf, the package and the placebo, less the package's: (g,
#            0, +-c), g = log 1.05 = 0.04879 (log 0.99 = -0.01005 in round
#            8), c = log 1.01 = 0.00995; naming cell i the candidate gives
#            v_i - (the other two)/2. Placebo + (rounds 1 3 6 7): bigbuf
#            0.04381, package -0.02937, placebo -0.01444; placebo - (2 4 5):
#            0.05376, -0.01942, -0.03434; round 8: -0.005075, 0.0100,
#            -0.004925. Observed 4 x 0.04381 + 3 x 0.05376 - 0.005075 =
#            0.33144; in rounds 1-7 any other name loses at least 0.058,
#            more than round 8 can give back (0.015), and in round 8 all
#            three reach it: p (worse) = 3/3^8 = 3/6561 = 0.000457247,
#            ratio exp(0.33144/8) = 1.0423: trips. Against the package
#            alone 2/256 = 0.0078125, against the placebo alone the same
#            signs. fails
#   ssai1    kernel-default, primary rd_next on lossy alone: x 1.25 in five
#            rounds, x 0.99 in three: p (worse) = the 8 subsets of the three
#            flipped = 8/256 = 0.03125 <= 0.05/1 (not <= 0.05/2), ratio
#            exp((5 log 1.25 + 3 log 0.99)/8) = 1.1453: it loses: "package's
#            value earns its place"
#   initcwnd measure-only, primary nv_p50 (the default) on both links:
#            lossy x 0.8 in five rounds, x 1.01 in three: p (better) =
#            8/256 = 0.03125 > 0.05/2, ratio exp((5 log 0.8 + 3 log 1.01)/8)
#            = 0.8731: "measured only: fails". No keep-alive load: ka_rps not
#            measured. Its download on clean failed in round 2: counted at
#            the 20 s timeout against 0.44 s (both copies), log(20/0.44) =
#            3.8167 once and 0 seven times: n 8, pooled p (worse) = the
#            namings with round 2's own, any name in the seven others:
#            3^7/3^8 = 1/3, ratio exp(3.8167/8) = 1.6114
#   The power table, nv_p50 on lossy: draws +-c over 8 rounds, d = 0: the
#   ratio is at most 1.01 > 0.97: 0%; d = 3%: all 8 below 0, p = 1/256,
#   passes when the - draws are at least 4: 163/256 = 63.7%; 5%, 10%: 100%.
#
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

# summary.csv: pass,link,profile,figure,n,median,min,max,invalid
for want in \
	ref,lossy,stock,ka_rps,3,11,10,12,0 \
	ref,lossy,package,ka_success,3,100,99,100,0 \
	ref,lossy,package,ka_srv_ms,3,11,10,12,0 \
	ref,lossy,stock,nv_p50,3,1.6,1.6,2,0 \
	ref,lossy,stock,nv_p95,3,2.2,2.1,inf,0 \
	ref,lossy,stock,nv_2s,3,75,50,75,0 \
	ref,lossy,stock,nv_tcp,3,0.16,0.16,0.17,0 \
	ref,lossy,stock,nv_xfer,3,0.95,0.84,0.95,0 \
	ref,lossy,stock,rd_next,3,1,0.9,inf,0 \
	ref,lossy,stock,rd_pause,3,3.8,3.8,3.8,0 \
	ref,lossy,stock,dl_time,3,8,6,inf,0 \
	ref,compete,stock,srv_share,3,25,20,30,0 \
	decide,lossy,package,nv_p50,8,1,0.9,1.1,0 \
	decide,lossy,placebo,nv_p50,8,1.01,0.8911,1.0908,0 \
	decide,clean,lowat,ka_srv_ms,8,4.5,4.5,7.5,1 \
	decide,clean,initcwnd,dl_time,8,0.4,0.36,inf,0; do
	check "summary: $want" grep -Fqx -- "$want" "$tmp/res/summary.csv"
done
check "summary: initcwnd ran no keep-alive load" sh -c "! grep -q '^decide,lossy,initcwnd,ka_' '$tmp/res/summary.csv'"

# decisions.csv: candidate,link,figure,role,n,p_better,p_worse,ratio,ci_low,ci_high,result
for want in \
	placebo,lossy,nv_p50,primary,8,0.636719,0.636719,1,0.9901,1.01,"no difference" \
	placebo,all,nv_p50,verdict,,,,,,,"no difference shown" \
	lowat,clean,ka_srv_ms,primary,7,0.0078125,1,0.9,0.9,0.9,better \
	"lowat,clean,ka_rps,guardrail against both copies,7,1,1,1,,,ok" \
	lowat,all,ka_srv_ms,verdict,,,,,,,passes \
	bigbuf,lossy,dl_time,primary,8,0.00390625,1,0.8,0.8,0.8,better \
	"bigbuf,lossy,nv_p50,guardrail against both copies,8,0.999695,0.000457247,1.0423,,,tripped" \
	"bigbuf,lossy,nv_p50,\"guardrail, against package alone\",8,0.996094,0.0078125,1.0423,,,worse" \
	bigbuf,all,dl_time,verdict,,,,,,,fails \
	ssai1,all,rd_next,verdict,,,,,,,"package's value earns its place" \
	initcwnd,lossy,nv_p50,primary,8,0.03125,0.972656,0.8731,0.8,1.01,"no difference" \
	"initcwnd,lossy,ka_rps,guardrail against both copies,0,1,1,1,,,not measured" \
	"initcwnd,clean,dl_time,guardrail against both copies,8,1,0.333333,1.6114,,,ok" \
	"initcwnd,lossy,netem_drop,guardrail,0,,,,,,not measured" \
	initcwnd,all,nv_p50,verdict,,,,,,,"measured only: fails"; do
	check "decisions: $want" grep -Fqx -- "$want" "$tmp/res/decisions.csv"
done
check_match "decisions: ssai1 loses on lossy at p 0.03125, its only link" \
	'^ssai1,lossy,rd_next,primary,8,[0-9.]+,0\.03125,1\.1453,[0-9.]+,[0-9.]+,worse$' \
	"$(cat "$tmp/res/decisions.csv")"
check "decisions: ssai1's primary is judged on lossy alone" \
	sh -c "! grep -q '^ssai1,clean,rd_next' '$tmp/res/decisions.csv'"

report=$(cat "$tmp/res/report.md")
check_match "the plan: 8 rounds x 2 links x 6 profiles, shuffled with the seed" \
	'^Decide pass: 8 round\(s\) × 2 link\(s\) \(lossy, clean\) × 6 profile\(s\) \(package, placebo, .*seed 42' \
	"$report"
check_match "the rule comes before the first figure" '^## The decision rule, fixed before the run$' \
	"$(sed -n '1,/^## Link /p' "$tmp/res/report.md")"
check_match "8 rounds can reach 0.05/2 and, pooled or not, 0.05/6 and 0.05/8 (1/256, 1/6561)" \
	'1/2\^8 = 0\.003906 .* 1/3\^8 = 0\.0001524 .* needs 0\.025 \(reachable\)\. The guardrails need: placebo, 8 guardrail-link pair\(s\) \(against the package\): 0\.05/8 = 0\.00625, reachable; .*bigbuf, 6 guardrail-link pair\(s\) \(pooled over both copies\): 0\.05/6 = 0\.008333, reachable;' \
	"$report"
# Its last column: 3% times the copies' largest ratio in a round, 1.01:
# 1.03 x 1.01 = 1.0403; the placebo's download, the package's own: 1.03.
check_match "the guardrails' power table: bigbuf's nv_p50 on lossy, pooled" \
	'^\| bigbuf \| nv_p50 \| lossy \| pooled \| 8 \| 0\.008333 \| 1/3\^8 = 0\.0001524 \| 5 \| ×1\.040 \| tripped \|$' "$report"
check_match "the guardrails' power table: the placebo's, against the package, 1/256" \
	'^\| placebo \| dl_time \| lossy \| against the package \| 8 \| 0\.00625 \| 1/2\^8 = 0\.003906 \| 8 \| ×1\.030 \| ok \|$' "$report"
check_match "the guardrails' power table: a guardrail this run did not measure" \
	'^\| lowat \| srv_retrans \| clean \| pooled \| – \| 0\.00625 \| – \| – \| – \| \*\*not measured\*\* \(not passed\) \|$' "$report"
check_match "the drop table: not measured where results.csv has no drops" \
	'^\| decide \| lossy \| lowat \| not measured \| not measured \| no competing flows \|$' "$report"
check_match "the placebo: the run stands" '^The placebo shows no difference: the run stands\.$' "$report"
check_match "lowat's row: the round left out, the interval" \
	'^\| lowat \| .* \| p better 0\.007812, p worse 1, ×0\.900 \[0\.900–0\.900\], n 7 \(1 left out\); against the placebo: p better 0\.007812, p worse 1, ×0\.900, n 7 \*\*better' \
	"$report"
check_match "bigbuf's row: the guardrail that tripped" \
	'^\| bigbuf \| .* \| nv_p50 on lossy \| \*\*fails\*\*: .*: nv_p50 on lossy \(worse, p 0\.0004572, ×1\.042 against both copies\); guardrails not measured in this run \(not passed\): netem_drop on lossy, ' \
	"$report"
check_match "the power table: nv_p50 on lossy, 0%, 63.7%, 100%, 100%" \
	'^\| nv_p50 \| lossy \| 0\.025 \| 8 \| 0\.0% \| 63\.7% \| 100\.0% \| 100\.0% \| placebo, initcwnd \|$' "$report"
check_match "a load left out is marked: lowat's keep-alive on clean, 1 round" \
	'^\| lowat \| 60\.0 \(60\.0–60\.0\) §1 \|' "$report"
# The new-visitor floor on lossy (worked out below): 0.8123336 s at IW10,
# 0.6505168 s at IW32; the package 1.00 / 0.8123 = 1.23, initcwnd's median
# (0.8 + 0.84) / 2 = 0.82, / 0.6505 = 1.26.
check_match "the new visitor TTLB over its floor, IW10" '^\| package \| 15\.0 .* \| 1\.00 \(0\.90–1\.10\) s ×1\.23 \|' \
	"$report"
check_match "the new visitor TTLB over its floor, IW32 (initcwnd)" \
	'^\| initcwnd \| – \| – \| 0\.82 \(0\.76–1\.11\) s ×1\.26 \|' \
	"$report"
check_match "the Gilbert-Elliott loss: 0.5/20.5 x 50% + 20/20.5 x 0.1% = 1.32%" \
	'^## Link compete: 160 ms RTT, Gilbert-Elliott loss 0\.5/20/50/0\.1 \(mean 1\.32%\), .*0\.25 BDP, 2 comp' \
	"$report"
check_match "competing flows: the fair share, 1/3" 'fair share of the bytes toward the client: 1/3 = 33%; ' "$report"
check_match "competing flows: the package's share, 2/(2+2)" \
	'^\| ref \| package \| 50 \(50–50\)% \| 1\.50 \(1\.50–1\.50\) s \| 0\.60 \(.*\) s \| 5\.00 \(5\.00–5\.00\) s \|$' \
	"$report"
check "competing flows: no decide pass on that link, no decide row" \
	sh -c "! grep -Eq '^\\| decide \\| [a-z0-9]+ \\| [0-9]+ \\(' '$tmp/res/report.md'"
check_match "targets from the reference pass" '^From the reference pass\.$' "$report"
check_match "target: requests/s +15% met (16 against 11)" \
	'^\* Lossy link, keep-alive requests/s .*: \*\*met\*\*\. Package 16\.0 against 11\.0 \(×1\.45\)\.$' \
	"$report"
check_match "target: download 3x met (8 / 2.1)" \
	'^\* Lossy link, 2 MB download at least 3× .*: \*\*met\*\*\. Package 2\.10 s against 8\.00 s \(×3\.81\)\.$' \
	"$report"
check_match "the lossy link's ceiling: 20 Mbit/s over 73226 bytes" \
	'20 Mbit/s over the 73226 bytes a 68 KiB page takes on the wire = 34\.1 requests/s\.' "$report"
check_match "the 2 MB minimum: 1.97 s at IW10, 1.71 s at IW32 (initcwnd)" \
	"the rest at the link's rate: 1\\.97 s; 1\\.71 s from an initial window of 32 \\(initcwnd," "$report"
check_match "the package against the minimum (2.10 / 1.974)" \
	'^\| ref \| package \| 16\.0 \| 47% \| 2\.10 \| ×1\.06 \|$' \
	"$report"

# The package against the installer's profile, paired by round in the
# reference pass. Lossy, new visitor TTLB, each round's median of its visits:
# the package 1.0 0.95 1.15, the installer 1.05 1.15 1.25; ratios 0.95238
# 0.82609 0.92, geometric mean 0.89786; better in all 3, one-sided p 1/8,
# two-sided 0.25, and 3 rounds cannot bound the interval (2/8 > 0.05). The
# download 2.1 against 2.5 in every round: x 0.840. Compete: the same
# figures, every round equal: x 1, p 1.
check_match "installer: lossy new visitor, package / installer x 0.898 in 3 of 3" \
	'^\| lossy \| new visitor TTLB median \| 1\.15 \(1\.05–1\.25\) s \| 1\.00 \(0\.95–1\.15\) s \| ×0\.898 \[0–∞\] \| 3 of 3 \| 0\.25 \|$' \
	"$report"
check_match "installer: lossy download x 0.840" \
	'^\| lossy \| 2 MB download time \| 2\.50 \(2\.50–2\.50\) s \| 2\.10 \(2\.10–2\.10\) s \| ×0\.840 \[0–∞\] \| 3 of 3 \| 0\.25 \|$' \
	"$report"
check_match "installer: compete, every round equal" \
	'^\| compete \| 2 MB download time \| 5\.00 \(5\.00–5\.00\) s \| 5\.00 \(5\.00–5\.00\) s \| ×1\.000 \[0–∞\] \| 0 of 3 \(3 equal\) \| 1 \|$' \
	"$report"

# variant DIR AWK: a copy of the fixture whose results.csv AWK rewrites (the
# fields split at commas), reported.
variant() {
	mkdir "$tmp/$1"
	cp -r "$tmp/res/settings" "$tmp/$1/"
	awk -F, -v OFS=, "$2" "$tmp/res/results.csv" "$tmp/res/results.csv" >"$tmp/$1/results.csv"
	"$top/bench/report" --no-plot "$tmp/$1"
}
# shellcheck disable=SC2016 # awk's fields, not the shell's
reader2='$5 == "reader" && $6 == "ttlb_s" && $7 == 2 && $3 == "lossy"'
# shellcheck disable=SC2016 # awk's fields, not the shell's
reader2clean='$5 == "reader" && $6 == "ttlb_s" && $7 == 2 && $3 == "clean"'

# The installer's download on lossy 2.0 in round 2: the package (2.1) worse
# there, better in the other two. Logs -a -a +b, a = log(2.5/2.1) = 0.17435,
# b = log(2.1/2.0) = 0.04879: only -a -a -b lies below the sum, so p better
# 2/8, two-sided 0.5; ratio exp((-2a + b)/3) = 0.9049, better in 2 of 3.
# And the installer's lossy cells of round 1 alone: one round, not paired.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "installer: a round the other way" variant instmix \
	'NR == FNR { next } $1 == "ref" && $2 == 2 && $3 == "lossy" && $4 == "installer" && $6 == "dl_time_s" { $8 = 2.0 } { print }'
check_match "installer: ... x 0.905, 2 of 3, two-sided p 0.5" \
	'^\| lossy \| 2 MB download time \| 2\.50 \(2\.00–2\.50\) s \| 2\.10 \(2\.10–2\.10\) s \| ×0\.905 \[0–∞\] \| 2 of 3 \| 0\.5 \|$' \
	"$(cat "$tmp/instmix/report.md")"
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "installer: one round of it" variant inst1 \
	'NR == FNR { next } $1 == "ref" && $2 > 1 && $3 == "lossy" && $4 == "installer" { next } { print }'
check_match "installer: ... one round, not paired" \
	'^\| lossy \| 2 MB download time \| 2\.50 \(2\.50–2\.50\) s \| 2\.10 \(2\.10–2\.10\) s \| not paired: 1 round\(s\) of both \| – \| – \|$' \
	"$(cat "$tmp/inst1/report.md")"

# The placebo's next page 10 times slower on clean (ssai1 is judged on lossy,
# against the placebo too): p (worse) 1/256 <= 0.05/8, ratio 10: it trips a
# guardrail, and every verdict is void.
check "void: the placebo trips a guardrail" variant trip \
	"NR == FNR { next } $reader2clean && \$4 == \"placebo\" { \$8 = \$8 * 10 } { print }"
check "void: decisions.csv says so, with the would-be verdict" grep -Fqx \
	'lowat,all,ka_srv_ms,verdict,,,,,,,void [passes]' "$tmp/trip/decisions.csv"
check "void: the kernel-default verdict too" grep -Fqx \
	"ssai1,all,rd_next,verdict,,,,,,,void [package's value earns its place]" "$tmp/trip/decisions.csv"
check "void: measured only" grep -Fqx 'initcwnd,all,nv_p50,verdict,,,,,,,measured only: void [fails]' \
	"$tmp/trip/decisions.csv"
check "void: the placebo's own row" grep -Fqx \
	'placebo,all,nv_p50,verdict,,,,,,,trips a guardrail (the run is void)' "$tmp/trip/decisions.csv"
check_match "void: the report says why" \
	'^\*\*Void\.\*\* The run is void, .*: placebo trips a guardrail \(.*: rd_next on clean \(worse, p 0\.003906, ×10\.0' \
	"$(cat "$tmp/trip/report.md")"
# Its next page 10 times faster on lossy: better, but for a placebo that is
# a difference where there is none too: p (better) 1/256, the run is void.
check "void: the placebo better on a guardrail" variant faster \
	"NR == FNR { next } $reader2 && \$4 == \"placebo\" { \$8 = \$8 / 10 } { print }"
check "void: ... decisions.csv says so" grep -Fqx \
	'placebo,all,nv_p50,verdict,,,,,,,trips a guardrail (the run is void)' "$tmp/faster/decisions.csv"
check_match "void: ... and the report says better" 'rd_next on lossy \(better, p 0\.003906, ×0\.100' \
	"$(cat "$tmp/faster/report.md")"
# Its server CPU per keep-alive request 10 times more on lossy: not one of
# the four guardrails, but lowat's primary, which the placebo is tested on
# too (its m: 4 figures x 2 links, 0.05/8 >= 1/256): the run is void.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "void: the placebo on another candidate's primary" variant cpu \
	'NR == FNR { next } $4 == "placebo" && $3 == "lossy" && $5 == "keepalive" && $6 == "srv_cpu_s" { $8 *= 10 } { print }'
check "void: ... decisions.csv says so" grep -Fqx \
	'placebo,all,nv_p50,verdict,,,,,,,trips a guardrail (the run is void)' "$tmp/cpu/decisions.csv"
check "void: ... on ka_srv_ms" grep -q '^placebo,lossy,ka_srv_ms,guardrail,8,.*,tripped$' "$tmp/cpu/decisions.csv"

# The guardrails against both copies of the package at once (the pooled
# test). lowat's 2 MB download on lossy the package's x 1.10 in rounds 1-6
# and x 0.99 in rounds 7-8, where the placebo's is the package's x 0.90:
# worse than the placebo in every round (x 1.10), than the package in six.
# Against the package alone: logs 6 x 0.09531 and 2 x -0.01005, only the
# flips of the two small ones reach the sum, p 4/256 = 0.015625 > 0.05/6
# (the rule of the package alone: no trip). Pooled, per round v_i - (the
# other two)/2 for the three names: rounds 1-6 (g, 0, 0), g = log 1.1:
# lowat 0.09531, the package and the placebo -0.04766 each; rounds 7-8
# (log 0.99, 0, log 0.9): lowat 0.04263, the package 0.05771, the placebo
# -0.10034. Any other name in rounds 1-6 loses 0.143, more than rounds 7-8
# can give back (2 x 0.0151); there the package's name reaches the sum,
# the placebo's does not: 2 x 2 = 4 namings, p 4/6561 = 0.000609663 <=
# 0.05/8 (lowat's pairs: nv_p50 rd_next dl_time ka_rps on 2 links), ratio
# exp((6 x 0.09531 + 2 x 0.04263)/8) = 1.0856: it trips, lowat fails. The
# placebo's own download: two rounds of x 0.9, p (better) 1/4, no trip.
# p (better), the other side: all but the namings (flips) above the sum,
# 3 of the 4 that reach it: 1 - 3/6561 = 0.999543, 1 - 3/256 = 0.988281.
pkgdl="NR == FNR { if (\$1 == \"decide\" && \$3 == \"lossy\" && \$6 == \"dl_time_s\" && \$4 == \"package\") v[\$2] = \$8; next }"
# shellcheck disable=SC2016 # awk's fields, not the shell's
dl='$1 == "decide" && $3 == "lossy" && $6 == "dl_time_s"'
check "pooled: a guardrail worse than the placebo, not the package" variant gplacebo \
	"$pkgdl $dl && \$4 == \"lowat\" { \$8 = v[\$2] * (\$2 <= 6 ? 1.1 : 0.99) }
	$dl && \$4 == \"placebo\" && \$2 > 6 { \$8 = v[\$2] * 0.9 } { print }"
for want in \
	"lowat,lossy,dl_time,guardrail against both copies,8,0.999543,0.000609663,1.0856,,,tripped" \
	"lowat,lossy,dl_time,\"guardrail, against package alone\",8,0.988281,0.015625,1.0714,,,no difference" \
	"lowat,lossy,dl_time,\"guardrail, against placebo alone\",8,1,0.00390625,1.1,,,worse" \
	"lowat,all,ka_srv_ms,verdict,,,,,,,fails" \
	"placebo,lossy,dl_time,guardrail,8,0.25,1,0.974,,,ok" \
	"placebo,all,nv_p50,verdict,,,,,,,no difference shown"; do
	check "pooled, the placebo's side: $want" grep -Fqx -- "$want" "$tmp/gplacebo/decisions.csv"
done
# The mirror: lowat the package's x 1.10 in every round, the placebo's x
# 1/0.9 in rounds 7-8: worse than the package in every round (p 1/256),
# than the placebo in six (p 4/256); pooled the same 4/6561, x 1.0856.
check "pooled: a guardrail worse than the package, not the placebo" variant gpackage \
	"$pkgdl $dl && \$4 == \"lowat\" { \$8 = v[\$2] * 1.1 }
	$dl && \$4 == \"placebo\" && \$2 > 6 { \$8 = v[\$2] / 0.9 } { print }"
for want in \
	"lowat,lossy,dl_time,guardrail against both copies,8,0.999543,0.000609663,1.0856,,,tripped" \
	"lowat,lossy,dl_time,\"guardrail, against package alone\",8,1,0.00390625,1.1,,,worse" \
	"lowat,lossy,dl_time,\"guardrail, against placebo alone\",8,0.988281,0.015625,1.0714,,,no difference" \
	"lowat,all,ka_srv_ms,verdict,,,,,,,fails"; do
	check "pooled, the package's side: $want" grep -Fqx -- "$want" "$tmp/gpackage/decisions.csv"
done
# Seven rounds: the placebo's guardrails, against the package alone, reach
# 1/2^7 = 0.0078 at the least, above 0.05/8 = 0.00625: none can trip (it
# takes 8), so neither the placebo nor the rest can be decided; the
# candidates' pooled ones reach 1/3^7 = 0.000457 (5 rounds would do).
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "seven rounds: the report runs" variant seven 'NR == FNR { next } $2 != 8 { print }'
check "seven rounds: the placebo's guardrail cannot trip" grep -Fqx \
	'placebo,lossy,dl_time,guardrail,7,1,1,1,,,cannot trip with 7 rounds' "$tmp/seven/decisions.csv"
check "seven rounds: so the rule cannot decide" grep -Fqx 'lowat,all,ka_srv_ms,verdict,,,,,,,cannot decide' \
	"$tmp/seven/decisions.csv"
seven=$(cat "$tmp/seven/report.md")
check_match "seven rounds: the power table says so loudly" \
	'^\| placebo \| dl_time \| lossy \| against the package \| 7 \| 0\.00625 \| 1/2\^7 = 0\.007812 \| 8 \| ×1\.030 \| \*\*cannot trip with 7 rounds\*\* \(needs 8\) \|$' \
	"$seven"
check_match "seven rounds: ... above it too" \
	"^\\*\\*Guardrails that cannot trip with these rounds\\*\\*: placebo's rd_next on lossy \\(7 rounds, needs 8\\)," "$seven"
check_match "seven rounds: ... and the reach" \
	'placebo, 8 guardrail-link pair\(s\) \(against the package\): 0\.05/8 = 0\.00625, \*\*out of reach: no guardrail can trip with 7 rounds, it takes 8\*\*' \
	"$seven"
check_match "seven rounds: lowat's pooled guardrails could" \
	'^\| lowat \| dl_time \| lossy \| pooled \| 7 \| 0\.00625 \| 1/3\^7 = 0\.0004572 \| 5 \| ×1\.030 \| ok \|$' "$seven"
# Drops at the bottleneck: netem sent 10000 packets toward the client in
# every decide cell and dropped 100 (100/10100 = 0.990099%), 200 with
# lowat on lossy (200/10200 = 1.960784%): worse than both copies in every
# round, p 1/3^8 = 0.000152416 <= 0.05/10 (lowat's pairs: five figures on
# 2 links), ratio 1.960784/0.990099 = 1.9804: it trips, lowat fails. The
# placebo's drops are the package's: p 1, the run stands.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "drops: the report runs" variant drops 'NR == FNR { next } { print }
	$1 == "decide" && $5 == "visitor" && $6 == "visit_ok" && $7 == 1 {
		print $1, $2, $3, $4, "cell", "netem_sent_pkts", 1, 10000
		print $1, $2, $3, $4, "cell", "netem_dropped_pkts", 1, ($4 == "lowat" && $3 == "lossy") ? 200 : 100 }'
for want in \
	"lowat,lossy,netem_drop,guardrail against both copies,8,1,0.000152416,1.9804,,,tripped" \
	"lowat,clean,netem_drop,guardrail against both copies,8,1,1,1,,,ok" \
	"lowat,all,ka_srv_ms,verdict,,,,,,,fails" \
	"placebo,lossy,netem_drop,guardrail,8,1,1,1,,,ok" \
	"placebo,all,nv_p50,verdict,,,,,,,no difference shown"; do
	check "drops: $want" grep -Fqx -- "$want" "$tmp/drops/decisions.csv"
done
drops=$(cat "$tmp/drops/report.md")
check_match "drops: the verdict says why" \
	'^\| lowat \| .* \| netem_drop on lossy \| \*\*fails\*\*: .*guardrail tripped: netem_drop on lossy \(worse, p 0\.0001524, ×1\.980 against both copies\)' \
	"$drops"
check_match "drops: the drop table, lowat on lossy" \
	'^\| decide \| lossy \| lowat \| 1\.96 \(1\.96–1\.96\)% \| not measured \| no competing flows \|$' "$drops"
check_match "drops: ... and the package" \
	'^\| decide \| lossy \| package \| 0\.99 \(0\.99–0\.99\)% \| not measured \| no competing flows \|$' "$drops"
# The competing flows' throughput, a guardrail where the link has them: the
# clean link given two competing flows, each decide cell there 10 s long
# with 1 MB of the other sender's bytes toward the client (0.8 Mbit/s), 0.5
# MB with lowat (0.4 Mbit/s): lower than both copies in every round, p
# 1/3^8 = 0.000152416 <= 0.05/9 (lowat's pairs: four figures on 2 links,
# the throughput on clean), ratio 0.5: it trips. No such pair on lossy,
# which has no competing flows.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "competing throughput: the report runs" variant flows 'NR == FNR { next } { print }
	$1 == "decide" && $3 == "clean" && $5 == "visitor" && $6 == "visit_ok" && $7 == 1 {
		print $1, $2, $3, $4, "cell", "cell_s", 1, 10
		print $1, $2, $3, $4, "cell", "other_bytes", 1, $4 == "lowat" ? 500000 : 1000000 }'
sed -i 's/^\(clean\t20\t0\t100\t1500\t1\t\)0/\12/' "$tmp/flows/settings/links"
check "competing throughput: ... with two flows on clean" "$top/bench/report" --no-plot "$tmp/flows"
for want in \
	"lowat,clean,other_rate,guardrail against both copies,8,1,0.000152416,0.5,,,tripped" \
	"placebo,clean,other_rate,guardrail,8,1,1,1,,,ok" \
	"lowat,all,ka_srv_ms,verdict,,,,,,,fails"; do
	check "competing throughput: $want" grep -Fqx -- "$want" "$tmp/flows/decisions.csv"
done
check "competing throughput: none on lossy" sh -c "! grep -q '^lowat,lossy,other_rate,' '$tmp/flows/decisions.csv'"
check_match "competing throughput: the drop table" \
	'^\| decide \| clean \| lowat \| not measured \| not measured \| 0\.40 \(0\.40–0\.40\) Mbit/s \|$' \
	"$(cat "$tmp/flows/report.md")"
# The competing-flow link in the decide pass too: the reference pass's cells
# of stock and the package copied into it. The table shows both passes.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "competing flows: a decide pass on that link" variant cdecide \
	'NR == FNR { next } { print } $1 == "ref" && $3 == "compete" && $4 == "package" { $1 = "decide"; print }'
check "competing flows: ... its row under the reference pass's" sh -c \
	"grep -A1 '^| ref | package | 50 (50–50)% |' '$tmp/cdecide/report.md' | grep -q '^| decide | package | 50 (50–50)% | 1.50 '"
# A measure-only candidate's primary is not one of the placebo's guardrails:
# initcwnd measured on the reader's first page (rd_first), and the placebo's
# first page 10 times slower on lossy. Were rd_first guarded, m would be 5
# figures x 2 links, 0.05/10 >= 1/256, and the run void; it stands.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "measure-only: the variant reports" variant first \
	'NR == FNR { next } $4 == "placebo" && $3 == "lossy" && $5 == "reader" && $6 == "ttlb_s" && $7 == 1 { $8 *= 10 } { print }'
sed -i 's/^\[initcwnd measure-only\]/[initcwnd measure-only primary=rd_first]/' "$tmp/first/settings/candidates"
check "measure-only: ... with initcwnd's primary rd_first" "$top/bench/report" --no-plot "$tmp/first"
check "measure-only: ... judged on rd_first" grep -q '^initcwnd,lossy,rd_first,primary,' "$tmp/first/decisions.csv"
check "measure-only: the placebo has no rd_first guardrail" \
	sh -c "! grep -q '^placebo,[a-z]*,rd_first,' '$tmp/first/decisions.csv'"
check "measure-only: the run stands" grep -Fqx 'placebo,all,nv_p50,verdict,,,,,,,no difference shown' \
	"$tmp/first/decisions.csv"
# The floors' table: the package's download on lossy, 3.00 s, over the
# lossless 1.97 s (x1.52) and the loss-aware 2.13 s (x1.41, as above); on
# compete (two flows: a third of 20 Mbit/s, 160 ms, the bursty loss) the
# reference pass's 5.00 s over the fair share's 3.49 s, x1.43.
check_match "floors: the package's download on lossy against the three" \
	'^\| decide \| lossy \| package \| 1\.00 s \| ×1\.23 \(0\.81 s\) \| ×1\.23 \(0\.81 s\) \| ×1\.23 \(0\.81 s\) \| 3\.00 s \| ×1\.52 \(1\.97 s\) \| ×1\.41 \(2\.13 s\) \| ×1\.52 \(1\.97 s\) \|$' \
	"$report"
check_match "floors: at a fair share beside two flows" \
	'^\| ref \| compete \| package \| 1\.50 s \| .* \| 5\.00 s \| ×2\.53 \(1\.97 s\) \| ×2\.34 \(2\.13 s\) \| ×1\.43 \(3\.49 s\) \|$' \
	"$report"
# The WordPress-like page: none in the fixture, so the report says so.
check "page: not measured without page loads" grep -Fqx \
	'Not measured in this run (the runs before 2026-12-07 had no page loads).' "$tmp/res/report.md"
# Page loads on lossy, HTTP/2 over IPv4: the package's time to the last
# object twice its new visitor's, 2 x 1.00 1.10 0.95 1.05 0.90 1.00 1.08
# 0.97 -> median 2.00 (1.80-2.20); the placebo's x 1.01^(+ - + - - + + -);
# initcwnd's x 0.8 in every round: against the package logs all log 0.8, p
# better 1/256 = 0.00391, p worse 1, x 0.800 [0.800-0.800]; against the
# placebo log 0.8 -+ log 1.01, all below 0: the same p, x 0.800, interval
# [0.8/1.01, 0.8 x 1.01] = [0.792, 0.808] (as the placebo's own above).
# iwprog, the program with initcwnd's windows (prog 32 32), x 0.8 in rounds
# 1-4 and x 0.88 in 5-8: against initcwnd logs 0 four times and log 1.1
# four times, x 1.1^(1/2) = 1.049; p worse = the flips keeping the four
# positive, 16/256 = 0.0625, two-sided 0.125.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "page: the variant reports" variant page \
	'NR == FNR { if ($1 == "decide" && $3 == "lossy" && $4 == "package" && $5 == "visitor" && $6 == "ttlb_s") v[$2] = $8; next }
	{ print }
	END {
		split("1 -1 1 -1 -1 1 1 -1", s, " ")
		for (r = 1; r <= 8; r++) {
			t["package"] = 2 * v[r]; t["placebo"] = 2 * v[r] * 1.01 ^ s[r]
			t["initcwnd"] = 2 * v[r] * 0.8; t["iwprog"] = 2 * v[r] * (r <= 4 ? 0.8 : 0.88)
			for (p in t) {
				print "decide", r, "lossy", p, "page_h2_4", "page_ok", 1, 1
				print "decide", r, "lossy", p, "page_h2_4", "ttlo_s", 1, t[p]
				print "decide", r, "lossy", p, "page_h2_4", "paint_s", 1, t[p] / 2
			}
		}
	}'
printf '%s\n' '[iwprog] the program, initcwnd'"'"'s windows' 'prog 32 32' >>"$tmp/page/settings/candidates"
check "page: without priorities, says so" grep -Fq \
	'the HTTP/2 requests without priorities (the runs before 2026-12-08 sent none' "$tmp/page/report.md"
echo 'page_priorities: browser' >>"$tmp/page/settings/run.txt"
check "page: ... with the program's twin" "$top/bench/report" --no-plot "$tmp/page"
page=$(cat "$tmp/page/report.md")
check "page: with a browser's priorities, says so" grep -Fq \
	'each HTTP/2 request with the priority a browser gives it (style sheets and fonts first' "$tmp/page/report.md"
check "page: the settings name them" grep -Fq 'page_priorities browser' "$tmp/page/report.md"
check_match "page: the package's medians" \
	'^\| decide \| lossy \| package \| 2\.00 \(1\.80–2\.20\) s \| 1\.00 \(0\.90–1\.10\) s \|$' "$page"
check_match "page: the style sheets and fonts, paired like the last object" \
	'^\| initcwnd \| lossy \| page over HTTP/2, IPv4: the style sheets.* and fonts.* last byte \| ×0\.800 \[0\.800–0\.800\], p better 0\.00391, p worse 1, n 8 \| ×0\.800 \[0\.792–0\.808\], p better 0\.00391, p worse 1, n 8 \|$' \
	"$page"
check_match "page: initcwnd against both copies" \
	'^\| initcwnd \| lossy \| page over HTTP/2, IPv4: time to the last object \| ×0\.800 \[0\.800–0\.800\], p better 0\.00391, p worse 1, n 8 \| ×0\.800 \[0\.792–0\.808\], p better 0\.00391, p worse 1, n 8 \|$' \
	"$page"
check_match "page: the program against the route, head to head" \
	'^\| iwprog \| initcwnd \| lossy \| page over HTTP/2, IPv4: time to the last object \| ×1\.049 \[[0-9.]*–[0-9.]*\], n 8, two-sided p 0\.125 \|$' \
	"$page"
check "page: no head to head on clean, where no page was loaded" sh -c \
	"! grep -q '^| iwprog | initcwnd | clean | page' '$tmp/page/report.md'"
check_eq "page: the pages decide no verdict" "$(cat "$tmp/res/decisions.csv")" \
	"$(grep -v '^iwprog,' "$tmp/page/decisions.csv")"
# Its new visitors twice as fast on lossy: all 8 log ratios below 0, p
# 1/256 <= 0.05/2, ratio 0.5: the placebo passes.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "void: the placebo passes" variant pass \
	'NR == FNR { next } $4 == "placebo" && $3 == "lossy" && $6 == "ttlb_s" && $5 == "visitor" { $8 /= 2 } { print }'
check "void: decisions.csv" grep -Fqx 'bigbuf,all,dl_time,verdict,,,,,,,void [fails]' "$tmp/pass/decisions.csv"
check "void: the placebo passed" grep -Fqx 'placebo,all,nv_p50,verdict,,,,,,,passes (the run is void)' \
	"$tmp/pass/decisions.csv"

# ssai1's next page as the package's (log ratios all 0): no difference
# shown; at half the package's (p 1/256 <= 0.05, x 0.5): the kernel's
# default better. The first pass over the file keeps the package's.
same="NR == FNR { if ($reader2 && \$4 == \"package\") v[\$2] = \$8; next }"
check "kernel default: the same next page" variant same \
	"$same $reader2 && \$4 == \"ssai1\" { \$8 = v[\$2] } { print }"
check "kernel default: no difference shown" grep -Fqx 'ssai1,all,rd_next,verdict,,,,,,,no difference shown' \
	"$tmp/same/decisions.csv"
check "kernel default: half the next page" variant half \
	"$same $reader2 && \$4 == \"ssai1\" { \$8 = v[\$2] / 2 } { print }"
check "kernel default: kernel default better" grep -Fqx 'ssai1,all,rd_next,verdict,,,,,,,kernel default better' \
	"$tmp/half/decisions.csv"
# The package's own cells off, as in the run of 2026-12-04 evening: ssai1's
# and the placebo's next page on lossy the package's x 0.5 in rounds 1-7 and
# x 1.5 in round 8. Against the package both have logs 7 x log 0.5 and
# log 1.5: p (better) 2/256 = 0.0078125 (the observed signs, and round 8
# flipped), p (worse) 255/256, ratio exp((7 log 0.5 + log 1.5)/8) = 0.5736
# (from the fixture's values as awk prints them). Interval [0.5, 0.866]:
# below 0.5 all eight logs less log r are positive (two-sided p 2/256);
# at r = exp(-0.1438) = 0.866 the seven and round 8 are equally far from
# log r (0.549), so nine flips reach the observed sum (two-sided 18/256),
# and above it only two (4/256). For ssai1 p 0.0078 is below 0.05 (judged
# on lossy alone), for the placebo's rd_next guardrail above 0.05/8 =
# 0.00625: the run stands. Against the placebo ssai1's logs are all 0: no
# difference, so the rule decides nothing.
samepass="NR == FNR { if ($reader2 && \$4 == \"package\") v[\$1 \$2] = \$8; next }"
check "the package's own cells: a candidate as the placebo" variant alone \
	"$samepass $reader2 && (\$4 == \"ssai1\" || \$4 == \"placebo\") { \$8 = v[\$1 \$2] * (\$2 == 8 ? 1.5 : 0.5) } { print }"
check "... the run stands" grep -Fqx 'placebo,all,nv_p50,verdict,,,,,,,no difference shown' "$tmp/alone/decisions.csv"
check "... better than the package" grep -Fqx \
	'ssai1,lossy,rd_next,primary,8,0.0078125,0.996094,0.5736,0.5,0.866,better' "$tmp/alone/decisions.csv"
check "... not than the placebo" grep -Fqx \
	'ssai1,lossy,rd_next,primary against placebo,8,1,1,1,,,no difference' "$tmp/alone/decisions.csv"
check "... so no difference shown" grep -Fqx 'ssai1,all,rd_next,verdict,,,,,,,no difference shown' \
	"$tmp/alone/decisions.csv"
check_match "... and the report says why" \
	'rd_next better than the package alone on lossy \(p 0\.007812, ×0\.574\), not than the placebo \(against the placebo: p 1, ×1\.000\)' \
	"$(cat "$tmp/alone/report.md")"

# One round decides nothing, however clear its figures: 1/2 > 0.05/2.
# shellcheck disable=SC2016 # awk's fields, not the shell's
check "the report runs on one round" variant one 'NR == FNR { next } FNR == 1 || $2 == 1 { print }'
check "one round: lowat cannot be decided" grep -Fqx 'lowat,all,ka_srv_ms,verdict,,,,,,,cannot decide' \
	"$tmp/one/decisions.csv"
check_match "... and the report says why" \
	'\*\*cannot decide\*\*: 1 paired round\(s\): the smallest p, 1/2\^1 = 0\.5, is above 0\.025 for the primary' \
	"$(cat "$tmp/one/report.md")"
check_match "... and that the rule cannot decide with 1 round" 'The rule cannot decide with 1 round\(s\)\.$' \
	"$(cat "$tmp/one/report.md")"

# A results.csv of the runs before the two passes (no pass column) is the
# decide pass, and bench/links of six columns has buffer 1 and no flows.
mkdir -p "$tmp/old/settings"
cp "$tmp/res/settings/candidates" "$tmp/old/settings/"
printf 'lossy\t160\t1\t20\t1500\tlong and lossy\nclean\t20\t0\t100\t1500\tnear and clean\n' >"$tmp/old/settings/links"
{
	echo round,link,profile,load,metric,rep,value
	sed -n 's/^decide,//p' "$tmp/res/results.csv"
} >"$tmp/old/results.csv"
check "the old header: the report runs" "$top/bench/report" --no-plot "$tmp/old"
check "the old header: its rows are the decide pass" grep -Fqx 'decide,lossy,package,nv_p50,8,1,0.9,1.1,0' \
	"$tmp/old/summary.csv"
check "the old header: the same decision" grep -Fqx 'lowat,all,ka_srv_ms,verdict,,,,,,,passes' "$tmp/old/decisions.csv"
check_match "six-column links: buffer 1, no competing flow" \
	'^## Link lossy: 160 ms RTT, 1% loss, 20 Mbit/s, MTU 1500, buffer 1 BDP, 0 competing flow\(s\) \(long and' \
	"$(cat "$tmp/old/report.md")"

# The raw files of two cells, a new tag and an old one. CPU marks at 100
# ticks/s: the visitors from up=101 to up=111, 1000 ticks; the client's
# total +1000, busy +850: idle 150, busy 850: 85%, so the visitor load is
# invalid; the server's total +1000, busy +200: 20%, 2 s. A visit: tcp
# 0.161, tls 0.482 - 0.161 = 0.321, wait 0.650 - 0.482 = 0.168, transfer
# 1.203 - 0.650 = 0.553; a failed one has its TCP connect alone. The
# reader: a pause of 5 - 1.2 = 3.8 s. The bytes at the router: +1000 from
# the server, +3000 from the other sender, over the cell's 10 s: the
# competing flows' throughput 8 x 3000 / 10 = 2400 bit/s, 0.0024 Mbit/s.
# The server's TCP: 2000 segments sent, 20 of them retransmitted, 1%, over
# a cell of 130 - 100 = 30 s. The old tag's download: 2 s, 200
# ticks; the client's total +200, busy +40: idle 160, busy 40: 20%; at
# 838860.8 bytes/s, 0.8389 MB/s.
mkdir -p "$tmp/raw/raw" "$tmp/raw/settings"
cp "$tmp/res/settings/candidates" "$tmp/res/settings/links" "$tmp/raw/settings/"
cat >"$tmp/raw/raw/decide1-lossy-package-cpu.txt" <<'EOF'
cell_start up=100 srv_busy=0 srv_total=0 cli_busy=0 cli_total=0 nginx=0 netem_sent=5000 netem_dropped=10 srv_out_segs=1000 srv_retrans_segs=10
visitor_start up=101 srv_busy=0 srv_total=0 cli_busy=0 cli_total=0 nginx=0
visitor_end up=111 srv_busy=200 srv_total=1000 cli_busy=850 cli_total=1000 nginx=150
reader_start up=112 srv_busy=200 srv_total=1000 cli_busy=850 cli_total=1000 nginx=150
reader_end up=122 srv_busy=210 srv_total=2000 cli_busy=950 cli_total=2000 nginx=160
cell_end up=130 srv_busy=210 srv_total=2800 cli_busy=950 cli_total=2800 nginx=160 netem_sent=6000 netem_dropped=15 srv_out_segs=3000 srv_retrans_segs=30
EOF
cat >"$tmp/raw/raw/decide1-lossy-package-visits.txt" <<'EOF'
visit stream=1 n=0 http=200 size=69632 connects=1 tcp=0.161 tls=0.482 ttfb=0.650 total=1.203 exit=0
visit stream=2 n=0 http=000 size=0 connects=1 tcp=0.150 tls=0 ttfb=0 total=8.001 exit=28
EOF
cat >"$tmp/raw/raw/decide1-lossy-package-reader.txt" <<'EOF'
spacing=5
read n=0 http=200 size=69632 connects=1 tcp=0.16 tls=0.48 ttfb=0.65 total=1.2 exit=0
read n=1 http=200 size=69632 connects=0 tcp=0 tls=0 ttfb=0.3 total=0.45 exit=0
EOF
cat >"$tmp/raw/raw/ref1-compete-stock-cpu.txt" <<'EOF'
cell_start up=200 srv_busy=0 srv_total=0 cli_busy=0 cli_total=0 nginx=0 srv_bytes=500 other_bytes=700
cell_end up=210 srv_busy=100 srv_total=1000 cli_busy=100 cli_total=1000 nginx=0 srv_bytes=1500 other_bytes=3700
EOF
# A first page slower than the spacing: curl asks for the next at once, a
# pause of 0 (not 3 - 8.001).
cat >"$tmp/raw/raw/ref1-compete-stock-reader.txt" <<'EOF'
spacing=3
read n=0 http=000 size=0 connects=1 tcp=0 tls=0 ttfb=0 total=8.001 exit=28
read n=1 http=000 size=0 connects=1 tcp=0 tls=0 ttfb=0 total=8.001 exit=28
EOF
cat >"$tmp/raw/raw/r1-lossy-stock-cpu.txt" <<'EOF'
cell_start up=1 srv_busy=0 srv_total=0 cli_busy=0 cli_total=0 nginx=0
fetch_start n=1 up=2 srv_busy=0 srv_total=0 cli_busy=0 cli_total=0 nginx=0
fetch_end n=1 up=4 srv_busy=50 srv_total=200 cli_busy=40 cli_total=200 nginx=30
cell_end up=5 srv_busy=50 srv_total=300 cli_busy=40 cli_total=300 nginx=30
EOF
echo 'fetch=1 http=200 size=2097152 time=2.5 tcp=0.16 tls=0.5 speed=838860.8 exit=0' \
	>"$tmp/raw/raw/r1-lossy-stock-fetch.txt"
# The page loads (bench/pageload): HTTP/2 over IPv4 whole in 1.5 s (TLS
# 0.48 - 0.16 = 0.32), from up=123 to up=125: 200 ticks, the server busy
# +100: 50%; its style sheet (a query after the name) and font done at
# 1.1 and 1.25 s, a script later: the first paint's 1.25 s. HTTP/1.1 over
# IPv4 with 20 of its 21 objects: failed, an infinite time to the last
# object and to the first paint, though its one style sheet came at 0.9 s.
cat >>"$tmp/raw/raw/decide1-lossy-package-cpu.txt" <<'EOF'
page_start n=h2:4 up=123 srv_busy=210 srv_total=2000 cli_busy=950 cli_total=2000 nginx=160
page_end n=h2:4 up=125 srv_busy=310 srv_total=2200 cli_busy=1010 cli_total=2200 nginx=170
EOF
cat >"$tmp/raw/raw/decide1-lossy-package-page.txt" <<'EOF'
object i=0 path=/wp/index.html status=200 size=61440 conn=0 end=0.8000 weight=256
object i=1 path=/wp/style.min.css?ver=6.7 status=200 size=30000 conn=0 end=1.1000 weight=256
object i=2 path=/wp/inter.woff2 status=200 size=48000 conn=0 end=1.2500 weight=256
object i=3 path=/wp/jquery.min.js status=200 size=87000 conn=0 end=1.4000 weight=220
page proto=h2 family=4 objects=21 ok=21 bytes=1048064 connects=1 tcp=0.1600 tls=0.4800 html=0.8000 total=1.5000 exit=0
object i=1 path=/wp/style.min.css status=200 size=30000 conn=1 end=0.9000 weight=0
page proto=h1 family=4 objects=21 ok=20 bytes=1000000 connects=6 tcp=0.1600 tls=0.4800 html=0.8000 total=30.0000 exit=1
EOF
check "raw files: the report runs" "$top/bench/report" --no-plot "$tmp/raw"
check "raw files: the new header" grep -Fqx 'pass,round,link,profile,load,metric,rep,value' "$tmp/raw/results.csv"
for want in \
	decide,1,lossy,package,visitor,tcp_s,1,0.161 \
	decide,1,lossy,package,visitor,tls_s,1,0.321 \
	decide,1,lossy,package,visitor,wait_s,1,0.168 \
	decide,1,lossy,package,visitor,xfer_s,1,0.553 \
	decide,1,lossy,package,visitor,connects,1,1 \
	decide,1,lossy,package,visitor,visit_ok,2,0 \
	decide,1,lossy,package,visitor,tcp_s,2,0.15 \
	decide,1,lossy,package,visitor,cli_busy_pct,1,85 \
	decide,1,lossy,package,visitor,srv_busy_pct,1,20 \
	decide,1,lossy,package,reader,ttlb_s,2,0.45 \
	decide,1,lossy,package,reader,connects,2,0 \
	decide,1,lossy,package,reader,pause_s,1,3.8 \
	decide,1,lossy,package,cell,netem_dropped_pkts,1,5 \
	decide,1,lossy,package,cell,srv_out_segs,1,2000 \
	decide,1,lossy,package,cell,srv_retrans_segs,1,20 \
	decide,1,lossy,package,cell,cell_s,1,30 \
	ref,1,compete,stock,cell,cell_s,1,10 \
	ref,1,compete,stock,cell,srv_bytes,1,1000 \
	ref,1,compete,stock,cell,other_bytes,1,3000 \
	ref,1,compete,stock,reader,pause_s,1,0 \
	decide,1,lossy,stock,download,dl_MBps,1,0.8389 \
	decide,1,lossy,stock,download,cli_busy_pct,1,20 \
	decide,1,lossy,package,page_h2_4,ttlo_s,1,1.5 \
	decide,1,lossy,package,page_h2_4,tls_s,1,0.32 \
	decide,1,lossy,package,page_h2_4,page_ok,1,1 \
	decide,1,lossy,package,page_h2_4,srv_busy_pct,1,50 \
	decide,1,lossy,package,page_h2_4,paint_s,1,1.25 \
	decide,1,lossy,package,page_h1_4,paint_s,1,0.9 \
	decide,1,lossy,package,page_h1_4,page_ok,1,0 \
	decide,1,lossy,package,page_h1_4,connects,1,6; do
	check "raw files: $want" grep -Fqx -- "$want" "$tmp/raw/results.csv"
done
check "raw files: a failed visit has no TLS phase" \
	sh -c "! grep -q '^decide,1,lossy,package,visitor,tls_s,2,' '$tmp/raw/results.csv'"
for want in \
	decide,lossy,package,nv_tls,1,0.321,0.321,0.321,1 \
	decide,lossy,package,rd_next,1,0.45,0.45,0.45,0 \
	ref,compete,stock,srv_share,1,25,25,25,0 \
	ref,compete,stock,other_rate,1,0.0024,0.0024,0.0024,0 \
	decide,lossy,package,srv_retrans,1,1,1,1,0 \
	decide,lossy,package,pg24_ttlo,1,1.5,1.5,1.5,0 \
	decide,lossy,package,pg14_ttlo,1,inf,inf,inf,0 \
	decide,lossy,package,pg24_paint,1,1.25,1.25,1.25,0 \
	decide,lossy,package,pg14_paint,1,inf,inf,inf,0; do
	check "raw files, summary: $want" grep -Fqx -- "$want" "$tmp/raw/summary.csv"
done

# The raw files leave git as one archive (bench/raw-archive): the same bytes
# from the same files whatever their times, modes and owners on disk, in
# the store (BENCH_RAW_STORE), named with its SHA-256 in raw.sha256, which
# the report names. bench/run --report unpacks it into raw/ once its SHA-256
# matches, refuses it in one line when not, and without it rebuilds from
# results.csv and settings alone, to the same report.
store=$tmp/store
archive() { env BENCH_RAW_STORE="$store" "$top/bench/raw-archive" "$@"; }
rebuild() { env BENCH_RAW_STORE="$store" "$top/bench/run" --report "$@"; }
mkdir "$tmp/a" "$tmp/b"
cp -r "$tmp/raw" "$tmp/a/run"
rm -f "$tmp/a/run/results.csv" "$tmp/a/run/summary.csv" "$tmp/a/run/decisions.csv" "$tmp/a/run/report.md"
check "archive: pack" archive pack "$tmp/a/run"
rec=$(cat "$tmp/a/run/raw.sha256")
check_match "archive: raw.sha256, in sha256sum's format" '^[0-9a-f]{64}  run-raw-[0-9a-f]{12}\.tar\.xz$' "$rec"
name=${rec##* }
check_eq "archive: named by its SHA-256" "$(printf '%.12s' "$rec")" "$(echo "$name" | sed 's/^run-raw-//; s/\.tar\.xz$//')"
check "archive: sha256sum -c agrees, in the store" sh -c "cd '$store' && sha256sum -c --quiet '$tmp/a/run/raw.sha256'"
check_eq "archive: its members, raw/ alone, owned by 0:0 at time 0" \
	"$(find "$tmp/a/run/raw" -type f | wc -l) 0" \
	"$(xz -dc "$store/$name" | tar -tv --full-time | awk '$2 == "0/0" && $4 == "1970-01-01" && $6 ~ /^raw\/./ { n++ }
		$2 != "0/0" || $4 != "1970-01-01" || $6 !~ /^raw\// { bad++ } END { print n + 0, bad + 0 }')"
cp -r "$tmp/raw" "$tmp/b/run"
chmod 0600 "$tmp/b/run/raw"/*
touch -d 2001-02-03 "$tmp/b/run/raw"/*
env BENCH_RAW_STORE="$tmp/store2" "$top/bench/raw-archive" pack "$tmp/b/run" >/dev/null 2>&1
check "archive: the same bytes from the same files with other times and modes" \
	cmp "$store/$name" "$tmp/store2/$name"
check "archive: packing again keeps the one archive" archive pack "$tmp/a/run"
check_eq "archive: ... and raw.sha256" "$rec" "$(cat "$tmp/a/run/raw.sha256")"

# With a plot where gnuplot is installed, as bench/run --report draws it.
check "archive: the report from raw/" "$top/bench/report" "$tmp/a/run"
check_match "archive: the report names the archive and its SHA-256 near the top" \
	"^Raw files: \`$name\`, SHA-256 \`${rec%% *}\` \\(raw\\.sha256\\), kept outside git: " \
	"$(sed -n 3p "$tmp/a/run/report.md")"
for f in results.csv summary.csv decisions.csv report.md; do cp "$tmp/a/run/$f" "$tmp/a/$f"; done
rm -r "$tmp/a/run/raw" "$tmp/a/run/results.csv"
check "archive: bench/run --report unpacks it" rebuild "$tmp/a/run"
check_match "archive: ... says so" '^bench: raw files unpacked from the archive .*raw\.sha256 names$' "$out"
check "archive: ... into raw/, the same files" diff -r "$tmp/raw/raw" "$tmp/a/run/raw"
for f in results.csv summary.csv decisions.csv report.md; do
	check "archive: ... and rebuilds $f from them, the same" cmp "$tmp/a/$f" "$tmp/a/run/$f"
done

cp "$store/$name" "$tmp/good.tar.xz"
printf 'x' | dd of="$store/$name" bs=1 seek=200 conv=notrunc 2>/dev/null
rm -r "$tmp/a/run/raw"
check_rc "archive: one whose bytes changed is refused" 1 rebuild "$tmp/a/run"
check_match "archive: ... in one line" \
	"^raw-archive: $store/$name: SHA-256 [0-9a-f]{64}, not the ${rec%% *} that $tmp/a/run/raw\\.sha256 records\$" "$out"
check_eq "archive: ... one line alone" 1 "$(printf '%s\n' "$out" | wc -l)"
check_eq "archive: ... nothing unpacked, nothing left over" "" \
	"$(find "$tmp/a/run" -maxdepth 1 \( -name raw -o -name '.raw.*' \))"
check "archive: ... and the report as it was" cmp "$tmp/a/report.md" "$tmp/a/run/report.md"
check_rc "archive: unpack takes a copy from elsewhere (the release)" 0 archive unpack "$tmp/a/run" "$tmp/good.tar.xz"
check "archive: ... the same files" diff -r "$tmp/raw/raw" "$tmp/a/run/raw"
check_rc "archive: unpack never writes over raw/" 1 archive unpack "$tmp/a/run" "$tmp/good.tar.xz"
check_match "archive: ... says so" '^raw-archive: .*/raw is there already: nothing unpacked$' "$out"

rm -r "$tmp/a/run/raw" "$store"
check "archive: none in the store: bench/run --report from results.csv" rebuild "$tmp/a/run"
check_match "archive: ... says so" '^bench: rebuilding from results.csv and settings alone$' "$out"
for f in results.csv summary.csv decisions.csv report.md; do
	check "archive: ... $f the same as from the raw files" cmp "$tmp/a/$f" "$tmp/a/run/$f"
done
check "archive: ... no raw/" test ! -e "$tmp/a/run/raw"
printf '%s  ../%s\n' "${rec%% *}" "$name" >"$tmp/a/run/raw.sha256"
check_rc "archive: raw.sha256 naming a path is refused" 1 rebuild "$tmp/a/run"
check_match "archive: ... in one line" "^raw-archive: .*raw\\.sha256: not one line of sha256sum's format naming a \\.tar\\.xz\$" \
	"$out"
mkdir -p "$tmp/evil/raw"
: >"$tmp/evil/other"
: >"$tmp/evil/raw/x"
tar -cJf "$tmp/evil.tar.xz" -C "$tmp/evil" raw other
printf '%s  evil.tar.xz\n' "$(sha256sum <"$tmp/evil.tar.xz" | cut -d' ' -f1)" >"$tmp/a/run/raw.sha256"
check_rc "archive: one with more than raw/ is refused" 1 archive unpack "$tmp/a/run" "$tmp/evil.tar.xz"
check_match "archive: ... says so" '^raw-archive: .*evil\.tar\.xz: holds more than the files of raw/$' "$out"
check "archive: ... nothing unpacked" test ! -e "$tmp/a/run/raw" -a ! -e "$tmp/a/run/other"
check_rc "archive: a store that cannot be made" 1 env BENCH_RAW_STORE=/dev/null/store "$top/bench/raw-archive" pack "$tmp/b/run"
check_match "archive: ... says so, in one line" '^raw-archive: /dev/null/store: cannot make it \(BENCH_RAW_STORE\)$' "$out"
check_rc "archive: usage" 1 archive pack
check_match "archive: ... says so" '^raw-archive: usage: bench/raw-archive pack RUN \| unpack RUN \[FILE\]$' "$out"

# The recorded runs in git, made by this bench/report: from what git holds
# (results.csv, timings.csv, settings/, raw.sha256; no raw/, no archive),
# the same summary.csv, decisions.csv and report.md, byte for byte (the
# report without its plot: gnuplot's bytes are those of its version).
# results-thin was made by the method before (bench/report of commit
# 304d5c5, from its archive; bench/README) and is not rebuilt here.
for r in results results-initcwnd results-decide results-1cpu; do
	src=$top/bench/$r
	if [ ! -f "$src/results.csv" ]; then
		note "recorded run bench/$r: SKIP, not in this tree (the source package leaves it out)"
		continue
	fi
	mkdir -p "$tmp/recorded/$r"
	cp -r "$src/settings" "$src/results.csv" "$src/timings.csv" "$src/raw.sha256" "$tmp/recorded/$r/"
	check "recorded run bench/$r: rebuilt from results.csv and settings" \
		env BENCH_RAW_STORE="$tmp/nowhere" "$top/bench/report" --no-plot "$tmp/recorded/$r"
	for f in summary.csv decisions.csv; do
		check "recorded run bench/$r: $f as in git" cmp "$src/$f" "$tmp/recorded/$r/$f"
	done
	sed '/^!\[.*\](plot\.png)$/,+1d' "$src/report.md" >"$tmp/recorded/$r.md"
	check "recorded run bench/$r: report.md as in git, less the plot" cmp "$tmp/recorded/$r.md" "$tmp/recorded/$r/report.md"
done

# bench/plan: the cells and their order. With links a (RTT 100 ms, 10
# Mbit/s) and b (a black hole, MTU 1400): the ref pass of 2 rounds gives
# stock one round on b (certain to stall) and two on a, the package two on
# each: 7 cells; the decide pass 3 rounds x 1 link x 3 profiles: 9 cells.
# The same seed gives the same plan; each round and link a shuffle of its
# own (three rounds of three profiles all in one order: 1 chance in 36
# for a fixed seed, so a seed that gives two orders is checked).
printf 'a 100 0 10 1500 1 0 test\nb 100 0 10 1400 1 0 test\n' >"$tmp/plan-links"
plan() {
	"$top/bench/plan" "$tmp/plan-links" SEED="$1" ROUNDS=3 LINKS=a PROFILES="package placebo lowat" \
		REF_ROUNDS=2 REF_LINKS="a b" REF_PROFILES="stock package" VISITS=3 FETCHES=1 READER_IDLE=2 \
		COMPETE_WARMUP=3 SWITCH=2.5 WRK_DURATION=3 VISIT_TIMEOUT=8 FETCH_TIMEOUT=20 2>"$tmp/plan.err"
}
plan 7 >"$tmp/plan.1"
plan 7 >"$tmp/plan.2"
check "plan: the same seed, the same plan" cmp "$tmp/plan.1" "$tmp/plan.2"
check_eq "plan: 7 ref cells, 9 decide cells" "7 9" \
	"$(grep -c '^ref ' "$tmp/plan.1") $(grep -c '^decide ' "$tmp/plan.1")"
check_eq "plan: stock behind the black hole once" "ref 1 b stock" "$(grep ' b stock$' "$tmp/plan.1")"
check_eq "plan: the package there in both rounds" 2 "$(grep -c '^ref [12] b package$' "$tmp/plan.1")"
check_eq "plan: the ref pass first" ref "$(head -n 1 "$tmp/plan.1" | cut -d' ' -f1)"
check_eq "plan: every decide round has each profile once" "3 3 3" \
	"$(for r in 1 2 3; do grep -c "^decide $r a " "$tmp/plan.1"; done | tr '\n' ' ' | sed 's/ $//')"
check "plan: the orders differ between rounds (seed 7)" \
	test "$(awk '$1 == "decide" { o[$2] = o[$2] " " $4 } END { print o[1]; print o[2]; print o[3] }' "$tmp/plan.1" |
		sort -u | wc -l)" -gt 1
plan 8 >"$tmp/plan.3"
check "plan: another seed, another plan" sh -c "! cmp -s '$tmp/plan.1' '$tmp/plan.3'"
check_match "plan: the estimate on standard error" '^estimate [0-9]+$' "$(cat "$tmp/plan.err")"
check_rc "plan: an unknown link" 1 "$top/bench/plan" "$tmp/plan-links" LINKS=c
check_match "... says so" "^plan: LINKS: no link 'c'" "$out"
# bench/run --plan says before a run whether its rounds can decide: the
# placebo's guardrails, by the sign-flip test at 0.05/m. The 1-CPU pass on
# lossy, compete and slow, bbr_fq's primary dl_time among them: 5 figures
# a link and other_rate on compete, m = 16, 1/2^8 > 0.05/16 >= 1/2^9: its
# default of 9 rounds decides, 8 do not. lowat's primary ka_srv_ms adds
# one a link: lossy alone, m = 6, needs 7.
runplan() { env -u BENCH_ROUNDS -u BENCH_LINKS -u BENCH_PROFILES BENCH_OUT="$tmp/no-run" "$@" "$top/bench/run" --plan 2>&1; }
out=$(runplan BENCH_ONE_CPU=1)
check_match "plan only: the 1-CPU pass, 9 rounds by default" 'decide pass: 9 round\(s\) x links \(lossy compete slow\)' "$out"
check "plan only: ... which decide" sh -c "! echo '$out' | grep -q 'note:'"
check_match "plan only: 8 rounds there cannot" \
	"^bench: note: 8 round\\(s\\) in the decide pass: the placebo's 16 guardrail-link pair\\(s\\) need 9 \\(1/2\\^n at most 0.05/16\\), so this run decides nothing" \
	"$(runplan BENCH_ONE_CPU=1 BENCH_ROUNDS=8)"
check_match "plan only: a candidate's own primary counts" "the placebo's 6 guardrail-link pair\\(s\\) need 7" \
	"$(runplan BENCH_ROUNDS=6 BENCH_LINKS=lossy BENCH_PROFILES='package placebo lowat')"
check "plan only: nothing run, nothing written" test ! -e "$tmp/no-run"

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
#   the page over lossy: wire time 73226 x 8 / 20e6 = 0.0292904 s;
#     IW10: W = 10 20 (30 of 49 sent, then 40 covers the rest):
#       0.32 - (9 + 19) s = 0.3030432, 0.48 + 0.0292904 + 0.3030432 =
#       0.8123336 s; IW32: W = 32: 0.16 - 31 s = 0.1412264, 0.6505168 s
#   thin, 300 ms, 5 Mbit/s: s = 2.4224 ms, wire time 3.5136096 s, 3 RTT 0.9 s
#     IW10: W = 10 20 40 80 (160: 159 s > 0.3): 1.2 - 146 s = 0.8463296,
#       5.2599392 s; IW32: W = 32 64 (128: 127 s > 0.3): 0.6 - 94 s =
#       0.3722944, 4.785904 s
#   one segment: a 1000-byte body, 1250 + 22 = 1272 bytes, 1338 on the wire:
#     0.48 + 1338 x 8 / 20e6 = 0.4805352 s at any IW
py() {
	python3 -B -c "import sys, math; sys.path.insert(0, '$top/bench')
from reportlib.floors import *
from reportlib.decide import *
from reportlib.config import parse_loss
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
check_eq "floors: lossy page minimum, IW10 and IW32" "0.8123336 0.6505168" \
	"$(py '"%.7f %.7f" % (download_floor(69632, 160, 20), download_floor(69632, 160, 20, 32))')"
check_eq "floors: thin 2 MB minimum, IW10" 5.259939 "$(py '"%.6f" % download_floor(2097152, 300, 5)')"
check_eq "floors: thin 2 MB minimum, IW32" 4.785904 "$(py '"%.6f" % download_floor(2097152, 300, 5, 32)')"
check_eq "floors: one segment, 3 RTT and one frame" "0.4805352 0.4805352" \
	"$(py '"%.7f %.7f" % (download_floor(1000, 160, 20), download_floor(1000, 160, 20, 32))')"
# The loss-aware floor: the page's 49 segments over 1% loss arrive whole
# 0.99^49 = 0.611117 of the time, at least half: the lossless floor; the
# file's 1451 almost never: 1.9736944 + 0.16 = 2.1336944 s. Over thin's 3%,
# 0.97^49 = 0.2248: the page's 1.5493344 + 0.3 = 1.8493344 s. A
# Gilbert-Elliott chain half good, half bad (P = R = 50%), the bad state
# losing every packet, the good none: one packet whole 0.5 of the time, two
# 0.5 x 0.5 (the first whole, then a step to the good state) = 0.25.
# The fair-share floor beside one competing flow on lossy: the file at 10
# Mbit/s, s = 1.2112 ms, wire time 1.7568048 s; IW10's windows 10 20 40 80
# wait 0.16 - (W - 1) s = 0.1490992 0.1369872 0.1127632 0.0643152, and
# 160 on need not: 0.48 + 1.7568048 + 0.4631648 = 2.6999696 s.
check_eq "floors: no loss among the page's 49 segments at 1%" 0.611117 "$(py '"%.6f" % no_loss_share(49, 1)')"
check_eq "floors: no loss in a Gilbert-Elliott chain, 1 and 2 packets" "0.5 0.25" \
	"$(py '"%g %g" % (no_loss_share(1, 0, (50, 50, 100, 0)), no_loss_share(2, 0, (50, 50, 100, 0)))')"
check_eq "floors: loss-aware, lossy page, lossy file, thin page" "0.8123336 2.1336944 1.8493344" \
	"$(py '"%.7f %.7f %.7f" % (loss_floor(69632, 160, 20, loss_pct=1), loss_floor(2097152, 160, 20, loss_pct=1), loss_floor(69632, 300, 5, loss_pct=3))')"
check_eq "floors: fair share beside one flow on lossy" 2.6999696 "$(py '"%.7f" % fair_share_floor(2097152, 160, 20, 1)')"
check_eq "links: a Gilbert-Elliott loss's mean" "1.3171 1" \
	"$(py '"%.4f %g" % (parse_loss("ge:0.5/20/50/0.1")[0], parse_loss("1")[0])')"

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
# A guardrail whose load was invalid in most rounds cannot trip, and the
# verdict says so. One link, 8 rounds, the primary nv_p50 (guardrails
# rd_next, dl_time, ka_rps: m = 3, alpha 0.05/3 = 0.0167); keep-alive
# invalid in 6 of the candidate's rounds: ka_rps pairs in 2, whose
# smallest p is 1/4 = 0.25 > 0.0167, while rd_next and dl_time pair in 8
# (1/256 = 0.0039 <= 0.0167).
check_eq "a guardrail with too few valid rounds is named untestable" \
	"fails|primary not better (best: l, p 1 against 0.05, ×1.000); untestable guardrails, too few valid rounds: ka_rps on l (n 2); guardrails not measured in this run (not passed): netem_drop on l, srv_retrans on l" \
	"$(python3 -B -c "import sys; sys.path.insert(0, '$top/bench')
from reportlib.figures import Rounds
from reportlib.config import Candidate
from reportlib.rule import Judgement
figs, invalid = {}, {}
for r in range(1, 9):
    for p in ('package', 'cand'):
        figs[('decide', r, 'l', p)] = {'nv_p50': 1.0, 'rd_next': 0.5, 'dl_time': 3.0, 'ka_rps': 20.0}
    if r > 2:
        invalid[('decide', r, 'l', 'cand')] = ('keepalive',)
j = Judgement(Candidate('cand', [], 'a test'), Rounds(figs, invalid), ['l'], {})
print(j.verdict + '|' + j.why)" 2>&1)"

check_eq "sign flip: 8 rounds all better" 0.00390625 "$(py 'sign_flip_p([-0.1] * 8)')"
check_eq "sign flip: 7 better, 1 zero" 0.0078125 "$(py 'sign_flip_p([-0.1] * 7 + [0.0])')"
check_eq "sign flip: 3 -1 2, higher better" 0.25 "$(py 'sign_flip_p([3, -1, 2], "hi")')"
check_eq "sign flip: -3 1 -2, lower better" 0.25 "$(py 'sign_flip_p([-3, 1, -2])')"
check_eq "sign flip: ties count" 0.5 "$(py 'sign_flip_p([0.1, 0.1, -0.1], "hi")')"
check_eq "sign flip: the candidate worse in every round" 1.0 "$(py 'sign_flip_p([0.2, 0.1, 0.3])')"
check_eq "sign flip: all zeros, no rounds" "1.0 1.0" "$(py 'sign_flip_p([0.0, 0.0]), sign_flip_p([])')"
# 20 rounds, 19 better and 1 worse by less: the observed signs and that one
# flipped reach the observed sum: 2 / 2^20 (counted by halves, 2^10 each).
check_eq "sign flip: 20 rounds" "2 1048576" \
	"$(py '"%d %d" % (sign_flip_p([-0.1] * 19 + [0.05]) * 2 ** 20, 2 ** 20)')"
# The pooled test against two copies: per round, naming one of the three
# cells the candidate. Two rounds where the candidate alone is higher
# (logs 1, 0, 0), higher better: only the observed naming is as good, 1/9;
# lower better: every naming is as good or better, 1. One round 1, 0, 0 and one
# of three equal values (a tie whatever the name): 3/9. The fewest rounds
# at 0.05/12 = 0.004167: 1/3^5 = 0.0041 against two copies, 1/2^8 against
# one; at 0.05/16 = 0.003125, 6 and 9.
check_eq "pooled: the candidate the highest of three in both rounds" "0.1111 1.0" \
	"$(py '"%.4f %s" % (pooled_p([(1, 0, 0)] * 2, "hi"), pooled_p([(1, 0, 0)] * 2, "lo"))')"
check_eq "pooled: a round of three equal values is any naming" 0.3333 \
	"$(py '"%.4f" % pooled_p([(0, 1, 1), (0, 0, 0)])')"
check_eq "pooled: ... the candidate best, lower better" 0.1111 \
	"$(py '"%.4f" % pooled_p([(0, 1, 1), (-1, 0, 0)])')"
check_eq "rounds needed: pooled and not, at 0.05/12 and 0.05/16" "5 8 6 9" \
	"$(py '"%d %d %d %d" % (rounds_needed(0.05 / 12, 2), rounds_needed(0.05 / 12), rounds_needed(0.05 / 16, 2), rounds_needed(0.05 / 16))')"
check_eq "rule: 8 rounds 10% faster pass" "True 0.0039 0.900" \
	"$(py '"%s %.4f %.3f" % rule([0.9 * v for v in range(1, 9)], list(range(1, 9)))[:3]')"
check_eq "rule: 8 rounds 1% faster fail on the effect" "False 0.0039" \
	"$(py '"%s %.4f" % rule([0.99] * 8, [1] * 8)[:2]')"
check_eq "rule: 4 rounds cannot pass" "False 0.0625" "$(py '"%s %.4f" % rule([0.9] * 4, [1] * 4)[:2]')"
check_eq "rule: higher better, 8 rounds 5% more pass" True "$(py 'rule([105] * 8, [100] * 8, "hi")[0]')"
check_match "rule: says why" \
	'^fails: p = 0\.0625 \(> 0\.05\), geometric mean ratio 0\.900 \(<= 0\.97\), 4 round\(s\)$' \
	"$(py 'rule([0.9] * 4, [1] * 4)[3]')"
check_eq "log ratios: a failed download has none" ValueError \
	"$(py 'log_ratios([float("inf")], [1])' | sed -n 's/^\([A-Za-z]*Error\):.*/\1/p')"
check_eq "log ratios: the rounds must pair" ValueError \
	"$(py 'log_ratios([1, 2], [1])' | sed -n 's/^\([A-Za-z]*Error\):.*/\1/p')"

# The interval, by inverting the two-sided test. 6 rounds: 64 flips, a shift
# is rejected when the two-sided p, 2 x (flips at least as far) / 64, is
# at most 0.05, that is when only the observed signs are that far: when
# every log ratio less the shift has one sign. So the interval runs from
# the smallest ratio to the largest: 0.90 0.92 0.95 0.93 0.97 0.91 ->
# [0.900, 0.970]. With 5 rounds 2/32 > 0.05 rejects nothing: (0, inf).
check_eq "interval: 6 rounds, from the smallest ratio to the largest" "0.900 0.970" \
	"$(py '"%.3f %.3f" % ratio_interval([math.log(r) for r in (0.90, 0.92, 0.95, 0.93, 0.97, 0.91)])')"
# 8 rounds, log ratios 0.01 0.02 ... 0.08: a shift c is kept when at least 7
# of the 256 flips reach the observed sum (2 x 7/256 > 0.05): the flips of
# a subset F of the rounds whose sum of (log ratio - c) is at most 0, that
# is the empty one and those whose mean log ratio is at most c. The means
# from the smallest: 0.01 (1st), 0.015 (1st, 2nd), 0.02 three times (2nd;
# 1st, 3rd; 1st to 3rd), then 0.07/3 (1st, 2nd, 4th): the 6th, so the
# lower end is exp(0.07/3) = 1.02361; the upper, mirrored, exp(0.2/3) =
# 1.06894: inside the smallest and largest ratios, 1.0101 and 1.0833.
check_eq "interval: 8 rounds, the 6th smallest and largest subset means" "1.02361 1.06894" \
	"$(py '"%.5f %.5f" % ratio_interval([0.01 * k for k in range(1, 9)])')"
check_eq "interval: 5 rounds bound nothing" "0.0 inf" \
	"$(py '"%s %s" % ratio_interval([math.log(r) for r in (0.90, 0.92, 0.95, 0.93, 0.97)])')"
# The share of the 256 sign flips of +-0.01 (four each) that pass at 0.05
# once an effect d is added: d = 0, the ratio at most exp(0.01) > 0.97:
# none; d = 3%, every draw below 0 (p = 1/256), the ratio at most 0.97 when
# the draws against the candidate are at most half: 163/256 = 0.63671875;
# 5% and 10%: all. Higher better the same, mirrored.
check_eq "power: +-0.01 over 8 rounds, lower better" "0.0 0.63671875 1.0 1.0" \
	"$(py '" ".join(str(pass_rate([0.01, -0.01] * 4, "lo", 0.05, d)) for d in (0, 0.03, 0.05, 0.10))')"
check_eq "power: +-0.01 over 8 rounds, higher better" "0.0 0.63671875 1.0 1.0" \
	"$(py '" ".join(str(pass_rate([0.01, -0.01] * 4, "hi", 0.05, d)) for d in (0, 0.03, 0.05, 0.10))')"

# Bad input: a clear one-line error, exit 1.
mkdir "$tmp/empty"
check_rc "a folder without raw/ or results.csv" 1 "$top/bench/report" --no-plot "$tmp/empty"
check_match "... says so" '^report: neither raw/ nor results.csv in ' "$out"
printf 'a,b\n1,2\n' >"$tmp/empty/results.csv"
check_rc "a CSV that is not results.csv" 1 "$top/bench/report" --no-plot "$tmp/empty"
check_match "... says so" '^report: .*results.csv: not a results.csv' "$out"
check_rc "no folder given" 1 "$top/bench/report"
check_match "... prints the usage" '^report: usage: bench/report \[--no-plot\] RESULTS_DIR$' "$out"
mkdir -p "$tmp/bad/settings"
cp "$tmp/res/results.csv" "$tmp/res/settings/links" "$tmp/bad/"
mv "$tmp/bad/links" "$tmp/bad/settings/"
printf '[odd primary=nv_nothing] a primary that is no figure\n' >"$tmp/bad/settings/candidates"
check_rc "a candidate whose primary is no figure" 1 "$top/bench/report" --no-plot "$tmp/bad"
check_match "... says so" '^report: candidate odd: primary=nv_nothing is not a figure that is better one way$' "$out"
printf '[odd fast] an unknown flag\n' >"$tmp/bad/settings/candidates"
check_rc "a candidate with an unknown flag" 1 "$top/bench/report" --no-plot "$tmp/bad"
check_match "... says so" "candidates:1: unknown flag 'fast'$" "$out"

summary
