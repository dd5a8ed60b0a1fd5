/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: any bytes as the record. A record that loads must save
 * to bytes that load again to the same records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state s = { 0 }, again = { 0 };
	unsigned line;
	FILE *f;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (state_load_stream(f, &s, &line) == 0) {
		char *out = NULL;
		size_t len = 0;
		FILE *w = open_memstream(&out, &len);

		if (!w || state_write_stream(w, &s) < 0 || fclose(w) != 0)
			__builtin_trap();
		w = fmemopen(out, len, "r");
		if (!w || state_load_stream(w, &again, &line) != 0 || again.n != s.n)
			__builtin_trap();
		for (size_t i = 0; i < s.n; i++) {
			const struct record *x = &s.items[i], *y = &again.items[i];

			if (strcmp(x->key, y->key) != 0 ||
			    strcmp(x->original, y->original) != 0 ||
			    strcmp(x->applied, y->applied) != 0 ||
			    strcmp(x->pending, y->pending) != 0)
				__builtin_trap();
		}
		fclose(w);
		free(out);
		state_free(&again);
	}
	state_free(&s);
	fclose(f);
	return 0;
}
