/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The qdiscs of the running kernel's interfaces, from an rtnetlink dump. Only
 * status uses it, and only on the real root. */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

int qdisc_list(struct qdisc_link *links, size_t max, size_t *ret_n)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg tcm;
	} req = {
		.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.h.nlmsg_type = RTM_GETQDISC,
		.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.h.nlmsg_seq = 1,
	};
	char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	bool done = false;
	size_t n = 0;
	int fd, r = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0)
		r = -errno;
	while (r == 0 && !done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (len == 0)
			break;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				r = e->error < 0 ? e->error : -EIO;
				break;
			}
			if (h->nlmsg_type == RTM_NEWQDISC)
				r = parse_message(h, links, max, &n);
			if (r < 0)
				break;
		}
	}
	close(fd);
	if (r < 0)
		return r;
	*ret_n = n;
	return 0;
}
