#!/bin/bash
# The benchmark's guest side. bench/run copies it into the VM's share as
# /host/run.sh; the VM runs it once after booting (tests/vm/image/vm-run)
# and powers off. Everything happens in this one boot:
#
#   1. record the machine and the stock Debian 13 values of every key;
#   2. build three network namespaces, server - router - client, with netem
#      on the router (the emulated Internet path);
#   3. time `apt-get install` / `apt-get purge` of the package and
#      `wp-panel-nettune apply`, and read back what the installed package
#      applied: that becomes profile C;
#   4. run the rounds: for each round, for each link, the profiles A B C one
#      after the other, each applied to the server's namespace, then wrk and
#      curl from the client's namespace.
#
# It writes raw outputs only (wrk's and curl's text, read-back settings,
# timings) under /host/out; bench/report turns them into CSV, Markdown and a
# plot on the host. All traffic stays inside the VM's own namespaces: the
# VM has no network interface besides lo.
#
# Parameters come from /host/bench.env (written by bench/run): ROUNDS,
# WRK_DURATION, WRK_TIMEOUT, FETCHES, TIMING_RUNS.
set -u

# shellcheck source=/dev/null
. /host/bench.env

OUT=/host/out
RAW=$OUT/raw          # one file per measurement, as the tools printed it
SET=$OUT/settings     # what each profile set, read back from the kernel
PROF=/root/profiles   # the three profiles as sysctl.d files
DOCROOT=/srv/bench
NGINX_CONF=/etc/nginx/bench.conf
INSTALLER_CONF=/etc/sysctl.d/99-wp-panel.conf
PKG_FRAGMENT=/etc/sysctl.d/60-wp-panel-nettune.conf
URL_PAGE=http://10.0.1.1:80/page.html   # explicit port: no /etc/services here
URL_FILE=http://10.0.1.1:80/file-2mb.bin
PAGE_BYTES=69632      # 68 KiB, a WordPress front page's HTML
FILE_BYTES=2097152    # 2 MiB

mkdir -p "$RAW" "$SET" "$PROF"

say() { echo "bench: $(date -u +%H:%M:%S) $*"; }
die() {
	say "error: $*"
	exit 1
}
now() { date +%s.%N; }
# elapsed START: seconds since START (from now), three decimals.
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# ---------------------------------------------------------------------------
# sysctl keys. A profile is a sysctl.d file; its keys are either per network
# namespace ("netns": tcp_*, somaxconn, ...) or exist only in the initial
# namespace ("global": default_qdisc, rmem_max, ...), which is decided by
# looking, not by a list: a key that the server's namespace cannot write is
# global.

# read_keys NS KEY...: "KEY = value" lines with the live values, white
# space as sysctl.d files write it, read by one shell. NS is "init" (the
# initial namespace) or a named one: the files must be opened inside it,
# since /proc/sys/net shows the keys of the opener's namespace.
# shellcheck disable=SC2016 # expanded by that shell
READ_KEYS='for k; do read -r v <"/proc/sys/${k//.//}" || v=; echo "$k = ${v//[[:space:]]/ }"; done'
read_keys() {
	local ns=$1
	shift
	if [ "$ns" = init ]; then
		bash -c "$READ_KEYS" read_keys "$@" 2>/dev/null
	else
		in_ns "$ns" bash -c "$READ_KEYS" read_keys "$@" 2>/dev/null
	fi
}

# parse_conf FILE ARRAY: ARRAY[KEY]=VALUE for each "[-]KEY = VALUE" line of
# a sysctl.d file (a leading "-" only means "ignore errors"); white space in
# values made single spaces. Plain bash: every process started costs time
# under emulation.
# shellcheck disable=SC2034,SC2004 # into is the caller's associative array
parse_conf() {
	local -n into=$2
	local line key value parts
	while IFS= read -r line; do
		read -r line <<<"$line"
		case $line in '' | '#'* | ';'*) continue ;; esac
		line=${line#-}
		[ "${line#*=}" != "$line" ] || continue
		read -r key <<<"${line%%=*}"
		read -r -a parts <<<"${line#*=}"
		into[$key]="${parts[*]}"
	done <"$1"
}

