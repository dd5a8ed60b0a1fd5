# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 17. status against systemd-sysctl 257 itself, one 2-vCPU boot. After the
#     install, sysctl.d gets the cases systemd resolves in its own way: a
#     directory and a dangling link in /etc named as /usr/lib files (257
#     lists names without looking at them: both hide the /usr/lib file), an
#     empty file masking one, lines ended by a lone CR and by NUL, a
#     5000-byte line, and a line over systemd's 1 MiB limit followed by an
#     assignment. Then systemd-sysctl applies every file, as at boot, and for
#     each key of the fragment status must say (overridden) exactly when the
#     value systemd left live is not ours, and name the file systemd took it
#     from. Last, a FIFO named *.conf: systemd-sysctl blocks on it; status
#     does not, and says so.
title="status resolves sysctl.d as systemd-sysctl 257 does"

scenario() {
	boot systemd-sysctl "$(disk systemd-sysctl)" 2 <<'GUEST'
check "install" apt_get install install /host/pkg.deb
sysctl_bin=/usr/lib/systemd/systemd-sysctl
note "$($sysctl_bin --version | head -n 1)"
u=/usr/lib/sysctl.d e=/etc/sysctl.d r=/run/sysctl.d
mkdir -p "$r"
echo 'net.ipv4.tcp_keepalive_time = 111' >"$u/70-dir.conf"
mkdir "$e/70-dir.conf"
echo 'net.ipv4.tcp_fin_timeout = 22' >"$u/71-dangling.conf"
ln -s /nonexistent "$e/71-dangling.conf"
echo 'net.ipv4.tcp_keepalive_intvl = 33' >"$u/72-fifo.conf"
echo 'net.ipv4.tcp_keepalive_probes = 4' >"$u/73-empty.conf"
: >"$e/73-empty.conf"
printf 'net.core.somaxconn = 4444\rnet.ipv4.tcp_notsent_lowat = 12345\r' >"$r/74-cr.conf"
printf 'net.ipv4.tcp_max_syn_backlog = 4321\0net.ipv4.tcp_slow_start_after_idle = 1\n' >"$u/75-nul.conf"
{ printf 'net.ipv4.tcp_tw_reuse = %5000s2\n' ''; } >"$u/76-long.conf"
{ printf '#'; head -c 1048576 /dev/zero | tr '\0' x; printf '\nnet.ipv4.tcp_syncookies = 0\n'; } >"$u/77-overlimit.conf"

timeout 60 "$sysctl_bin" --cat-config >/host/cat-config.log 2>&1 || true
grep '^# /' /host/cat-config.log | sed 's/^# //' >/host/cat-config.files
check "systemd lists the directory in /etc, not the file it hides" \
	sh -c "grep -qx $e/70-dir.conf /host/cat-config.files && ! grep -qx $u/70-dir.conf /host/cat-config.files"

logged systemd-sysctl timeout 60 "$sysctl_bin" || note "systemd-sysctl exited non-zero"
sed 's/^/# systemd-sysctl: /' /host/systemd-sysctl.log | cut -c1-200
wp-panel-nettune status >/host/status.log 2>&1 || true
# Each key line: KEY WANTED LIVE FILE [NOTE]; vectors have spaces, so the
# fields are taken from the fixed columns status prints.
agree=0 disagree=0 keys=0
while IFS= read -r line; do
	key=$(printf '%s' "$line" | cut -c1-34 | tr -d ' ')
	want=$(printf '%s' "$line" | cut -c36-56 | sed 's/ *$//')
	rest=$(printf '%s' "$line" | cut -c58-)
	case $key in net.*) ;; *) continue ;; esac
	keys=$((keys + 1))
	live=$(sysctl_value "$key") || continue
	case $rest in *"(overridden)"*) said_over=yes ;; *) said_over=no ;; esac
	is_over=no
	[ "$live" = "$want" ] || is_over=yes
	if [ "$said_over" = "$is_over" ]; then
		agree=$((agree + 1))
	else
		disagree=$((disagree + 1))
		echo "# disagree: $line (live $live)"
	fi
done </host/status.log
note "status and systemd-sysctl agree on $agree keys, disagree on $disagree"
check_eq "status and systemd-sysctl agree on every key" "$keys" "$agree"
check "on all of the fragment's keys" test "$keys" -ge 15
check "a directory hides the /usr/lib file" \
	grep -Eq "^net.ipv4.tcp_keepalive_time .*60-wp-panel-nettune.conf$" /host/status.log
check "and status says so" grep -q "$e/70-dir.conf: Is a directory: systemd-sysctl fails to read it" /host/status.log
check "a dangling link hides it too" grep -Eq "^net.ipv4.tcp_fin_timeout .*60-wp-panel-nettune.conf$" /host/status.log
check "an empty file masks" grep -Eq "^net.ipv4.tcp_keepalive_probes .*60-wp-panel-nettune.conf$" /host/status.log
check "a lone CR ends a line" grep -Eq "^net.ipv4.tcp_notsent_lowat .*$r/74-cr.conf  \\(overridden\\)" /host/status.log
check "a NUL ends a line" grep -Eq "^net.ipv4.tcp_slow_start_after_idle .*$u/75-nul.conf  \\(overridden\\)" /host/status.log
check "a 5000-byte line counts" grep -Eq "^net.ipv4.tcp_tw_reuse .*$u/76-long.conf  \\(overridden\\)" /host/status.log
check "a line over 1 MiB ends the file" grep -Eq "^net.ipv4.tcp_syncookies .*60-wp-panel-nettune.conf$" /host/status.log
check "status reports the line" grep -q "77-overlimit.conf:1: line longer than 1048575 bytes" /host/status.log
sed 's/^/# status: /' /host/status.log
note "cat-config files: $(tr '\n' ' ' </host/cat-config.files)"
mkfifo "$e/72-fifo.conf"
rc=0
# The same run without the FIFO, above, ends in under a second: still
# running after 5 s is blocked. (The 5 s are waited out in every run.)
timeout 5 "$sysctl_bin" >/host/fifo.log 2>&1 || rc=$?
check_eq "systemd-sysctl blocks on a FIFO in sysctl.d (timeout: 124)" 124 "$rc"
rc=0
timeout 20 wp-panel-nettune status >/host/fifo-status.log 2>&1 || rc=$?
check_eq "status does not, and exits 3" 3 "$rc"
check "saying why" grep -q "72-fifo.conf is a FIFO: systemd-sysctl blocks reading it at boot" /host/fifo-status.log
checks_done
GUEST
}
