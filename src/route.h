/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/netlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define ROUTE_DEFAULTS_MAX 16

/* A default route of the main table, IPv4 or IPv6, and the initial windows
 * it gives the connections that use it (route metrics RTAX_INITCWND and
 * RTAX_INITRWND, in segments; 0 where the route sets none and the kernel's
 * own apply: an initial congestion window of 10 segments, RFC 6928, and a
 * receive window from tcp_rmem). */
struct route_default {
	int family; /* AF_INET or AF_INET6 */
	int ifindex; /* 0: none given (a multipath route's first hop has one) */
	char ifname[IF_NAMESIZE];
	char gateway[INET6_ADDRSTRLEN]; /* "" where the route has none */
	unsigned protocol; /* RTPROT_*: who added it (dhcp, ra, static, boot) */
	uint32_t metric; /* its priority */
	uint32_t initcwnd;
	uint32_t initrwnd;
};

/* The kernel's initial congestion window where a route sets none. */
#define ROUTE_KERNEL_INITCWND 10

/* One RTM_NEWROUTE message: 1 and *ret filled for a unicast default route of
 * the main table, 0 for any other route, -EBADMSG for a message too short
 * for what it claims. The interface's name is left empty. */
int route_parse(const struct nlmsghdr *h, struct route_default *ret);

/* The default routes of the running kernel, in the calling process's network
 * namespace, IPv4 first; at most MAX are kept (*ret_n), and *ret_more counts
 * the ones left out. */
int route_list_defaults(struct route_default *routes, size_t max, size_t *ret_n,
			size_t *ret_more);

/* Replaces each default route of the main table through IFINDEX whose
 * windows are FROM_CWND and FROM_RWND (0: none), and that is neither
 * multipath nor learned from a router advertisement, with the same route
 * and the windows CWND and RWND (0: none): the routes replaced, as they are
 * now, go into DONE (at most MAX, *ret_n). An IPv4 route that has a twin
 * with the windows CWND and RWND already (the same gateway, protocol and
 * priority: a manager added its route again beside it) is deleted instead.
 * Returns 0, or the first error, after which no other route is changed. */
int route_set_windows(int ifindex, uint32_t from_cwnd, uint32_t from_rwnd, uint32_t cwnd,
		      uint32_t rwnd, struct route_default *done, size_t max,
		      size_t *ret_n);

/* "ipv4", "ipv6". */
const char *route_family_to_string(int family);
/* iproute2's name of a protocol ("kernel", "boot", "static", "dhcp", "ra"),
 * or its number written into BUF. */
const char *route_protocol_to_string(unsigned protocol, char *buf, size_t size);
