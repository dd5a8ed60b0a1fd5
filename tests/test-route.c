/* SPDX-License-Identifier: GPL-2.0-or-later */
/* route_parse on RTM_NEWROUTE messages built here the way the kernel lays
 * them out: which routes are default routes of the main table, and the
 * gateway, interface, protocol, metric, ToS and initial windows read from
 * them. And route_takeback_plan: which routes the upgrade may take the
 * windows off, on lists of default routes as the kernel would hold them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>

#include "route.h"
#include "util.h"

struct message {
	struct nlmsghdr h;
	struct rtmsg rtm;
	char attrs[512];
} __attribute__((aligned(NLMSG_ALIGNTO)));

static void message_init(struct message *m, int family, unsigned char dst_len,
			 unsigned char table, unsigned char protocol)
{
	memset(m, 0, sizeof(*m));
	m->h.nlmsg_type = RTM_NEWROUTE;
	m->h.nlmsg_len = NLMSG_LENGTH(sizeof(m->rtm));
	m->rtm.rtm_family = (unsigned char)family;
	m->rtm.rtm_dst_len = dst_len;
	m->rtm.rtm_table = table;
	m->rtm.rtm_protocol = protocol;
	m->rtm.rtm_type = RTN_UNICAST;
}

/* Appends an attribute at the message's end, or into PARENT's payload when
 * PARENT is not NULL (then the message grows with it). */
static struct rtattr *attr_add(struct message *m, struct rtattr *parent,
			       unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta =
		(struct rtattr *)((char *)&m->h + NLMSG_ALIGN(m->h.nlmsg_len));

	assert_true((char *)rta + RTA_SPACE(len) <= (char *)m + sizeof(*m));
	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	m->h.nlmsg_len = NLMSG_ALIGN(m->h.nlmsg_len) + RTA_SPACE(len);
	if (parent)
		parent->rta_len =
			(unsigned short)((char *)&m->h + m->h.nlmsg_len - (char *)parent);
	return rta;
}

static void attr_u32(struct message *m, struct rtattr *parent, unsigned short type,
		     uint32_t v)
{
	attr_add(m, parent, type, &v, sizeof(v));
}

static void attr_gateway(struct message *m, int family, const char *text)
{
	unsigned char addr[sizeof(struct in6_addr)];

	assert_int_equal(inet_pton(family, text, addr), 1);
	attr_add(m, NULL, RTA_GATEWAY, addr,
		 family == AF_INET6 ? sizeof(struct in6_addr) : sizeof(struct in_addr));
}

/* A default route of the main table as the kernel dumps it, its metrics
 * attribute last and still empty (returned). */
static struct rtattr *default_route(struct message *m, int family, unsigned char protocol,
				    uint32_t metric, const char *gateway, uint32_t oif)
{
	message_init(m, family, 0, RT_TABLE_MAIN, protocol);
	attr_u32(m, NULL, RTA_TABLE, RT_TABLE_MAIN);
	attr_u32(m, NULL, RTA_PRIORITY, metric);
	attr_gateway(m, family, gateway);
	attr_u32(m, NULL, RTA_OIF, oif);
	return attr_add(m, NULL, RTA_METRICS, NULL, 0);
}

static void assert_route(const struct route_default *rt, const struct route_default *want)
{
	assert_int_equal(rt->family, want->family);
	assert_string_equal(rt->gateway, want->gateway);
	assert_int_equal(rt->ifindex, want->ifindex);
	assert_int_equal(rt->protocol, want->protocol);
	assert_int_equal(rt->metric, want->metric);
	assert_int_equal(rt->initcwnd, want->initcwnd);
	assert_int_equal(rt->initrwnd, want->initrwnd);
}

/* ip route add default via 192.0.2.1 dev if3 proto dhcp metric 100
 * initcwnd 32 initrwnd 40 */
static void test_ipv4_default_with_windows(void **state _unused_)
{
	struct message m;
	struct route_default rt;
	struct rtattr *metrics;

	metrics = default_route(&m, AF_INET, RTPROT_DHCP, 100, "192.0.2.1", 3);
	attr_u32(&m, metrics, RTAX_INITCWND, 32);
	attr_u32(&m, metrics, RTAX_INITRWND, 40);
	assert_int_equal(route_parse(&m.h, &rt), 1);
	assert_route(&rt, &(struct route_default){ .family = AF_INET,
						   .gateway = "192.0.2.1",
						   .ifindex = 3,
						   .protocol = RTPROT_DHCP,
						   .metric = 100,
						   .initcwnd = 32,
						   .initrwnd = 40 });
}

