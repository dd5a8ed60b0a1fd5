/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints the table of tunables, one row a line: key, when, scope, reason,
 * separated by tabs; a row with a value for when its rule does not hold
 * says it after ", else" in when, and its reason after "Else:". tests/design-test.sh compares DESIGN.md with it. With
 * --keys, every sysctl key the table names; with --modules, every module
 * its rows need: what the fixture trees must hold
 * (tests/vm/capture-fixtures.sh); with --journaled, every key the undo
 * journal may name. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"

static const char *rule_to_string(enum rule rule)
{
	switch (rule) {
	case RULE_FIXED:
		return "always";
	case RULE_BBR:
		return "BBR";
	case RULE_FQ:
		return "BBR and fq";
	case RULE_BUFFER_MAX:
	case RULE_BUFFER_VECTOR:
		return "buffer cap";
	}
	return "?";
}

/* Every sysctl key the table names, each once: the rows' keys, the keys
 * that list what a module gives, the lists a write widens. */
static void print_keys(void)
{
	for (size_t i = 0; i < n_tunables; i++) {
		const char *keys[] = { tunables[i].key, tunables[i].available,
				       tunables[i].widens };

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			bool seen = !keys[k];

			for (size_t j = 0; j < n_tunables && !seen; j++)
				seen = j < i &&
				       (strcmp(tunables[j].key, keys[k]) == 0 ||
					(tunables[j].available &&
					 strcmp(tunables[j].available, keys[k]) == 0) ||
					(tunables[j].widens &&
					 strcmp(tunables[j].widens, keys[k]) == 0));
			for (size_t j = 0; j < k && !seen; j++)
				seen = keys[j] && strcmp(keys[j], keys[k]) == 0;
			if (!seen)
				printf("%s\n", keys[k]);
		}
	}
}

/* Every key the undo journal may name (tunable_journaled), each once: what
 * debian/postrm's list must hold (tests/postrm-journal-test.sh). */
static void print_journaled(void)
{
	for (size_t i = 0; i < n_tunables; i++) {
		printf("%s\n", tunables[i].key);
		if (tunables[i].widens && !tunable_find(tunables[i].widens))
			printf("%s\n", tunables[i].widens);
	}
	for (size_t i = 0; i < n_installer_keys; i++)
		if (!tunable_find(installer_keys[i]))
			printf("%s\n", installer_keys[i]);
}

/* usage: dump-tunables [--keys | --modules | --journaled] */
int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--keys") == 0) {
		print_keys();
	} else if (argc == 2 && strcmp(argv[1], "--modules") == 0) {
		struct module_need needs[SYSINFO_MODULES_MAX];
		size_t n = profile_module_needs(needs, sizeof(needs) / sizeof(needs[0]));

		for (size_t i = 0; i < n; i++)
			printf("%s\n", needs[i].module);
	} else if (argc == 2 && strcmp(argv[1], "--journaled") == 0) {
		print_journaled();
	} else if (argc == 1) {
		for (size_t i = 0; i < n_tunables; i++) {
			const struct tunable *t = &tunables[i];

			printf("%s\t%s", t->key, rule_to_string(t->rule));
			if (t->otherwise)
				printf(", else %s", t->otherwise);
			printf("\t%s\t%s", t->scope == SCOPE_GLOBAL ? "global" : "netns",
			       t->reason);
			if (t->otherwise)
				printf(" Else: %s", t->otherwise_reason);
			printf("\n");
		}
	} else {
		fprintf(stderr,
			"usage: dump-tunables [--keys | --modules | --journaled]\n");
		return 2;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
