/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The leave-alone policy: where the helper must not touch the running
 * kernel, decided once for every command that would. */
#include <stdio.h>
#include <stdlib.h>

#include "i18n.h"
#include "offlimits.h"
#include "utf8.h"

/* Why the running kernel must be left alone, if it must: the one decision,
 * for apply, revert, initwnd and detect --may-tune (which the postinst and the
 * first-boot unit ask). An image being built under DPKG_ROOT, containers
 * and chroots share or fake the kernel: changing it from inside would tune
 * someone else's machine, or the build host. Returns NULL when the kernel
 * may be tuned, else the kind of place, a word that stays the same for the
 * scripts to branch on (dpkg-root, container, chroot, read-only), with the
 * reason for people in REASON. debian/postrm, which runs after the helper
 * is gone, reads this decision from the seal the prerm had the helper write
 * (journal --seal); tests/leave-alone-test.sh asks both. */
const char *kernel_off_limits(const struct context *ctx, const struct sysinfo *info,
			      char *reason, size_t size)
{
	const char *dpkg_root = getenv("DPKG_ROOT");

	if (dpkg_root && dpkg_root[0] != '\0') {
		snprintf(reason, size, "DPKG_ROOT is %s: not the running system",
			 dpkg_root);
		return "dpkg-root";
	}
	if (info->environment == ENVIRONMENT_CONTAINER) {
		snprintf(reason, size, "running in a container (%s)",
			 info->container[0] ? info->container : "unknown");
		return "container";
	}
	if (info->environment == ENVIRONMENT_CHROOT) {
		snprintf(reason, size, "%s",
			 info->pid_ns_on_host_net ?
				 "running in a PID namespace of its own, in the host's network namespace" :
				 "running in a chroot");
		return "chroot";
	}
	if (!info->net_writable) {
		snprintf(reason, size, "%s/proc/sys/net is read-only", ctx->root);
		return "read-only";
	}
	return NULL;
}

/* For apply and revert: says why they do nothing, if they must not. */
bool kernel_off_limits_say(const struct context *ctx, const struct sysinfo *info)
{
	char reason[PATH_MAX_LEN + 64];

	if (!kernel_off_limits(ctx, info, reason, sizeof(reason)))
		return false;
	printf(_("%s: leaving the running kernel alone.\n"), reason);
	return true;
}

/* The decision as detect --may-tune prints it and the seal records it,
 * "KIND: REASON" with the reason escaped, in LINE; the kind, or NULL (and
 * LINE empty) when the kernel may be tuned. */
const char *kernel_off_limits_line(const struct context *ctx, const struct sysinfo *info,
				   char *line, size_t size)
{
	char reason[PATH_MAX_LEN + 64], shown[TEXT_ESCAPED_SIZE(sizeof(reason))];
	const char *kind = kernel_off_limits(ctx, info, reason, sizeof(reason));

	line[0] = '\0';
	if (kind)
		snprintf(line, size, "%s: %s", kind,
			 text_escape(reason, shown, sizeof(shown)));
	return kind;
}
