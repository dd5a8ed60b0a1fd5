/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the sock_ops program initwnd.bpf.c and its loader sockops.c share:
 * the maps' names, sizes and value layout. Kernel types only, since the
 * program is built without the C library. */
#pragma once

#include <linux/types.h>

/* The program's and the maps' names, as bpftool prog and bpftool map show
 * them (the kernel keeps 15 characters of a name). */
#define INITWND_PROG_NAME "nettune_initwnd"

/* The web ports the windows are given on, at most this many. */
#define INITWND_PORTS_MAX 16

/* The one value of nettune_windows: the initial congestion window (for
 * TCP_BPF_IW) and the initial receive window (the reply to
 * BPF_SOCK_OPS_RWND_INIT), in segments, as the route attributes initcwnd
 * and initrwnd count them. 0 leaves the kernel's. */
struct initwnd_windows {
	__u32 cwnd;
	__u32 rwnd;
};