/* ip route add default tos 0x10 via 192.0.2.1 dev if3 metric 100: the ToS
 * is part of the route's key. */
static void test_ipv4_default_tos(void **state _unused_)
{
	struct message m;
	struct route_default rt;

	default_route(&m, AF_INET, RTPROT_BOOT, 100, "192.0.2.1", 3);
	m.rtm.rtm_tos = 0x10;
	assert_int_equal(route_parse(&m.h, &rt), 1);
	assert_int_equal(rt.tos, 0x10);
	assert_int_equal(rt.metric, 100);

	default_route(&m, AF_INET, RTPROT_BOOT, 100, "192.0.2.1", 3);
	assert_int_equal(route_parse(&m.h, &rt), 1);
	assert_int_equal(rt.tos, 0);
}

/* An IPv6 default route from a router advertisement, no windows of its own:
 * both 0, the kernel's. */
static void test_ipv6_default_from_ra(void **state _unused_)
{
	struct message m;
	struct route_default rt;
	struct rtattr *metrics;

	metrics = default_route(&m, AF_INET6, RTPROT_RA, 1024, "fe80::1", 2);
	attr_u32(&m, metrics, RTAX_HOPLIMIT, 64);
	assert_int_equal(route_parse(&m.h, &rt), 1);
	assert_route(&rt, &(struct route_default){ .family = AF_INET6,
						   .gateway = "fe80::1",
						   .ifindex = 2,
						   .protocol = RTPROT_RA,
						   .metric = 1024 });
}

/* Not listed: a route to a prefix, a default route of another table (the
 * RTA_TABLE attribute wins over the header's byte, which holds at most 255),
 * a blackhole default, another family. */
static void test_not_default_routes(void **state _unused_)
{
	struct message m;
	struct route_default rt;

	message_init(&m, AF_INET, 24, RT_TABLE_MAIN, RTPROT_STATIC);
	assert_int_equal(route_parse(&m.h, &rt), 0);

	message_init(&m, AF_INET, 0, RT_TABLE_COMPAT, RTPROT_STATIC);
	attr_u32(&m, NULL, RTA_TABLE, 1000);
	assert_int_equal(route_parse(&m.h, &rt), 0);

	message_init(&m, AF_INET, 0, RT_TABLE_MAIN, RTPROT_STATIC);
	attr_u32(&m, NULL, RTA_TABLE, 100);
	assert_int_equal(route_parse(&m.h, &rt), 0);

	message_init(&m, AF_INET, 0, RT_TABLE_MAIN, RTPROT_STATIC);
	m.rtm.rtm_type = RTN_BLACKHOLE;
	assert_int_equal(route_parse(&m.h, &rt), 0);

	message_init(&m, AF_BRIDGE, 0, RT_TABLE_MAIN, RTPROT_STATIC);
	assert_int_equal(route_parse(&m.h, &rt), 0);
}

/* Appends to the multipath attribute MP a hop through IFINDEX and GATEWAY. */
static void nexthop_add(struct message *m, struct rtattr *mp, int ifindex,
			const char *gateway)
{
	struct rtnexthop *nh = (struct rtnexthop *)((char *)&m->h + m->h.nlmsg_len);
	unsigned char gw[4];

	assert_true((char *)(nh + 1) <= (char *)m + sizeof(*m));
	memset(nh, 0, sizeof(*nh));
	nh->rtnh_ifindex = ifindex;
	m->h.nlmsg_len += sizeof(*nh);
	assert_int_equal(inet_pton(AF_INET, gateway, gw), 1);
	attr_add(m, mp, RTA_GATEWAY, gw, sizeof(gw));
	nh->rtnh_len = (unsigned short)((char *)&m->h + m->h.nlmsg_len - (char *)nh);
}

/* ip route add default metric M nexthop via 198.51.100.1 dev if7
 * nexthop via 192.0.2.1 dev if2 */
static void multipath_route(struct message *m, int first, uint32_t metric)
{
	struct rtattr *mp;

	message_init(m, AF_INET, 0, RT_TABLE_MAIN, RTPROT_BOOT);
	attr_u32(m, NULL, RTA_TABLE, RT_TABLE_MAIN);
	attr_u32(m, NULL, RTA_PRIORITY, metric);
	mp = attr_add(m, NULL, RTA_MULTIPATH, NULL, 0);
	nexthop_add(m, mp, first, "198.51.100.1");
	nexthop_add(m, mp, 2, "192.0.2.1");
}

