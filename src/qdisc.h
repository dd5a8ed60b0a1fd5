/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <net/if.h>
#include <stddef.h>

#define QDISC_KIND_MAX 16
#define QDISC_LEAVES_MAX 4

/* The qdiscs of one interface: its root and the distinct kinds below it
 * (a multiqueue NIC has "mq" at the root and one leaf per queue). */
struct qdisc_link {
	int ifindex;
	char ifname[IF_NAMESIZE];
	char root[QDISC_KIND_MAX];
	size_t n_leaves;
	char leaves[QDISC_LEAVES_MAX][QDISC_KIND_MAX];
};

int qdisc_list(struct qdisc_link *links, size_t max, size_t *ret_n);
