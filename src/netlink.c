/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An rtnetlink dump, for the few facts status asks the running kernel and no
 * file under /proc or /sys holds: the qdiscs and the default routes; and a
 * request, for the one change the helper makes there: a route replaced
 * with its initial windows. */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netlink.h"

#define NETLINK_BODY_MAX 64

int netlink_dump(uint16_t type, const void *body, size_t body_len, uint16_t want,
		 int (*each)(const struct nlmsghdr *h, void *data), void *data)
{
	struct {
		struct nlmsghdr h;
		char body[NETLINK_BODY_MAX];
	} req = {
		.h.nlmsg_type = type,
		.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.h.nlmsg_seq = 1,
	};
	char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));
	bool done = false;
	int fd, r = 0;

	if (body_len > sizeof(req.body))
		return -EINVAL;
	req.h.nlmsg_len = NLMSG_LENGTH(body_len);
	memcpy(req.body, body, body_len);
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
		if (len == 0) {
			r = -EPIPE;
			break;
		}
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
			if (h->nlmsg_type == want)
				r = each(h, data);
			if (r < 0)
				break;
		}
	}
	close(fd);
	return r;
}

int netlink_request(struct nlmsghdr *req)
{
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	int fd, r = 0;

	req->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	req->nlmsg_seq = 1;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (send(fd, req, req->nlmsg_len, 0) < 0)
		r = -errno;
	while (r == 0) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0) {
			r = -errno;
			break;
		}
		if (len == 0 || !NLMSG_OK(h, (unsigned)len)) {
			r = -EPIPE;
			break;
		}
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			r = e->error;
			break;
		}
	}
	close(fd);
	return r;
}