# conf_keys FILE: the keys a sysctl.d file sets, one a line, in its order.
conf_keys() {
	sed -n 's/^[[:space:]]*-\{0,1\}\([a-z0-9_.]*\)[[:space:]]*=.*/\1/p' "$1"
}

# ---------------------------------------------------------------------------
say "guest up: $(nproc) CPUs, kernel $(uname -r)"

# The image's nginx package starts nginx in the initial namespace at boot;
# the benchmark runs its own in the server's namespace, so stop that one.
systemctl stop nginx.service 2>/dev/null

# 1. The machine and its stock values, before anything is changed.
{
	echo "kernel: $(uname -r)"
	echo "debian: $(cat /etc/debian_version)"
	echo "cpus: $(nproc)"
	echo "cpu_model: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "memory_kib: $(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"
	echo "wrk: $(dpkg-query -W -f '${Version}' wrk)"
	echo "nginx: $(dpkg-query -W -f '${Version}' nginx 2>/dev/null || dpkg-query -W -f '${Version}' nginx-light)"
	echo "curl: $(dpkg-query -W -f '${Version}' curl)"
	echo "iproute2: $(dpkg-query -W -f '${Version}' iproute2)"
	echo "package: $(dpkg-deb -f /host/pkg.deb Package) $(dpkg-deb -f /host/pkg.deb Version)"
} >"$SET/machine.txt"
sysctl -a 2>/dev/null >/root/stock-sysctl.txt
declare -A STOCK
parse_conf /root/stock-sysctl.txt STOCK

# ---------------------------------------------------------------------------
# 2. The path: server (10.0.1.1) - router - client (10.0.2.1), veth pairs.
say "building the namespaces"
modprobe -a veth sch_netem sch_fq sch_fq_codel tcp_bbr || die "modprobe failed"
for ns in srv rtr cli; do
	ip netns add "$ns"
	in_ns "$ns" ip link set lo up
	# No IPv6 chatter (router solicitations, MLD) through the emulated path.
	in_ns "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add s-r netns srv type veth peer name r-s netns rtr
ip link add c-r netns cli type veth peer name r-c netns rtr
in_ns srv ip addr add 10.0.1.1/24 dev s-r
in_ns rtr ip addr add 10.0.1.254/24 dev r-s
in_ns rtr ip addr add 10.0.2.254/24 dev r-c
in_ns cli ip addr add 10.0.2.1/24 dev c-r
for pair in srv:s-r rtr:r-s rtr:r-c cli:c-r; do
	ns=${pair%%:*} dev=${pair#*:}
	# veth hands whole 64 KB TSO/GSO super-packets to its peer: netem would
	# then drop 45 packets at once for one "loss". Real paths lose single
	# packets, so every hop here carries MTU-sized packets.
	in_ns "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1
	in_ns "$ns" ip link set "$dev" up
	echo "$dev ($ns): $(in_ns "$ns" ethtool -k "$dev" |
		grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' |
		tr -s ' \n' ' ')" >>"$SET/offloads.txt"
done
in_ns srv ip route add default via 10.0.1.254
in_ns cli ip route add default via 10.0.2.254
in_ns rtr sysctl -q -w net.ipv4.ip_forward=1

# A child namespace may only pick a congestion control the initial
# namespace allows (EPERM otherwise); on a real server the profile sets BBR
# in the initial namespace, which allows it. This changes nothing else.
sysctl -q -w net.ipv4.tcp_allowed_congestion_control="reno cubic bbr" ||
	die "cannot allow bbr"

# set_link NAME: puts the link's netem qdiscs on the router's two egress
# interfaces. Each direction gets half the RTT; loss and the rate limit only
# toward the client (the download direction, as in the article).
#
# The rate limit is netem's own `rate`, not a tbf: netem serialises each
# packet at the rate after its delay (departure = max(arrival + delay,
# previous departure) + size / rate), which is a FIFO bottleneck at the far
# end of the propagation delay, and keeps delay, loss and rate in one qdisc
# (a tbf below netem would add a second queue and timer for the same
# model, and needs a burst size that under emulation's coarse timers is
# itself a guess). netem's `limit` (packets) counts
# the packets in its delay line as well as those waiting for the rate, so it
# is sized as: packets in flight over the one-way delay at full rate, plus a
# bottleneck buffer of one bandwidth-delay product of the whole path (the
# classic rule of thumb). The default, 1000 packets, would give the lossy
# link about 520 ms of queue, a bufferbloat that no real path keeps.
LINKS="lossy clean"
link_params() { # NAME -> "rtt_ms loss_pct rate_mbit"
	case $1 in
	lossy) echo "160 1 20" ;;
	clean) echo "20 0 100" ;;
	esac
}
set_link() {
	local rtt loss rate ow bits_per_pkt line bdp limit
	read -r rtt loss rate <<<"$(link_params "$1")"
	ow=$((rtt / 2))
	bits_per_pkt=$((1514 * 8))
	line=$((rate * 1000 * ow / bits_per_pkt))  # rate in bit/ms x ms
	bdp=$((rate * 1000 * rtt / bits_per_pkt))
	limit=$((line + bdp))
	in_ns rtr tc qdisc replace dev r-c root netem delay "${ow}ms" loss "${loss}%" \
		rate "${rate}mbit" limit "$limit" || die "netem on r-c"
	in_ns rtr tc qdisc replace dev r-s root netem delay "${ow}ms" limit 1000 ||
		die "netem on r-s"
	{
		echo "# link $1: RTT ${rtt} ms, loss ${loss}% and ${rate} Mbit/s toward the client"
		echo "router r-c (toward the client): $(in_ns rtr tc qdisc show dev r-c)"
		echo "router r-s (toward the server): $(in_ns rtr tc qdisc show dev r-s)"
	} >"$SET/link-$1.txt"
}

