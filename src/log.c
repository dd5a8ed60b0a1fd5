/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "utf8.h"

int log_verbose;
const char *log_command;

/* One line each: a file name with a newline or an escape sequence in it is
 * printed escaped, so that it can neither split the message nor drive the
 * terminal. */
void log_vline(const char *prefix, const char *format, va_list ap)
{
	const char *sep = log_command ? ": " : "";
	/* The prefix is a message too ("warning: "), or none. */
	const char *kind = prefix[0] ? _(prefix) : "";
	const char *command = log_command ? log_command : "";
	char *text = NULL, *buf = NULL;
	int n;

	fflush(stdout);
	n = vasprintf(&text, format, ap);
	if (n < 0) {
		fprintf(stderr, "wp-panel-nettune: %s%s%s%s\n", command, sep, kind,
			_("(message lost: out of memory)"));
		return;
	}
	buf = malloc(TEXT_ESCAPED_SIZE((size_t)n));
	fprintf(stderr, "wp-panel-nettune: %s%s%s%s\n", command, sep, kind,
		buf ? text_escape(text, buf, TEXT_ESCAPED_SIZE((size_t)n)) : text);
	free(buf);
	free(text);
}

void log_line(const char *prefix, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	log_vline(prefix, format, ap);
	va_end(ap);
}
