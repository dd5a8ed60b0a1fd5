#!/bin/bash
# The benchmark's guest side. bench/run copies it into the VM's share as
# /host/run.sh; the VM runs it once after booting (tests/vm/image/vm-run)
# and powers off. Everything happens in this one boot:
#
#   1. record the machine and the stock Debian 13 values of every key;
#   2. build four network namespaces, server - router - client and a
#      competing sender beside the server, with netem on the router (the
#      emulated Internet path), and an HTTPS server;
#   3. time `apt-get install` / `apt-get purge` of the package and
#      `wp-panel-nettune apply`, and read back what the installed package
#      applied: that becomes the profile "package" (and "placebo", the same
#      values under a second name); the candidates are it plus one change
#      each (/host/candidates); then split the two vCPUs: the server gets
#      CPU 1 alone, the client, the router and everything else CPU 0;
#   4. measure the cells of /host/plan in its order, one a line: "PASS
#      ROUND LINK PROFILE" (bench/plan made it, shuffled, on the host): the
#      profile applied to the server's namespace, then five loads from the
#      client's namespace: keep-alive (wrk), new visitors (a new TCP and
#      TLS connection per page, many pages from one curl process per
#      stream), a reader (a page, an idle pause, the next page on the same
#      connection), the WordPress-like page with its 20 subresources
#      (bench/pageload: HTTP/2 and HTTP/1.1, IPv4 and IPv6) and the 2 MB
#      download; on a link with competing flows, long cubic downloads from
#      the other sender run beside them.
#
# It writes raw outputs only (wrk's and curl's text, CPU counters, read-back
# settings, timings) under /host/out; bench/report turns them into CSV,
# Markdown and a plot on the host. All traffic stays inside the VM's own
# namespaces: the VM has no network interface besides lo.
#
# Parameters come from /host/bench.env (written by bench/run).
set -u

# shellcheck source=/dev/null
. /host/bench.env

OUT=/host/out
RAW=$OUT/raw          # one file per measurement, as the tools printed it
SET=$OUT/settings     # what each profile set, read back from the kernel
PROF=/root/profiles   # every profile as a sysctl.d file (+ NAME.route)
DOCROOT=/srv/bench
TLS=/etc/nginx/bench-tls
NGINX_CONF=/etc/nginx/bench.conf
NGINX_PID=/run/nginx-bench.pid
NGINX_PROFILE=/etc/nginx/bench-profile.conf
INSTALLER_CONF=/etc/sysctl.d/99-wp-panel.conf
PKG_FRAGMENT=/etc/sysctl.d/60-wp-panel-nettune.conf
IW_CGROUP=/sys/fs/cgroup                 # where the package attaches its program
IW_PKG_PINS=/sys/fs/bpf/wp-panel-nettune # its pins (src/sockops.h)
IW_PINS=/sys/fs/bpf/bench-initwnd        # the benchmark's pins of the same objects
SERVER_IP=10.0.1.1
ROUTER_SRV_IP=10.0.1.254
OTHER_IP=10.0.3.1     # the competing sender, beside the server
# IPv6 beside IPv4 on the server's and the client's legs (unique local
# addresses, inside the VM's namespaces only), the same routes and netem.
SERVER_IP6=fd00:1::1
ROUTER_SRV_IP6=fd00:1::fe
CLIENT_IP6=fd00:2::1
ROUTER_CLI_IP6=fd00:2::fe
URL_PAGE=https://$SERVER_IP:443/page.html   # explicit port: no /etc/services here
# The WordPress-like front page: its HTML and 20 subresources (below).
URL_WP4=https://$SERVER_IP:443/wp/index.html
URL_WP6=https://[$SERVER_IP6]:443/wp/index.html
URL_FILE=https://$SERVER_IP:443/file-2mb.bin
URL_BULK=http://$OTHER_IP:80/bulk.bin        # what the competing flows fetch
PAGE_BYTES=69632      # 68 KiB, a WordPress front page's HTML
FILE_BYTES=2097152    # 2 MiB
# The CPU split: the server alone on one vCPU, the rest on the other.
SERVER_CPU=1
CLIENT_CPU=0

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
# a sysctl.d file (a leading "-" only means "ignore errors"; a later line
# wins, as with sysctl -p); white space in values made single spaces. Plain
# bash: every process started costs time under emulation.
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
[ "$(nproc)" -ge 2 ] || die "the benchmark needs 2 vCPUs, this VM has $(nproc)"

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
	echo "clock_ticks: $(getconf CLK_TCK)"
	echo "wrk: $(dpkg-query -W -f '${Version}' wrk)"
	echo "nginx: $(nginx -v 2>&1 | sed 's/^nginx version: //')"
	echo "curl: $(dpkg-query -W -f '${Version}' curl)"
	echo "python3: $(dpkg-query -W -f '${Version}' python3)"
	echo "python3-h2: $(dpkg-query -W -f '${Version}' python3-h2)"
	echo "bpftool: $(dpkg-query -W -f '${Version}' bpftool)"
	echo "openssl: $(openssl version)"
	echo "iproute2: $(dpkg-query -W -f '${Version}' iproute2)"
	echo "package: $(dpkg-deb -f /host/pkg.deb Package) $(dpkg-deb -f /host/pkg.deb Version)"
} >"$SET/machine.txt"
sysctl -a 2>/dev/null >/root/stock-sysctl.txt
declare -A STOCK
parse_conf /root/stock-sysctl.txt STOCK

# ---------------------------------------------------------------------------
# 2. The path: server (10.0.1.1, fd00:1::1) - router - client (10.0.2.1,
# fd00:2::1), veth pairs, and the competing sender (10.0.3.1, IPv4 only) on
# a third leg of the router.
say "building the namespaces"
modprobe -a veth sch_netem sch_fq sch_fq_codel tcp_bbr nf_tables || die "modprobe failed"
for ns in srv rtr cli oth; do
	ip netns add "$ns"
	in_ns "$ns" ip link set lo up
	if [ "$ns" = oth ]; then
		in_ns "$ns" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		continue
	fi
	# IPv6 with static addresses only: no router solicitations or
	# advertisements taken, no autoconfiguration, no duplicate address
	# detection (an address usable at once), so that nothing but the
	# loads (and neighbour discovery, IPv6's ARP) crosses the path. Set
	# on "default" before the interfaces are made: they take it.
	for scope in all default; do
		in_ns "$ns" sysctl -q -w "net.ipv6.conf.$scope.accept_ra=0" \
			"net.ipv6.conf.$scope.autoconf=0" "net.ipv6.conf.$scope.accept_dad=0" \
			"net.ipv6.conf.$scope.router_solicitations=0" ||
			die "IPv6 settings in $ns"
	done
done
# One client address stands for many visitors: no connection may start
# with what an earlier one left in the TCP metrics cache (ssthresh, RTT).
# This is the test bed's, in both end namespaces, under every profile.
for ns in srv cli; do
	in_ns "$ns" sysctl -q -w net.ipv4.tcp_no_metrics_save=1
