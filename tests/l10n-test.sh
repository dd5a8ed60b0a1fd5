#!/bin/sh
# The helper's messages in Chinese. The template holds the messages the
# sources mark, no more and no fewer; po/zh_CN.po translates each of them,
# none fuzzy. Under a zh_CN locale, apply, status, takeover and revert say
# the lines below, and what programs read (--json, --prometheus) does not
# change. In the C locale, with the catalogue at hand and LANGUAGE=zh_CN,
# every output root-test.sh and output-test.sh compare is byte for byte
# tests/expected/. What the maintainer scripts read of the helper (detect
# --may-tune, the postinst's kernel_off_limits) holds in Chinese.
#
# usage: tests/l10n-test.sh BINARY TEMPLATE
# BINARY binds the catalogues of the build, not those installed
# (build/l10n/wp-panel-nettune); TEMPLATE is the template made from the
# sources now (build/wp-panel-nettune.pot).
set -eu

bin=$(realpath "$1")
fresh_pot=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-l10n.XXXXXX)
trap 'rm -rf "$work"' EXIT

pot=$top/po/wp-panel-nettune.pot
po=$top/po/zh_CN.po

# --- The catalogue ----------------------------------------------------------

check "the template has every message the sources mark (else: make pot)" \
	msgcmp --use-untranslated "$pot" "$fresh_pot"
check "and only those" msgcmp --use-untranslated "$fresh_pot" "$pot"
check "zh_CN.po has every message of the template" msgcmp "$po" "$pot"
messages=$(($(grep -c '^msgid ' "$pot") - 1))
check_eq "zh_CN.po: every message translated, none fuzzy" \
	"$messages translated messages." \
	"$(msgfmt --check --statistics -o /dev/null "$po" 2>&1)"
check_eq "zh_CN.po: one plural form, as Chinese has" \
	'"Plural-Forms: nplurals=1; plural=0;\n"' "$(grep '^"Plural-Forms:' "$po")"

# --- In Chinese -------------------------------------------------------------

# The locale an administrator sets, zh_CN.UTF-8, where it is generated
# (tools/install-deps check does).
# Where it is not generated (a package build's chroot has no locales),
# one of the test's own is made with localedef, if the locales' sources are
# there; else the Chinese outputs are skipped, and said: in C.UTF-8, glibc
# 2.41 ignores LANGUAGE as it does in C.
zh=zh_CN.UTF-8
if ! locale -a 2>/dev/null | grep -qx 'zh_CN\.utf8'; then
	if localedef -i zh_CN -f UTF-8 "$work/locale/zh_CN.UTF-8" >/dev/null 2>&1 ||
		{ mkdir -p "$work/locale" && localedef -i zh_CN -f UTF-8 "$work/locale/zh_CN.UTF-8" >/dev/null 2>&1; }; then
		LOCPATH=$work/locale
		export LOCPATH
		note "zh_CN.UTF-8 is not generated here: made with localedef for the test"
	else
		echo "l10n-test: SKIP the Chinese outputs: no zh_CN.UTF-8 locale here and no locale sources to make one (the locales package)"
		summary
		exit 0
	fi
fi
note "in Chinese: LANGUAGE=zh_CN LC_ALL=$zh"

# zh ARGS...: the helper in Chinese, its standard output and error in $out,
# the tree's path written ROOT, the exit status in $rc.
zh() {
	rc=0
	LANGUAGE=zh_CN LC_ALL=$zh "$bin" --root "$t" "$@" >"$work/raw" 2>&1 || rc=$?
	out=$(sed "s|$t|ROOT|g" "$work/raw")
}

# line N: line N of $out; last: its last line.
line() { printf '%s\n' "$out" | sed -n "$1p"; }
last() { printf '%s\n' "$out" | tail -n 1; }

# A tree with the fragments installed, as the postinst leaves it, the
# installer's variants in place and its 2-CPU file in /etc/sysctl.d.
t=$work/tree
cp -a "$here/fixtures/debian13-2cpu" "$t"
mkdir -p "$t/etc/sysctl.d" "$t/etc/modules-load.d" "$t/var/lib/wp-panel-nettune" \
	"$t/usr/share/wp-panel-nettune/installer"
