/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON output (RFC 8259) for status --json and detect --json. Strings come
 * from file names and kernel values, which are bytes: every byte is written
 * so that the result is valid JSON in valid UTF-8 whatever they hold. */
#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "utf8.h"

/* Quotes and backslashes escaped, control bytes (and DEL) as \b \f \n \r \t
 * or \u00XX, valid UTF-8 as it is, and each byte that is not part of valid
 * UTF-8 as \ufffd, the replacement character: JSON can only carry text, and
 * a parser that meets invalid UTF-8 may reject the whole document. */
void json_write_string(FILE *f, const char *s)
{
	size_t n = strlen(s);

	fputc('"', f);
	while (n > 0) {
		unsigned char c = (unsigned char)*s;
		size_t len = utf8_char_len(s, n);

		if (len == 0) {
			fputs("\\ufffd", f);
			len = 1;
		} else if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c == '\b') {
			fputs("\\b", f);
		} else if (c == '\f') {
			fputs("\\f", f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\r') {
			fputs("\\r", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else {
			fwrite(s, 1, len, f);
		}
		s += len;
		n -= len;
	}
	fputc('"', f);
}

void json_begin(struct json *j, FILE *f)
{
	*j = (struct json){ .f = f, .depth = 0, .first = { true } };
}

/* The newline ends the one line of output. */
void json_end(struct json *j)
{
	fputc('\n', j->f);
}

/* Where the comma state of the current level is kept. The schema nests
 * three deep; past JSON_DEPTH_MAX levels share the last slot. */
static bool *first(struct json *j)
{
	return &j->first[j->depth < JSON_DEPTH_MAX ? j->depth : JSON_DEPTH_MAX - 1];
}

/* The comma before a value and its name, if it has one. */
static void member(struct json *j, const char *name)
{
	if (!*first(j))
		fputc(',', j->f);
	*first(j) = false;
	if (name) {
		json_write_string(j->f, name);
		fputc(':', j->f);
	}
}

static void open_level(struct json *j, const char *name, char bracket)
{
	member(j, name);
	fputc(bracket, j->f);
	j->depth++;
	*first(j) = true;
}

static void close_level(struct json *j, char bracket)
{
	if (j->depth > 0)
		j->depth--;
	fputc(bracket, j->f);
}

void json_object_open(struct json *j, const char *name)
{
	open_level(j, name, '{');
}

void json_object_close(struct json *j)
{
	close_level(j, '}');
}

void json_array_open(struct json *j, const char *name)
{
	open_level(j, name, '[');
}

void json_array_close(struct json *j)
{
	close_level(j, ']');
}

void json_string(struct json *j, const char *name, const char *value)
{
	if (!value) {
		json_null(j, name);
		return;
	}
	member(j, name);
	json_write_string(j->f, value);
}

void json_uint(struct json *j, const char *name, uint64_t value)
{
	member(j, name);
	fprintf(j->f, "%" PRIu64, value);
}

void json_bool(struct json *j, const char *name, bool value)
{
	member(j, name);
	fputs(value ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *name)
{
	member(j, name);
	fputs("null", j->f);
}
