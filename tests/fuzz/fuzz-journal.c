/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: any bytes as the undo journal and as 0.1.0's record of
 * kernel values. Whatever loads must save to a journal that loads again to
 * the same steps in the same order, and saves to the same bytes: a journal
 * as it was, 0.1.0's record as the journal that replaces it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *written(const struct state *s, size_t *ret_len)
{
	char *out = NULL;
	FILE *w = open_memstream(&out, ret_len);

	if (!w || state_write_stream(w, s) < 0 || fclose(w) != 0)
		__builtin_trap();
	return out;
}

/* The input through LOAD; what loads is written as the journal and read
 * back. */
static void round_trip(const uint8_t *data, size_t size,
		       int (*load)(FILE *f, struct state *ret, unsigned *ret_line))
{
	struct state s = { 0 }, again = { 0 };
	char *out, *out_again;
	size_t len, len_again;
	unsigned line;
	FILE *f;

	f = fmemopen((void *)data, size, "r");
	if (!f)
		return;
	if (load(f, &s, &line) != 0) {
		if (!state_empty(&s))
			__builtin_trap();
		fclose(f);
		return;
	}
	fclose(f);
	out = written(&s, &len);
	/* Within the bound the helper reads, what it wrote is read back. */
	if (len <= STATE_SIZE_MAX) {
		f = fmemopen(out, len, "r");
		if (!f || state_load_stream(f, &again, &line) != 0)
			__builtin_trap();
		fclose(f);
		if (again.n != s.n)
			__builtin_trap();
		for (size_t i = 0; i < s.n; i++)
			if (again.steps[i].kind != s.steps[i].kind ||
			    (s.steps[i].kind == STEP_SET &&
			     strcmp(again.steps[i].set.file, s.steps[i].set.file) != 0))
				__builtin_trap();
		out_again = written(&again, &len_again);
		if (len_again != len || memcmp(out_again, out, len) != 0)
			__builtin_trap();
		free(out_again);
	}
	free(out);
	state_free(&again);
	state_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	round_trip(data, size, state_load_stream);
	round_trip(data, size, state_load_legacy_stream);
	return 0;
}
