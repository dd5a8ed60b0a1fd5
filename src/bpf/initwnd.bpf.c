// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The initial windows for the web ports, given to each passive TCP
 * connection by a BPF_PROG_TYPE_SOCK_OPS program in the cgroup v2 tree,
 * instead of the route attributes initcwnd and initrwnd.
 *
 * The kernel runs the program of the listener's cgroup (a request socket
 * and the child it becomes carry the listener's cgroup):
 *
 * - BPF_SOCK_OPS_RWND_INIT from tcp_openreq_init_rwin() (tcp_minisocks.c),
 *   for the SYN-ACK: a non-zero reply takes the place of the route's
 *   RTAX_INITRWND, in segments, in tcp_select_initial_window().
 *   Active connections ask too (tcp_connect_init()); they are full
 *   sockets, a request socket is not, and only those are answered. A
 *   connection rebuilt from a SYN cookie takes the route's window
 *   without asking (cookie_v4_check(), cookie_v6_check()).
 *
 * - BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB from tcp_init_transfer()
 *   (tcp_input.c), when the handshake completes: after the congestion
 *   window was set from the route (tcp_init_cwnd()) and before the
 *   congestion control is initialised, so BBR starts from the window set
 *   here. bpf_setsockopt(TCP_BPF_IW) (net/core/filter.c,
 *   bpf_sol_tcp_setsockopt()) sets snd_cwnd, and refuses with -EINVAL
 *   once data beyond a Fast Open SYN's has been sent. Only the kernel's
 *   default window, TCP_INIT_CWND, is raised: one of another size is a
 *   route's initcwnd, set by the administrator, or the one segment that
 *   tcp_init_transfer() leaves after SYN-ACKs were lost (RFC 5681, 3.1:
 *   the initial window MUST then be one segment).
 *
 * Both callbacks are always called for a program in the cgroup: neither
 * needs bpf_sock_ops_cb_flags_set(). Other programs attached beside this
 * one (BPF_F_ALLOW_MULTI) see the reply it leaves; it writes the reply
 * only for its own ports.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "initwnd-maps.h"

/* From the C library's headers, which a BPF program is built without. */
#define AF_INET 2
#define AF_INET6 10
#define SOL_TCP 6
/* include/net/tcp.h */
#define TCP_INIT_CWND 10

/* The local ports the windows are given on; the value is unused. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, INITWND_PORTS_MAX);
	__type(key, __u16);
	__type(value, __u8);
} nettune_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct initwnd_windows);
} nettune_windows SEC(".maps");

/* The connections given the congestion window, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} nettune_given SEC(".maps");

SEC("sockops")
int nettune_initwnd(struct bpf_sock_ops *skops)
{
	const struct initwnd_windows *w;
	__u32 op = skops->op;
	__u32 zero = 0;
	__u64 *given;
	__u16 port;
	int iw;

	if (op != BPF_SOCK_OPS_RWND_INIT && op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
		return 1;
	if (skops->family != AF_INET && skops->family != AF_INET6)
		return 1;
	/* local_port is in host byte order, remote_port is not (uapi bpf.h). */
	port = skops->local_port;
	if (!bpf_map_lookup_elem(&nettune_ports, &port))
		return 1;
	w = bpf_map_lookup_elem(&nettune_windows, &zero);
	if (!w)
		return 1;

	if (op == BPF_SOCK_OPS_RWND_INIT) {
		if (w->rwnd && !skops->is_fullsock)
			skops->reply = w->rwnd;
		return 1;
	}
	if (!w->cwnd || skops->snd_cwnd != TCP_INIT_CWND)
		return 1;
	iw = w->cwnd;
	if (bpf_setsockopt(skops, SOL_TCP, TCP_BPF_IW, &iw, sizeof(iw)) == 0) {
		given = bpf_map_lookup_elem(&nettune_given, &zero);
		if (given)
			(*given)++;
	}
	return 1;
}

char _license[] SEC("license") = "GPL";
