/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdio.h>

/* Only commands log; everything below them returns -errno. Messages go to
 * stderr with the program's name, as one line each. */
#define log_error(...) log_line("", __VA_ARGS__)
#define log_warning(...) log_line("warning: ", __VA_ARGS__)

extern int log_verbose;

#define log_debug(...)                             \
	do {                                       \
		if (log_verbose)                   \
			log_line("", __VA_ARGS__); \
	} while (0)

__attribute__((format(printf, 2, 3))) void log_line(const char *prefix,
						    const char *format, ...);
