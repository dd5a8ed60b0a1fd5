/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UTF-8 as RFC 3629 defines it, for the writers of machine-readable output:
 * file names and values are bytes, their readers want text. */
#include <stdint.h>

#include "utf8.h"

/* The length of the valid UTF-8 character at the start of the n bytes at s,
 * or 0 when they do not start with one: a stray continuation byte, a
 * truncated sequence, an overlong form, a surrogate (U+D800-U+DFFF) or a
 * code point above U+10FFFF. */
size_t utf8_char_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t len;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0; /* 0x80-0xc1 (continuation, overlong lead), 0xf5-0xff */
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}
