/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The default routes of the running kernel and the initial windows they set,
 * from an rtnetlink dump, on the real root only: an initial window is a
 * route attribute, not a sysctl, and no file under /proc holds it. And the
 * one change the helper makes to a route: the same route again, with the
 * windows, for the hooks of network managers that have no setting of their
 * own for them. */
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

int route_parse(const struct nlmsghdr *h, struct route_default *ret)
{
	const struct rtmsg *rtm = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*rtm));
	uint32_t table;

	if (len < 0)
		return -EBADMSG;
	if (rtm->rtm_dst_len != 0 || rtm->rtm_type != RTN_UNICAST ||
	    (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6))
		return 0;
	memset(ret, 0, sizeof(*ret));
	ret->family = rtm->rtm_family;
	ret->protocol = rtm->rtm_protocol;
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
			parse_multipath(rta, ret->family, ret);
			break;
		default:
			break;
		}
	}
	return table == RT_TABLE_MAIN ? 1 : 0;
}

struct route_dump {
	struct route_default *routes;
	size_t max, n, more;
};

static int route_each(const struct nlmsghdr *h, void *data)
{
	struct route_dump *d = data;
	struct route_default route;
	int r;

	r = route_parse(h, &route);
	if (r <= 0)
		return r;
	if (d->n == d->max) {
		d->more++;
		return 0;
	}
	if (route.ifindex <= 0 || !if_indextoname((unsigned)route.ifindex, route.ifname))
		route.ifname[0] = '\0';
	d->routes[d->n++] = route;
	return 0;
}

/* One dump of every family (AF_UNSPEC): a request for AF_INET6 alone, on a
 * kernel booted with ipv6.disable=1, would be answered by that same dump
 * and list the IPv4 routes twice. IPv4 first, each family in the kernel's
 * order. */
int route_list_defaults(struct route_default *routes, size_t max, size_t *ret_n,
			size_t *ret_more)
{
	const struct rtmsg rtm = { .rtm_family = AF_UNSPEC };
	struct route_dump d = { .routes = routes, .max = max };
	size_t n4 = 0;
	int r;

	r = netlink_dump(RTM_GETROUTE, &rtm, sizeof(rtm), RTM_NEWROUTE, route_each, &d);
	if (r < 0)
		return r;
	for (size_t i = 0; i < d.n; i++)
		if (routes[i].family == AF_INET) {
			struct route_default v4 = routes[i];

			memmove(&routes[n4 + 1], &routes[n4],
				(i - n4) * sizeof(routes[0]));
			routes[n4++] = v4;
		}
	*ret_n = d.n;
	*ret_more = d.more;
	return 0;
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

/* --- Giving a route its windows ------------------------------------------ */

struct windows_dump {
	int ifindex;
	uint32_t cwnd, rwnd; /* the routes' windows now */
	uint32_t to_cwnd, to_rwnd; /* and the ones they are to have */
	struct nlmsghdr *found[ROUTE_DEFAULTS_MAX];
	size_t n;
	/* The routes through the interface that have them already. */
	struct route_default twins[ROUTE_DEFAULTS_MAX];
	size_t n_twins;
};

static bool has_attr(const struct nlmsghdr *h, unsigned short type)
{
	const struct rtmsg *rtm = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*rtm));

	for (const struct rtattr *rta = RTM_RTA(rtm); RTA_OK(rta, len);
	     rta = RTA_NEXT(rta, len))
		if (rta->rta_type == type)
			return true;
	return false;
}

/* A copy of each default route through the interface whose windows are the
 * ones sought, and that is neither multipath nor a router advertisement's. */