done
ip link add s-r netns srv type veth peer name r-s netns rtr
ip link add c-r netns cli type veth peer name r-c netns rtr
ip link add o-r netns oth type veth peer name r-o netns rtr
in_ns srv ip addr add "$SERVER_IP/24" dev s-r
in_ns rtr ip addr add "$ROUTER_SRV_IP/24" dev r-s
in_ns rtr ip addr add 10.0.2.254/24 dev r-c
in_ns cli ip addr add 10.0.2.1/24 dev c-r
in_ns rtr ip addr add 10.0.3.254/24 dev r-o
in_ns oth ip addr add "$OTHER_IP/24" dev o-r
in_ns srv ip addr add "$SERVER_IP6/64" dev s-r nodad
in_ns rtr ip addr add "$ROUTER_SRV_IP6/64" dev r-s nodad
in_ns rtr ip addr add "$ROUTER_CLI_IP6/64" dev r-c nodad
in_ns cli ip addr add "$CLIENT_IP6/64" dev c-r nodad
for pair in srv:s-r rtr:r-s rtr:r-c cli:c-r rtr:r-o oth:o-r; do
	ns=${pair%%:*} dev=${pair#*:}
	# veth hands whole 64 KB TSO/GSO super-packets to its peer: netem would
	# then drop 45 packets at once for one "loss". Real paths lose single
	# packets, so every hop here carries MTU-sized packets.
	in_ns "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1
	# Receive steering and transmit queue: the server's device on the
	# server's CPU, the router's and the client's on the other.
	cpu=$CLIENT_CPU
	[ "$ns" != srv ] || cpu=$SERVER_CPU
	in_ns "$ns" sh -c "printf '%x\n' $((1 << cpu)) >/sys/class/net/$dev/queues/rx-0/rps_cpus &&
		printf '%x\n' $((1 << cpu)) >/sys/class/net/$dev/queues/tx-0/xps_cpus" ||
		die "cannot steer $dev to CPU $cpu"
	in_ns "$ns" ip link set "$dev" up
	echo "$dev ($ns): $(in_ns "$ns" ethtool -k "$dev" |
		grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' |
		tr -s ' \n' ' ') rps_cpus $(in_ns "$ns" cat "/sys/class/net/$dev/queues/rx-0/rps_cpus")" \
		>>"$SET/offloads.txt"
done
in_ns cli ip route add default via 10.0.2.254
in_ns cli ip -6 route add default via "$ROUTER_CLI_IP6" dev c-r
in_ns oth ip route add default via 10.0.3.254
# The competing flows are cubic, as most of the Internet's bulk senders,
# whatever profile the server has; the other sender's namespace keeps the
# stock values it was made with.
in_ns oth sysctl -q -w net.ipv4.tcp_congestion_control=cubic ||
	die "cubic for the competing sender"
in_ns rtr sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
# server_route [ATTRIBUTE...]: the server's default routes, IPv4 and IPv6,
# with the given route attributes (initcwnd ...) or none.
server_route() {
	# shellcheck disable=SC2068 # attribute words
	in_ns srv ip route replace default via "$ROUTER_SRV_IP" dev s-r $@ || die "ip route $*"
	# shellcheck disable=SC2068 # attribute words
	in_ns srv ip -6 route replace default via "$ROUTER_SRV_IP6" dev s-r $@ || die "ip -6 route $*"
}
server_route

# A child namespace may only pick a congestion control the initial
# namespace allows (EPERM otherwise); on a real server the profile sets BBR
# in the initial namespace, which allows it. This changes nothing else.
sysctl -q -w net.ipv4.tcp_allowed_congestion_control="reno cubic bbr" ||
	die "cannot allow bbr"

# set_link NAME: the link's netem qdiscs on the router's two egress
# interfaces, and its MTU. Each direction gets half the RTT; loss and the
# rate limit only toward the client (the download direction, as in the
# article).
#
# The rate limit is netem's own `rate`, not a tbf: netem serialises each
# packet at the rate after its delay (departure = max(arrival + delay,
# previous departure) + size / rate), which is a FIFO bottleneck at the far
# end of the propagation delay, and keeps delay, loss and rate in one qdisc
# (a tbf below netem would add a second queue and timer for the same
# model, and needs a burst size that under emulation's coarse timers is
# itself a guess). netem's `limit` (packets) counts the packets in its
# delay line as well as those waiting for the rate, so it is sized as:
# packets in flight over the one-way delay at full rate, plus a bottleneck
# buffer of one bandwidth-delay product of the whole path (the classic rule
# of thumb). The default, 1000 packets, would give the lossy link about
# 520 ms of queue, a bufferbloat that no real path keeps.
#
# The MTU is that of the router's route toward the client: a packet the
# router forwards that way must fit it, or (DF set) it is dropped and the
# router answers "fragmentation needed", which nftables drops on its way out
# when the MTU is below 1500: a PMTU black hole for what the server sends.
# Every interface keeps 1500, so the client announces the MSS of 1500, and
# what the client sends (a ClientHello with a post-quantum key share spans
# two segments) goes through: the server's profile is under test, not the
# client's.
declare -A LINK_RTT LINK_LOSS LINK_RATE LINK_MTU LINK_BUFFER LINK_FLOWS
while read -r name rtt loss rate mtu buffer flows _; do
	case $name in '' | '#'*) continue ;; esac
	LINK_RTT[$name]=$rtt LINK_LOSS[$name]=$loss LINK_RATE[$name]=$rate LINK_MTU[$name]=$mtu
	LINK_BUFFER[$name]=$buffer LINK_FLOWS[$name]=$flows
done </host/links
while read -r _ _ link _; do
	[ -n "${LINK_RTT[$link]:-}" ] || die "the plan names a link not in bench/links: '$link'"
