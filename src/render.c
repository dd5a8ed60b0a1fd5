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
	if (!p->bbr)
		fprintf(f,
			"# Congestion control: left to the kernel (cubic and fq_codel by default).\n");
	else if (p->fq)
		fprintf(f, "# Congestion control: bbr with the fq qdisc.\n");
	else
		fprintf(f,
			"# Congestion control: bbr; this kernel has no fq qdisc, so BBR paces itself.\n");
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
	if (p->module)
		fprintf(f,
			"\n# BBR congestion control, a loadable module in this kernel.\n%s\n",
			p->module);
	else if (p->bbr)
		fprintf(f, "# No module to load: BBR is built into this kernel.\n");
	else
		fprintf(f, "# No module to load: BBR is not used.\n# Why: %s\n", p->why);
}
