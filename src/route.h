/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/netlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
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
	int ifindex; /* 0: none given */
	bool multipath; /* RTA_MULTIPATH: its first hop's ifindex and gateway stand for it */
	char ifname[IF_NAMESIZE];
	char gateway[INET6_ADDRSTRLEN]; /* "" where the route has none */
	unsigned protocol; /* RTPROT_*: who added it (dhcp, ra, static, boot) */
	uint32_t metric; /* its priority */
	unsigned tos; /* IPv4's ToS; 0 for IPv6 */
	unsigned type; /* RTN_UNICAST; or, in route_takeback_plan's lists, any RTN_* */
	uint32_t initcwnd;
	uint32_t initrwnd;
};

/* One RTM_NEWROUTE message: 1 and *ret filled for a unicast default route of
 * the main table, 0 for any other route, -EBADMSG for a message too short
 * for what it claims. The interface's name is left empty. */
int route_parse(const struct nlmsghdr *h, struct route_default *ret);

/* What taking the windows off ROUTES[I] takes, where ROUTES are every
 * default route of the main table, of every type (an unreachable or a
 * blackhole one has a key like any other): REPLACE, the same route without them
 * (NLM_F_REPLACE replaces the first route of its key, and this one is
 * alone under it); DELETE, an IPv4 route with a twin without them (a
 * manager added its route again beside it), so this one goes, matched by
 * its windows; SHARED, another route (another interface's, one of
 * another gateway, or a multipath one) has its key: it is left, since the
 * kernel could replace that one instead. */
enum route_takeback {
	ROUTE_TAKEBACK_REPLACE,
	ROUTE_TAKEBACK_DELETE,
	ROUTE_TAKEBACK_SHARED,
};

enum route_takeback route_takeback_plan(const struct route_default *routes, size_t n,
					size_t i);

struct route_takeback_result {
	struct route_default route; /* as it was */
	enum route_takeback how;
	int error; /* what the kernel answered; 0 for SHARED */
};

/* Takes the windows CWND and RWND off each default route of the main table
 * through IFINDEX that has exactly them and is neither multipath nor a
 * router advertisement's, as route_takeback_plan says; each route found
 * goes into DONE (at most MAX, *ret_n), with what was done. Returns 0, or
 * the dump's error (then nothing is changed). */
int route_take_windows_off(int ifindex, uint32_t cwnd, uint32_t rwnd,
			   struct route_takeback_result *done, size_t max, size_t *ret_n);

/* "ipv4", "ipv6". */
const char *route_family_to_string(int family);
/* iproute2's name of a protocol ("kernel", "boot", "static", "dhcp", "ra"),
 * or its number written into BUF. */
const char *route_protocol_to_string(unsigned protocol, char *buf, size_t size);