done </host/plan
# netem_loss SPEC: netem's loss arguments for bench/links' loss column: a
# percentage (independent losses), or ge:P/R/H/K, the Gilbert-Elliott model
# (netem's "loss gemodel p r 1-h 1-k", all percentages): bursts of loss, as
# a congested or a radio path has them.
netem_loss() {
	local p r h k
	case $1 in
	ge:*/*/*/*)
		IFS=/ read -r p r h k <<<"${1#ge:}"
		echo "loss gemodel ${p}% ${r}% ${h}% ${k}%"
		;;
	*) echo "loss ${1}%" ;;
	esac
}
set_link() {
	local rtt=${LINK_RTT[$1]} loss=${LINK_LOSS[$1]} rate=${LINK_RATE[$1]} mtu=${LINK_MTU[$1]}
	local buffer=${LINK_BUFFER[$1]} ow bits_per_pkt line bdp limit
	ow=$((rtt / 2))
	bits_per_pkt=$((1514 * 8))
	line=$((rate * 1000 * ow / bits_per_pkt)) # rate in bit/ms x ms
	bdp=$((rate * 1000 * rtt / bits_per_pkt))
	# The bottleneck buffer: BUFFER bandwidth-delay products (awk: it
	# may be a fraction), at least 4 packets.
	limit=$((line + $(awk -v b="$bdp" -v f="$buffer" 'BEGIN { n = int(b * f + 0.5); print n < 4 ? 4 : n }')))
	# shellcheck disable=SC2046 # netem's words
	in_ns rtr tc qdisc replace dev r-c root netem delay "${ow}ms" $(netem_loss "$loss") \
		rate "${rate}mbit" limit "$limit" || die "netem on r-c"
	in_ns rtr tc qdisc replace dev r-s root netem delay "${ow}ms" limit 1000 ||
		die "netem on r-s"
	in_ns rtr tc qdisc replace dev r-o root netem delay "${ow}ms" limit 1000 ||
		die "netem on r-o"
	in_ns rtr ip route replace 10.0.2.0/24 dev r-c proto kernel scope link src 10.0.2.254 \
		mtu "$mtu" || die "mtu $mtu on the route to the client"
	in_ns rtr ip -6 route replace fd00:2::/64 dev r-c proto kernel metric 256 mtu "$mtu" ||
		die "mtu $mtu on the IPv6 route to the client"
	# The router's table: what it forwards toward the client, counted by
	# sender (the server's share against the competing flows), and, below
	# an MTU of 1500, its "fragmentation needed" dropped.
	in_ns rtr nft delete table inet bench 2>/dev/null
	{
		echo "table inet bench {"
		echo "	counter srv { }"
		echo "	counter other { }"
		echo "	chain forward {"
		echo "		type filter hook forward priority 0;"
		echo "		oifname \"r-c\" ip saddr $SERVER_IP counter name srv"
		echo "		oifname \"r-c\" ip6 saddr $SERVER_IP6 counter name srv"
		echo "		oifname \"r-c\" ip saddr $OTHER_IP counter name other"
		echo "	}"
		if [ "$mtu" -lt 1500 ]; then
			echo "	chain output {"
			echo "		type filter hook output priority 0;"
			echo "		icmp type destination-unreachable icmp code frag-needed counter drop"
			echo "		icmpv6 type packet-too-big counter drop"
			echo "	}"
		fi
		echo "}"
	} | in_ns rtr nft -f - || die "nft on the router"
	{
		echo "# link $1: RTT ${rtt} ms, loss $loss and ${rate} Mbit/s toward the client, MTU $mtu," \
			"bottleneck buffer $buffer BDP, ${LINK_FLOWS[$1]} competing flow(s)"
		echo "router r-c (toward the client): $(in_ns rtr tc qdisc show dev r-c)"
		echo "router r-s (toward the server): $(in_ns rtr tc qdisc show dev r-s)"
		echo "router r-o (toward the other sender): $(in_ns rtr tc qdisc show dev r-o)"
		echo "router route toward the client: $(in_ns rtr ip route show 10.0.2.0/24)"
		echo "router IPv6 route toward the client: $(in_ns rtr ip -6 route show fd00:2::/64)"
		echo "client c-r mtu: $(in_ns cli cat /sys/class/net/c-r/mtu)"
	} >"$SET/link-$1.txt"
}

# ---------------------------------------------------------------------------
# The web server: nginx in the server's namespace on the server's CPU,
# HTTPS (TLS 1.3 only) with a certificate made here, signed by a CA made
# here too (the client checks it: a chain of two, as a real site sends). An
# ECDSA P-256 key, the kind certbot makes by default. A 68 KiB page and a
# 2 MiB file from the local disk.
say "making the certificate and the documents"
mkdir -p "$DOCROOT" "$TLS"
(
	cd "$TLS" || exit 1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout ca.key -out ca.pem -subj /CN=bench-ca -days 2 &&
		openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-keyout key.pem -out server.csr -subj "/CN=$SERVER_IP" &&
		printf 'subjectAltName=IP:%s,IP:%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
			"$SERVER_IP" "$SERVER_IP6" >server.ext &&
		openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial 1 -days 2 \
			-extfile server.ext -out server.pem &&
		cat server.pem ca.pem >chain.pem
) >/root/openssl.log 2>&1 || die "openssl: $(tail -n 3 /root/openssl.log)"
openssl x509 -in "$TLS/server.pem" -noout -subject -issuer -ext subjectAltName >"$SET/certificate.txt" 2>&1
echo "chain bytes: $(stat -c %s "$TLS/chain.pem")" >>"$SET/certificate.txt"

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

