/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdarg.h>
#include <stdio.h>

#include "i18n.h"

/* Only commands log; everything below them returns -errno. Messages go to
 * stderr as one line each, "wp-panel-nettune: COMMAND: message" once main
 * has picked the command, "wp-panel-nettune: message" before. */
#define log_error(...) log_line("", __VA_ARGS__)
#define log_warning(...) log_line(N_("warning: "), __VA_ARGS__)

extern int log_verbose;
/* The command that runs, set by main; NULL before it is known. */
extern const char *log_command;

#define log_debug(...)                             \
	do {                                       \
		if (log_verbose)                   \
			log_line("", __VA_ARGS__); \
	} while (0)

__attribute__((format(printf, 2, 3))) void log_line(const char *prefix,
						    const char *format, ...);
__attribute__((format(printf, 2, 0))) void log_vline(const char *prefix,
						     const char *format, va_list ap);
