# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 16. A server set up by hand from the WP Panel article: its
#     /etc/sysctl.d/99-bbr.conf (fq and bbr), tcp_bbr loaded, and an older
#     script's lines in /etc/sysctl.conf. The install leaves both files
#     alone and lists 99-bbr.conf with the same values as ours; status
#     exits 0 and notes it; the sysctl.conf lines get one note.
title="the article's 99-bbr.conf: left alone, status 0 with a note"

scenario() {
	local dir
	dir=$(share article)/legacy
	mkdir -p "$dir"
	cp "$TOP"/tests/fixtures/legacy/* "$dir/"
	boot article "$(disk article-bbr)" 2 <<'GUEST'
cat /host/legacy/99-bbr.conf >>/etc/sysctl.d/99-bbr.conf
printf 'net.core.default_qdisc=fq\nnet.ipv4.tcp_congestion_control=bbr\n' >>/etc/sysctl.conf
modprobe tcp_bbr
sysctl --system >/dev/null 2>&1
sha256sum /etc/sysctl.d/99-bbr.conf /etc/sysctl.conf >/tmp/before.sha256
check "install" apt_get install install /host/pkg.deb
sed 's/^/#   | /' /host/install.log | grep -A2 -e '99-bbr.conf' -e '^note'
check "99-bbr.conf and sysctl.conf untouched" sha256sum -c --quiet /tmp/before.sha256
said "the install lists 99-bbr.conf" install \
	'^/etc/sysctl.d/99-bbr.conf sets 2 keys of /etc/sysctl.d/60-wp-panel-nettune.conf at boot, after it:$'
said "with the same values as ours" install \
	'^  the same as ours: net.core.default_qdisc, net.ipv4.tcp_congestion_control$'
said "and notes the sysctl.conf lines once" install \
	"^note: net.core.default_qdisc, net.ipv4.tcp_congestion_control in /etc/sysctl.conf: Debian 13 does not read that file at boot"
check_status_ok "with 99-bbr.conf"
said "status notes 99-bbr.conf for congestion control" status \
	'^net.ipv4.tcp_congestion_control +bbr +bbr +/etc/sysctl.d/99-bbr.conf +\(the same value as ours\)$'
check_profile_in_effect bbr
GUEST
}
