/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The default routes of the running kernel and the initial windows they set,
 * from an rtnetlink dump, on the real root only; and the one change the
 * helper still makes to a route, once, at the upgrade from the builds that
 * gave routes the initial windows (0.2.0's): the windows it gave taken off
 * again, where that changes no other route. The windows themselves are
 * given by the sock_ops program now (sockops.c), to connections, not
 * routes. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "netlink.h"
#include "route.h"
#include "util.h"

static uint32_t attr_u32(const struct rtattr *rta)
{
	uint32_t v = 0;

	if (RTA_PAYLOAD(rta) >= sizeof(v))
		memcpy(&v, RTA_DATA(rta), sizeof(v));
	return v;
}

static void parse_metrics(const struct rtattr *metrics, struct route_default *ret)
{
	int len = (int)RTA_PAYLOAD(metrics);

	for (const struct rtattr *rta = RTA_DATA(metrics); RTA_OK(rta, len);
	     rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == RTAX_INITCWND)
			ret->initcwnd = attr_u32(rta);
		else if (rta->rta_type == RTAX_INITRWND)
			ret->initrwnd = attr_u32(rta);
	}
}

static void parse_gateway(const struct rtattr *rta, int family, struct route_default *ret)
{
	size_t need = family == AF_INET6 ? sizeof(struct in6_addr) :
					   sizeof(struct in_addr);

	if (RTA_PAYLOAD(rta) < need ||
	    !inet_ntop(family, RTA_DATA(rta), ret->gateway, sizeof(ret->gateway)))
		ret->gateway[0] = '\0';
}

/* A multipath route has no RTA_OIF of its own: its first hop stands for it. */
static void parse_multipath(const struct rtattr *rta, int family,
			    struct route_default *ret)
{
	const struct rtnexthop *nh = RTA_DATA(rta);
	int len;

	if (RTA_PAYLOAD(rta) < sizeof(*nh) || nh->rtnh_len < sizeof(*nh) ||
	    nh->rtnh_len > RTA_PAYLOAD(rta))
		return;
	ret->ifindex = nh->rtnh_ifindex;
	len = nh->rtnh_len - (int)sizeof(*nh);
	for (const struct rtattr *a = RTNH_DATA(nh); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == RTA_GATEWAY && ret->gateway[0] == '\0')
			parse_gateway(a, family, ret);
}

/* route_parse, for a default route of any type where ANY_TYPE. */
static int parse_default(const struct nlmsghdr *h, struct route_default *ret,
			 bool any_type)
{
	const struct rtmsg *rtm = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*rtm));
	uint32_t table;

	if (len < 0)
		return -EBADMSG;
	if (rtm->rtm_dst_len != 0 || (!any_type && rtm->rtm_type != RTN_UNICAST) ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6))
		return 0;
	memset(ret, 0, sizeof(*ret));
	ret->family = rtm->rtm_family;
	ret->type = rtm->rtm_type;
	ret->protocol = rtm->rtm_protocol;
	ret->tos = rtm->rtm_tos;
	table = rtm->rtm_table;
	for (const struct rtattr *rta = RTM_RTA(rtm); RTA_OK(rta, len);
	     rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case RTA_TABLE:
			table = attr_u32(rta);
			break;
		case RTA_OIF:
			ret->ifindex = (int)attr_u32(rta);
			break;
		case RTA_GATEWAY:
			parse_gateway(rta, ret->family, ret);
			break;
		case RTA_PRIORITY:
			ret->metric = attr_u32(rta);
			break;
		case RTA_METRICS:
			parse_metrics(rta, ret);
			break;
		case RTA_MULTIPATH:
			ret->multipath = true;
			parse_multipath(rta, ret->family, ret);
			break;
		default:
			break;
		}
	}
	return table == RT_TABLE_MAIN ? 1 : 0;
}

int route_parse(const struct nlmsghdr *h, struct route_default *ret)
{
	return parse_default(h, ret, false);
}

const char *route_family_to_string(int family)
{
	return family == AF_INET6 ? "ipv6" : "ipv4";
}

