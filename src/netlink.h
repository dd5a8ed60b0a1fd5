/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>

/* One rtnetlink dump request: TYPE (RTM_GETQDISC, RTM_GETROUTE) with BODY,
 * the family's header (struct tcmsg, struct rtmsg), after the netlink
 * header. Each message of type WANT is passed to EACH, which returns 0 to go
 * on or a negative errno to stop the dump with it. Returns 0 once the kernel
 * says the dump is done, or a negative errno. */
int netlink_dump(uint16_t type, const void *body, size_t body_len, uint16_t want,
		 int (*each)(const struct nlmsghdr *h, void *data), void *data);

/* One rtnetlink request, REQ complete but for its flags' REQUEST and ACK
 * and its sequence number, which are set here: 0 once the kernel
 * acknowledges it, or the negative errno it answers with. */
int netlink_request(struct nlmsghdr *req);
