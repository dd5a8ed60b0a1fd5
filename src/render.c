/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rendering: a profile in, the text of a fragment out. The output carries no
 * date or version, so the same machine always gives the same bytes and ucf
 * sees a change only when the profile changes. */
#include <inttypes.h>

#include "render.h"

static void render_buffers(const struct profile *p, FILE *f)
{
	if (p->buffer_max >= BUFFER_CEILING)
		fprintf(f,
			"# Buffers: at most %" PRIu64
			" MiB, the ceiling for a cloud VM.\n",
			p->buffer_max >> 20);
	else
		fprintf(f,
			"# Buffers: at most %" PRIu64
			" KiB, 1/64 of memory (never below the kernel's default).\n",
			p->buffer_max >> 10);
}

void render_sysctl(const struct profile *p, FILE *f)
{
	fprintf(f,
		"# %s: network tuning for a web server.\n"
		"#\n"
		"# Written by wp-panel-nettune(8) and installed with ucf: your edits are\n"
		"# kept on upgrade. Purging the package removes this file and restores\n"
		"# the values the machine had before. See README.Debian.\n"
		"#\n",
		FRAGMENT_SYSCTL);
	fprintf(f, "# Machine: %u CPU%s, %" PRIu64 " MiB of memory.\n", p->cpus,
		p->cpus == 1 ? "" : "s", p->mem_mib);
	fprintf(f, "# Congestion control: %s\n", p->congestion);
	fprintf(f, "# Why: %s\n", p->why);
	render_buffers(p, f);
	fprintf(f, "%s cpus=%u congestion=%s\n", MARKER, p->cpus,
		congestion_to_string(p->choice));
	fprintf(f,
		"#\n"
		"# A key after \"-\" is set only where it exists: global keys are absent\n"
		"# inside containers.\n");

	for (size_t i = 0; i < p->n_settings; i++) {
		const struct setting *s = &p->settings[i];

		fprintf(f, "\n# %s\n%s%s = %s\n", s->reason, s->optional ? "-" : "",
			s->key, s->value);
	}
}

void render_modules(const struct profile *p, FILE *f)
{
	fprintf(f,
		"# %s: kernel modules for network tuning.\n"
		"# Written by wp-panel-nettune(8) and installed with ucf.\n",
		FRAGMENT_MODULES);
	for (size_t i = 0; i < p->n_modules; i++)
		fprintf(f, "\n# %s\n%s\n", p->module_notes[i], p->modules[i]);
	if (p->n_modules > 0)
		return;
	fprintf(f, "# No module to load: %s\n", p->no_module);
	if (p->no_module_why)
		fprintf(f, "# Why: %s\n", p->why);
}