const char *route_protocol_to_string(unsigned protocol, char *buf, size_t size)
{
	switch (protocol) {
	case RTPROT_KERNEL:
		return "kernel";
	case RTPROT_BOOT:
		return "boot";
	case RTPROT_STATIC:
		return "static";
	case RTPROT_RA:
		return "ra";
	case RTPROT_DHCP:
		return "dhcp";
	default:
		snprintf(buf, size, "%u", protocol);
		return buf;
	}
}

/* --- Taking the windows off -------------------------------------------- */

/* Whether the kernel keys A and B alike: an IPv4 route by its table,
 * prefix, ToS and priority, an IPv6 one by its table, prefix and metric,
 * whatever their interface or gateway. NLM_F_REPLACE replaces the first
 * route of a key, so a key two routes share cannot be replaced safely. */
static bool same_key(const struct route_default *a, const struct route_default *b)
{
	return a->family == b->family && a->tos == b->tos && a->metric == b->metric;
}

/* The same route but for its windows: through the same interface and
 * gateway, from the same protocol, under the same key. A multipath route
 * goes through other hops too, whatever its first one. */
static bool twin(const struct route_default *a, const struct route_default *b)
{
	return same_key(a, b) && a->type == b->type && !a->multipath && !b->multipath &&
	       a->ifindex == b->ifindex && a->protocol == b->protocol &&
	       strcmp(a->gateway, b->gateway) == 0;
}

enum route_takeback route_takeback_plan(const struct route_default *routes, size_t n,
					size_t i)
{
	const struct route_default *rt = &routes[i];
	bool shared = false;

	for (size_t j = 0; j < n; j++) {
		if (j == i || !same_key(rt, &routes[j]))
			continue;
		if (routes[j].family == AF_INET && twin(rt, &routes[j]) &&
		    routes[j].initcwnd == 0 && routes[j].initrwnd == 0)
			return ROUTE_TAKEBACK_DELETE;
		shared = true;
	}
	return shared ? ROUTE_TAKEBACK_SHARED : ROUTE_TAKEBACK_REPLACE;
}

struct takeback_dump {
	int ifindex;
	uint32_t cwnd, rwnd;
	/* Every default route of the main table, and a copy of the message of
	 * each one through the interface with the windows sought. */
	struct route_default all[ROUTE_DEFAULTS_MAX];
	size_t n_all;
	bool more;
	struct nlmsghdr *found[ROUTE_DEFAULTS_MAX];
	size_t found_index[ROUTE_DEFAULTS_MAX];
	size_t n_found;
};

static int takeback_each(const struct nlmsghdr *h, void *data)
{
	struct takeback_dump *d = data;
	struct route_default rt;
	int r = parse_default(h, &rt, true);

	if (r <= 0)
		return r;
	if (d->n_all == ELEMENTSOF(d->all)) {
		d->more = true;
		return 0;
	}
	/* Every type: an unreachable default route of the same metric is
	 * the one NLM_F_REPLACE replaces, where it comes first. */
	d->all[d->n_all] = rt;
	/* A multipath route and a router advertisement's were never given
	 * the windows by the helper. */
	if (rt.type == RTN_UNICAST && rt.ifindex == d->ifindex &&
	    rt.protocol != RTPROT_RA && !rt.multipath && rt.initcwnd == d->cwnd &&
	    rt.initrwnd == d->rwnd) {
		d->found[d->n_found] = malloc(h->nlmsg_len);
		if (!d->found[d->n_found])
			return -ENOMEM;
		memcpy(d->found[d->n_found], h, h->nlmsg_len);
		d->found_index[d->n_found++] = d->n_all;
	}
	d->n_all++;
	return 0;
}

static struct rtattr *append(struct nlmsghdr *h, size_t size, unsigned short type,
			     const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	if (NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len) > size)
		return NULL;
	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