# ---------------------------------------------------------------------------
# 3. The package: install/purge timings, then profile C read back from what
# the installed package applied.
export DEBIAN_FRONTEND=noninteractive
apt_install() { apt-get install -y -q /host/pkg.deb >>/root/apt.log 2>&1; }
apt_purge() { apt-get purge -y -q wp-panel-nettune >>/root/apt.log 2>&1; }

say "timing apt-get install / purge, $TIMING_RUNS runs each"
: >"$RAW/timings.txt"
for i in $(seq 1 "$TIMING_RUNS"); do
	t=$(now)
	apt_install || die "apt-get install failed (run $i), see the log below: $(tail -n 20 /root/apt.log)"
	echo "apt_install $i $(elapsed "$t")" >>"$RAW/timings.txt"
	t=$(now)
	apt_purge || die "apt-get purge failed (run $i)"
	echo "apt_purge $i $(elapsed "$t")" >>"$RAW/timings.txt"
done

say "installing the package for profile C"
apt_install || die "apt-get install failed"
[ -f "$PKG_FRAGMENT" ] || die "the package wrote no $PKG_FRAGMENT"
cp "$PKG_FRAGMENT" "$SET/package-60-wp-panel-nettune.conf"
cp /etc/modules-load.d/wp-panel-nettune.conf "$SET/package-modules-load.conf" 2>/dev/null
wp-panel-nettune detect >"$SET/package-detect.txt" 2>&1
wp-panel-nettune status >"$SET/package-status.txt" 2>&1
echo "exit status $?" >>"$SET/package-status.txt"
# Profile C is what the package set in the running kernel: the live value
# of every key its fragment names. A key whose live value differs from the
# fragment is noted (and the live value used: it is what was applied).
declare -A FRAGMENT LIVE
parse_conf "$PKG_FRAGMENT" FRAGMENT
# shellcheck disable=SC2046 # a word list
parse_conf <(read_keys init $(conf_keys "$PKG_FRAGMENT")) LIVE
: >"$SET/package-readback-mismatch.txt"
{
	echo "# Profile C: the live values, right after 'apt-get install', of the"
	echo "# keys named by $PKG_FRAGMENT."
	for key in $(conf_keys "$PKG_FRAGMENT"); do
		[ "${LIVE[$key]:-}" = "${FRAGMENT[$key]}" ] ||
			echo "$key fragment='${FRAGMENT[$key]}' live='${LIVE[$key]:-}'" \
				>>"$SET/package-readback-mismatch.txt"
		echo "$key = ${LIVE[$key]:-}"
	done
} >"$PROF/C.conf"
cp "$PROF/C.conf" "$SET/profile-C.conf"

