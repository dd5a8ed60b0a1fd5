/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: any bytes as a sysctl.d file, read strictly (our
 * fragment) and as another package's file filtered by our keys. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sysctld.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore(void *userdata, const char *file, unsigned line, int error)
{
	(void)userdata;
	(void)file;
	(void)line;
	(void)error;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sysctld_report report = { ignore, NULL };
	struct assignment mine[] = { { .key = "net.core.somaxconn" },
				     { .key = "net.ipv4.tcp_rmem" } };
	struct assignments ours = { .n = 2, .items = mine };
	struct assignments a = { 0 };
	FILE *f;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	(void)sysctld_parse_stream(f, "/fuzz.conf", true, NULL, &a, &report);
	for (size_t i = 0; i < a.n; i++)
		if (!sysctl_key_valid(a.items[i].key) || a.items[i].value[0] == '\0')
			__builtin_trap();
	assignments_free(&a);
	rewind(f);
	(void)sysctld_parse_stream(f, "/fuzz.conf", false, &ours, &a, &report);
	for (size_t i = 0; i < a.n; i++)
		(void)sysctld_winner(&a, a.items[i].key);
	assignments_free(&a);
	fclose(f);
	return 0;
}
