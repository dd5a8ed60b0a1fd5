/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "utf8.h"

int log_verbose;

/* One line each: a file name with a newline or an escape sequence in it is
 * printed escaped, so that it can neither split the message nor drive the
 * terminal. */
void log_line(const char *prefix, const char *format, ...)
{
	char *text = NULL, *buf = NULL;
	va_list ap;
	int n;

	fflush(stdout);
	va_start(ap, format);
	n = vasprintf(&text, format, ap);
	va_end(ap);
	if (n < 0) {
		fprintf(stderr, "wp-panel-nettune: %s(message lost: out of memory)\n",
			prefix);
		return;
	}
	buf = malloc(TEXT_ESCAPED_SIZE((size_t)n));
	fprintf(stderr, "wp-panel-nettune: %s%s\n", prefix,
		buf ? text_escape(text, buf, TEXT_ESCAPED_SIZE((size_t)n)) : text);
	free(buf);
	free(text);
}
