/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The loader of the sock_ops program (src/bpf/initwnd.bpf.c): loads it from
 * the skeleton built into the helper, attaches it to a cgroup v2 directory
 * through a BPF link, pins the link, the program and the maps in a directory
 * of the BPF file system, reads them back from there, and detaches.
 *
 * A cgroup link is attached with BPF_F_ALLOW_MULTI by the kernel itself
 * (kernel/bpf/cgroup.c, cgroup_bpf_link_attach()), so the programs that
 * systemd and others attach to the same cgroup stay and run beside it. The
 * link, not the program, holds the attachment: it lasts as long as its pin,
 * so what is pinned is what is attached, and removing the pins detaches. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfobj.h"
#include "i18n.h"
#include "initwnd.skel.h"
#include "sockops.h"

/* The pins, in the order they are made; the link comes last, so that a
 * directory with a link pin is complete. */
enum pin {
	PIN_PORTS,
	PIN_WINDOWS,
	PIN_GIVEN,
	PIN_PROG,
	PIN_LINK,
	PIN_COUNT,
};

static const char *const pin_names[PIN_COUNT] = {
	[PIN_PORTS] = "ports", [PIN_WINDOWS] = "windows", [PIN_GIVEN] = "given",
	[PIN_PROG] = "prog",   [PIN_LINK] = "link",
};

static int pin_path(char *buf, const char *pin_dir, enum pin p)
{
	int n = snprintf(buf, BPFOBJ_PATH_MAX, "%s/%s", pin_dir, pin_names[p]);

	return n < 0 || n >= BPFOBJ_PATH_MAX ? -ENAMETOOLONG : 0;
}

/* The fd of a pin, or -errno (-ENOENT: not pinned). */
static int pin_open(const char *pin_dir, enum pin p)
{
	char path[BPFOBJ_PATH_MAX];
	int r, fd;

	r = pin_path(path, pin_dir, p);
	if (r < 0)
		return r;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

/* Removes the pins, the link's after detaching it when it is the pinned
 * program's, then the directory; a file of another name in it is left, and
 * so is the directory. 1 when something was pinned. */
static int unpin_all(const char *pin_dir, const char **ret_why)
{
	struct bpf_link_info li;
	char path[BPFOBJ_PATH_MAX];
	char name[BPF_OBJ_NAME_LEN];
	uint32_t prog_id = 0;
	int link_fd, prog_fd, r, found = 0;

	link_fd = pin_open(pin_dir, PIN_LINK);
	prog_fd = pin_open(pin_dir, PIN_PROG);
	if (prog_fd >= 0 && bpfobj_prog_info(prog_fd, &prog_id, name) < 0)
		prog_id = 0;
	if (link_fd >= 0 && prog_id && bpfobj_link_info(link_fd, &li) == 0 &&
	    li.prog_id == prog_id && strcmp(name, INITWND_PROG_NAME) == 0)
		/* Detached now, not when the last file descriptor of it that
		 * some other process holds is closed. */
		(void)bpf_link_detach(link_fd);
	if (link_fd >= 0)
		close(link_fd);
	if (prog_fd >= 0)
		close(prog_fd);

	for (int p = PIN_COUNT - 1; p >= 0; p--) {
		r = pin_path(path, pin_dir, p);
		if (r < 0)
			return r;
		if (unlink(path) == 0)
			found = 1;
		else if (errno != ENOENT) {
			*ret_why = N_("cannot remove a pin");
			return -errno;
		}
	}
	if (rmdir(pin_dir) == 0)
		return 1;
	if (errno == ENOENT)
		return found;
	*ret_why = errno == ENOTEMPTY ? N_("the pin directory holds files of another") :
					N_("cannot remove the pin directory");
	return -errno;
}

static int windows_check(const struct sockops_windows *w, const char **ret_why)
{
	if (w->n_ports == 0 || w->n_ports > SOCKOPS_PORTS_MAX || w->cwnd > INT32_MAX ||
	    w->rwnd > INT32_MAX) {
		*ret_why = N_("no ports, too many, or a window out of range");
		return -EINVAL;
	}
	for (size_t i = 0; i < w->n_ports; i++) {
		if (w->ports[i] == 0) {
			*ret_why = N_("port 0");
			return -EINVAL;
		}
	}
	return 0;
}

/* Sets the maps to w: the ports not in it go, its own are added. */
static int maps_set(int ports_fd, int windows_fd, const struct sockops_windows *w)
{
	struct initwnd_windows v = { .cwnd = w->cwnd, .rwnd = w->rwnd };
	uint16_t key, next, stale[SOCKOPS_PORTS_MAX];
	size_t n_stale = 0;
	uint32_t zero = 0;
	uint8_t one = 1;
	void *prev = NULL;

	while (n_stale < SOCKOPS_PORTS_MAX &&
	       bpf_map_get_next_key(ports_fd, prev, &next) == 0) {
		bool wanted = false;

		for (size_t i = 0; i < w->n_ports; i++)
			wanted = wanted || w->ports[i] == next;
		if (!wanted)
			stale[n_stale++] = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < n_stale; i++)
		if (bpf_map_delete_elem(ports_fd, &stale[i]) < 0 && errno != ENOENT)
			return -errno;
	for (size_t i = 0; i < w->n_ports; i++)
		if (bpf_map_update_elem(ports_fd, &w->ports[i], &one, BPF_ANY) < 0)
			return -errno;
	if (bpf_map_update_elem(windows_fd, &zero, &v, BPF_ANY) < 0)
		return -errno;
	return 0;
}

/* Whether the program of id prog_id is the one this helper carries: 1 or
 * 0, or -errno when that cannot be told. The kernel's tag of a program is a
 * hash of its instructions with the maps' references left out
 * (bpf_prog_calc_tag()), so a copy loaded now has the attached program's
 * tag exactly when both are the same build. */
static int runs_this_build(uint32_t prog_id)
{
	struct bpf_prog_info have = { 0 }, ours = { 0 };
	uint32_t len = sizeof(have);
	struct initwnd_bpf *skel;
	int fd, r;

	fd = bpf_prog_get_fd_by_id(prog_id);
	if (fd < 0)
		return -errno;
	r = bpf_obj_get_info_by_fd(fd, &have, &len) < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	skel = initwnd_bpf__open_and_load();
	if (!skel)
		return -errno;
	len = sizeof(ours);
	if (bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.nettune_initwnd), &ours,
				   &len) < 0)
		r = -errno;
	else
		r = memcmp(have.tag, ours.tag, sizeof(have.tag)) == 0;
	initwnd_bpf__destroy(skel);
	return r;
}