# The WordPress-like front page (the page loads, bench/pageload): its HTML
# and 20 subresources, the sizes those of a theme's front page as served
# (bytes on the wire: CSS and JavaScript as compressed, images and fonts
# as they are; random bytes, which no compression changes). The figures:
# the HTTP Archive's Web Almanac 2024, chapter "Page Weight" (crawl of
# October 2024), median desktop home page: 2,652 KB in 71 requests; by type
# (medians of each, so they do not add up to the total) images 1,054 KB in
# 18 requests, JavaScript 613 KB in 24, fonts 131 KB, CSS 78 KB, HTML 18 KB.
# A WordPress theme's front page carries more HTML than the median (its
# posts' excerpts, inline styles and scripts: 60 kB here), the theme's and
# the block library's style sheets, jQuery (3.7.1's minified file is 87,533
# bytes) with jquery-migrate, two web fonts and nine images: 1.0 MB in 21
# objects, lighter than the median page, with subresources of its sizes
# (CSS 121 kB, JavaScript 184 kB, images 605 kB, fonts 54 kB). The links are
# at the end of the HTML, so that both protocols' clients ask for every
# subresource once the HTML has arrived: the same order for both.
WP_OBJECTS="
css/style.css 81920
css/block-library.css 12288
css/theme-custom.css 5120
css/fonts.css 24576
js/jquery.min.js 87552
js/jquery-migrate.min.js 13312
js/theme.js 30720
js/navigation.js 10240
js/wp-embed.js 46080
img/hero.jpg 153600
img/logo.png 20480
img/post-1.jpg 51200
img/post-2.jpg 51200
img/post-3.jpg 51200
img/post-4.jpg 51200
img/featured.webp 122880
img/avatar.jpg 25600
img/banner.jpg 92160
fonts/body.woff2 24576
fonts/heading.woff2 30720"
WP_HTML_BYTES=61440
mkdir -p "$DOCROOT/wp/css" "$DOCROOT/wp/js" "$DOCROOT/wp/img" "$DOCROOT/wp/fonts"
wp_links=
WP_BYTES=$WP_HTML_BYTES
while read -r obj bytes; do
	[ -n "$obj" ] || continue
	head -c "$bytes" /dev/urandom >"$DOCROOT/wp/$obj"
	WP_BYTES=$((WP_BYTES + bytes))
	case $obj in
	css/*) wp_links="$wp_links<link rel=\"stylesheet\" href=\"/wp/$obj\">"$'\n' ;;
	js/*) wp_links="$wp_links<script src=\"/wp/$obj\"></script>"$'\n' ;;
	img/*) wp_links="$wp_links<img src=\"/wp/$obj\" alt=\"\">"$'\n' ;;
	fonts/*) wp_links="$wp_links<link rel=\"preload\" href=\"/wp/$obj\" as=\"font\" crossorigin>"$'\n' ;;
	esac
done <<<"$WP_OBJECTS"
WP_COUNT=$(($(grep -c . <<<"$WP_OBJECTS") + 1))
{
	printf '%s' "$page_head"
	yes '<p class="entry">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>' 2>/dev/null |
		head -c $((WP_HTML_BYTES - ${#page_head} - ${#wp_links} - ${#page_tail}))
	printf '%s%s' "$wp_links" "$page_tail"
} >"$DOCROOT/wp/index.html"
[ "$(stat -c %s "$DOCROOT/wp/index.html")" = "$WP_HTML_BYTES" ] ||
	die "wp/index.html is not $WP_HTML_BYTES bytes"
echo "wp page: $WP_COUNT objects, $WP_BYTES bytes" >"$SET/wp-page.txt"
(cd "$DOCROOT/wp" && find . -type f -printf '%P %s\n' | sort) >>"$SET/wp-page.txt"

# What the competing flows download: more than any cell can carry (4 GiB
# at 20 Mbit/s is half an hour), sparse, so it costs no disk.
mkdir -p /srv/bulk
truncate -s 4G /srv/bulk/bulk.bin

cat >"$NGINX_CONF" <<EOF
# nginx for the benchmark, in the server's network namespace, on one CPU
# (one worker). Debian's defaults where they matter (keepalive_timeout 65,
# listen backlog 511); TLS 1.3 only, session tickets as nginx has them; no
# access log, to keep the emulated disk out of it. HTTP/2 on, as WP Panel
# serves its sites (nginx 1.26's "http2 on"), over IPv4 and IPv6; the
# loads that are not the page's ask for HTTP/1.1 (curl --http1.1, wrk).
worker_processes 1;
pid $NGINX_PID;
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
		listen $SERVER_IP:443 ssl;
		listen [$SERVER_IP6]:443 ssl;
		http2 on;
		ssl_certificate $TLS/chain.pem;
		ssl_certificate_key $TLS/key.pem;
		ssl_protocols TLSv1.3;
		root $DOCROOT;
		# The profile's own directives (a candidate's "nginx" lines).
		include $NGINX_PROFILE;
	}
}
EOF
: >"$NGINX_PROFILE"
# The competing sender: another nginx, plain HTTP, in its own namespace on
# the client's CPU (everything there is), started once: its flows are the
# same under every profile.
cat >/etc/nginx/bench-other.conf <<EOF
worker_processes 1;
pid /run/nginx-bench-other.pid;
error_log /var/log/nginx/bench-other-error.log;
events { worker_connections 64; }
http {
	sendfile on;
	access_log off;
	server {
		listen $OTHER_IP:80;
		root /srv/bulk;
	}
}
EOF
in_ns oth nginx -c /etc/nginx/bench-other.conf || die "the competing sender's nginx does not start"

nginx_restart() {
	local i
	if [ -f "$NGINX_PID" ]; then
		in_ns srv nginx -c "$NGINX_CONF" -s stop 2>/dev/null
		for i in $(seq 1 50); do
			[ -f "$NGINX_PID" ] || break
			sleep 0.2
		done
	fi
	in_ns srv taskset -c "$SERVER_CPU" nginx -c "$NGINX_CONF" || die "nginx does not start"
	for i in $(seq 1 50); do
		in_ns srv ss -Hltn 'sport = :443' | grep -q . && return 0
		sleep 0.2
	done
	die "nginx is not listening"
}

# ---------------------------------------------------------------------------
# 3. The package: install/purge timings, then the profile "package" read
# back from what the installed package applied.
export DEBIAN_FRONTEND=noninteractive
# With ONE_CPU=1 (bench/run's BENCH_ONE_CPU) the package is installed as
# on a 1-CPU server: its detection counts the CPUs its process may use
# (sched_getaffinity, src/sysinfo.c), and apt-get runs on the server's vCPU
# alone, so the postinst applies the 1-CPU profile.
APT_CPUS=
[ "${ONE_CPU:-0}" != 1 ] || APT_CPUS="taskset -c $SERVER_CPU"
apt_install() { $APT_CPUS apt-get install -y -q /host/pkg.deb >>/root/apt.log 2>&1; }
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

say "installing the package for the profile 'package'"
apt_install || die "apt-get install failed: $(tail -n 20 /root/apt.log)"
[ -f "$PKG_FRAGMENT" ] || die "the package wrote no $PKG_FRAGMENT"
cp "$PKG_FRAGMENT" "$SET/package-60-wp-panel-nettune.conf"
cp /etc/modules-load.d/wp-panel-nettune.conf "$SET/package-modules-load.conf" 2>/dev/null
$APT_CPUS wp-panel-nettune detect >"$SET/package-detect.txt" 2>&1
$APT_CPUS wp-panel-nettune status >"$SET/package-status.txt" 2>&1
echo "exit status $?" >>"$SET/package-status.txt"
# The profile is what the package set in the running kernel: the live value
# of every key its fragment names. A key whose live value differs from the
# fragment is noted (and the live value used: it is what was applied).
declare -A FRAGMENT LIVE
parse_conf "$PKG_FRAGMENT" FRAGMENT
# shellcheck disable=SC2046 # a word list
parse_conf <(read_keys init $(conf_keys "$PKG_FRAGMENT")) LIVE
: >"$SET/package-readback-mismatch.txt"
{
	echo "# The package: the live values, right after 'apt-get install', of the"
	echo "# keys named by $PKG_FRAGMENT."
	for key in $(conf_keys "$PKG_FRAGMENT"); do
		[ "${LIVE[$key]:-}" = "${FRAGMENT[$key]}" ] ||
			echo "$key fragment='${FRAGMENT[$key]}' live='${LIVE[$key]:-}'" \
				>>"$SET/package-readback-mismatch.txt"
		echo "$key = ${LIVE[$key]:-}"
	done
} >"$PROF/package.conf"

if [ "$TIMING_RUNS" -gt 0 ]; then
	say "timing wp-panel-nettune apply (after a revert), $TIMING_RUNS runs"
fi
for i in $(seq 1 "$TIMING_RUNS"); do
	t=$(now)
	$APT_CPUS wp-panel-nettune revert >/dev/null 2>&1 || die "wp-panel-nettune revert failed"
	echo "helper_revert $i $(elapsed "$t")" >>"$RAW/timings.txt"
	t=$(now)
	$APT_CPUS wp-panel-nettune apply >/dev/null 2>&1 || die "wp-panel-nettune apply failed"
	echo "helper_apply $i $(elapsed "$t")" >>"$RAW/timings.txt"
done

# The package's initial windows (src/initwnd.c): where its fragment sets fq
# (2 CPUs and more) and initial-window-ports names ports (as shipped it
# names none: the package leaves the windows to the kernel), initwnd
# attaches its sock_ops program to the root of the cgroup v2 tree and pins
# it under $IW_PKG_PINS; here the web ports are listed, as an administrator
# lists them, so that the program is loaded. It gives the passive
# connections of those ports, IPv4 and IPv6, the windows of its "windows"
# map (32 and 32 segments), in every network namespace (a cgroup spans them
# all). What it did is recorded, then the program and its maps
# get pins of the benchmark's own ($IW_PINS), which keep them alive when the
# purge detaches the link and removes the package's pins: the candidates
# with a "prog" line attach that same program again, with their windows in
# its map (bpftool), and every other profile runs with it detached, as
# "package" does (its windows are then the kernel's, IW10, unless a route
# gives others).
sed -i 's/^#80 443$/80 443/' /etc/wp-panel-nettune/initial-window-ports
{
	echo "# wp-panel-nettune status after apt-get install (its initial-window part):"
	grep -i 'initial' "$SET/package-status.txt"
	echo "# wp-panel-nettune initwnd, the web ports listed in initial-window-ports:"
	$APT_CPUS wp-panel-nettune initwnd 2>&1
	echo "# bpftool cgroup show $IW_CGROUP:"
	bpftool cgroup show "$IW_CGROUP" 2>&1
	for m in windows ports; do
		echo "# map $m:"
		bpftool map dump pinned "$IW_PKG_PINS/$m" 2>&1
	done
} >"$SET/package-initwnd.txt"
IW_PROG=0
mkdir -p "$IW_PINS"
if bpftool prog pin pinned "$IW_PKG_PINS/prog" "$IW_PINS/prog" 2>>"$SET/package-initwnd.txt" &&
	bpftool map pin pinned "$IW_PKG_PINS/windows" "$IW_PINS/windows" 2>>"$SET/package-initwnd.txt" &&
	bpftool map pin pinned "$IW_PKG_PINS/ports" "$IW_PINS/ports" 2>>"$SET/package-initwnd.txt" &&
	bpftool map pin pinned "$IW_PKG_PINS/given" "$IW_PINS/given" 2>>"$SET/package-initwnd.txt"; then
	IW_PROG=1
	echo "# kept for the candidates with a \"prog\" line: $IW_PINS" >>"$SET/package-initwnd.txt"
else
	echo "# the package attached no program: the candidates with a \"prog\" line cannot run" \
		>>"$SET/package-initwnd.txt"
fi

say "purging the package; checking the stock values are back"
apt_purge || die "apt-get purge failed"
cp /root/apt.log "$RAW/apt.log"
{
	echo "# after the purge: bpftool cgroup show $IW_CGROUP"
	bpftool cgroup show "$IW_CGROUP" 2>&1
	echo "# the package's pins: $(ls "$IW_PKG_PINS" 2>&1)"
} >>"$SET/package-initwnd.txt"
if [ "$IW_PROG" = 1 ]; then
	# The bench's connections are to port 443; the competing sender
	# listens on port 80 in its own namespace: its flows keep the
	# kernel's window under every profile.
	bpftool map delete pinned "$IW_PINS/ports" key 80 0 2>/dev/null
	bpftool map dump pinned "$IW_PINS/ports" >"$SET/initwnd-ports.txt" 2>&1
fi

# The CPU split, made now that the package is measured and gone (its
# detection counts the CPUs this process may use: it must see both). Every
# task there is now, this script included (and so everything it starts),
# runs on CPU 0; so do the interrupts that can be moved and the unbound
# kernel workers. nginx alone is started on CPU 1, and receive
# steering (RPS) brings the server's packets to CPU 1 and everybody else's
# to CPU 0 (set with the links below). The per-CPU kernel threads of CPU 1
# (ksoftirqd/1, its kworkers) stay: they do the server's own work.
for task in /proc/[0-9]*; do
	taskset -a -p -c "$CLIENT_CPU" "${task#/proc/}" >/dev/null 2>&1
done
for irq in /proc/irq/[0-9]*; do
	echo "$CLIENT_CPU" >"$irq/smp_affinity_list" 2>/dev/null
done
printf '%x\n' $((1 << CLIENT_CPU)) >/proc/irq/default_smp_affinity 2>/dev/null
printf '%x\n' $((1 << CLIENT_CPU)) >/sys/devices/virtual/workqueue/cpumask 2>/dev/null
{
	echo "server_cpu: $SERVER_CPU"
	echo "client_cpu: $CLIENT_CPU"
	echo "this_script_cpus: $(taskset -p -c $$ | sed 's/.*: //')"
	echo "irq_default_affinity: $(cat /proc/irq/default_smp_affinity)"
	echo "workqueue_cpumask: $(cat /sys/devices/virtual/workqueue/cpumask 2>/dev/null)"
	# Those the kernel would not move (legacy and managed ones), as
	# IRQ=CPUs(count so far on CPU 0/CPU 1,device).
	echo "irqs_not_on_client_cpu: $(for irq in /proc/irq/[0-9]*; do
		n=${irq#/proc/irq/}
		eff=$(cat "$irq/effective_affinity_list" 2>/dev/null)
		[ "$eff" = "$CLIENT_CPU" ] ||
			printf '%s=%s(%s) ' "$n" "$eff" "$(awk -v n="$n:" '$1 == n { print $2 "/" $3 "," $NF }' /proc/interrupts)"
	done)"
} >"$SET/cpu-split.txt"

# The 1-CPU pass (ONE_CPU=1): the server's vCPU is shared, as a 1-CPU VPS's
# is, with a CPU-bound load beside nginx, PHP-FPM-like: ONE_CPU_WORKERS
# worker processes on the server's vCPU, each a request of CPU work every
# 20 ms, sized so that together they keep ONE_CPU_LOAD% of the CPU busy
# when nothing else runs (the scheduler shares it with nginx when both
# want it). Started now, after the split, and running for every cell.
PHP_LIKE_PIDS=
if [ "${ONE_CPU:-0}" = 1 ]; then
	# The workers end with the script, by die() too.
	trap 'kill $PHP_LIKE_PIDS 2>/dev/null' EXIT
	cat >/root/php-like.py <<'EOF'
import sys, time
share, workers = float(sys.argv[1]) / 100, int(sys.argv[2])
period = 0.020
busy = period * share / workers
while True:
    start = time.monotonic()
    while time.monotonic() - start < busy:
        pass
    time.sleep(max(0.0, period - (time.monotonic() - start)))
EOF
	# Their output away from the script's: vm-run's tee would wait for
	# them at the end otherwise.
	for i in $(seq 1 "$ONE_CPU_WORKERS"); do
		taskset -c "$SERVER_CPU" python3 /root/php-like.py "$ONE_CPU_LOAD" "$ONE_CPU_WORKERS" \
			</dev/null >/dev/null 2>&1 &
		PHP_LIKE_PIDS="$PHP_LIKE_PIDS $!"
	done
	sleep 2
	{
		echo "one_cpu: 1"
		echo "one_cpu_load_pct: $ONE_CPU_LOAD"
		echo "one_cpu_workers: $ONE_CPU_WORKERS"
		echo "package_cpus: $(sed -n 's/^cpus: //p' "$SET/package-detect.txt")"
	} >>"$SET/cpu-split.txt"
	cpu_was=$(awk -v c="cpu$SERVER_CPU" '$1 == c { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	sleep 5
	echo "one_cpu_load_measured_pct: $(awk -v c="cpu$SERVER_CPU" -v was="$cpu_was" '$1 == c {
		split(was, w, " "); b = $2 + $3 + $4 + $7 + $8 + $9 - w[1]
		t = $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 - w[2]; printf "%.0f", t ? 100 * b / t : 0 }' /proc/stat)" \
		>>"$SET/cpu-split.txt"
	say "1-CPU pass: the package's profile for $(sed -n 's/^cpus: //p' "$SET/package-detect.txt") CPU(s)," \
		"$ONE_CPU_WORKERS PHP-FPM-like workers at $ONE_CPU_LOAD% beside nginx on vCPU $SERVER_CPU"
fi

# ---------------------------------------------------------------------------
# The profiles, as sysctl.d files over the same set of keys (every key any
# profile sets). "stock" is the stock value of each; every other profile
# sets its values on top of a reset to stock, so no profile leaks into the
# next. A candidate is the package's file followed by its own lines (the
# later line wins), and maybe a route attribute.
cp /host/installer-profile.conf "$PROF/installer.conf"
CANDIDATES=
name=
while IFS= read -r line; do
	case $line in
	'#'* | '') continue ;;
	'['*)
		name=${line#[}
		name=${name%%[] ]*}
		CANDIDATES="$CANDIDATES $name"
		cp "$PROF/package.conf" "$PROF/$name.conf"
		echo "# candidate $name: the package's profile, then:" >>"$PROF/$name.conf"
		;;
	'route '*) echo "${line#route }" >"$PROF/$name.route" ;;
	'prog '*) echo "${line#prog }" >"$PROF/$name.prog" ;;
	'nginx '*) echo "${line#nginx }" >>"$PROF/$name.nginx" ;;
	*) echo "$line" >>"$PROF/$name.conf" ;;
	esac
done </host/candidates
PROFILES=$(awk '{ print $4 }' /host/plan | sort -u)
for p in $PROFILES; do
	case " stock installer package $CANDIDATES " in
	*" $p "*) ;;
	*) die "unknown profile '$p'" ;;
	esac
done
KEYS=$(for f in "$PROF"/*.conf; do conf_keys "$f"; done | sort -u)
{
	echo "# Stock Debian 13: the values this VM booted with."
	for key in $KEYS; do echo "$key = ${STOCK[$key]}"; done
} >"$PROF/stock.conf"
for f in "$PROF"/*.conf; do
	p=$(basename "$f" .conf)
	cp "$f" "$SET/profile-$p.conf"
	[ ! -f "$PROF/$p.route" ] || cp "$PROF/$p.route" "$SET/profile-$p.route"
	[ ! -f "$PROF/$p.nginx" ] || cp "$PROF/$p.nginx" "$SET/profile-$p.nginx"
	[ ! -f "$PROF/$p.prog" ] || cp "$PROF/$p.prog" "$SET/profile-$p.prog"
done

# The purge must have put every key back.
declare -A AFTER
# shellcheck disable=SC2086 # a word list
parse_conf <(read_keys init $KEYS) AFTER
: >"$SET/purge-check.txt"
for key in $(conf_keys "$PROF/package.conf"); do
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
declare -A WANT
for p in stock installer package $CANDIDATES; do
	unset CONF
	declare -A CONF=()
	parse_conf "$PROF/$p.conf" CONF
	for key in $KEYS; do
		WANT[$p:$key]=${CONF[$key]:-${STOCK[$key]}}
	done
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

# iw_prog_attach CWND RWND: the package's initial-window program attached
# to the root cgroup (as apply attaches it), its map holding the windows
# CWND and RWND in segments (0: the kernel's); iw_prog_detach: detached;
# iw_prog_state: what is attached, the windows, the connections given the
# window so far (the program's counter, summed over the CPUs).
le32() { printf '%d %d %d %d' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
iw_prog_attach() {
	[ "$IW_PROG" = 1 ] || die "profile $p: the package attached no initial-window program to measure"
	# shellcheck disable=SC2046 # the bytes of two 32-bit numbers
	bpftool map update pinned "$IW_PINS/windows" key 0 0 0 0 value $(le32 "$1") $(le32 "$2") ||
		die "cannot set the program's windows to $1 $2"
	bpftool cgroup show "$IW_CGROUP" | grep -q nettune_initwnd ||
		bpftool cgroup attach "$IW_CGROUP" sock_ops pinned "$IW_PINS/prog" multi ||
		die "cannot attach the initial-window program"
}
iw_prog_detach() {
	[ "$IW_PROG" = 1 ] || return 0
	! bpftool cgroup show "$IW_CGROUP" | grep -q nettune_initwnd ||
		bpftool cgroup detach "$IW_CGROUP" sock_ops pinned "$IW_PINS/prog" ||
		die "cannot detach the initial-window program"
}
iw_prog_state() {
	if [ "$IW_PROG" != 1 ]; then
		echo "none (the package attached none)"
		return
	fi
	local attached=detached
	! bpftool cgroup show "$IW_CGROUP" | grep -q nettune_initwnd || attached=attached
	echo "$attached; windows $(bpftool -j map lookup pinned "$IW_PINS/windows" key 0 0 0 0 |
		sed -n 's/.*"value":{"cwnd":\([0-9]*\),"rwnd":\([0-9]*\)}.*/\1 \2/p;s/.*"value":\[\(.*\)\].*/bytes \1/p');" \
		"given $(bpftool -j map lookup pinned "$IW_PINS/given" key 0 0 0 0 |
			grep -o '"value":[0-9]*' | awk -F: '{ n += $2 } END { print n + 0 }')"
}

