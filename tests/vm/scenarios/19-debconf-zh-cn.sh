# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 19. The debconf question in Simplified Chinese, one 2-vCPU boot of the
#     image of scenario 18 (locales, tmux). After the install, the
#     zh_CN.UTF-8 locale is generated, and "dpkg-reconfigure -freadline
#     wp-panel-nettune" runs under LANG=zh_CN.UTF-8 in a tmux pane: the
#     pane shows the question's text and choices as debian/po/zh_CN.po
#     gives them; the answer typed (2, BBR with fq) is the one debconf
#     keeps. The Traditional Chinese and Japanese texts are in debconf's
#     database as well.
title="dpkg-reconfigure under LANG=zh_CN.UTF-8 speaks Chinese"

# The image of scenario 18: the same list, one image built.
image_packages="prometheus-node-exporter prometheus curl jq locales tmux perl"

zh_cn_boot() {
	boot debconf-zh-cn "$(disk debconf-zh-cn)" 2 900 <<'GUEST'
systemctl stop prometheus.service prometheus-node-exporter.service 2>/dev/null || true
check "install" apt_get install install /host/pkg.deb
echo 'zh_CN.UTF-8 UTF-8' >/etc/locale.gen
check "locale-gen zh_CN.UTF-8" logged locale-gen locale-gen
check "the locale exists" sh -c 'locale -a | grep -qix "zh_CN.utf8"'

# The texts as zh_CN.po has them (the host copied it into the share).
description=$(sed -n '/^msgid "TCP congestion control for this server:"$/{n;s/^msgstr "\(.*\)"$/\1/p}' /host/zh_CN.po)
choice=$(sed -n '/^msgid "BBR with fq"$/{n;s/^msgstr "\(.*\)"$/\1/p}' /host/zh_CN.po)
note "zh_CN.po: '$description', '$choice'"
check "zh_CN.po has the texts" test -n "$description" -a -n "$choice"

pane=/host/tmux-pane.log
export TERM=xterm
tmux -u new-session -d -s reconf -x 160 -y 50 \
	"env -u LANGUAGE -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 dpkg-reconfigure -freadline -plow wp-panel-nettune; echo \"reconfigure exited \$?\"; sleep 600"
# pane_has TEXT [SECONDS]: waits until the pane shows TEXT.
pane_has() {
	_i=0
	while [ "$_i" -lt "${2:-120}" ]; do
		tmux capture-pane -p -J -t reconf -S - >"$pane" 2>/dev/null
		grep -qF -- "$1" "$pane" && return 0
		sleep 1
		_i=$((_i + 1))
	done
	return 1
}
check "the pane shows the question in Chinese" pane_has "$description"
check "and the choice in Chinese" grep -qF -- "$choice" "$pane"
check "no English text of the question" sh -c "! grep -qF 'TCP congestion control for this server' $pane"
grep -F -- "$description" "$pane" | head -n 1 | sed 's/^/# evidence: /'
grep -v '^ *$' "$pane" | sed 's/^/# pane: /'
tmux send-keys -t reconf 2 Enter
check "dpkg-reconfigure ends" pane_has "reconfigure exited 0"
tmux capture-pane -p -J -t reconf -S - >"$pane"
grep -v '^ *$' "$pane" | sed 's/^/# pane at the end: /'
tmux kill-server 2>/dev/null || true
check_eq "debconf keeps the answer: bbr" "wp-panel-nettune/congestion bbr" \
	"$(debconf-show wp-panel-nettune | sed -n 's/^[* ]*\(wp-panel-nettune\/congestion\): \(.*\)/\1 \2/p')"

for lang in zh_tw ja; do
	check "debconf has the $lang description" \
		grep -qi "^Description-$lang\.UTF-8: " /var/cache/debconf/templates.dat
done
check "the zh_TW text is the one of zh_TW.po" \
	grep -qF "$(sed -n '/^msgid "TCP congestion control for this server:"$/{n;s/^msgstr "\(.*\)"$/\1/p}' /host/zh_TW.po)" /var/cache/debconf/templates.dat
check "the ja text is the one of ja.po" \
	grep -qF "$(sed -n '/^msgid "TCP congestion control for this server:"$/{n;s/^msgstr "\(.*\)"$/\1/p}' /host/ja.po)" /var/cache/debconf/templates.dat
GUEST
}

scenario() {
	cp "$TOP"/debian/po/zh_CN.po "$TOP"/debian/po/zh_TW.po "$TOP"/debian/po/ja.po \
		"$(share debconf-zh-cn)/"
	with_image "$image_packages" zh_cn_boot
}
