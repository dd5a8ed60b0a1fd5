# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 9. debian/tests, run by autopkgtest itself ("autopkgtest
#    --no-built-binaries PKG.deb SRC/ -- null", SRC the project's tracked
#    files), each where what it declares can be had:
#    - install-purge (breaks-testbed: it tunes the running kernel and
#      checks it) inside a fresh 2-vCPU VM;
#    - postrm-record and postrm-takeover, which run the postrm in
#      namespaces and an overlay of their own (tests/robust/ns-lib) and
#      touch neither the machine's settings nor its files, in a chroot of
#      the same image on this machine (image_check), inside a network and
#      mount namespace whose /proc/sys is an empty read-only file system:
#      the package's postinst, which autopkgtest runs to install it, finds
#      a kernel it must leave alone, and the tests' cases mount a /proc of
#      their own. In the VM, under emulation, their 166 cases took about
#      as long as the rest of the scenario; here they take about 25 s.
#    The null runner cannot declare what the tests ask for, so two
#    restrictions are ignored: isolation-machine (a whole VM, or cases
#    that isolate themselves) and breaks-testbed (the disk and the chroot
#    are thrown away afterwards). autopkgtest's exit status must be 0 in
#    both places: a skipped test fails the scenario. Neither place has a
#    network, so the image's own apt source is set aside first; autopkgtest
#    installs the .deb from a local archive it makes.
title="debian/tests pass under autopkgtest"
estimate=400

scenario() {
	local dir
	dir=$(share autopkgtest)
	# One tar file through the share, unpacked on the guest's own disk:
	# autopkgtest copies the tree file by file, and from the 9p share
	# its unbuilt-tree step took 36 s (one run alone, 2026-12-04).
	tracked_tree >"$dir/src.tar"
	cp "$PKG_DEB" "$dir/$(basename "$PKG_DEB")"
	# run-autopkgtest WHERE TEST...: autopkgtest on those tests; its log
	# and summary in /host/autopkgtest-WHERE.log and -summary.log, its
	# exit status in /host/autopkgtest-WHERE.rc.
	cat >"$dir/run-autopkgtest" <<-'RUN'
		. /host/env
		where=$1
		shift
		[ ! -f /etc/apt/sources.list ] ||
			mv /etc/apt/sources.list /etc/apt/sources.list.offline
		mkdir -p /var/tmp/src
		tar -C /var/tmp/src -xf /host/src.tar
		for t; do
			shift
			set -- "$@" --test-name "$t"
		done
		rc=0
		autopkgtest --no-built-binaries --output-dir "/var/tmp/autopkgtest-$where" \
			--ignore-restrictions=isolation-machine,breaks-testbed "$@" \
			"/host/$PKG_DEB_NAME" /var/tmp/src/ \
			-- null </dev/null >"/host/autopkgtest-$where.log" 2>&1 || rc=$?
		cp "/var/tmp/autopkgtest-$where/summary" "/host/autopkgtest-$where-summary.log" 2>/dev/null
		cp "/var/tmp/autopkgtest-$where/log" "/host/autopkgtest-$where-full.log" 2>/dev/null
		echo "$rc" >"/host/autopkgtest-$where.rc"
	RUN
	# The restrictions' own checks, on what autopkgtest wrote in each place.
	# shellcheck disable=SC2016 # expanded by the guest's shell
	printf '%s\n' 'autopkgtest_ran() { # WHERE TEST...
	where=$1
	shift
	rc=$(cat "/host/autopkgtest-$where.rc" 2>/dev/null || echo none)
	note "autopkgtest summary ($where): $(tr -s " \n" " ;" <"/host/autopkgtest-$where-summary.log" 2>/dev/null)"
	check_eq "autopkgtest exit status, $where (0: every test passed, none skipped)" 0 "$rc"
	[ "$rc" = 0 ] || tail -n 40 "/host/autopkgtest-$where.log" | sed "s/^/#   /"
	for t; do
		check "$t PASS ($where)" grep -Eq "^$t +PASS" "/host/autopkgtest-$where-summary.log"
	done
	check_eq "only those tests ran ($where)" "$#" \
		"$(grep -c . "/host/autopkgtest-$where-summary.log" 2>/dev/null || echo 0)"
}' >"$dir/autopkgtest-checks"
	# On this machine first, while the guest is not yet using a CPU.
	image_check autopkgtest-chroot "postrm-record and postrm-takeover under autopkgtest" \
		"$dir" unshare --mount --net sh -c \
		'mount -t tmpfs -o ro,size=4k,mode=555 nosysctl /proc/sys &&
			exec sh /host/run-autopkgtest chroot postrm-record postrm-takeover' || true
	boot autopkgtest "$(disk autopkgtest)" 2 1800 <<'GUEST'
. /host/autopkgtest-checks
autopkgtest_ran chroot postrm-record postrm-takeover
sh /host/run-autopkgtest vm install-purge
autopkgtest_ran vm install-purge
GUEST
}
