/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

int log_verbose;

void log_line(const char *prefix, const char *format, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "wp-panel-nettune: %s", prefix);
	va_start(ap, format);
	vfprintf(stderr, format, ap);
	va_end(ap);
	fputc('\n', stderr);
}