say "timing wp-panel-nettune apply (after a revert), $TIMING_RUNS runs"
for i in $(seq 1 "$TIMING_RUNS"); do
	t=$(now)
	wp-panel-nettune revert >/dev/null 2>&1 || die "wp-panel-nettune revert failed"
	echo "helper_revert $i $(elapsed "$t")" >>"$RAW/timings.txt"
	t=$(now)
	wp-panel-nettune apply >/dev/null 2>&1 || die "wp-panel-nettune apply failed"
	echo "helper_apply $i $(elapsed "$t")" >>"$RAW/timings.txt"
done

say "purging the package; checking the stock values are back"
apt_purge || die "apt-get purge failed"
cp /root/apt.log "$RAW/apt.log"

# ---------------------------------------------------------------------------
# The three profiles, as sysctl.d files over the same set of keys U (every
# key B or C sets). A is the stock value of each; B and C set theirs on top
# of a reset to A, so no profile leaks into the next.
cp /host/installer-profile.conf "$PROF/B.conf"
KEYS=$(
	conf_keys "$PROF/B.conf"
	conf_keys "$PROF/C.conf"
)
KEYS=$(echo "$KEYS" | sort -u)
{
	echo "# Profile A: stock Debian 13, the values this VM booted with."
	for key in $KEYS; do echo "$key = ${STOCK[$key]}"; done
} >"$PROF/A.conf"
cp "$PROF/A.conf" "$SET/profile-A.conf"
cp "$PROF/B.conf" "$SET/profile-B.conf"

# The purge must have put every key back.
declare -A AFTER
# shellcheck disable=SC2086 # a word list
parse_conf <(read_keys init $KEYS) AFTER
: >"$SET/purge-check.txt"
for key in $KEYS; do
	[ "${AFTER[$key]:-}" = "${STOCK[$key]}" ] ||
		echo "$key stock='${STOCK[$key]}' after-purge='${AFTER[$key]:-}'" >>"$SET/purge-check.txt"
done

# Where each key lives: one the server's namespace cannot write is global.
: >"$SET/key-scopes.txt"
declare -A SCOPE
# shellcheck disable=SC2016,SC2086 # expanded by that shell; a word list
while read -r key scope; do
	SCOPE[$key]=$scope
	echo "$key $scope" >>"$SET/key-scopes.txt"
