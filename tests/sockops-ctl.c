/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sock_ops loader (src/sockops.c) as a command, for
 * tests/sockops-test.sh: the helper does not call it yet.
 *
 * usage: sockops-ctl attach CGROUP PIN_DIR [PORT...]  (default 80 443)
 *        sockops-ctl read PIN_DIR
 *        sockops-ctl detach PIN_DIR
 * The windows are the package's, INITWND_SEGMENTS. Exit status 0, 1 on a
 * failure (one line: the path, the reason, the error), 2 on a usage error.
 * SOCKOPS_VERBOSE=1 lets libbpf print its messages. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "initwnd.h"
#include "sockops.h"
#include "util.h"

static int libbpf_quiet(enum libbpf_print_level level _unused_, const char *fmt _unused_,
			va_list ap _unused_)
{
	return 0;
}

static int failed(const char *path, const char *why, int r)
{
	fprintf(stderr, "sockops-ctl: %s: %s: %s\n", path, why ? why : "failed",
		strerror(-r));
	return 1;
}

static int parse_ports(int argc, char **argv, struct sockops_windows *w)
{
	uint64_t v;

	if (argc == 0) {
		w->ports[0] = 80;
		w->ports[1] = 443;
		w->n_ports = 2;
		return 0;
	}
	if ((size_t)argc > SOCKOPS_PORTS_MAX)
		return -E2BIG;
	for (int i = 0; i < argc; i++) {
		if (parse_u64(argv[i], &v) < 0 || v > UINT16_MAX)
			return -EINVAL;
		w->ports[w->n_ports++] = (uint16_t)v;
	}
	return 0;
}

static int do_attach(int argc, char **argv)
{
	struct sockops_windows w = { .cwnd = INITWND_SEGMENTS, .rwnd = INITWND_SEGMENTS };
	const char *why = NULL;
	int r;

	if (argc < 2 || parse_ports(argc - 2, argv + 2, &w) < 0)
		return 2;
	r = sockops_attach(argv[0], argv[1], &w, &why);
	if (r < 0)
		return failed(argv[0], why, r);
	puts(r > 0 ? "attached" : "already attached");
	return 0;
}

static int do_read(int argc, char **argv)
{
	struct sockops_state s;
	const char *why = NULL;
	int r;

	if (argc != 1)
		return 2;
	r = sockops_read(argv[0], &s, &why);
	if (r < 0)
		return failed(argv[0], why, r);
	printf("attached %s\ncgroup %" PRIu64 "\ncwnd %" PRIu32 "\nrwnd %" PRIu32
	       "\nports",
	       s.attached ? "yes" : "no", s.cgroup_id, s.windows.cwnd, s.windows.rwnd);
	for (size_t i = 0; i < s.windows.n_ports; i++)
		printf(" %" PRIu16, s.windows.ports[i]);
	printf("\ngiven %" PRIu64 "\n", s.given);
	return 0;
}

static int do_detach(int argc, char **argv)
{
	const char *why = NULL;
	int r;

	if (argc != 1)
		return 2;
	r = sockops_detach(argv[0], &why);
	if (r < 0)
		return failed(argv[0], why, r);
	puts(r > 0 ? "detached" : "nothing pinned");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} verbs[] = {
		{ "attach", do_attach },
		{ "read", do_read },
		{ "detach", do_detach },
	};
	const char *verbose = getenv("SOCKOPS_VERBOSE");
	int r = 2;

	if (!verbose || strcmp(verbose, "1") != 0)
		libbpf_set_print(libbpf_quiet);
	for (size_t i = 0; argc > 1 && i < ELEMENTSOF(verbs); i++)
		if (strcmp(argv[1], verbs[i].name) == 0)
			r = verbs[i].run(argc - 2, argv + 2);
	if (r == 2)
		fprintf(stderr, "usage: sockops-ctl attach CGROUP PIN_DIR [PORT...]\n"
				"       sockops-ctl read PIN_DIR\n"
				"       sockops-ctl detach PIN_DIR\n");
	if (fflush(stdout) != 0)
		return 1;
	return r;
}
