# shellcheck shell=sh disable=SC2154 # bin and here come from the sourcing script
# Every state status can report, each made for real on a copy of a captured
# tree (tests/fixtures/debian13-2cpu), for tests/output-test.sh (text, JSON,
# metrics, exit status) and tests/alert-test.sh (the shipped alerting rules
# over the metrics). Sourced; needs bin (the helper), here (tests/) and work.
#
# The matrix, one state a row: its name; status's exit status; the
# condition it makes (JSON "conditions", nettune_condition), or - for none;
# a key and the state status gives it, or - ; the alert the rules fire, or -.
# shellcheck disable=SC2034 # read by the sourcing script
states_matrix='
in-effect 0 - net.core.somaxconn=in-effect -
overridden 0 overridden net.ipv4.tcp_keepalive_time=overridden -
edited 0 edited net.core.somaxconn=edited -
edited-ucf-dist 0 edited net.core.somaxconn=edited -
edited-reconfigured 3 outdated net.ipv4.tcp_congestion_control=outdated NettuneAlarm
left-alone 0 left-alone net.core.somaxconn=left-alone -
congestion-chosen 0 congestion-chosen net.core.somaxconn=in-effect -
not-tuned 3 not-tuned - NettuneAlarm
malformed 3 malformed - NettuneAlarm
drift 3 drift net.ipv4.tcp_fin_timeout=drift NettuneAlarm
outdated 3 outdated net.core.somaxconn=outdated NettuneAlarm
missing 3 outdated net.ipv4.tcp_mtu_probing=missing NettuneAlarm
cpus-changed 3 cpus-changed - NettuneAlarm
module-unloadable 3 module-unloadable - NettuneAlarm
boot-unknown 3 boot-unknown - NettuneAlarm
'

state_fragment=/etc/sysctl.d/60-wp-panel-nettune.conf
state_base=/var/lib/wp-panel-nettune/fragment.base

# state_tree DIR: a writable copy of the 2-CPU tree.
state_tree() {
	cp -a "$here/fixtures/debian13-2cpu" "$1"
	mkdir -p "$1/var/lib/wp-panel-nettune" "$1/etc/sysctl.d" "$1/etc/modules-load.d"
}

# state_tune DIR [render args]: as the postinst leaves a machine: the
# fragments, the copy of the fragment as installed, the record of what they
# were rendered for, the profile applied.
state_tune() {
	_t=$1
	shift
	"$bin" --root "$_t" render sysctl "$@" >"$_t$state_fragment"
	"$bin" --root "$_t" render modules "$@" >"$_t/etc/modules-load.d/wp-panel-nettune.conf"
	cp "$_t$state_fragment" "$_t$state_base"
	"$bin" --root "$_t" rendered "$@"
	"$bin" --root "$_t" apply >/dev/null
}

# state_live DIR KEY VALUE: what sysctl -w would leave in the tree.
state_live() {
	printf '%s\n' "$3" >"$1/proc/sys/$(echo "$2" | tr . /)"
}

# state_set FILE KEY VALUE: KEY's line in FILE made KEY = VALUE.
state_set() {
	sed -i "s|^$2 = .*|$2 = $3|" "$1"
}

# make_state NAME DIR: the tree DIR in state NAME.
make_state() {
	_t=$2
	state_tree "$_t"
	case $1 in
	not-tuned) return 0 ;;
	congestion-chosen) state_tune "$_t" --congestion cubic ;;
	*) state_tune "$_t" ;;
	esac
	case $1 in
	overridden)
		# README.Debian's way to change one value, applied.
		echo "net.ipv4.tcp_keepalive_time = 600" >"$_t/etc/sysctl.d/70-local.conf"
		state_live "$_t" net.ipv4.tcp_keepalive_time 600
		;;
	edited | edited-ucf-dist | edited-reconfigured)
		state_set "$_t$state_fragment" net.core.somaxconn 1234
		state_live "$_t" net.core.somaxconn 1234
		case $1 in
		edited-ucf-dist)
			# An upgrade that changed nothing but comments.
			cp "$_t$state_base" "$_t$state_fragment.ucf-dist"
			;;
		edited-reconfigured)
			# dpkg-reconfigure answered cubic: ucf kept the edited
			# fragment and put the new one beside it.
			"$bin" --root "$_t" render sysctl --congestion cubic \
				>"$_t$state_fragment.ucf-dist"
			"$bin" --root "$_t" rendered --congestion cubic
			;;
		esac
		;;
	left-alone)
		mkdir -p "$_t/run/systemd"
		echo lxc >"$_t/run/systemd/container"
		# What the postinst leaves when it leaves the kernel alone.
		echo congestion=auto >"$_t/var/lib/wp-panel-nettune/firstboot"
		state_live "$_t" net.core.somaxconn 4096
		;;
	malformed)
		echo 'no assignment here' >>"$_t$state_fragment"
		;;
	drift)
		# sysctl -w behind the package's back.
		state_live "$_t" net.ipv4.tcp_fin_timeout 4242
		;;
	outdated)
		# A fragment from a version whose profile had another value,
		# kept by ucf (an upgrade with --force-confold).
		for f in "$_t$state_fragment" "$_t$state_base"; do
			state_set "$f" net.core.somaxconn 4096
		done
		state_live "$_t" net.core.somaxconn 4096
		;;
	missing)
		# A fragment from a version whose profile lacked the key.
		sed -i '/^net.ipv4.tcp_mtu_probing = /d' "$_t$state_fragment" "$_t$state_base"
		state_live "$_t" net.ipv4.tcp_mtu_probing 0
		;;
	cpus-changed)
		echo 0 >"$_t/sys/devices/system/cpu/online"
		;;
	module-unloadable)
		mkdir -p "$_t/etc/modprobe.d"
		echo "blacklist tcp_bbr" >"$_t/etc/modprobe.d/no-bbr.conf"
		;;
	boot-unknown)
		# systemd-sysctl blocks reading a FIFO at boot.
		mkfifo "$_t/etc/sysctl.d/80-fifo.conf"
		;;
	esac
}