static int windows_each(const struct nlmsghdr *h, void *data)
{
	struct windows_dump *d = data;
	struct route_default rt;
	int r = route_parse(h, &rt);

	if (r <= 0)
		return r;
	if (rt.ifindex != d->ifindex || rt.protocol == RTPROT_RA ||
	    has_attr(h, RTA_MULTIPATH))
		return 0;
	if (rt.initcwnd == d->to_cwnd && rt.initrwnd == d->to_rwnd &&
	    d->n_twins < ELEMENTSOF(d->twins))
		d->twins[d->n_twins++] = rt;
	if (rt.initcwnd != d->cwnd || rt.initrwnd != d->rwnd ||
	    d->n == ELEMENTSOF(d->found))
		return 0;
	d->found[d->n] = malloc(h->nlmsg_len);
	if (!d->found[d->n])
		return -ENOMEM;
	memcpy(d->found[d->n++], h, h->nlmsg_len);
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

/* Two IPv4 routes the kernel keeps side by side: the same gateway through
 * the same interface, from the same protocol, with the same priority. */
static bool same_route(const struct route_default *a, const struct route_default *b)
{
	return a->family == AF_INET && b->family == AF_INET && a->ifindex == b->ifindex &&
	       a->protocol == b->protocol && a->metric == b->metric &&
	       strcmp(a->gateway, b->gateway) == 0;
}

/* ORIG again, with NLM_F_REPLACE and without NLM_F_CREATE (a route gone
 * meanwhile is not made again), its other metrics and the windows CWND and
 * RWND (none where 0). What the kernel reports and does not take back is
 * left out: the cache info, and of the flags all but onlink.
 *
 * With DELETE, ORIG goes instead (RTM_DELROUTE), matched by its windows
 * too, given as CWND and RWND (0 for none), so that of two IPv4 routes that
 * differ only in them the kernel deletes this one (fib_metrics_match). */
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
	if (((cwnd || delete) &&
	     !append(&req.h, sizeof(req), RTAX_INITCWND, &cwnd, sizeof(cwnd))) ||
	    ((rwnd || delete) &&
	     !append(&req.h, sizeof(req), RTAX_INITRWND, &rwnd, sizeof(rwnd))))
		return -E2BIG;
	nest->rta_len = (unsigned short)((char *)&req.h + req.h.nlmsg_len - (char *)nest);
	return netlink_request(&req.h);
}

int route_set_windows(int ifindex, uint32_t from_cwnd, uint32_t from_rwnd, uint32_t cwnd,
		      uint32_t rwnd, struct route_default *done, size_t max,
		      size_t *ret_n)
{
	const struct rtmsg rtm = { .rtm_family = AF_UNSPEC };
	struct windows_dump d = { .ifindex = ifindex,
				  .cwnd = from_cwnd,
				  .rwnd = from_rwnd,
				  .to_cwnd = cwnd,
				  .to_rwnd = rwnd };
	int r;

	*ret_n = 0;
	r = netlink_dump(RTM_GETROUTE, &rtm, sizeof(rtm), RTM_NEWROUTE, windows_each, &d);
	for (size_t i = 0; i < d.n; i++) {
		struct route_default *rt = &done[*ret_n], found;
		bool twin = false;

		/* A manager that adds its route again beside the one with the
		 * windows (NetworkManager at a DHCP renewal) leaves two IPv4
		 * routes that differ only in them: the one that has the
		 * windows wanted stays, the other goes. */
		if (route_parse(d.found[i], &found) == 1)
			for (size_t j = 0; j < d.n_twins && !twin; j++)
				twin = same_route(&found, &d.twins[j]);
		if (r == 0 && twin)
			r = rewrite_route(d.found[i], from_cwnd, from_rwnd, true);
		else if (r == 0)
			r = rewrite_route(d.found[i], cwnd, rwnd, false);
		if (r == 0 && *ret_n < max && route_parse(d.found[i], rt) == 1) {
			if (!if_indextoname((unsigned)ifindex, rt->ifname))
				rt->ifname[0] = '\0';
			rt->initcwnd = cwnd;
			rt->initrwnd = rwnd;
			(*ret_n)++;
		}
		free(d.found[i]);
	}
	return r;
}
