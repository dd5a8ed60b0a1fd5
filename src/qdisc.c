/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The qdiscs of the running kernel's interfaces, from an rtnetlink dump. Only
 * status uses it, and only on the real root. */
#include <errno.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "netlink.h"
#include "qdisc.h"

static struct qdisc_link *link_get(struct qdisc_link *links, size_t max, size_t *n,
				   int ifindex)
{
	for (size_t i = 0; i < *n; i++)
		if (links[i].ifindex == ifindex)
			return &links[i];
	if (*n == max)
		return NULL;
	memset(&links[*n], 0, sizeof(links[*n]));
	links[*n].ifindex = ifindex;
	if (!if_indextoname((unsigned)ifindex, links[*n].ifname))
		snprintf(links[*n].ifname, sizeof(links[*n].ifname), "if%d", ifindex);
	return &links[(*n)++];
}

static void add_qdisc(struct qdisc_link *link, const struct tcmsg *tcm, const char *kind)
{
	if (tcm->tcm_parent == TC_H_ROOT) {
		snprintf(link->root, sizeof(link->root), "%s", kind);
		return;
	}
	if (tcm->tcm_parent == TC_H_INGRESS)
		return;
	for (size_t i = 0; i < link->n_leaves; i++)
		if (strcmp(link->leaves[i], kind) == 0)
			return;
	if (link->n_leaves < QDISC_LEAVES_MAX)
		snprintf(link->leaves[link->n_leaves++], QDISC_KIND_MAX, "%s", kind);
}

static int parse_message(const struct nlmsghdr *h, struct qdisc_link *links, size_t max,
			 size_t *n)
{
	const struct tcmsg *tcm = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*tcm));
	const struct rtattr *rta;
	struct qdisc_link *link;

	if (len < 0)
		return -EBADMSG;
	for (rta = (const struct rtattr *)((const char *)tcm + NLMSG_ALIGN(sizeof(*tcm)));
	     RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		char kind[QDISC_KIND_MAX];

		if (rta->rta_type != TCA_KIND)
			continue;
		snprintf(kind, sizeof(kind), "%.*s", (int)RTA_PAYLOAD(rta),
			 (const char *)RTA_DATA(rta));
		link = link_get(links, max, n, tcm->tcm_ifindex);
		if (link)
			add_qdisc(link, tcm, kind);
	}
	return 0;
}

struct qdisc_dump {
	struct qdisc_link *links;
	size_t max, n;
};

static int qdisc_each(const struct nlmsghdr *h, void *data)
{
	struct qdisc_dump *d = data;

	return parse_message(h, d->links, d->max, &d->n);
}

int qdisc_list(struct qdisc_link *links, size_t max, size_t *ret_n)
{
	const struct tcmsg tcm = { .tcm_family = AF_UNSPEC };
	struct qdisc_dump d = { .links = links, .max = max };
	int r;

	r = netlink_dump(RTM_GETQDISC, &tcm, sizeof(tcm), RTM_NEWQDISC, qdisc_each, &d);
	if (r < 0)
		return r;
	*ret_n = d.n;
	return 0;
}
