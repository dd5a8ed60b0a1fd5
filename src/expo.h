/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Every metric's name starts with this. */
#define EXPO_PREFIX "nettune_"

struct expo_label {
	const char *name;
	const char *value;
};

/* A gauge's family; expo_family_typed for another TYPE ("counter"). */
void expo_family(FILE *f, const char *name, const char *help);
void expo_family_typed(FILE *f, const char *name, const char *help, const char *type);
void expo_sample(FILE *f, const char *name, const struct expo_label *labels,
		 size_t n_labels, uint64_t value);
void expo_write_label_value(FILE *f, const char *s);
