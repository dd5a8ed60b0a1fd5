/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prometheus' text exposition format (version 0.0.4), as the node exporter's
 * textfile collector reads it: gauges only, no timestamps (the collector
 * refuses them), names under one prefix. */
#include <stdbool.h>
#include <inttypes.h>
#include <string.h>

#include "expo.h"
#include "utf8.h"

/* The format's escapes: backslash and newline, and in a label value the
 * double quote too. The text must be UTF-8: a byte that is not part of
 * valid UTF-8 becomes U+FFFD, as in the JSON output, since the collector
 * drops a file with invalid UTF-8 in a label value. */
static void write_escaped(FILE *f, const char *s, bool quote)
{
	size_t n = strlen(s);

	while (n > 0) {
		size_t len = utf8_char_len(s, n);

		if (len == 0) {
			fputs(UTF8_REPLACEMENT, f);
			len = 1;
		} else if (*s == '\\') {
			fputs("\\\\", f);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (*s == '"' && quote) {
			fputs("\\\"", f);
		} else {
			fwrite(s, 1, len, f);
		}
		s += len;
		n -= len;
	}
}

void expo_write_label_value(FILE *f, const char *s)
{
	write_escaped(f, s, true);
}

/* The HELP and TYPE lines that open a metric family; its samples follow. */
void expo_family_typed(FILE *f, const char *name, const char *help, const char *type)
{
	fprintf(f, "# HELP %s%s ", EXPO_PREFIX, name);
	write_escaped(f, help, false);
	fprintf(f, "\n# TYPE %s%s %s\n", EXPO_PREFIX, name, type);
}

void expo_family(FILE *f, const char *name, const char *help)
{
	expo_family_typed(f, name, help, "gauge");
}

void expo_sample(FILE *f, const char *name, const struct expo_label *labels,
		 size_t n_labels, uint64_t value)
{
	fprintf(f, "%s%s", EXPO_PREFIX, name);
	for (size_t i = 0; i < n_labels; i++) {
		fprintf(f, "%s%s=\"", i == 0 ? "{" : ",", labels[i].name);
		expo_write_label_value(f, labels[i].value ? labels[i].value : "");
		fputc('"', f);
	}
	fprintf(f, "%s %" PRIu64 "\n", n_labels > 0 ? "}" : "", value);
}