# apply_profile P: reset to stock, then load P the way it gets onto a real
# server, into both the initial namespace (where the global keys live) and
# the server's namespace (the server's sockets); then check every key, set
# the server's route and egress qdisc (default_qdisc alone would not change
# it on an interface that is already up), and restart nginx.
apply_profile() {
	local p=$1 key value qdisc tmp_applied=/root/applied.txt route=
	load_conf init "$PROF/stock.conf"
	load_conf srv "$PROF/stock.conf"
	rm -f "$INSTALLER_CONF"
	case $p in
	stock) ;;
	installer)
		# The installer script: its file in /etc/sysctl.d, loaded with
		# sysctl -p after loading BBR.
		cp "$PROF/installer.conf" "$INSTALLER_CONF"
		modprobe tcp_bbr
		load_conf init "$INSTALLER_CONF"
		load_conf srv "$INSTALLER_CONF"
		;;
	*)
		load_conf init "$PROF/$p.conf"
		load_conf srv "$PROF/$p.conf"
		;;
	esac
	[ ! -f "$PROF/$p.route" ] || route=$(cat "$PROF/$p.route")
	# shellcheck disable=SC2086 # attribute words
	server_route $route
	if [ -f "$PROF/$p.prog" ]; then
		# shellcheck disable=SC2046 # two numbers
		iw_prog_attach $(cat "$PROF/$p.prog")
	else
		iw_prog_detach
	fi
	applied_values >"$tmp_applied"
	local -A got=()
	while read -r key _ value; do got[$key]=$value; done <"$tmp_applied"
	for key in $KEYS; do
		[ "${got[$key]:-}" = "${WANT[$p:$key]}" ] ||
			die "profile $p: $key is '${got[$key]:-}' (${SCOPE[$key]}), not '${WANT[$p:$key]}'"
	done
	# nginx's directives for the profile: the candidate's, or none.
	if [ -f "$PROF/$p.nginx" ]; then
		cp "$PROF/$p.nginx" "$NGINX_PROFILE"
	else
		: >"$NGINX_PROFILE"
	fi
	qdisc=${WANT[$p:net.core.default_qdisc]}
	in_ns srv tc qdisc replace dev s-r root "$qdisc" || die "tc qdisc $qdisc on s-r"
	if [ ! -f "$SET/applied-$p.txt" ]; then
		{
			cat "$tmp_applied"
			echo "server egress qdisc (s-r) = $(in_ns srv tc qdisc show dev s-r)"
			echo "server default route = $(in_ns srv ip route show default)"
			echo "server IPv6 default route = $(in_ns srv ip -6 route show default)"
			echo "initial-window program = $(iw_prog_state)"
			sed 's/^/nginx directive = /' "$NGINX_PROFILE"
		} >"$SET/applied-$p.txt"
	fi
	nginx_restart
}