/* A multipath default route: no RTA_OIF of its own, its first hop's
 * interface and gateway stand for it. */
static void test_multipath(void **state _unused_)
{
	struct message m;
	struct route_default rt;

	multipath_route(&m, 7, 0);
	assert_int_equal(route_parse(&m.h, &rt), 1);
	assert_int_equal(rt.ifindex, 7);
	assert_string_equal(rt.gateway, "198.51.100.1");
	assert_true(rt.multipath);

	default_route(&m, AF_INET, RTPROT_BOOT, 0, "198.51.100.1", 7);
	assert_int_equal(route_parse(&m.h, &rt), 1);
	assert_false(rt.multipath);
}

/* A message shorter than its header, and attributes whose lengths run past
 * the message, are never read beyond it. */
static void test_truncated(void **state _unused_)
{
	struct message m;
	struct route_default rt;
	struct rtattr *metrics;

	message_init(&m, AF_INET, 0, RT_TABLE_MAIN, RTPROT_BOOT);
	m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.rtm)) - 1;
	assert_int_equal(route_parse(&m.h, &rt), -EBADMSG);

	message_init(&m, AF_INET, 0, RT_TABLE_MAIN, RTPROT_BOOT);
	metrics = attr_add(&m, NULL, RTA_METRICS, NULL, 0);
	attr_u32(&m, metrics, RTAX_INITCWND, 32);
	metrics->rta_len = 200; /* beyond the message: RTA_OK stops there */
	assert_int_equal(route_parse(&m.h, &rt), 1);
	assert_int_equal(rt.initcwnd, 0);

	/* A gateway too short for its family is no gateway. */
	message_init(&m, AF_INET6, 0, RT_TABLE_MAIN, RTPROT_BOOT);
	attr_add(&m, NULL, RTA_GATEWAY, "\xfe\x80", 2);
	assert_int_equal(route_parse(&m.h, &rt), 1);
	assert_string_equal(rt.gateway, "");
}

/* --- route_takeback_plan ------------------------------------------------- */

/* A unicast route of protocol boot (ip route add), as the kernel dumps it. */
#define V4(dev, gw, m, t, cw, rw)  \
	{ .family = AF_INET,       \
	  .type = RTN_UNICAST,     \
	  .ifindex = (dev),        \
	  .gateway = (gw),         \
	  .protocol = RTPROT_BOOT, \
	  .metric = (m),           \
	  .tos = (t),              \
	  .initcwnd = (cw),        \
	  .initrwnd = (rw) }
#define V6(dev, gw, m, cw, rw)     \
	{ .family = AF_INET6,      \
	  .type = RTN_UNICAST,     \
	  .ifindex = (dev),        \
	  .gateway = (gw),         \
	  .protocol = RTPROT_BOOT, \
	  .metric = (m),           \
	  .initcwnd = (cw),        \
	  .initrwnd = (rw) }
/* ip route add unreachable|blackhole default metric M: IPv4's has neither
 * interface nor gateway, IPv6's is dumped through lo (1). */
#define REJECT4(t, m) \
	{ .family = AF_INET, .type = (t), .protocol = RTPROT_BOOT, .metric = (m) }
#define REJECT6(t, m)              \
	{ .family = AF_INET6,      \
	  .type = (t),             \
	  .ifindex = 1,            \
	  .protocol = RTPROT_BOOT, \
	  .metric = (m) }

/* The interfaces: 1 is lo, 2 is nta, 3 is ntb, whose route ROUTES[I] has
 * the windows 32 and 32 to take off. */
struct plan_case {
	const char *why;
	struct route_default routes[4];
	size_t n;
	size_t i;
	enum route_takeback want;
};

