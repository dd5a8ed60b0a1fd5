# shellcheck shell=bash disable=SC2034 # title and needs are read by tests/vm/run
# 17. status against systemd-sysctl 257 itself, one 2-vCPU boot. After the
#     install, sysctl.d gets the cases systemd resolves in its own way: a
#     directory, a dangling link and a FIFO in /etc named as a /usr/lib
#     file (ignored, they shadow nothing), an empty file masking one, lines
#     ended by a lone CR and by NUL, a 5000-byte line, and a line over
#     systemd's 1 MiB limit followed by an assignment. Then systemd-sysctl
#     applies every file, as at boot, and for each key of the fragment
#     status must say OVERRIDDEN exactly when the value systemd left live is
#     not ours, and name the file systemd took it from. systemd-sysctl
#     --cat-config's list of files is checked against the same cases.
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
mkfifo "$e/72-fifo.conf"
echo 'net.ipv4.tcp_keepalive_probes = 4' >"$u/73-empty.conf"
: >"$e/73-empty.conf"
printf 'net.core.somaxconn = 4444\rnet.ipv4.tcp_notsent_lowat = 12345\r' >"$r/74-cr.conf"
printf 'net.ipv4.tcp_max_syn_backlog = 4321\0net.ipv4.tcp_slow_start_after_idle = 1\n' >"$u/75-nul.conf"
{ printf 'net.ipv4.tcp_tw_reuse = %5000s2\n' ''; } >"$u/76-long.conf"
{ printf '#'; head -c 1048576 /dev/zero | tr '\0' x; printf '\nnet.ipv4.tcp_syncookies = 0\n'; } >"$u/77-overlimit.conf"

"$sysctl_bin" --cat-config >/host/cat-config.log 2>&1 || true
grep '^# /' /host/cat-config.log | sed 's/^# //' >/host/cat-config.files
for f in "$u/70-dir.conf" "$u/71-dangling.conf" "$u/72-fifo.conf" "$r/74-cr.conf"; do
	check "systemd reads $f" grep -qx "$f" /host/cat-config.files
done
check "systemd skips the masked $u/73-empty.conf" sh -c "! grep -q 73-empty /host/cat-config.files"

logged systemd-sysctl "$sysctl_bin" || note "systemd-sysctl exited non-zero (the over-limit line)"
wp-panel-nettune status >/host/status.log 2>&1 || true
# Each key line: KEY WANTED LIVE FILE [NOTE]; vectors have spaces, so the
# fields are taken from the fixed columns status prints.
agree=0 disagree=0
while IFS= read -r line; do
	key=$(printf '%s' "$line" | cut -c1-34 | tr -d ' ')
	want=$(printf '%s' "$line" | cut -c36-56 | sed 's/ *$//')
	rest=$(printf '%s' "$line" | cut -c58-)
	case $key in net.*) ;; *) continue ;; esac
	live=$(sysctl_get "$key")
	[ -n "$live" ] || continue
	case $rest in *OVERRIDDEN*) said_over=yes ;; *) said_over=no ;; esac
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
check_eq "status and systemd-sysctl agree on every key" 0 "$disagree"
check "status names the /usr/lib file a directory did not shadow" \
	grep -Eq "^net.ipv4.tcp_keepalive_time .*$u/70-dir.conf  OVERRIDDEN" /host/status.log
check "a dangling link" grep -Eq "^net.ipv4.tcp_fin_timeout .*$u/71-dangling.conf  OVERRIDDEN" /host/status.log
check "a FIFO" grep -Eq "^net.ipv4.tcp_keepalive_intvl .*$u/72-fifo.conf  OVERRIDDEN" /host/status.log
check "an empty file masks" grep -Eq "^net.ipv4.tcp_keepalive_probes .*60-wp-panel-nettune.conf$" /host/status.log
check "a lone CR ends a line" grep -Eq "^net.ipv4.tcp_notsent_lowat .*$r/74-cr.conf  OVERRIDDEN" /host/status.log
check "a NUL ends a line" grep -Eq "^net.ipv4.tcp_slow_start_after_idle .*$u/75-nul.conf  OVERRIDDEN" /host/status.log
check "a 5000-byte line counts" grep -Eq "^net.ipv4.tcp_tw_reuse .*$u/76-long.conf  OVERRIDDEN" /host/status.log
check "a line over 1 MiB ends the file" grep -Eq "^net.ipv4.tcp_syncookies .*60-wp-panel-nettune.conf$" /host/status.log
check "and status says so" grep -q "77-overlimit.conf:1: line longer than 1048575 bytes" /host/status.log
checks_done
GUEST
}