/* Already attached to the cgroup of id cg_id: 1, its maps set to w; 0 when
 * the pins are not (or no longer) of an attachment there, or are of
 * another build's program, one an upgrade left running: that one is
 * replaced, not given new maps. Where the builds cannot be compared, the
 * program attached stays. */
static int attached_update(const char *pin_dir, uint64_t cg_id,
			   const struct sockops_windows *w)
{
	struct bpf_link_info li;
	int link_fd, ports_fd = -1, windows_fd = -1, r;

	link_fd = pin_open(pin_dir, PIN_LINK);
	if (link_fd < 0)
		return 0;
	r = bpfobj_link_info(link_fd, &li);
	close(link_fd);
	if (r < 0 || li.cgroup.cgroup_id != cg_id || runs_this_build(li.prog_id) == 0)
		return 0;
	ports_fd = pin_open(pin_dir, PIN_PORTS);
	windows_fd = pin_open(pin_dir, PIN_WINDOWS);
	if (ports_fd < 0 || windows_fd < 0)
		r = 0;
	else
		r = maps_set(ports_fd, windows_fd, w) ?: 1;
	if (ports_fd >= 0)
		close(ports_fd);
	if (windows_fd >= 0)
		close(windows_fd);
	return r;
}

static int load_and_pin(int cg_fd, const char *pin_dir, const struct sockops_windows *w,
			const char **ret_why)
{
	struct initwnd_bpf *skel;
	struct bpf_link *link;
	char path[BPFOBJ_PATH_MAX];
	int r;

	skel = initwnd_bpf__open();
	if (!skel) {
		*ret_why = N_("cannot open the program");
		return -errno;
	}
	r = initwnd_bpf__load(skel);
	if (r < 0) {
		*ret_why = bpfobj_why(r);
		goto out;
	}
	r = maps_set(bpf_map__fd(skel->maps.nettune_ports),
		     bpf_map__fd(skel->maps.nettune_windows), w);
	if (r < 0) {
		*ret_why = N_("cannot fill the program's maps");
		goto out;
	}

	if (mkdir(pin_dir, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		*ret_why = N_("cannot make the pin directory");
		goto out;
	}
	/* The maps in the order of enum pin. */
	struct bpf_map *const maps[] = { skel->maps.nettune_ports,
					 skel->maps.nettune_windows,
					 skel->maps.nettune_given };
	for (int p = PIN_PORTS; p <= PIN_GIVEN; p++) {
		r = pin_path(path, pin_dir, p);
		if (r == 0)
			r = bpf_map__pin(maps[p], path);
		if (r < 0) {
			*ret_why = N_("cannot pin a map");
			goto unpin;
		}
	}
	r = pin_path(path, pin_dir, PIN_PROG);
	if (r == 0)
		r = bpf_program__pin(skel->progs.nettune_initwnd, path);
	if (r < 0) {
		*ret_why = N_("cannot pin the program");
		goto unpin;
	}

	link = bpf_program__attach_cgroup(skel->progs.nettune_initwnd, cg_fd);
	if (!link) {
		r = -errno;
		*ret_why = bpfobj_attach_why(cg_fd, r);
		goto unpin;
	}
	r = pin_path(path, pin_dir, PIN_LINK);
	if (r == 0)
		r = bpf_link__pin(link, path);
	/* Closing the link's fd detaches it unless it is pinned. */
	bpf_link__destroy(link);
	if (r < 0) {
		*ret_why = N_("cannot pin the link");
		goto unpin;
	}
	r = 1;
	goto out;
unpin:
	(void)unpin_all(pin_dir, &(const char *){ NULL });
out:
	initwnd_bpf__destroy(skel);
	return r;
}

int sockops_attach(const char *cgroup, const char *pin_dir,
		   const struct sockops_windows *w, const char **ret_why)
{
	uint64_t cg_id = 0;
	int cg_fd, r;

	r = windows_check(w, ret_why);
	if (r < 0)
		return r;
	r = bpfobj_pin_dir_check(pin_dir, ret_why);
	if (r < 0)
		return r;
	cg_fd = bpfobj_cgroup_open(cgroup, ret_why);
	if (cg_fd < 0)
		return cg_fd;
	r = bpfobj_cgroup_id(cg_fd, &cg_id);
	if (r < 0) {
		*ret_why = N_("cannot read the cgroup's id");
		goto out;
	}

	r = attached_update(pin_dir, cg_id, w);
	if (r < 0)
		*ret_why = N_("cannot set the attached program's maps");
	if (r != 0) {
		r = r < 0 ? r : 0;
		goto out;
	}
	/* What is pinned is of another cgroup, a removed one, or half made by
	 * a run that was stopped: it goes first. */
	r = unpin_all(pin_dir, ret_why);
	if (r >= 0)
		r = load_and_pin(cg_fd, pin_dir, w, ret_why);
out:
	close(cg_fd);
	return r;
}

int sockops_read(const char *pin_dir, struct sockops_state *ret, const char **ret_why)
{
	struct sockops_state s = { 0 };
	struct initwnd_windows v;
	struct bpf_link_info li;
	char name[BPF_OBJ_NAME_LEN];
	int fds[PIN_COUNT], r = 0, ncpus;
	uint16_t key, next;
	uint32_t zero = 0;
	void *prev = NULL;
	uint64_t *given = NULL;

	r = bpfobj_pin_dir_check(pin_dir, ret_why);
	if (r < 0)
		return r;
	for (int p = 0; p < PIN_COUNT; p++)
		fds[p] = pin_open(pin_dir, p);
	for (int p = 0; p < PIN_COUNT && r == 0; p++)
		r = fds[p] < 0 ? fds[p] : 0;
	if (r < 0) {
		*ret_why = r == -ENOENT ? N_("not pinned") : bpfobj_why(r);
		goto out;
	}

	r = bpfobj_prog_info(fds[PIN_PROG], &s.prog_id, name);
	if (r == 0 && strcmp(name, INITWND_PROG_NAME) != 0)
		r = -EPROTO;
	if (r == 0)
		r = bpfobj_link_info(fds[PIN_LINK], &li);
	if (r < 0) {
		*ret_why = N_("the pins are not the package's program");
		goto out;
	}
	s.cgroup_id = li.cgroup.cgroup_id;
	s.attached = li.prog_id == s.prog_id && s.cgroup_id != 0;

	if (bpf_map_lookup_elem(fds[PIN_WINDOWS], &zero, &v) < 0) {
		r = -errno;
		*ret_why = N_("cannot read the windows");
		goto out;
	}
	s.windows.cwnd = v.cwnd;
	s.windows.rwnd = v.rwnd;
	while (s.windows.n_ports < SOCKOPS_PORTS_MAX &&
	       bpf_map_get_next_key(fds[PIN_PORTS], prev, &next) == 0) {
		s.windows.ports[s.windows.n_ports++] = next;
		key = next;
		prev = &key;
	}

	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		r = ncpus < 0 ? ncpus : -EINVAL;
		*ret_why = N_("cannot count the possible CPUs");
		goto out;
	}
	given = calloc(ncpus, sizeof(*given));
	if (!given) {
		r = -ENOMEM;
		*ret_why = N_("out of memory");
		goto out;
	}
	if (bpf_map_lookup_elem(fds[PIN_GIVEN], &zero, given) < 0) {
		r = -errno;
		*ret_why = N_("cannot read the counter");
		goto out;
	}
	for (int i = 0; i < ncpus; i++)
		s.given += given[i];
	*ret = s;
out:
	free(given);
	for (int p = 0; p < PIN_COUNT; p++)
		if (fds[p] >= 0)
			close(fds[p]);
	return r;
}

int sockops_detach(const char *pin_dir, const char **ret_why)
{
	int r;

	r = bpfobj_pin_dir_check(pin_dir, ret_why);
	if (r < 0)
		return r;
	return unpin_all(pin_dir, ret_why);
}

void sockops_ports_text(const struct sockops_windows *w, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->n_ports && len < size; i++) {
		/* TRANSLATORS: between two ports of a list, and before the last. */
		const char *sep = i == 0	      ? "" :
				  i + 1 == w->n_ports ? _(" and ") :
							_(", ");
		int n = snprintf(buf + len, size - len, "%s%u", sep, w->ports[i]);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}
