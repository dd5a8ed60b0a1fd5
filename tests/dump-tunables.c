/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints the table of tunables, one row a line: key, when, scope, reason,
 * separated by tabs. tests/design-test.sh compares DESIGN.md with it. */
#include <stdio.h>

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

int main(void)
{
	for (size_t i = 0; i < n_tunables; i++)
		printf("%s\t%s\t%s\t%s\n", tunables[i].key,
		       rule_to_string(tunables[i].rule),
		       tunables[i].scope == SCOPE_GLOBAL ? "global" : "netns",
		       tunables[i].reason);
	return fflush(stdout) == 0 ? 0 : 1;
}
