# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 18. The metrics reach Debian's own prometheus-node-exporter, one 2-vCPU
#     boot of an image that has it (and promtool, curl, jq). After the
#     install the timer is enabled and active; one run of its service
#     writes /var/lib/prometheus/node-exporter/wp-panel-nettune.prom (0644,
#     no temporary file left), which promtool accepts, and the exporter's
#     /metrics shows no alarm, every key in-effect, each numeric key's live
#     value, the CPU counts, tcp_bbr loaded, with no textfile scrape error.
#     Then each state made for real, the service run and the exporter read
#     each time, and the package's own alerting rules run by promtool over
#     what the exporter served: a 70-local.conf applied (overridden, exit 0,
#     nothing fires), a sysctl -w behind the package's back (drift, exit 3,
#     NettuneAlarm), an edited fragment (edited, exit 0), then
#     dpkg-reconfigure answered cubic, which leaves a .ucf-dist (outdated,
#     exit 3, NettuneAlarm), a malformed line (malformed, exit 3,
#     NettuneAlarm), the timer's service failing (the file left, its time
#     standing still), and after the purge NettuneMetricsMissing and
#     NettuneMetricsAbsent.
#     The service
#     keeps only setuid and setgid of root, has no devices and a time limit.
#     Without the directory the service and the helper's writer do nothing
#     and succeed. Purge
#     removes the file, and the exporter no longer shows the metrics.
title="node exporter: the metrics, drift after a change, purge"
estimate=600

# Scenario 19 boots the same image: the same list, one image built.
image_packages="prometheus-node-exporter prometheus curl jq locales tmux perl"

exporter_boot() {
	boot node-exporter "$(disk node-exporter)" 2 900 <<'GUEST'
prom_dir=/var/lib/prometheus/node-exporter
prom=$prom_dir/wp-panel-nettune.prom
unit=wp-panel-nettune-prometheus
# Only the node exporter matters here; the Prometheus server came along
# with promtool.
systemctl stop prometheus.service 2>/dev/null || true

# metrics: the node exporter's /metrics, once it answers, in
# /host/metrics.log; nettune_... lines only in /host/nettune.metrics.
metrics() {
	_i=0
	until curl -fs -o /host/metrics.log http://localhost:9100/metrics; do
		_i=$((_i + 1))
		[ "$_i" -lt 90 ] || { echo "# no answer on localhost:9100"; return 1; }
		sleep 1
	done
	grep '^nettune_' /host/metrics.log >/host/nettune.metrics || true
}
# sample NAME: the value of the sample NAME (with its labels, as printed).
sample() {
	awk -v n="$1" 'substr($0, 1, length(n) + 1) == n " " { print $NF; found = 1 } END { if (!found) print "(none)" }' /host/nettune.metrics
}
# info_labels NAME SELECTOR LABEL...: the samples of NAME whose labels
# include SELECTOR (key="..."), how many, then the values of the LABELs of
# the first, in that order, separated by "|".
info_labels() {
	_name=$1 _selector=$2 _sep=' '
	shift 2
	grep "^$_name{" /host/nettune.metrics | grep -F -- "$_selector" >/tmp/info.lines || true
	printf '%s' "$(wc -l </tmp/info.lines)"
	for _label; do
		printf '%s%s' "$_sep" "$(head -n 1 /tmp/info.lines | sed -n "s/.*[{,]$_label=\"\([^\"]*\)\".*/\1/p")"
		_sep='|'
	done
	echo
}

check "the node exporter is running" systemctl is-active prometheus-node-exporter.service
check "its textfile directory exists" test -d "$prom_dir"
check "install" apt_get install install /host/pkg.deb
check "the timer is enabled" systemctl is-enabled "$unit.timer"
check "the timer is active" systemctl is-active "$unit.timer"
check_eq "the service keeps only setuid, setgid and bpf of root, no devices, a time limit" \
	"CapabilityBoundingSet=cap_setgid cap_setuid cap_bpf|PrivateDevices=yes|TimeoutStartUSec=2min" \
	"$(systemctl show -p CapabilityBoundingSet -p PrivateDevices -p TimeoutStartUSec "$unit.service" | sort | tr '\n' '|' | sed 's/|$//')"
check "systemctl start $unit.service" systemctl start "$unit.service"
check_eq "$prom: a root-owned 0644 file" "regular file 644 root:root" \
	"$(stat -c '%F %a %U:%G' "$prom" 2>&1)"
check_eq "no temporary file left" "" "$(ls -A "$prom_dir" | grep -v '\.prom$')"
check "promtool check metrics accepts it" sh -c "promtool check metrics <$prom"
cp "$prom" /host/wp-panel-nettune.prom.log
check_status_ok "after install"
wp-panel-nettune status --json >/host/status.json
check "status --json parses (jq)" sh -c 'jq . /host/status.json >/host/status-json.log'
sed 's/^/# status --json | jq .: /' /host/status-json.log

check "the exporter answers" metrics
sed 's/^/# exporter: /' /host/nettune.metrics
check_eq "no textfile scrape error" 0 "$(awk '$1 == "node_textfile_scrape_error" { print $2 }' /host/metrics.log)"
check_eq "nettune_alarm" 0 "$(sample nettune_alarm)"
check_eq "nettune_cpus" 2 "$(sample nettune_cpus)"
check_eq "nettune_fragment_cpus" 2 "$(sample nettune_fragment_cpus)"
check_eq "nettune_module_state: tcp_bbr loaded" 1 \
	"$(sample 'nettune_module_state{module="tcp_bbr",state="loaded"}')"
# The exporter prints the labels in its own order (sorted).
check_eq "nettune_info: version and kernel" \
	"1 $PKG_VERSION|$(uname -r)" \
	"$(info_labels nettune_info '' version kernel)"
keys=0
fragment_settings "$NT_SYSCTL" >/tmp/settings
while read -r key value; do
	keys=$((keys + 1))
	check_eq "$key: in-effect" 1 "$(sample "nettune_key_state{key=\"$key\",state=\"in-effect\"}")"
	check_eq "$key: no other state" 0 \
		"$(grep "^nettune_key_state{key=\"$key\"," /host/nettune.metrics | grep -v 'state="in-effect"' | awk '{ s += $NF } END { print s + 0 }')"
	case $value in
	*[!0-9]*) check_eq "$key: no live value metric for '$value'" "(none)" "$(sample "nettune_key_value{key=\"$key\"}")" ;;
	*)
		# The exporter prints a large number as a float (1.6777216e+07).
		check_eq "$key: live value $value" "$value" \
			"$(sample "nettune_key_value{key=\"$key\"}" | awk '{ printf "%.0f\n", $1 }')"
		;;
	esac