# ---------------------------------------------------------------------------
# 4. The cells of the plan.

# tcp_segs: the segments the server's TCP sent and retransmitted, as
# "srv_out_segs=N srv_retrans_segs=N", from its namespace's /proc/net/snmp
# (the names on the first Tcp: line, the counts on the second).
tcp_segs() {
	in_ns srv cat /proc/net/snmp | awk '$1 == "Tcp:" && !n { for (i = 2; i <= NF; i++) k[i] = $i; n = 1; next }
		$1 == "Tcp:" { for (i = 2; i <= NF; i++) v[k[i]] = $i
			printf "srv_out_segs=%s srv_retrans_segs=%s", v["OutSegs"], v["RetransSegs"] }'
}

# cpu_mark LABEL FILE [cell]: one line of counters: seconds since boot,
# busy and total clock ticks of the server's and the client's CPU (busy:
# user, nice, system, irq, softirq, steal), the CPU ticks nginx's processes
# used (utime + stime of the master and its worker), and with "cell"
# netem's counters toward the client, the bytes the router forwarded
# toward the client from the server and from the competing sender, and the
# segments the server's TCP sent and retransmitted (its namespace's
# /proc/net/snmp: OutSegs counts the retransmitted ones too). Plain
# bash but for tc and nft, on the client's CPU: taking the mark costs the
# server's CPU nothing.
cpu_mark() {
	local name u n s idle io irq sirq steal up _ srv=0 srvt=0 cli=0 clit=0 ng=0 pid f extra=
	while read -r name u n s idle io irq sirq steal _; do
		case $name in
		"cpu$SERVER_CPU")
			srv=$((u + n + s + irq + sirq + steal))
			srvt=$((srv + idle + io))
			;;
		"cpu$CLIENT_CPU")
			cli=$((u + n + s + irq + sirq + steal))
			clit=$((cli + idle + io))
			;;
		esac
	done </proc/stat
	if read -r pid <"$NGINX_PID" 2>/dev/null; then
		for pid in "$pid" $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
			read -r -a f <"/proc/$pid/stat" 2>/dev/null || continue
			ng=$((ng + f[13] + f[14]))
		done
	fi
	read -r up _ </proc/uptime
	if [ "${3:-}" = cell ]; then
		extra="$(in_ns rtr tc -s qdisc show dev r-c |
			sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt (dropped \([0-9]*\),.*/netem_sent=\1 netem_dropped=\2/p' |
			head -n 1) $(in_ns rtr nft list counters table inet bench |
			awk '$1 == "counter" { c = $2 } /bytes/ { for (i = 1; i < NF; i++) if ($i == "bytes") printf "%s_bytes=%s ", c, $(i + 1) }') $(tcp_segs)"
	fi
	echo "$1 up=$up srv_busy=$srv srv_total=$srvt cli_busy=$cli cli_total=$clit nginx=$ng $extra" >>"$2"
}

