/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdio.h>

/* The replacement character U+FFFD, as UTF-8: what the JSON and Prometheus
 * writers put in place of each byte that is not part of valid UTF-8. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

size_t utf8_char_len(const char *s, size_t n);

/* Room for text_escape() of a string of n bytes. */
#define TEXT_ESCAPED_SIZE(n) (4 * (n) + 1)

const char *text_escape(const char *s, char *buf, size_t size);

size_t text_width(const char *s);
void text_print_padded(FILE *f, const char *s, size_t width);