done </tmp/settings
check "the fragment's keys ($keys)" test "$keys" -ge 18

# rules_fire NAME ALERT...: the package's alerting rules, run by promtool
# over what the exporter served last (the nettune_ samples, node_uname_info,
# node_textfile_mtime_seconds) as one node scraped every minute for 70
# minutes: at 50 minutes exactly the ALERTs fire (NettuneAlarm:CONDITION,
# NettuneMetricsMissing, NettuneMetricsAbsent), none other of the four. The
# annotations expected are the rules' own, rendered for this node.
# A copy, for after the purge.
rules=/tmp/wp-panel-nettune.rules.yml
check "the package ships its alerting rules" \
	cp /usr/share/doc/wp-panel-nettune/examples/wp-panel-nettune.rules.yml "$rules"
expected_alert() {
	case $1 in
	NettuneAlarm:*)
		_c=${1#*:}
		echo "          - exp_labels: {condition: $_c, chosen: \"no\", instance: vm, job: node, severity: warning}"
		echo "            exp_annotations:"
		echo "              summary: \"vm: network tuning $_c\""
		echo "              description: \"wp-panel-nettune status exits 3 on vm: $_c. Run 'wp-panel-nettune status' there; it says what differs and how to take it back.\""
		;;
	NettuneMetricsMissing)
		sed -n 's/^node_uname_info{\(.*\)} .*/\1/p' /host/metrics.log | sed 's/\([a-z_]*\)="/\1: "/g' |
			awk '{ printf "          - exp_labels: {%s, instance: vm, job: node, severity: warning}\n", $0 }'
		echo "            exp_annotations:"
		echo "              summary: \"vm: no wp-panel-nettune metrics\""
		echo "              description: \"The node exporter on vm serves no nettune_info: the timer's service failed and removed the file, or the package is gone. See 'systemctl status wp-panel-nettune-prometheus.service'.\""
		;;
	NettuneMetricsAbsent)
		echo "          - exp_labels: {severity: warning}"
		echo "            exp_annotations:"
		echo "              summary: \"no wp-panel-nettune metrics anywhere\""
		echo "              description: \"No node exporter serves nettune_info: see 'systemctl status wp-panel-nettune-prometheus.service'.\""
		;;
	esac
}
rules_fire() {
	_rules_name=$1
	shift
	{
		echo "rule_files: [$rules]"
		echo "evaluation_interval: 1m"
		echo "tests:"
		echo "  - interval: 1m"
		echo "    input_series:"
		grep -E '^(nettune_|node_uname_info|node_textfile_mtime_seconds)' /host/metrics.log |
			awk '{ v = $NF; sub(/ [^ ]*$/, "")
			if (index($0, "{")) sub(/}$/, ",instance=\"vm\",job=\"node\"}")
			else $0 = $0 "{instance=\"vm\",job=\"node\"}"
			printf "      - series: '\''%s'\''\n        values: \"%.0fx70\"\n", $0, v }'
		echo "    alert_rule_test:"
		for _alert in NettuneAlarm NettuneMetricsStale NettuneMetricsMissing NettuneMetricsAbsent; do
			_items=$(for _want; do
				case $_want in "$_alert" | "$_alert":*) expected_alert "$_want" ;; esac
			done)
			echo "      - eval_time: 50m"
			echo "        alertname: $_alert"
			if [ -n "$_items" ]; then
				echo "        exp_alerts:"
				printf '%s\n' "$_items"
			else
				echo "        exp_alerts: []"
			fi
		done
	} >"/host/rules-$_rules_name.test.yml"
	check "$_rules_name: the shipped rules fire ${*:-nothing}" \
		promtool test rules "/host/rules-$_rules_name.test.yml"
}
# state_round NAME RC CONDITION ALERT...: the service run and the exporter
# read; status exits RC, its last line and the metrics name CONDITION (or
# none: -), and the rules fire the ALERTs.
state_round() {
	_round=$1 _rc=$2 _cond=$3
	shift 3
	check "$_round: systemctl start $unit.service" systemctl start "$unit.service"
	check "$_round: the exporter answers" metrics
	check_eq "$_round: status exits $_rc" "$_rc" "$(nt_status)"
	note "$_round: status says: $(tail -n 1 /host/status.log) (exit $_rc)"
	grep -E 'OUTDATED|MISSING|DRIFT|\((overridden|edited)' /host/status.log | sed "s/^/# $_round: /"
	check_eq "$_round: nettune_alarm" "$([ "$_rc" = 0 ] && echo 0 || echo 1)" "$(sample nettune_alarm)"
	if [ "$_cond" != - ]; then
		check_match "$_round: the verdict names $_cond" "^(As chosen|Not as it should be) \\(exit $_rc\\): .*$_cond" \
			"$(tail -n 1 /host/status.log)"
		check_eq "$_round: nettune_condition $_cond" 1 \
			"$(grep "^nettune_condition{.*condition=\"$_cond\"" /host/nettune.metrics | awk '{ print $NF }')"
	fi
	rules_fire "$_round" "$@"
}

