# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 3. Install on 1 vCPU: cubic and fq_codel are kept (the fragment names
#    both), no module in the modules fragment and tcp_bbr not loaded,
#    every other key of the profile live, status exits 0. Scenario 4 boots
#    this disk again with 2 vCPUs.
title="1 vCPU: cubic and fq_codel kept, the rest live"

scenario() {
	boot install "$(disk install-1cpu)" 1 <<'GUEST'
check_eq "1 vCPU" 1 "$(nproc)"
sysctl_snapshot /host/before.sysctl
check "unattended install" apt_get install install /host/pkg.deb
check_profile_in_effect cubic
check_record /host/before.sysctl
check_status_ok "1 vCPU"
GUEST
}
