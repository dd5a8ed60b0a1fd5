/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's BPF objects and where they live, for the sock_ops loader: a
 * cgroup v2 directory, the BPF file system, a program's and a link's info,
 * and why bpf() refused, as a phrase a status line can print. Fallible
 * functions return -errno; those with ret_why set it on failure. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/magic.h>

#include "bpfobj.h"
#include "i18n.h"

/* The kernel is locked down: /sys/kernel/security/lockdown names a mode
 * other than [none]. */
static bool locked_down(void)
{
	char buf[128] = "";
	FILE *f;

	f = fopen("/sys/kernel/security/lockdown", "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] && !strstr(buf, "[none]");
}

/* Why bpf() refused: the phrase for a status line. */
const char *bpfobj_why(int error)
{
	switch (error) {
	case -EPERM:
	case -EACCES:
		/* Loading a sock_ops program needs CAP_BPF and CAP_NET_ADMIN
		 * (or CAP_SYS_ADMIN) in the initial user namespace. Lockdown
		 * restricts only the helpers that read kernel memory or write
		 * a process's, which this program does not call; it is named
		 * where it is on all the same. */
		if (locked_down())
			return N_("the kernel refused BPF (EPERM), and it is locked down");
		return N_(
			"the kernel refused BPF (EPERM): not CAP_BPF and CAP_NET_ADMIN, or in a container");
	case -ENOSYS:
		return N_("the kernel has no BPF system call (CONFIG_BPF_SYSCALL)");
	case -ENOMEM:
		return N_("out of memory for the program's maps");
	default:
		return N_("the kernel refused the program");
	}
}

/* The cgroup v2 directory cgroup, opened: -ENOENT, or -EMEDIUMTYPE where it
 * is not on a cgroup2 file system. */
int bpfobj_cgroup_open(const char *cgroup, const char **ret_why)
{
	struct statfs sfs;
	int fd;

	fd = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		*ret_why = errno == ENOENT ? N_("no such cgroup directory") :
					     N_("cannot open the cgroup directory");
		return -errno;
	}
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		*ret_why = N_(
			"not a cgroup v2 directory (no cgroup2 file system mounted there)");
		return -EMEDIUMTYPE;
	}
	return fd;
}

/* The cgroup id of an open cgroup v2 directory: its kernfs node id, the
 * 8-byte file handle the kernel gives it (kernfs_encode_fh()), which is what
 * a cgroup link's info reports. */
int bpfobj_cgroup_id(int fd, uint64_t *ret)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) < 0)
		return -errno;
	if (h.fh.handle_bytes != sizeof(uint64_t))
		return -EOVERFLOW;
	memcpy(ret, h.fh.f_handle, sizeof(*ret));
	return 0;
}

/* pin_dir's parent must be a BPF file system, and pin_dir, where it exists,
 * a directory on it (not a link to elsewhere). */
int bpfobj_pin_dir_check(const char *pin_dir, const char **ret_why)
{
	char parent[BPFOBJ_PATH_MAX];
	struct statfs sfs;
	struct stat st;
	char *slash;

	if (pin_dir[0] != '/' || strlen(pin_dir) >= sizeof(parent) - 16) {
		*ret_why = N_("the pin directory is not an absolute path");
		return -EINVAL;
	}
	strcpy(parent, pin_dir);
	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (statfs(parent, &sfs) < 0 || sfs.f_type != BPF_FS_MAGIC) {
		*ret_why = N_("no BPF file system mounted above the pin directory");
		return -EMEDIUMTYPE;
	}
	if (lstat(pin_dir, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode)) {
		*ret_why = N_("the pin directory is not a directory");
		return -ENOTDIR;
	}
	return 0;
}

/* The name and id of the program behind a program or link fd. */
int bpfobj_prog_info(int prog_fd, uint32_t *ret_id, char *ret_name)
{
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) < 0)
		return -errno;
	*ret_id = info.id;
	memcpy(ret_name, info.name, BPF_OBJ_NAME_LEN);
	return 0;
}

int bpfobj_link_info(int link_fd, struct bpf_link_info *ret)
{
	uint32_t len = sizeof(*ret);

	memset(ret, 0, sizeof(*ret));
	if (bpf_obj_get_info_by_fd(link_fd, ret, &len) < 0)
		return -errno;
	if (ret->type != BPF_LINK_TYPE_CGROUP ||
	    ret->cgroup.attach_type != BPF_CGROUP_SOCK_OPS)
		return -EPROTO;
	return 0;
}

/* Why the kernel refused the link: another program holds the hook without
 * BPF_F_ALLOW_MULTI (a plain bpf_prog_attach() with no flags), or the
 * caller may not. */
const char *bpfobj_attach_why(int cg_fd, int error)
{
	uint32_t flags = 0, count = 0;

	if (error == -EPERM &&
	    bpf_prog_query(cg_fd, BPF_CGROUP_SOCK_OPS, 0, &flags, NULL, &count) == 0 &&
	    count > 0 && !(flags & BPF_F_ALLOW_MULTI))
		return N_(
			"another program holds the cgroup's sock_ops hook without BPF_F_ALLOW_MULTI");
	if (error == -EINVAL)
		return N_(
			"the kernel cannot attach a sock_ops program there (CONFIG_CGROUP_BPF)");
	return bpfobj_why(error);
}
