#!/bin/sh
# The alerting rules the package ships (examples/prometheus/), under
# Debian 13's promtool in the trixie build environment: promtool check rules,
# then promtool test rules over the real metrics of every state of
# tests/states.sh, each expected to fire NettuneAlarm or nothing, as the
# matrix says; and the metrics going stale, missing on one node, absent.
# Needs root (the build environment).
#
# usage: tests/alert-test.sh BINARY
set -eu

bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/lib.sh"
. "$here/states.sh"
say() { echo "alert-test: $*" >&2; }
die() {
	say "$*"
	exit 1
}
rules=$top/examples/prometheus/wp-panel-nettune.rules.yml

trees=$(mktemp -d /tmp/nettune-alert.XXXXXX)
# shellcheck source=tools/build-env.sh
. "$top/tools/build-env.sh"
env_open
trap 'rm -rf "$trees"; env_cleanup' EXIT
dir=$work/upper/build/alerts
mkdir -p "$dir"

echo "$states_matrix" | grep . >"$dir/matrix"
while read -r state _rest; do
	make_state "$state" "$trees/$state"
	"$bin" --root "$trees/$state" status --prometheus >"$dir/$state.prom" 2>/dev/null || true
done <"$dir/matrix"

# The program wanted and not attached: no --root tree shows it, since
# status reads the running kernel's pins only outside one. Its metrics are
# in-effect's with what status then prints (tests/test-report.c checks the
# same samples): the condition initial-window-drift, the alarm, and the
# program's families with attached 0.
sed -e 's/^\(nettune_condition{condition="initial-window-drift",chosen="no"}\) 0$/\1 1/' \
	-e 's/^nettune_alarm 0$/nettune_alarm 1/' "$dir/in-effect.prom" >"$dir/initial-window-drift.prom"
check_eq "initial-window-drift: its condition and the alarm set in in-effect's metrics" 2 \
	"$(diff "$dir/in-effect.prom" "$dir/initial-window-drift.prom" | grep -c '^>.* 1$' || true)"
cat >>"$dir/initial-window-drift.prom" <<'PROM'
# HELP nettune_initial_window_wanted 1 where the fragment sets fq and the setting names a port: the sock_ops program is to give the initial windows.
# TYPE nettune_initial_window_wanted gauge
nettune_initial_window_wanted 1
# HELP nettune_initial_window_attached 1 when the initial-window program is attached to the root cgroup.
# TYPE nettune_initial_window_attached gauge
nettune_initial_window_attached 0
PROM
echo "initial-window-drift 3 initial-window-drift - NettuneAlarm" >>"$dir/matrix"

cp "$rules" "$dir/rules.yml"
python3 "$here/alert-cases.py" "$dir/rules.yml" "$dir/matrix" "$dir" >"$dir/test.yml"
chown -R "$builder_uid:$builder_uid" "$dir"
note "promtool: $(in_env promtool --version 2>&1 | head -n 1)"
check "promtool check rules" in_env sh -c 'cd /build/alerts && promtool check rules rules.yml'
while read -r state _rest; do
	check "promtool check metrics: $state" in_env sh -c "cd /build/alerts && promtool check metrics <$state.prom"
done <"$dir/matrix"
check "promtool test rules: $(grep -c NettuneAlarm "$dir/matrix") states fire NettuneAlarm, the others nothing; stale, missing, absent" \
	in_env sh -c 'cd /build/alerts && promtool test rules test.yml'
summary
