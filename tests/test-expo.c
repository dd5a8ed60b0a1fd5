/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"
#include "util.h"

static char *label_value_of(const char *in)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	expo_write_label_value(f, in);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The format escapes backslash, double quote and newline in a label value
 * and nothing else; invalid UTF-8 becomes U+FFFD, one per byte. */
static void test_label_value(void **state _unused_)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "/etc/sysctl.d/60-wp-panel-nettune.conf",
		  "/etc/sysctl.d/60-wp-panel-nettune.conf" },
		{ "4096 131072 16777216", "4096 131072 16777216" },
		{ "a\"b", "a\\\"b" },
		{ "a\\b", "a\\\\b" },
		{ "a\\nb", "a\\\\nb" },
		{ "new\nline", "new\\nline" },
		{ "tab\tcr\r", "tab\tcr\r" },
		{ "\xe4\xb8\xad", "\xe4\xb8\xad" },
		{ "bad\xff", "bad\xef\xbf\xbd" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *got = label_value_of(cases[i].in);

		assert_string_equal(got, cases[i].out);
		free(got);
	}
}

static void test_family_and_samples(void **state _unused_)
{
	static const struct expo_label labels[] = {
		{ "key", "net.core.somaxconn" },
		{ "file", "/etc/sysctl.d/x\"y\\z\n.conf" },
	};
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	expo_family(f, "key_drift", "1 when a key is not in effect\\at boot\nor now.");
	expo_sample(f, "key_drift", labels, ELEMENTSOF(labels), 1);
	expo_sample(f, "key_drift", NULL, 0, 0);
	expo_sample(f, "cpus", labels, 1, UINT64_MAX);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(
		text,
		"# HELP nettune_key_drift 1 when a key is not in effect\\\\at boot\\nor now.\n"
		"# TYPE nettune_key_drift gauge\n"
		"nettune_key_drift{key=\"net.core.somaxconn\","
		"file=\"/etc/sysctl.d/x\\\"y\\\\z\\n.conf\"} 1\n"
		"nettune_key_drift 0\n"
		"nettune_cpus{key=\"net.core.somaxconn\"} 18446744073709551615\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_value),
		cmocka_unit_test(test_family_and_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
