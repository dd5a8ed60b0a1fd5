/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

#include <linux/bpf.h>

/* The longest path of a pin. */
#define BPFOBJ_PATH_MAX 4096

const char *bpfobj_why(int error);
const char *bpfobj_attach_why(int cg_fd, int error);
int bpfobj_cgroup_open(const char *cgroup, const char **ret_why);
int bpfobj_cgroup_id(int fd, uint64_t *ret);
int bpfobj_pin_dir_check(const char *pin_dir, const char **ret_why);
int bpfobj_prog_info(int prog_fd, uint32_t *ret_id, char *ret_name);
/* The info of a cgroup link on the sock_ops hook; -EPROTO for another. */
int bpfobj_link_info(int link_fd, struct bpf_link_info *ret);
