/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "sysctld.h"

static char *render(const struct sysinfo *info, enum congestion choice, bool modules)
{
	struct profile p;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	profile_compute(info, choice, &p);
	if (modules)
		render_modules(&p, f);
	else
		render_sysctl(&p, f);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* A machine of CPUS and MEM_KIB whose kernel has tcp_bbr and sch_fq so. */
static struct sysinfo machine(unsigned cpus, uint64_t mem_kib, enum modstate bbr,
			      enum modstate fq)
{
	struct sysinfo info = { .cpus = cpus, .mem_kib = mem_kib };

	assert_int_equal(sysinfo_set_module_state(&info, "tcp_bbr", bbr), 0);
	assert_int_equal(sysinfo_set_module_state(&info, "sch_fq", fq), 0);
	return info;
}

/* Every assignment parses strictly, comes after its reason, and global keys
 * carry the "-" prefix; the marker line says what the fragment is for. */
static void test_sysctl_shape(void **state _unused_)
{
	struct sysinfo info = machine(2, 2u << 20, MODSTATE_MODULE, MODSTATE_MODULE);
	char *text = render(&info, CONGESTION_AUTO, false), *save = NULL, *prev = NULL;
	size_t assignments = 0;

	assert_non_null(strstr(text, "\n# wp-panel-nettune: cpus=2 congestion=auto\n"));
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct assignment a;

		if (sysctld_parse_line(line, true, &a) != 0) {
			prev = line;
			continue;
		}
		assignments++;
		assert_non_null(prev);
		assert_true(prev[0] == '#');
		for (size_t i = 0; i < n_tunables; i++)
			if (strcmp(tunables[i].key, a.key) == 0) {
				assert_string_equal(prev + 2, tunables[i].reason);
				assert_int_equal(a.ignore_failure,
						 tunables[i].scope == SCOPE_GLOBAL);
			}
		prev = line;
	}
	assert_int_equal(assignments, n_tunables);
	free(text);
}

/* One CPU and 512 MiB: no congestion control or qdisc, smaller buffers. */
static void test_one_cpu_small_memory(void **state _unused_)
{
	struct sysinfo info = machine(1, 500000, MODSTATE_MODULE, MODSTATE_MISSING);
	char *text = render(&info, CONGESTION_AUTO, false);

	assert_non_null(strstr(text, "\nnet.ipv4.tcp_congestion_control = cubic\n"));
	assert_non_null(strstr(text, "\n-net.core.default_qdisc = fq_codel\n"));
	assert_null(strstr(text, "bbr\n"));
	assert_non_null(strstr(text, "# Buffers: at most 8192 KiB, 1/64 of memory"));
	assert_non_null(strstr(text, "\n-net.core.rmem_max = 8388608\n"));
	free(text);
}

static void test_modules(void **state _unused_)
{
	struct sysinfo info = machine(2, 2u << 20, MODSTATE_MODULE, MODSTATE_MODULE);
	char *text;

	text = render(&info, CONGESTION_AUTO, true);
	assert_non_null(strstr(text, "\ntcp_bbr\n"));
	free(text);

	info = machine(2, 2u << 20, MODSTATE_BUILTIN, MODSTATE_MODULE);
	text = render(&info, CONGESTION_AUTO, true);
	assert_null(strstr(text, "\ntcp_bbr\n"));
	assert_non_null(strstr(text, "built into this kernel"));
	free(text);

	info = machine(2, 2u << 20, MODSTATE_MODULE, MODSTATE_MODULE);
	text = render(&info, CONGESTION_CUBIC, true);
	assert_null(strstr(text, "\ntcp_bbr\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysctl_shape),
		cmocka_unit_test(test_one_cpu_small_memory),
		cmocka_unit_test(test_modules),
	};

	return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
