# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 4. Resize and preseed. The disk installed on 1 vCPU (scenario 3) boots
#    with 2: status warns that the CPU count changed, naming BBR among
#    the values a new fragment would change, and
#    "dpkg-reconfigure -f noninteractive" turns BBR and fq on (the unedited
#    fragment replaced, no .ucf-dist). Then a fresh disk on 2 vCPUs with
#    "cubic" preseeded before the install: cubic stays, also after a
#    reconfigure.
title="resize 1->2 vCPUs: reconfigure gives bbr; preseeded cubic stays"
needs=03

scenario() {
	boot resized "$(disk install-1cpu)" 2 <<'GUEST' || return 1
check_eq "2 vCPUs now" 2 "$(nproc)"
check_sysctl net.ipv4.tcp_congestion_control cubic
check_eq "the record: rendered for 1 CPU, auto" "cpus=1 congestion=auto" \
	"$(tr '\n' ' ' </var/lib/wp-panel-nettune/rendered | sed 's/ $//')"
wp-panel-nettune status >/host/status-resized.log 2>&1
check "status warns that the fragment was made for 1 CPU" \
	grep -Eqi 'warning: .*made for 1 CPU' /host/status-resized.log
said "and that a new fragment would set BBR" status-resized \
	'^ +net\.ipv4\.tcp_congestion_control: cubic -> bbr$'
check "dpkg-reconfigure -f noninteractive wp-panel-nettune" \
	logged reconfigure dpkg-reconfigure -f noninteractive wp-panel-nettune
check_profile_in_effect bbr
check "the unedited fragment was replaced, no .ucf-dist" test ! -e "$NT_SYSCTL.ucf-dist"
check_eq "the record: rendered for 2 CPUs" "cpus=2 congestion=auto" \
	"$(tr '\n' ' ' </var/lib/wp-panel-nettune/rendered | sed 's/ $//')"
check_status_ok "after the reconfigure"
GUEST

	boot preseeded "$(disk preseed-cubic)" 2 <<'GUEST'
check_eq "2 vCPUs" 2 "$(nproc)"
echo 'wp-panel-nettune wp-panel-nettune/congestion select cubic' | debconf-set-selections
check "install with cubic preseeded" apt_get install install /host/pkg.deb
check "debconf answer is cubic" \
	sh -c 'debconf-show wp-panel-nettune | grep -q "wp-panel-nettune/congestion: cubic"'
check_profile_in_effect cubic
check_eq "the record names cubic" "cpus=2 congestion=cubic" \
	"$(tr '\n' ' ' </var/lib/wp-panel-nettune/rendered | sed 's/ $//')"
check_status_ok "preseeded cubic"
said "status names the choice" status '^congestion: cubic, chosen with debconf$'

check "dpkg-reconfigure -f noninteractive keeps the answer" \
	logged reconfigure dpkg-reconfigure -f noninteractive wp-panel-nettune
check_sysctl net.ipv4.tcp_congestion_control cubic
check_fragment_profile cubic
GUEST
}
