/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/initwnd-maps.h"

/* Where the program, its link and its maps are pinned: a directory of the
 * package's own in the BPF file system, which systemd mounts at boot. */
#define SOCKOPS_PIN_DIR "/sys/fs/bpf/wp-panel-nettune"
/* The root of the cgroup v2 tree on Debian 13 (unified only). */
#define SOCKOPS_CGROUP "/sys/fs/cgroup"
#define SOCKOPS_PORTS_MAX INITWND_PORTS_MAX

/* The windows, in segments (0 leaves the kernel's), and the local ports of
 * the passive connections that get them. */
struct sockops_windows {
	uint32_t cwnd;
	uint32_t rwnd;
	uint16_t ports[SOCKOPS_PORTS_MAX];
	size_t n_ports;
};

/* What the pins say. attached: the link is in a cgroup (a link whose cgroup
 * was removed stays pinned, detached); given: the connections the program
 * gave the congestion window to since it was loaded, all CPUs. */
struct sockops_state {
	bool attached;
	uint64_t cgroup_id;
	uint32_t prog_id;
	struct sockops_windows windows;
	uint64_t given;
};

/* Each returns -errno on failure and sets *ret_why to a phrase a status
 * line can print after the path it was given ("not a cgroup v2 directory");
 * nothing is left half-made. libbpf's own messages go where libbpf_set_print()
 * sends them: the caller decides.
 *
 * sockops_attach() loads the program into the cgroup v2 directory cgroup and
 * pins it under pin_dir: 1 when it attached it, 0 when it was attached there
 * already (its ports and windows are then set to w's). sockops_read() fills
 * *ret from the pins: -ENOENT when nothing is pinned. sockops_detach()
 * detaches and unpins it: 1 when it did, 0 when nothing was pinned. */
/* The ports of w as a sentence lists them ("80, 443 and 8080", in the
 * language of the messages) into buf. */
void sockops_ports_text(const struct sockops_windows *w, char *buf, size_t size);

int sockops_attach(const char *cgroup, const char *pin_dir,
		   const struct sockops_windows *w, const char **ret_why);
int sockops_read(const char *pin_dir, struct sockops_state *ret, const char **ret_why);
int sockops_detach(const char *pin_dir, const char **ret_why);