state_round "in effect" 0 -
# README.Debian's way to change one value: a later file, applied.
echo 'net.ipv4.tcp_keepalive_time = 600' >/etc/sysctl.d/70-local.conf
sysctl -q -p /etc/sysctl.d/70-local.conf
state_round "a 70-local.conf" 0 overridden
check_match "a 70-local.conf: the key says so" \
	'^net.ipv4.tcp_keepalive_time .*/etc/sysctl.d/70-local.conf  \(overridden\)$' "$(cat /host/status.log)"
rm /etc/sysctl.d/70-local.conf
sysctl -q -p "$NT_SYSCTL"

tcp_fin_timeout=$(sysctl -n net.ipv4.tcp_fin_timeout)
sysctl -q -w net.ipv4.tcp_fin_timeout=31
state_round "a sysctl -w" 3 drift NettuneAlarm:drift
check_eq "a sysctl -w: that key in drift" 1 \
	"$(sample 'nettune_key_state{key="net.ipv4.tcp_fin_timeout",state="drift"}')"
check_eq "a sysctl -w: its live value" 31 "$(sample 'nettune_key_value{key="net.ipv4.tcp_fin_timeout"}')"
rc=0
wp-panel-nettune status --json >/host/drift.json || rc=$?
check_eq "status --json exits 3 too" 3 "$rc"
check_eq "and says so" "alarm 3 drift 31 drift" \
	"$(jq -r '[.verdict, .exit_status, (.conditions | join(",")), (.keys[] | select(.key == "net.ipv4.tcp_fin_timeout") | .live, .state)] | join(" ")' /host/drift.json)"