/* ORIG again with NLM_F_REPLACE and without NLM_F_CREATE (a route gone
 * meanwhile is not made again), its other metrics kept and the windows
 * left out. What the kernel reports and does not take back is left out:
 * the cache info, and of the flags all but onlink.
 *
 * With DELETE, ORIG goes instead (RTM_DELROUTE), matched by its windows
 * too, so that of two IPv4 routes that differ only in them the kernel
 * deletes this one (fib_metrics_match). */
static int rewrite_route(const struct nlmsghdr *orig, uint32_t cwnd, uint32_t rwnd,
			 bool delete)
{
	union {
		struct nlmsghdr h;
		char buf[8192];
	} req = { 0 };
	const struct rtmsg *rtm = NLMSG_DATA(orig);
	int len = (int)orig->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*rtm));
	const struct rtattr *metrics = NULL;
	struct rtattr *nest;
	struct rtmsg *out;

	req.h.nlmsg_type = delete ? RTM_DELROUTE : RTM_NEWROUTE;
	req.h.nlmsg_flags = delete ? 0 : NLM_F_REPLACE;
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(*rtm));
	out = NLMSG_DATA(&req.h);
	*out = *rtm;
	out->rtm_flags &= RTNH_F_ONLINK;
	for (const struct rtattr *rta = RTM_RTA(rtm); RTA_OK(rta, len);
	     rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == RTA_METRICS)
			metrics = rta;
		else if (rta->rta_type != RTA_CACHEINFO &&
			 !append(&req.h, sizeof(req), rta->rta_type, RTA_DATA(rta),
				 RTA_PAYLOAD(rta)))
			return -E2BIG;
	}
	nest = append(&req.h, sizeof(req), RTA_METRICS, NULL, 0);
	if (!nest)
		return -E2BIG;
	if (metrics) {
		int mlen = (int)RTA_PAYLOAD(metrics);

		for (const struct rtattr *m = RTA_DATA(metrics); RTA_OK(m, mlen);
		     m = RTA_NEXT(m, mlen))
			if (m->rta_type != RTAX_INITCWND &&
			    m->rta_type != RTAX_INITRWND &&
			    !append(&req.h, sizeof(req), m->rta_type, RTA_DATA(m),
				    RTA_PAYLOAD(m)))
				return -E2BIG;
	}
	if (delete && (!append(&req.h, sizeof(req), RTAX_INITCWND, &cwnd, sizeof(cwnd)) ||
		       !append(&req.h, sizeof(req), RTAX_INITRWND, &rwnd, sizeof(rwnd))))
		return -E2BIG;
	nest->rta_len = (unsigned short)((char *)&req.h + req.h.nlmsg_len - (char *)nest);
	return netlink_request(&req.h);
}

int route_take_windows_off(int ifindex, uint32_t cwnd, uint32_t rwnd,
			   struct route_takeback_result *done, size_t max, size_t *ret_n)
{
	const struct rtmsg rtm = { .rtm_family = AF_UNSPEC };
	struct takeback_dump *d;
	int r;

	*ret_n = 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->ifindex = ifindex;
	d->cwnd = cwnd;
	d->rwnd = rwnd;
	r = netlink_dump(RTM_GETROUTE, &rtm, sizeof(rtm), RTM_NEWROUTE, takeback_each, d);
	/* With routes left out of the dump, a key cannot be known unshared. */
	if (r == 0 && d->more)
		r = -E2BIG;
	for (size_t i = 0; i < d->n_found; i++) {
		struct route_takeback_result *res = &done[*ret_n];
		enum route_takeback how;

		if (r < 0 || *ret_n == max) {
			free(d->found[i]);
			continue;
		}
		res->route = d->all[d->found_index[i]];
		if (!if_indextoname((unsigned)ifindex, res->route.ifname))
			res->route.ifname[0] = '\0';
		how = route_takeback_plan(d->all, d->n_all, d->found_index[i]);
		res->how = how;
		res->error = how == ROUTE_TAKEBACK_SHARED ?
				     0 :
				     rewrite_route(d->found[i], cwnd, rwnd,
						   how == ROUTE_TAKEBACK_DELETE);
		(*ret_n)++;
		free(d->found[i]);
	}
	free(d);
	return r;
}