done < <(in_ns srv bash -c 'for k; do
	if [ -w "/proc/sys/${k//.//}" ]; then echo "$k netns"; else echo "$k global"; fi
done' key_scope $KEYS)

# WANT[P:KEY]: the value KEY must have under profile P (stock unless P's
# file sets it).
declare -A WANT CONF_A CONF_B CONF_C
parse_conf "$PROF/A.conf" CONF_A
parse_conf "$PROF/B.conf" CONF_B
parse_conf "$PROF/C.conf" CONF_C
for key in $KEYS; do
	WANT[A:$key]=${CONF_A[$key]}
	WANT[B:$key]=${CONF_B[$key]:-${STOCK[$key]}}
	WANT[C:$key]=${CONF_C[$key]:-${STOCK[$key]}}
done

# applied_values: every key from where it lives (global: the initial
# namespace; the rest: the server's), as "KEY = value" lines.
applied_values() {
	local key globals=() netns=()
	for key in $KEYS; do
		if [ "${SCOPE[$key]}" = global ]; then globals+=("$key"); else netns+=("$key"); fi
	done
	{
		read_keys init "${globals[@]}"
		read_keys srv "${netns[@]}"
	} | sort
}

# load_conf NS FILE: `sysctl -p FILE` as an installer runs it. In the
# server's namespace the global keys do not exist (-e: not an error) or are
# read-only; those errors are expected and the read-back below is the check.
load_conf() {
	if [ "$1" = init ]; then
		sysctl -e -q -p "$2" >/dev/null 2>&1
	else
		in_ns "$1" sysctl -e -q -p "$2" >/dev/null 2>&1
	fi
	return 0
}

# apply_profile P: reset to stock, then load P the way it gets onto a real
# server, into both the initial namespace (where the global keys live) and
# the server's namespace (the server's sockets); then check every key and
# set the server's egress qdisc, which default_qdisc alone would not change
# on an interface that is already up.
apply_profile() {
	local p=$1 key value qdisc tmp_applied=/root/applied.txt
	load_conf init "$PROF/A.conf"
	load_conf srv "$PROF/A.conf"
	rm -f "$INSTALLER_CONF"
	case $p in
	B)
		# The installer script: its file in /etc/sysctl.d, loaded with
		# sysctl -p after loading BBR.
		cp "$PROF/B.conf" "$INSTALLER_CONF"
		modprobe tcp_bbr
		load_conf init "$INSTALLER_CONF"
		load_conf srv "$INSTALLER_CONF"
		;;
	C)
		load_conf init "$PROF/C.conf"
		load_conf srv "$PROF/C.conf"
		;;
	esac
	applied_values >"$tmp_applied"
	local -A got=()
	while read -r key _ value; do got[$key]=$value; done <"$tmp_applied"
	for key in $KEYS; do
		[ "${got[$key]:-}" = "${WANT[$p:$key]}" ] ||
			die "profile $p: $key is '${got[$key]:-}' (${SCOPE[$key]}), not '${WANT[$p:$key]}'"
	done
	qdisc=${WANT[$p:net.core.default_qdisc]}
	in_ns srv tc qdisc replace dev s-r root "$qdisc" || die "tc qdisc $qdisc on s-r"
	if [ ! -f "$SET/applied-$p.txt" ]; then
		cp "$tmp_applied" "$SET/applied-$p.txt"
		echo "server egress qdisc (s-r) = $(in_ns srv tc qdisc show dev s-r)" \
			>>"$SET/applied-$p.txt"
	fi
	# nginx restarted so its listening socket and every connection start
	# under this profile.
	nginx_restart
}