sysctl -q -w "net.ipv4.tcp_fin_timeout=$tcp_fin_timeout"

sed -i 's/^net.core.somaxconn = .*/net.core.somaxconn = 8192/' "$NT_SYSCTL"
wp-panel-nettune apply >/dev/null
state_round "an edited fragment" 0 edited
check_match "an edited fragment: the key says so" \
	'^net.core.somaxconn +8192 +8192 .*  \(edited; the profile: 65535\)$' "$(cat /host/status.log)"
echo 'wp-panel-nettune wp-panel-nettune/congestion select cubic' | debconf-set-selections
check "dpkg-reconfigure, cubic, on the edited fragment" \
	sh -c 'DEBIAN_FRONTEND=noninteractive dpkg-reconfigure wp-panel-nettune >/host/reconfigure.log 2>&1'
check "ucf kept it and left the new one beside it" test -f "$NT_SYSCTL.ucf-dist"
state_round "reconfigured, a .ucf-dist" 3 outdated NettuneAlarm:outdated
check_match "reconfigured: what a new fragment would change" \
	'^           net.ipv4.tcp_congestion_control: bbr -> cubic$' "$(cat /host/status.log)"
check_match "reconfigured: the edit stays a choice" '\(edited; the profile: 65535\)$' "$(cat /host/status.log)"
check_match "reconfigured: and how to take the rest" \
	"render --congestion cubic sysctl' prints the new" "$(cat /host/status.log)"
# Taken as status says: the new fragment with the edit kept.
sed 's/^net.core.somaxconn = .*/net.core.somaxconn = 8192/' "$NT_SYSCTL.ucf-dist" >"$NT_SYSCTL"
rm "$NT_SYSCTL.ucf-dist"
check "dpkg-reconfigure applies it" \
	sh -c 'DEBIAN_FRONTEND=noninteractive dpkg-reconfigure wp-panel-nettune >/host/reconfigure2.log 2>&1'
state_round "the update taken, the edit kept" 0 edited

echo 'no assignment here' >>"$NT_SYSCTL"
state_round "a malformed line" 3 malformed NettuneAlarm:malformed
sed -i '$d' "$NT_SYSCTL"

# The timer's service failing: a textfile directory others may write in is
# refused, before anything in it is touched. The file of the last run stays,
# no longer written: NettuneMetricsStale fires on its age (make
# check-alerts proves that rule; here, that the file's time stands still).
mtime=$(stat -c %Y "$prom")
sleep 1
chmod o+w "$prom_dir"
check "the service fails on a directory others may write in" sh -c "! systemctl start $unit.service"
note "$(systemctl show -p Result --value "$unit.service"): $(journalctl -b -o cat -u "$unit.service" | grep -i 'writable' | tail -n 1)"
check_eq "and leaves the last file as it was, its time unchanged" "$mtime" "$(stat -c %Y "$prom")"
chmod o-w "$prom_dir"

mv "$prom_dir" "$prom_dir.away"
check "without the directory the service succeeds" systemctl start "$unit.service"
check "and the helper's writer too" wp-panel-nettune status --prometheus --textfile "$prom_dir"
check "leaving no directory" test ! -e "$prom_dir"
mv "$prom_dir.away" "$prom_dir"

check "purge" apt_get purge purge wp-panel-nettune
check "the .prom file is gone" test ! -e "$prom"
check "the timer is gone" sh -c "! systemctl is-enabled $unit.timer"
check "the exporter answers" metrics
check_eq "and shows no nettune_ metric" "" "$(cat /host/nettune.metrics)"
rules_fire "after the purge" NettuneMetricsMissing NettuneMetricsAbsent
GUEST
}

scenario() {
	with_image "$image_packages" exporter_boot
}
