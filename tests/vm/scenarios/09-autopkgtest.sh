# shellcheck shell=bash disable=SC2034 # title, estimate and needs are read by tests/vm/run
# 9. debian/tests, run by autopkgtest itself inside a fresh 2-vCPU VM:
#    "autopkgtest --no-built-binaries PKG.deb SRC/ -- null", SRC the
#    project's tracked files. The null runner cannot declare what the
#    tests ask for, so two restrictions are ignored: isolation-machine
#    (the testbed is a whole VM) and breaks-testbed (its disk is thrown
#    away afterwards). autopkgtest's exit status must
#    be 0: a skipped test fails the scenario. The VM has no network, so the
#    image's own apt source is set aside first; autopkgtest installs the
#    .deb from a local archive it makes.
title="debian/tests pass under autopkgtest"
estimate=900

scenario() {
	local dir
	dir=$(share autopkgtest)
	# One tar file through the share, unpacked on the guest's own disk:
	# autopkgtest copies the tree file by file, and from the 9p share
	# its unbuilt-tree step took 36 s (one run alone, 2026-12-04).
	tracked_tree >"$dir/src.tar"
	cp "$PKG_DEB" "$dir/$(basename "$PKG_DEB")"
	boot autopkgtest "$(disk autopkgtest)" 2 1800 <<'GUEST'
mv /etc/apt/sources.list /etc/apt/sources.list.offline
mkdir /var/tmp/src
tar -C /var/tmp/src -xf /host/src.tar
rc=0
autopkgtest --no-built-binaries --output-dir /var/tmp/autopkgtest.out \
	--ignore-restrictions=isolation-machine,breaks-testbed \
	"/host/$PKG_DEB_NAME" /var/tmp/src/ \
	-- null </dev/null >/host/autopkgtest.log 2>&1 || rc=$?
cp /var/tmp/autopkgtest.out/summary /host/autopkgtest-summary.log 2>/dev/null
note "autopkgtest summary: $(tr -s ' \n' ' ;' </host/autopkgtest-summary.log 2>/dev/null)"
check_eq "autopkgtest exit status (0: every test passed, none skipped)" 0 "$rc"
[ "$rc" = 0 ] || tail -n 40 /host/autopkgtest.log | sed 's/^/#   /'
check "install-purge PASS" grep -Eq '^install-purge +PASS' /host/autopkgtest-summary.log
check "postrm-record PASS" grep -Eq '^postrm-record +PASS' /host/autopkgtest-summary.log
GUEST
}