# forget_paths: the TCP metrics cache remembers ssthresh and RTT per peer;
# nothing is saved in it (tcp_no_metrics_save), and it is emptied anyway
# before each cell.
forget_paths() {
	in_ns srv ip tcp_metrics flush all 2>/dev/null
	in_ns cli ip tcp_metrics flush all 2>/dev/null
	return 0
}

# curl_page WHAT [CURL ARG...]: curl in the client's namespace over HTTPS
# with the run's CA, one -w line per page as "WHAT n=..." with curl's own
# times (cumulative from the start of that page: connect, TLS handshake
# done, first byte, last byte), the connections it opened for that page
# and its exit code for that page.
curl_page() {
	local what=$1
	shift
	in_ns cli curl -sS --http1.1 --cacert "$TLS/ca.pem" --tlsv1.3 --no-sessionid \
		-w "$what n=%{urlnum} http=%{http_code} size=%{size_download} connects=%{num_connects} tcp=%{time_connect} tls=%{time_appconnect} ttfb=%{time_starttransfer} total=%{time_total} exit=%{exitcode}\n" \
		"$@"
}

# pages URL N: the arguments for N pages in one curl, one a line:
# "-o", "/dev/null", "URL?n=I".
pages() {
	local i
	for i in $(seq 1 "$2"); do printf -- '-o\n/dev/null\n%s?n=%s\n' "$1" "$i"; done
}

# compete_start LINK / compete_stop: the link's competing flows, long
# downloads from the other sender to the client (cubic), started before the
# loads and ended after them.
COMPETE_PIDS=
compete_start() {
	local i
	COMPETE_PIDS=
	for i in $(seq 1 "${LINK_FLOWS[$1]}"); do
		# ip netns exec, not in_ns: ip execs curl, so $! is curl's own
		# process and the kill below reaches it.
		ip netns exec cli curl -s -o /dev/null --max-time 600 "$URL_BULK" 2>>"$RAW/$tag-compete.txt" &
		COMPETE_PIDS="$COMPETE_PIDS $!"
	done
	# Long enough for cubic's slow start (a few round trips) before the
	# loads start. Whether the flows then fill the path depends on the
	# link's loss: with 1.3% they stay loss-limited (bench/README).
	[ -z "$COMPETE_PIDS" ] || sleep "$COMPETE_WARMUP"
}
compete_stop() {
	[ -n "$COMPETE_PIDS" ] || return 0
	echo "flows $COMPETE_PIDS stopped at the end of the cell" >>"$RAW/$tag-compete.txt"
	# shellcheck disable=SC2086 # a word list
	kill $COMPETE_PIDS 2>/dev/null
	# shellcheck disable=SC2086 # a word list
	wait $COMPETE_PIDS 2>/dev/null
	COMPETE_PIDS=
}