# ---------------------------------------------------------------------------
# The web server: nginx in the server's namespace, serving a 68 KiB page
# and a 2 MiB file from the local disk.
mkdir -p "$DOCROOT"
page_head=$'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>A WordPress-sized page</title></head><body>\n'
page_tail=$'\n</body></html>\n'
{
	printf '%s' "$page_head"
	yes '<p class="entry">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>' 2>/dev/null |
		head -c $((PAGE_BYTES - ${#page_head} - ${#page_tail}))
	printf '%s' "$page_tail"
} >"$DOCROOT/page.html"
[ "$(stat -c %s "$DOCROOT/page.html")" = "$PAGE_BYTES" ] || die "page.html is not $PAGE_BYTES bytes"
head -c "$FILE_BYTES" /dev/urandom >"$DOCROOT/file-2mb.bin"

cat >"$NGINX_CONF" <<'EOF'
# nginx for the benchmark, in the server's network namespace. Debian's
# defaults where they matter (sendfile, tcp_nopush, keepalive_timeout 65,
# listen backlog 511); no access log, to keep the emulated disk out of it.
worker_processes auto;
pid /run/nginx-bench.pid;
error_log /var/log/nginx/bench-error.log;
events { worker_connections 1024; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	sendfile on;
	tcp_nopush on;
	keepalive_timeout 65;
	access_log off;
	server {
		listen 10.0.1.1:80;
		root /srv/bench;
	}
}
EOF
nginx_restart() {
	local i
	if [ -f /run/nginx-bench.pid ]; then
		in_ns srv nginx -c "$NGINX_CONF" -s stop 2>/dev/null
		for i in $(seq 1 50); do
			[ -f /run/nginx-bench.pid ] || break
			sleep 0.2
		done
	fi
	in_ns srv nginx -c "$NGINX_CONF" || die "nginx does not start"
	for i in $(seq 1 50); do
		in_ns srv ss -Hltn 'sport = :80' | grep -q . && return 0
		sleep 0.2
	done
	die "nginx is not listening"
}

# ---------------------------------------------------------------------------
# 4. The rounds.
cpu_busy_ticks() { awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat; }
# forget_paths: the TCP metrics cache remembers ssthresh and RTT per peer
# and would carry one test's losses into the next; every fetch and every
# wrk run starts as a new visitor would.
forget_paths() {
	in_ns srv ip tcp_metrics flush all 2>/dev/null
	in_ns cli ip tcp_metrics flush all 2>/dev/null
	return 0
}

run_cell() { # ROUND LINK PROFILE
	local tag="r$1-$2-$3" b0 t0 b1 t1 i
	forget_paths
	sleep 1
	read -r b0 t0 <<<"$(cpu_busy_ticks)"
	echo "start $(date -u +%FT%TZ)" >"$RAW/$tag-cell.txt"
	# Halfway through, the server's sockets as the kernel sees them: which
	# congestion control, pacing rate, retransmissions.
	(
		sleep $((WRK_DURATION / 2))
		in_ns srv ss -tin state established '( sport = :80 )' >"$RAW/$tag-ss.txt" 2>&1
	) &
	in_ns cli wrk -t2 -c10 -d"${WRK_DURATION}s" --timeout "${WRK_TIMEOUT}s" --latency \
		"$URL_PAGE" >"$RAW/$tag-wrk.txt" 2>&1
	read -r b1 t1 <<<"$(cpu_busy_ticks)"
	wait
	echo "cpu_busy_pct $(awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", t ? 100 * b / t : 0 }')" \
		>>"$RAW/$tag-cell.txt"
	sleep 2
	: >"$RAW/$tag-curl.txt"
	for i in $(seq 1 "$FETCHES"); do
		forget_paths
		in_ns cli curl -sS -o /dev/null --max-time 60 \
			-w "fetch=$i http=%{http_code} size=%{size_download} time=%{time_total} connect=%{time_connect} speed=%{speed_download}\n" \
			"$URL_FILE" >>"$RAW/$tag-curl.txt" 2>&1
		echo "curl_exit=$?" >>"$RAW/$tag-curl.txt"
	done
	in_ns rtr tc -s qdisc show dev r-c >"$RAW/$tag-netem.txt"
	say "$tag: $(sed -n 's/^Requests\/sec: *//p' "$RAW/$tag-wrk.txt") req/s," \
		"$(grep -c 'http=200 size=2097152' "$RAW/$tag-curl.txt")/$FETCHES fetches complete"
}

say "rounds: $ROUNDS x links ($LINKS) x profiles (A B C), wrk ${WRK_DURATION}s, $FETCHES fetches"
for round in $(seq 1 "$ROUNDS"); do
	for link in $LINKS; do
		set_link "$link"
		for p in A B C; do
			apply_profile "$p"
			run_cell "$round" "$link" "$p"
		done
	done
done

in_ns srv nginx -c "$NGINX_CONF" -s stop 2>/dev/null
cp /var/log/nginx/bench-error.log "$RAW/nginx-error.log" 2>/dev/null
say "done"
exit 0
