/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: any bytes as the undo journal, as the record of kernel
 * values of an earlier version and as its takeover record. Whatever loads
 * must save to a journal that loads again to the same steps: a journal as
 * it was, an earlier record as the journal that replaces it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same steps in the same order, each set step after a file step. */
static void same_steps(const struct state *x, const struct state *y)
{
	if (x->n != y->n || x->n_files != y->n_files || x->n_sets != y->n_sets)
		__builtin_trap();
	for (size_t i = 0; i < x->n; i++) {
		const struct record *a = &x->items[i], *b = &y->items[i];

		if (strcmp(a->key, b->key) != 0 ||
		    strcmp(a->original, b->original) != 0 ||
		    strcmp(a->applied, b->applied) != 0 ||
		    strcmp(a->pending, b->pending) != 0)
			__builtin_trap();
	}
	for (size_t i = 0; i < x->n_files; i++) {
		const struct undo_file *a = &x->files[i], *b = &y->files[i];

		if (strcmp(a->path, b->path) != 0 || strcmp(a->saved, b->saved) != 0 ||
		    a->mode != b->mode || a->uid != b->uid || a->gid != b->gid)
			__builtin_trap();
	}
	for (size_t i = 0; i < x->n_sets; i++) {
		const struct undo_set *a = &x->sets[i], *b = &y->sets[i];

		if (a->file >= x->n_files || a->file != b->file ||
		    strcmp(a->key, b->key) != 0 || strcmp(a->value, b->value) != 0)
			__builtin_trap();
	}
}

/* The input through LOAD; what loads is written as the journal and read
 * back. */
static void round_trip(const uint8_t *data, size_t size,
		       int (*load)(FILE *f, struct state *ret, unsigned *ret_line))
{
	struct state s = { 0 }, again = { 0 };
	char *out = NULL;
	size_t len = 0;
	unsigned line;
	FILE *f, *w;

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
	w = open_memstream(&out, &len);
	if (!w || state_write_stream(w, &s) < 0 || fclose(w) != 0)
		__builtin_trap();
	/* Within the bound the helper reads, what it wrote is read back. */
	if (len <= STATE_SIZE_MAX) {
		w = fmemopen(out, len, "r");
		if (!w || state_load_stream(w, &again, &line) != 0)
			__builtin_trap();
		fclose(w);
		same_steps(&s, &again);
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
	round_trip(data, size, state_load_legacy_takeover_stream);
	return 0;
}
