/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UTF-8 as RFC 3629 defines it, for the writers of machine-readable output:
 * file names and values are bytes, their readers want text. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

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

static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '\\';
}

/* A name or value read from a file, as text output and messages print it:
 * the bytes a terminal acts on (C0 controls, DEL) and the backslash as C
 * escapes (\n, \t, \r, \\, \xHH), as the JSON writer escapes them. s
 * itself when nothing needs escaping; else buf, cut short at a whole escape
 * when size is below 4 * strlen(s) + 1. */
const char *text_escape(const char *s, char *buf, size_t size)
{
	size_t w = 0;

	for (const char *p = s;; p++) {
		if (*p == '\0')
			return s;
		if (needs_escape((unsigned char)*p))
			break;
	}
	if (size == 0)
		return "";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[5];
		size_t n;

		if (!needs_escape(*p)) {
			esc[0] = (char)*p;
			esc[1] = '\0';
		} else if (*p == '\n' || *p == '\t' || *p == '\r' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = *p == '\n' ? 'n' :
				 *p == '\t' ? 't' :
				 *p == '\r' ? 'r' :
					      '\\';
			esc[2] = '\0';
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
		}
		n = strlen(esc);
		if (w + n >= size)
			break;
		memcpy(buf + w, esc, n);
		w += n;
	}
	buf[w] = '\0';
	return buf;
}

/* The columns text takes on a terminal, in the locale's character set: two
 * for a Chinese character. Where it is not text of that set (any byte above
 * 0x7f in the C locale), or holds a character that is not printable, one
 * for each byte, as printf's field widths count. */
size_t text_width(const char *s)
{
	size_t len = strlen(s), width = 0;
	mbstate_t state = { 0 };

	for (size_t i = 0; i < len;) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s + i, len - i, &state);
		int w;

		if (n == 0 || n == (size_t)-1 || n == (size_t)-2 || (w = wcwidth(wc)) < 0)
			return len;
		width += (size_t)w;
		i += n;
	}
	return width;
}

/* printf's "%-*s", with the width in a terminal's columns. */
void text_print_padded(FILE *f, const char *s, size_t width)
{
	fputs(s, f);
	for (size_t w = text_width(s); w < width; w++)
		fputc(' ', f);
}
