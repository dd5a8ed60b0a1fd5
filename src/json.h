/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 8

/* A JSON text written as it goes, on one line: the writer keeps only
 * whether a comma is due at each level. A member's name is given with its
 * value; inside an array, and for the outermost value, name is NULL. */
struct json {
	FILE *f;
	unsigned depth;
	bool first[JSON_DEPTH_MAX];
};

void json_begin(struct json *j, FILE *f);
void json_end(struct json *j);
void json_object_open(struct json *j, const char *name);
void json_object_close(struct json *j);
void json_array_open(struct json *j, const char *name);
void json_array_close(struct json *j);
void json_string(struct json *j, const char *name, const char *value);
void json_uint(struct json *j, const char *name, uint64_t value);
void json_bool(struct json *j, const char *name, bool value);
void json_null(struct json *j, const char *name);

void json_write_string(FILE *f, const char *s);