static const struct plan_case plan_cases[] = {
	/* REPLACE: no other route has the key. */
	{ "alone: no other route to replace",
	  { V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  1,
	  0,
	  ROUTE_TAKEBACK_REPLACE },
	{ "IPv6 alone: no other route to replace",
	  { V6(3, "fe80::2", 1024, 32, 32) },
	  1,
	  0,
	  ROUTE_TAKEBACK_REPLACE },
	{ "an IPv6 route of the same metric is of another family, so another key",
	  { V4(3, "198.51.100.1", 100, 0, 32, 32), V6(2, "fe80::1", 100, 0, 0) },
	  2,
	  0,
	  ROUTE_TAKEBACK_REPLACE },
	{ "a route of another metric through the same interface is another key",
	  { V4(3, "198.51.100.1", 200, 0, 0, 0), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_REPLACE },
	{ "IPv6: another interface's route of another metric is another key",
	  { V6(2, "fe80::1", 100, 0, 0), V6(3, "fe80::2", 1024, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_REPLACE },
	{ "an unreachable route of another metric is another key",
	  { REJECT4(RTN_UNREACHABLE, 200), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_REPLACE },
	/* IPv4's ToS is part of the key. */
	{ "ToS: the plain route of the same metric is another key",
	  { V4(3, "198.51.100.1", 100, 0, 0, 0),
	    V4(3, "198.51.100.1", 100, 0x10, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_REPLACE },
	{ "ToS: a ToS route of the same metric is another key than the plain one",
	  { V4(3, "198.51.100.1", 100, 0x10, 0, 0),
	    V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_REPLACE },
	{ "ToS: another interface's plain route of the same metric is another key",
	  { V4(2, "192.0.2.1", 100, 0, 0, 0), V4(3, "198.51.100.1", 100, 0x10, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_REPLACE },

	/* SHARED: NLM_F_REPLACE could replace the other route of the key. */
	{ "another interface's route of the same key, listed before",
	  { V4(2, "192.0.2.1", 100, 0, 0, 0), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "another interface's route of the same key, listed after",
	  { V4(3, "198.51.100.1", 100, 0, 32, 32), V4(2, "192.0.2.1", 100, 0, 0, 0) },
	  2,
	  0,
	  ROUTE_TAKEBACK_SHARED },
	{ "another interface's route of the same key with windows of its own",
	  { V4(2, "192.0.2.1", 100, 0, 32, 32), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "another interface's route through the same (link-local) gateway is no twin",
	  { V4(2, "169.254.0.1", 100, 0, 0, 0), V4(3, "169.254.0.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "a route of the same interface through another gateway is no twin",
	  { V4(3, "198.51.100.2", 100, 0, 0, 0), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "a multipath route whose first hop is ours is no twin: it goes through nta too",
	  { { .family = AF_INET,
	      .type = RTN_UNICAST,
	      .ifindex = 3,
	      .multipath = true,
	      .gateway = "198.51.100.1",
	      .protocol = RTPROT_BOOT,
	      .metric = 100 },
	    V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "nor is the route of a multipath one's first hop its twin",
	  { V4(3, "198.51.100.1", 100, 0, 0, 0),
	    { .family = AF_INET,
	      .type = RTN_UNICAST,
	      .ifindex = 3,
	      .multipath = true,
	      .gateway = "198.51.100.1",
	      .protocol = RTPROT_BOOT,
	      .metric = 100,
	      .initcwnd = 32,
	      .initrwnd = 32 } },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "ToS: the same ToS through another gateway is no twin",
	  { V4(3, "198.51.100.2", 100, 0x10, 0, 0),
	    V4(3, "198.51.100.1", 100, 0x10, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "a route of another protocol is no twin",
	  { { .family = AF_INET,
	      .type = RTN_UNICAST,
	      .ifindex = 3,
	      .gateway = "198.51.100.1",
	      .protocol = RTPROT_DHCP,
	      .metric = 100 },
	    V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "a local route through the same interface is no twin: it would be left alone",
	  { { .family = AF_INET,
	      .type = RTN_LOCAL,
	      .ifindex = 3,
	      .protocol = RTPROT_BOOT,
	      .metric = 100 },
	    V4(3, "", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "a twin with another initial congestion window has windows of its own",
	  { V4(3, "198.51.100.1", 100, 0, 20, 0), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "a twin with only a receive window has a window of its own",
	  { V4(3, "198.51.100.1", 100, 0, 0, 40), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "a twin with other windows than the ones taken off has windows of its own",
	  { V4(3, "198.51.100.1", 100, 0, 20, 20), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "an unreachable route of the same key is the first of it, to be replaced",
	  { REJECT4(RTN_UNREACHABLE, 100), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "a blackhole route of the same key, listed after, shares it all the same",
	  { V4(3, "198.51.100.1", 100, 0, 32, 32), REJECT4(RTN_BLACKHOLE, 100) },
	  2,
	  0,
	  ROUTE_TAKEBACK_SHARED },
	{ "IPv6: an unreachable route (through lo) of the same metric shares the key",
	  { REJECT6(RTN_UNREACHABLE, 1024), V6(3, "fe80::2", 1024, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	{ "IPv6: another interface's route of the same metric shares the key",
	  { V6(2, "fe80::1", 1024, 0, 0), V6(3, "fe80::2", 1024, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },
	/* IPv6 holds no two routes that differ only in their windows, nor
	 * deletes by them: were a twin listed, it is left. */
	{ "IPv6: a twin is left, since IPv6 does not match a deletion by windows",
	  { V6(3, "fe80::2", 1024, 0, 0), V6(3, "fe80::2", 1024, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_SHARED },

	/* DELETE: a manager added its route again beside the one with the
	 * windows; RTM_DELROUTE matched by the windows takes this one. */
	{ "an IPv4 twin without the windows, listed before",
	  { V4(3, "198.51.100.1", 100, 0, 0, 0), V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_DELETE },
	{ "an IPv4 twin without the windows, listed after",
	  { V4(3, "198.51.100.1", 100, 0, 32, 32), V4(3, "198.51.100.1", 100, 0, 0, 0) },
	  2,
	  0,
	  ROUTE_TAKEBACK_DELETE },
	{ "a twin, beside another interface's route: deleting by the windows takes ours",
	  { V4(2, "192.0.2.1", 100, 0, 0, 0), V4(3, "198.51.100.1", 100, 0, 0, 0),
	    V4(3, "198.51.100.1", 100, 0, 32, 32) },
	  3,
	  2,
	  ROUTE_TAKEBACK_DELETE },
	{ "ToS: a twin of the same ToS",
	  { V4(3, "198.51.100.1", 100, 0x10, 32, 32),
	    V4(3, "198.51.100.1", 100, 0x10, 0, 0) },
	  2,
	  0,
	  ROUTE_TAKEBACK_DELETE },
	{ "a twin through no gateway (a point-to-point link)",
	  { V4(3, "", 100, 0, 0, 0), V4(3, "", 100, 0, 32, 32) },
	  2,
	  1,
	  ROUTE_TAKEBACK_DELETE },
};

static void test_takeback_plan(void **state _unused_)
{
	static const char *const name[] = {
		[ROUTE_TAKEBACK_REPLACE] = "REPLACE",
		[ROUTE_TAKEBACK_DELETE] = "DELETE",
		[ROUTE_TAKEBACK_SHARED] = "SHARED",
	};
	unsigned failed = 0;

	for (size_t c = 0; c < ELEMENTSOF(plan_cases); c++) {
		const struct plan_case *pc = &plan_cases[c];
		enum route_takeback how = route_takeback_plan(pc->routes, pc->n, pc->i);

		if (how != pc->want) {
			print_error("%s: %s, not %s\n", pc->why, name[how],
				    name[pc->want]);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

/* The same, from the messages the kernel dumps: the multipath route's
 * first hop is through ntb and its gateway. Deleting the route with the
 * windows would leave the multipath one, and nta with ntb's traffic. */
static void test_takeback_beside_multipath(void **state _unused_)
{
	struct route_default routes[2];
	struct message m;
	struct rtattr *metrics;

	multipath_route(&m, 3, 100);
	assert_int_equal(route_parse(&m.h, &routes[0]), 1);
	metrics = default_route(&m, AF_INET, RTPROT_BOOT, 100, "198.51.100.1", 3);
	attr_u32(&m, metrics, RTAX_INITCWND, 32);
	attr_u32(&m, metrics, RTAX_INITRWND, 32);
	assert_int_equal(route_parse(&m.h, &routes[1]), 1);
	assert_int_equal(route_takeback_plan(routes, 2, 1), ROUTE_TAKEBACK_SHARED);
}

static void test_names(void **state _unused_)
{
	char buf[16];

	assert_string_equal(route_family_to_string(AF_INET), "ipv4");
	assert_string_equal(route_family_to_string(AF_INET6), "ipv6");
	assert_string_equal(route_protocol_to_string(RTPROT_DHCP, buf, sizeof(buf)),
			    "dhcp");
	assert_string_equal(route_protocol_to_string(RTPROT_RA, buf, sizeof(buf)), "ra");
	assert_string_equal(route_protocol_to_string(RTPROT_BOOT, buf, sizeof(buf)),
			    "boot");
	assert_string_equal(route_protocol_to_string(RTPROT_STATIC, buf, sizeof(buf)),
			    "static");
	assert_string_equal(route_protocol_to_string(RTPROT_KERNEL, buf, sizeof(buf)),
			    "kernel");
	assert_string_equal(route_protocol_to_string(186, buf, sizeof(buf)), "186");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_default_with_windows),
		cmocka_unit_test(test_ipv4_default_tos),
		cmocka_unit_test(test_ipv6_default_from_ra),
		cmocka_unit_test(test_not_default_routes),
		cmocka_unit_test(test_multipath),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_takeback_plan),
		cmocka_unit_test(test_takeback_beside_multipath),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