# run_cell PASS ROUND LINK PROFILE: the four loads. The cell's files are
# written to a tmpfs and moved to the share when it is over: a write to the
# 9p share during a load would cost interrupts the kernel keeps on the
# server's CPU (settings/cpu-split.txt).
CELL_DIR=/run/bench-cell
mkdir -p "$CELL_DIR"
run_cell() {
	local tag="$1$2-$3-$4" i cpu RAW=$CELL_DIR ss wrk_s=$WRK_DURATION
	# Behind a PMTU black hole the first connections stall until MTU
	# probing acts (about 5 s): wrk gets 10 s there, or it would measure
	# only the stall.
	[ "${LINK_MTU[$3]}" -ge 1500 ] || [ "$wrk_s" -ge 10 ] || wrk_s=10
	cpu=$RAW/$tag-cpu.txt
	: >"$cpu"
	forget_paths
	# The initial-window program's state and counter, before and after.
	[ "$IW_PROG" != 1 ] || echo "start: $(iw_prog_state)" >"$RAW/$tag-initwnd.txt"
	compete_start "$3"
	cpu_mark cell_start "$cpu" cell

	# Keep-alive: wrk's ten connections, opened once, reused for every
	# request. Halfway through, the server's sockets as the kernel sees
	# them: which congestion control, pacing rate, retransmissions.
	(
		sleep $((wrk_s / 2))
		{
			in_ns srv ss -tin state established '( sport = :443 )'
			echo "# nginx's threads: the CPU each last ran on (psr), CPU time"
			ps -L -C nginx -o pid,tid,psr,time,comm
		} >"$RAW/$tag-ss.txt" 2>&1
	) &
	ss=$!
	cpu_mark keepalive_start "$cpu"
	in_ns cli wrk -t1 -c10 -d"${wrk_s}s" --timeout "${WRK_TIMEOUT}s" --latency \
		"$URL_PAGE" >"$RAW/$tag-wrk.txt" 2>&1
	cpu_mark keepalive_end "$cpu"
	wait "$ss"

	# New visitors: VISITORS streams side by side, each one curl process
	# fetching the page VISITS times, one after the other, each over a new
	# TCP connection (Connection: close) with a full TLS 1.3 handshake (no
	# session kept: --no-sessionid). One process per stream: its start
	# (the dynamic linker, OpenSSL's initialisation) is paid once, not per
	# visit, so a visit's time is the network's and the handshake's.
	cpu_mark visitor_start "$cpu"
	local streams=
	for i in $(seq 1 "$VISITORS"); do
		(
			# One argument a line, and no file name expansion of the
			# URLs' "?".
			IFS=$'\n'
			set -f
			# shellcheck disable=SC2046 # one argument a line
			curl_page "visit stream=$i" -H 'Connection: close' --max-time "$VISIT_TIMEOUT" \
				$(pages "$URL_PAGE" "$VISITS") >"$RAW/$tag-visits-$i.txt" 2>"$RAW/$tag-visits-$i.err"
		) &
		streams="$streams $!"
	done
	# shellcheck disable=SC2086 # a word list
	wait $streams
	cpu_mark visitor_end "$cpu"
	for i in $(seq 1 "$VISITORS"); do
		cat "$RAW/$tag-visits-$i.txt" >>"$RAW/$tag-visits.txt"
		cat "$RAW/$tag-visits-$i.err" >>"$RAW/$tag-visits.err"
		rm -f "$RAW/$tag-visits-$i.txt" "$RAW/$tag-visits-$i.err"
	done

	# A reader: the page, a pause while the connection stays open, the
	# next page on the same connection. What tcp_slow_start_after_idle
	# decides: whether that second page starts from the window the first
	# left or from the initial one. The pages start "spacing" seconds
	# apart: the smallest divisor of a minute (curl's --rate counts per
	# minute) that leaves READER_IDLE seconds after a first page of six
	# round trips, well above the RTO of these paths (about the RTT and
	# four times its variation, 1 s at the most here).
	local spacing
	spacing=$(awk -v rtt="${LINK_RTT[$3]}" -v idle="$READER_IDLE" 'BEGIN {
		n = split("1 2 3 4 5 6 10 12 15 20 30 60", d, " ")
		for (i = 1; i < n && d[i] < 6 * rtt / 1000 + idle; i++);
		print d[i] }')
	echo "spacing=$spacing" >"$RAW/$tag-reader.txt"
	cpu_mark reader_start "$cpu"
	(
		IFS=$'\n'
		set -f
		# shellcheck disable=SC2046 # one argument a line
		curl_page read --rate "$((60 / spacing))/m" --max-time "$VISIT_TIMEOUT" \
			$(pages "$URL_PAGE" 2) >>"$RAW/$tag-reader.txt" 2>"$RAW/$tag-reader.err"
	)
	cpu_mark reader_end "$cpu"

	# The WordPress-like page (bench/pageload): a first visit, new
	# connections, full TLS 1.3 handshakes, the HTML then its 20
	# subresources, timed to the last object; once per PAGE_LOADS entry
	# (h2:4 HTTP/2 over IPv4, h2:6 over IPv6, h1:4 HTTP/1.1 with six
	# connections over IPv4, ...), one after the other.
	: >"$RAW/$tag-page.txt"
	for i in $PAGE_LOADS; do
		cpu_mark "page_start n=$i" "$cpu"
		in_ns cli python3 /host/pageload --proto "${i%:*}" --conns 6 --ca "$TLS/ca.pem" \
			--max-time "$PAGE_TIMEOUT" "$(if [ "${i#*:}" = 6 ]; then echo "$URL_WP6"; else echo "$URL_WP4"; fi)" \
			>>"$RAW/$tag-page.txt" 2>>"$RAW/$tag-page.err"
		cpu_mark "page_end n=$i" "$cpu"
	done

	# The 2 MB download, a new connection each time.
	: >"$RAW/$tag-fetch.txt"
	for i in $(seq 1 "$FETCHES"); do
		cpu_mark "fetch_start n=$i" "$cpu"
		in_ns cli curl -sS --http1.1 -o /dev/null --cacert "$TLS/ca.pem" --tlsv1.3 --max-time "$FETCH_TIMEOUT" \
			-w "fetch=$i http=%{http_code} size=%{size_download} time=%{time_total} tcp=%{time_connect} tls=%{time_appconnect} speed=%{speed_download} exit=%{exitcode}\n" \
			"$URL_FILE" >>"$RAW/$tag-fetch.txt" 2>>"$RAW/$tag-fetch.err"
		cpu_mark "fetch_end n=$i" "$cpu"
	done
	cpu_mark cell_end "$cpu" cell
	compete_stop
	[ "$IW_PROG" != 1 ] || echo "end: $(iw_prog_state)" >>"$RAW/$tag-initwnd.txt"
	# The CPU counters last: their file on the share marks the cell done.
	for i in "$CELL_DIR/$tag"-*; do
		[ "$i" = "$cpu" ] || mv "$i" "$OUT/raw/" || die "cannot move $i to $OUT/raw"
	done
	mv "$cpu" "$OUT/raw/" || die "cannot move the cell's files to $OUT/raw"
	RAW=$OUT/raw
	say "$tag: keep-alive $(sed -n 's/^Requests\/sec: *//p' "$RAW/$tag-wrk.txt" 2>/dev/null) req/s," \
		"$(grep -c 'http=200 size=69632 .* exit=0' "$RAW/$tag-visits.txt")/$((VISITORS * VISITS)) visits," \
		"reader $(grep -c 'http=200 size=69632 .* exit=0' "$RAW/$tag-reader.txt")/2," \
		"$(grep -c 'http=200 size=2097152 .* exit=0' "$RAW/$tag-fetch.txt")/$FETCHES downloads complete," \
		"pages: $(awk '$1 == "page" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "%s%s/v%s %s/%s in %s s", sep, v["proto"], v["family"], v["ok"], v["objects"], v["total"]
			if (v["exit"] != 0) printf " (failed)"
			sep = ", " }' "$RAW/$tag-page.txt")"
}

say "the plan: $(wc -l </host/plan) cells; per cell wrk ${WRK_DURATION}s," \
	"$VISITORS x $VISITS visits, a reader (${READER_IDLE}s idle), $FETCHES download(s)"
cp /host/plan "$SET/plan.txt"
current_link=
while read -r pass round link p; do
	# A cell finished by an earlier boot (bench/run boots again when the
	# guest dies) is kept; a half-done one is redone.
	tag="$pass$round-$link-$p"
	if [ -e "$RAW/$tag-cpu.txt" ]; then
		say "$tag: done by an earlier boot, kept"
		continue
	fi
	rm -f "$RAW/$tag"-*
	if [ "$link" != "$current_link" ]; then
		if [ -n "$current_link" ] && [ "${LINK_MTU[$current_link]}" -lt 1500 ]; then
			echo "until $tag: $(in_ns rtr nft list chain inet bench output | grep -o 'packets [0-9]*') ICMP frag-needed dropped" \
				>>"$SET/link-$current_link.txt"
		fi
		set_link "$link"
		current_link=$link
	fi
	apply_profile "$p"
	run_cell "$pass" "$round" "$link" "$p"
	# A test of that restart: CRASH_AFTER cells into the first boot, the
	# kernel is made to panic.
	if [ "$CRASH_AFTER" -gt 0 ] && [ ! -e "$OUT/crashed" ] &&
		[ "$(find "$RAW" -name '*-cpu.txt' | wc -l)" -ge "$CRASH_AFTER" ]; then
		say "crashing the kernel on purpose (BENCH_CRASH_AFTER=$CRASH_AFTER)"
		: >"$OUT/crashed"
		sync
		echo c >/proc/sysrq-trigger
	fi
done </host/plan

in_ns srv nginx -c "$NGINX_CONF" -s stop 2>/dev/null
in_ns oth nginx -c /etc/nginx/bench-other.conf -s stop 2>/dev/null
cp /var/log/nginx/bench-error.log "$RAW/nginx-error.log" 2>/dev/null
say "done"
exit 0
