/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "utf8.h"
#include "util.h"

static void test_utf8_char_len(void **state _unused_)
{
	static const struct {
		const char *in;
		size_t len;
	} cases[] = {
		{ "a", 1 },
		{ "\x7f", 1 },
		{ "\xc3\xa9", 2 }, /* é */
		{ "\xe4\xb8\xad", 3 }, /* 中 */
		{ "\xf0\x9f\x98\x80", 4 }, /* U+1F600 */
		{ "\xf4\x8f\xbf\xbf", 4 }, /* U+10FFFF, the last */
		{ "\x80", 0 }, /* a continuation byte alone */
		{ "\xbf", 0 },
		{ "\xc0\xaf", 0 }, /* overlong "/" */
		{ "\xc1\xbf", 0 },
		{ "\xe0\x80\xaf", 0 }, /* overlong, three bytes */
		{ "\xf0\x80\x80\xaf", 0 }, /* overlong, four bytes */
		{ "\xed\xa0\x80", 0 }, /* U+D800, a surrogate */
		{ "\xed\xbf\xbf", 0 }, /* U+DFFF */
		{ "\xf4\x90\x80\x80", 0 }, /* U+110000 */
		{ "\xf5\x80\x80\x80", 0 },
		{ "\xff", 0 },
		{ "\xe4\xb8", 0 }, /* truncated */
		{ "\xe4\xb8x", 0 },
		{ "\xc3(", 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		assert_int_equal(utf8_char_len(cases[i].in, strlen(cases[i].in)),
				 cases[i].len);
	assert_int_equal(utf8_char_len("\xe4\xb8\xad", 2), 0);
	assert_int_equal(utf8_char_len("", 0), 0);
}

static char *string_of(const char *in)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	json_write_string(f, in);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* Every byte of a file name or value: escaped where JSON wants it, text as
 * it is, invalid UTF-8 one U+FFFD per byte. */
/* A terminal's columns: two for a Chinese character in a UTF-8 locale;
 * bytes, as printf's widths count, in the C locale and where the text is
 * not the locale's. */
static void test_text_width(void **state _unused_)
{
	static const struct {
		const char *locale, *s;
		size_t width;
	} cases[] = {
		{ "C.UTF-8", "KEY", 3 },
		{ "C.UTF-8", "\xe5\x8f\x82\xe6\x95\xb0", 4 }, /* 参数 */
		{ "C.UTF-8", "\xef\xbc\x88x\xef\xbc\x89", 5 }, /* （x） */
		{ "C.UTF-8", "a\xe5\x8f", 3 }, /* truncated: bytes */
		{ "C.UTF-8", "", 0 },
		{ "C", "\xe5\x8f\x82\xe6\x95\xb0", 6 },
		{ "C", "fq_codel", 8 },
	};
	char buf[64];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		assert_non_null(setlocale(LC_CTYPE, cases[i].locale));
		assert_int_equal(text_width(cases[i].s), cases[i].width);
		assert_non_null(f);
		text_print_padded(f, cases[i].s, 7);
		fclose(f);
		assert_int_equal(strlen(buf),
				 strlen(cases[i].s) +
					 (cases[i].width < 7 ? 7 - cases[i].width : 0));
	}
	setlocale(LC_CTYPE, "C");
}

static void test_json_string(void **state _unused_)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "\"\"" },
		{ "/etc/sysctl.d/60-wp-panel-nettune.conf",
		  "\"/etc/sysctl.d/60-wp-panel-nettune.conf\"" },
		{ "4096 131072 16777216", "\"4096 131072 16777216\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "a\\b", "\"a\\\\b\"" },
		{ "/", "\"/\"" },
		{ "new\nline", "\"new\\nline\"" },
		{ "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
		{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
		{ "\x1b[31m", "\"\\u001b[31m\"" },
		{ "\xe4\xb8\xad\xe6\x96\x87", "\"\xe4\xb8\xad\xe6\x96\x87\"" },
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
		{ "bad\xff.conf", "\"bad\\ufffd.conf\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
		{ "\xe4\xb8", "\"\\ufffd\\ufffd\"" },
		{ "\xe4\xb8\"", "\"\\ufffd\\ufffd\\\"\"" },
		{ "\x80\xe4\xb8\xad", "\"\\ufffd\xe4\xb8\xad\"" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *got = string_of(cases[i].in);

		assert_string_equal(got, cases[i].out);
		free(got);
	}
}

/* Commas between members and elements, none after the last, at each
 * level; names escaped like values; null for a missing string. */
static void test_json_document(void **state _unused_)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	struct json j;

	assert_non_null(f);
	json_begin(&j, f);
	json_object_open(&j, NULL);
	json_uint(&j, "schema", 1);
	json_string(&j, "file", NULL);
	json_array_open(&j, "keys");
	json_object_open(&j, NULL);
	json_string(&j, "key", "net.core.somaxconn");
	json_bool(&j, "in_effect", true);
	json_object_close(&j);
	json_object_open(&j, NULL);
	json_object_close(&j);
	json_array_close(&j);
	json_array_open(&j, "empty");
	json_array_close(&j);
	json_array_open(&j, "n");
	json_uint(&j, NULL, 0);
	json_uint(&j, NULL, UINT64_MAX);
	json_null(&j, NULL);
	json_array_close(&j);
	json_bool(&j, "q\"", false);
	json_object_close(&j);
	json_end(&j);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, "{\"schema\":1,\"file\":null,\"keys\":[{\"key\":"
				  "\"net.core.somaxconn\",\"in_effect\":true},{}],"
				  "\"empty\":[],\"n\":[0,18446744073709551615,null],"
				  "\"q\\\"\":false}\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_char_len),
		cmocka_unit_test(test_text_width),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_json_document),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
