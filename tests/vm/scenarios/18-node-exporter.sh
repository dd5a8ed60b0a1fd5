# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 18. The metrics reach Debian's own prometheus-node-exporter, one 2-vCPU
#     boot of an image that has it (and promtool, curl, jq). After the
#     install the timer is enabled and active; one run of its service
#     writes /var/lib/prometheus/node-exporter/wp-panel-nettune.prom (0644,
#     no temporary file left), which promtool accepts, and the exporter's
#     /metrics shows every key in effect, no drift, exit code 0, the CPU
#     counts, tcp_bbr loaded, with no textfile scrape error. One key changed
#     by hand and the service run again: that key's drift metric and the
#     overall one are 1, exit code 3, and status --json agrees. The service
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
check_eq "the service keeps only setuid and setgid of root, no devices, a time limit" \
	"CapabilityBoundingSet=cap_setgid cap_setuid|PrivateDevices=yes|TimeoutStartUSec=2min" \
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
check_eq "nettune_status_exit_code" 0 "$(sample nettune_status_exit_code)"
check_eq "nettune_in_effect" 1 "$(sample nettune_in_effect)"
check_eq "nettune_drift" 0 "$(sample nettune_drift)"
check_eq "nettune_cpus" 2 "$(sample nettune_cpus)"
check_eq "nettune_fragment_cpus" 2 "$(sample nettune_fragment_cpus)"
check_eq "nettune_module_info: tcp_bbr loaded" "1 loaded" \
	"$(info_labels nettune_module_info 'module="tcp_bbr"' state)"
# The exporter prints the labels in its own order (sorted).
check_eq "nettune_info: version and kernel" \
	"1 $PKG_VERSION|$(uname -r)" \
	"$(info_labels nettune_info '' version kernel)"
keys=0
fragment_settings "$NT_SYSCTL" >/tmp/settings
while read -r key value; do
	keys=$((keys + 1))
	check_eq "$key in effect" 1 "$(sample "nettune_key_in_effect{key=\"$key\"}")"
	check_eq "$key: no drift" 0 "$(sample "nettune_key_drift{key=\"$key\"}")"
	check_eq "$key: wanted and live $value, set at boot by the fragment" \
		"1 $value|$value|$NT_SYSCTL|in-effect" \
		"$(info_labels nettune_key_info "key=\"$key\"" wanted live boot_file state)"
done </tmp/settings
check "the fragment's keys ($keys)" test "$keys" -ge 18

sysctl -q -w net.ipv4.tcp_fin_timeout=31
check "systemctl start $unit.service, after the change" systemctl start "$unit.service"
check "the exporter answers" metrics
grep 'tcp_fin_timeout\|nettune_drift\|exit_code\|nettune_in_effect' /host/nettune.metrics | sed 's/^/# exporter after the change: /'
check_eq "tcp_fin_timeout: drift 1" 1 "$(sample 'nettune_key_drift{key="net.ipv4.tcp_fin_timeout"}')"
check_eq "tcp_fin_timeout: in effect 0" 0 "$(sample 'nettune_key_in_effect{key="net.ipv4.tcp_fin_timeout"}')"
check_eq "nettune_drift 1" 1 "$(sample nettune_drift)"
check_eq "nettune_in_effect 0" 0 "$(sample nettune_in_effect)"
check_eq "nettune_status_exit_code 3" 3 "$(sample nettune_status_exit_code)"
check_eq "another key: no drift" 0 "$(sample 'nettune_key_drift{key="net.core.somaxconn"}')"
check_eq "status exits 3" 3 "$(nt_status)"
rc=0
wp-panel-nettune status --json >/host/drift.json || rc=$?
check_eq "status --json exits 3 too" 3 "$rc"
check_eq "and says so" "drift 3 31 drift" \
	"$(jq -r '[.verdict, .exit_status, (.keys[] | select(.key == "net.ipv4.tcp_fin_timeout") | .live, .state)] | join(" ")' /host/drift.json)"

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
GUEST
}

scenario() {
	with_image "$image_packages" exporter_boot
}
