#!/bin/sh
# debian/config asks the takeover question only where
# /etc/sysctl.d/99-wp-panel.conf is one of the WP Panel installer's variants:
# the file "wp-panel-nettune takeover" moves aside. Each case is a tree. The
# config script runs with its paths pointed into the tree and a confmodule
# that writes down each db_input and db_go; the lines must be the case's.
# Then the helper runs takeover on the same tree, and it must move the file
# exactly where config asked, so that the shell copy of its rule cannot
# drift from the C one. The congestion question is asked in every case.
#
# usage: tests/debconf-config-test.sh BINARY
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d /tmp/nettune-config.XXXXXX)
trap 'rm -rf "$work"' EXIT

file=etc/sysctl.d/99-wp-panel.conf
share=usr/share/wp-panel-nettune/installer
variant=$share/99-wp-panel.conf.1cpu
taken=var/lib/wp-panel-nettune/taken-over/99-wp-panel.conf

# The confmodule config sources: each call, one line in $NETTUNE_CONFIG_LOG.
# shellcheck disable=SC2016 # expanded when config runs
printf '%s\n' 'db_input() { echo "db_input $*" >>"$NETTUNE_CONFIG_LOG"; }' \
	'db_go() { echo db_go >>"$NETTUNE_CONFIG_LOG"; }' >"$work/confmodule"
asked='db_input medium wp-panel-nettune/congestion
db_input low wp-panel-nettune/take-over-installer-tuning
db_go'
not_asked='db_input medium wp-panel-nettune/congestion
db_go'

# tree NAME: a system with the package unpacked and no 99-wp-panel.conf;
# $t is its root.
tree() {
	t=$work/$1
	mkdir -p "$t/etc/sysctl.d" "$t/$share"
	cp "$here"/../share/installer/* "$t/$share/"
	sed -e "s|/usr/share/debconf/confmodule|$work/confmodule|" \
		-e "s|^sysctl_dir=/etc/sysctl.d\$|sysctl_dir=$t/etc/sysctl.d|" \
		-e "s|/usr/share/wp-panel-nettune/|$t/usr/share/wp-panel-nettune/|" \
		"$here/../debian/config" >"$t.config"
}

# config NAME WANT [VAR=VALUE...]: config, run on the tree with the
# environment VAR=VALUE..., makes the calls WANT ($asked or $not_asked) and
# exits 0, within 10 s (a FIFO must not hold it).
config() {
	name=$1 want=$2
	shift 2
	check "$name: the config copy names nothing outside its tree" \
		sh -c "! sed 's/#.*//' '$t.config' | grep -E '(^|[^A-Za-z0-9_.-])/(etc|usr|var)/'"
	check_rc "$name: config exits 0" 0 \
		env "$@" NETTUNE_CONFIG_LOG="$t.asked" timeout 10 sh "$t.config" configure
	check_eq "$name: config's questions" "$want" "$(cat "$t.asked")"
}

# helper NAME WANT: takeover on the tree moves the file (WANT moved) or
# leaves it (left).
helper() {
	check_rc "$1: takeover exits 0" 0 "$bin" --root "$t" takeover
	got=left
	[ ! -f "$t/$taken" ] || got=moved
	check_eq "$1: takeover" "$2" "$got"
}

tree none
config "no file" "$not_asked"
helper "no file" left

for v in 1cpu 2cpu; do
	tree "$v"
	cp "$t/$share/99-wp-panel.conf.$v" "$t/$file"
	config "the installer's $v variant" "$asked"
	helper "the installer's $v variant" moved
done

tree edited
cp "$t/$variant" "$t/$file"
echo 'net.ipv4.tcp_fin_timeout = 30' >>"$t/$file"
config "an edited file" "$not_asked"
helper "an edited file" left

tree symlink
ln -s "../../$variant" "$t/$file"
config "a symlink to a variant" "$not_asked"
helper "a symlink to a variant" left

# /etc/sysctl.d a symlink: the helper refuses to move anything through it.
tree linked-dir
mv "$t/etc/sysctl.d" "$t/etc/sysctl.d.real"
ln -s sysctl.d.real "$t/etc/sysctl.d"
cp "$t/$variant" "$t/etc/sysctl.d.real/99-wp-panel.conf"
config "the installer's file in a symlinked /etc/sysctl.d" "$not_asked"
check_rc "a symlinked /etc/sysctl.d: takeover refuses" 1 "$bin" --root "$t" takeover
check "and leaves the file" cmp "$t/$variant" "$t/etc/sysctl.d.real/99-wp-panel.conf"

tree fifo
mkfifo "$t/$file"
config "a FIFO" "$not_asked"
helper "a FIFO" left

# Names starting with a dot are not variants, for the helper as for config.
tree hidden
cp "$t/$variant" "$t/$share/.old"
echo 'net.ipv4.tcp_fin_timeout = 30' >>"$t/$share/.old"
cp "$t/$share/.old" "$t/$file"
config "a copy of a hidden file among the variants" "$not_asked"
helper "a copy of a hidden file among the variants" left

# dpkg-preconfigure at the first install: the package is not unpacked, the
# helper and the variants are not there yet. The postinst's run asks.
tree preconfigure
cp "$t/$variant" "$t/$file"
rm -r "${t:?}/usr"
config "the installer's file, the package not unpacked yet" "$not_asked"

# The postinst takes nothing over under DPKG_ROOT.
tree dpkg-root
cp "$t/$variant" "$t/$file"
config "the installer's file, under DPKG_ROOT" "$not_asked" DPKG_ROOT="$t"

summary