"$bin" --root "$t" render sysctl >"$t/etc/sysctl.d/60-wp-panel-nettune.conf"
"$bin" --root "$t" render modules >"$t/etc/modules-load.d/wp-panel-nettune.conf"
cp "$t/etc/sysctl.d/60-wp-panel-nettune.conf" "$t/var/lib/wp-panel-nettune/fragment.base"
cp "$top"/share/installer/* "$t/usr/share/wp-panel-nettune/installer/"
cp "$top/share/installer/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"

zh takeover
check_eq "takeover: the file taken over" \
	"已接管 ROOT/etc/sysctl.d/99-wp-panel.conf（WP Panel 安装脚本写的 99-wp-panel.conf.2cpu）：保存在 ROOT/var/lib/wp-panel-nettune/taken-over，彻底删除时放回原处" \
	"$(line 1)"
check_eq "takeover: the keys our fragment does not set" \
	"注意：本软件包的片段中没有：net.core.rmem_default, net.core.wmem_default；下次开机前保持当前值，之后为内核默认值（彻底删除时会重新设置该文件中的值）" \
	"$(line 2)"

zh apply
check_eq "apply exits 0" 0 "$rc"
check_eq "apply: a key set" "已设置 net.core.somaxconn = 65535（原为 4096）" \
	"$(printf '%s\n' "$out" | grep somaxconn)"
check_eq "apply: the count" "已设置 18 个参数，3 个已生效，0 个跳过。" "$(last)"

zh status
check_eq "status exits 0" 0 "$rc"
# The headers take two columns a character: the values below them start
# where they do, at columns 36, 58 and 80.
check_eq "status: the headers, over their columns" \
	"参数                               期望值                当前值                开机时设置它的文件" \
	"$(line 1)"
check_eq "status: a row" \
	"net.core.somaxconn                 65535                 65535                 /etc/sysctl.d/60-wp-panel-nettune.conf" \
	"$(printf '%s\n' "$out" | grep '^net.core.somaxconn ')"
check_eq "status: under --root" "qdiscs：使用 --root 时不查询" \
	"$(printf '%s\n' "$out" | grep '^qdiscs')"
check_eq "status: the initial windows under --root" "初始窗口：使用 --root 时不查询" \
	"$(printf '%s\n' "$out" | grep '^初始窗口')"
check_eq "status: the verdict" "全部生效。" "$(last)"

for format in --json --prometheus; do
	check_eq "status $format: the same bytes as in English" \
		"$(LC_ALL=C "$bin" --root "$t" status $format)" \
		"$(LANGUAGE=zh_CN LC_ALL=$zh "$bin" --root "$t" status $format)"
done

echo 4096 >"$t/proc/sys/net/core/somaxconn"
zh status
check_eq "status: drift exits 3" 3 "$rc"
check_eq "status: the key that drifted" \
	"net.core.somaxconn                 65535                 4096                  /etc/sysctl.d/60-wp-panel-nettune.conf  【偏离】" \
	"$(printf '%s\n' "$out" | grep '^net.core.somaxconn ')"
check_eq "status: the verdict names the condition" "出现没人选择的状态（退出码 3）：drift。" "$(last)"

zh revert
check_eq "revert exits 0" 0 "$rc"
check_eq "revert: a key restored" "已恢复 net.ipv4.tcp_fin_timeout = 60" \
	"$(printf '%s\n' "$out" | grep tcp_fin_timeout)"
zh revert
check_eq "revert: nothing left" "没有记录任何内核参数的原值：无需撤销。" "$out"

# An edited installer's file, and a key that is not the profile's: a
# warning, its prefix translated too.
cp "$top/share/installer/99-wp-panel.conf.2cpu" "$t/etc/sysctl.d/99-wp-panel.conf"
echo '# edited' >>"$t/etc/sysctl.d/99-wp-panel.conf"
zh takeover
check_eq "takeover: an edited file" \
	"ROOT/etc/sysctl.d/99-wp-panel.conf 与 WP Panel 安装脚本写的不同（被修改过？）：不改动；开机时它设置的参数会覆盖本软件包的片段" \
	"$out"
rm "$t/etc/sysctl.d/99-wp-panel.conf"
echo 'net.ipv4.tcp_ecn = 1' >>"$t/etc/sysctl.d/60-wp-panel-nettune.conf"
zh apply
check_eq "apply: a warning" \
	"wp-panel-nettune: apply: 警告：不设置 net.ipv4.tcp_ecn = 1：它不是本软件包调优的参数，彻底删除时无法恢复；请写进你自己的 sysctl.d 文件" \
	"$(printf '%s\n' "$out" | grep tcp_ecn)"

# --- In the C locale: English, byte for byte --------------------------------

for name in root-test output-test; do
	rc=0
	NETTUNE_TEST_LOCALE=C LANGUAGE=zh_CN "$here/$name.sh" "$bin" >"$work/$name.log" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		pass "LC_ALL=C LANGUAGE=zh_CN: $name.sh passes ($(tail -n 1 "$work/$name.log"))"
	else
		fail "LC_ALL=C LANGUAGE=zh_CN: $name.sh passes" "$(grep -v '^ok' "$work/$name.log" | head -n 40)"
	fi
done

# --- What the maintainer scripts read ---------------------------------------

# The tests that run the maintainer scripts' decisions against the helper,
# in Chinese: detect --may-tune's line keeps its words.
for name in leave-alone-test debconf-config-test; do
	rc=0
	NETTUNE_TEST_LOCALE=$zh LANGUAGE=zh_CN "$here/$name.sh" "$bin" >"$work/$name.log" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		pass "LC_ALL=$zh LANGUAGE=zh_CN: $name.sh passes ($(tail -n 1 "$work/$name.log"))"
	else
		fail "LC_ALL=$zh LANGUAGE=zh_CN: $name.sh passes" "$(grep -v '^ok' "$work/$name.log" | head -n 40)"
	fi
done

# The postinst's own kernel_off_limits, cut out of it, asking the helper in
# a container's tree (run/systemd/container), in Chinese.
sed -n '/^kernel_off_limits() {$/,/^}$/p' "$top/debian/postinst" >"$work/off-limits.sh"
check "postinst holds kernel_off_limits" grep -q '^kernel_off_limits() {$' "$work/off-limits.sh"
c=$work/container
mkdir -p "$c/proc/1" "$c/proc/sys/net/ipv4" "$c/run/systemd"
ln -s ../.. "$c/proc/1/root"
echo lxc >"$c/run/systemd/container"
printf '#!/bin/sh\nexec "%s" --root "%s" "$@"\n' "$bin" "$c" >"$work/helper"
chmod +x "$work/helper"
# shellcheck disable=SC2034,SC2154 # helper is read, off_limits and reason set, by off-limits.sh
got=$(
	helper=$work/helper
	LANGUAGE=zh_CN LC_ALL=$zh
	export LANGUAGE LC_ALL
	# shellcheck source=/dev/null # cut out of debian/postinst above
	. "$work/off-limits.sh"
	kernel_off_limits
	echo "$off_limits: $reason"
)
check_eq "postinst: the kind of place and the reason, in Chinese" \
	"container: running in a container (lxc)" "$got"

summary
