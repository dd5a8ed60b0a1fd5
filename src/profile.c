/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The profile: one table of tunables, one function that evaluates it. Pure:
 * detection results in, settings out. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "util.h"

/* Each reason is written above its key in the rendered fragment. Kernel
 * defaults in the floors are those of Debian 13's 6.12 kernel. */
const struct tunable tunables[] = {
	{ "net.core.default_qdisc", RULE_FQ, "fq", 0, SCOPE_GLOBAL,
	  "fq gives BBR precise pacing; without it BBR falls back to one hrtimer per socket.",
	  .otherwise = "fq_codel",
	  .otherwise_reason =
		  "Debian's default, named so that another file's qdisc shows as "
		  "an override.",
	  .module = "sch_fq", .new_qdiscs_only = true },
	{ "net.ipv4.tcp_congestion_control", RULE_BBR, "bbr", 0, SCOPE_NETNS,
	  "BBR: on long, lossy links loss is not congestion, so do not back off on it.",
	  .otherwise = "cubic",
	  .otherwise_reason = "The kernel's default, named so that another file's choice "
			      "shows as an override.",
	  .module = "tcp_bbr", .available = "net.ipv4.tcp_available_congestion_control",
	  .module_at_boot = true,
	  .module_note = "BBR congestion control, a loadable module in this kernel.",
	  .widens = "net.ipv4.tcp_allowed_congestion_control" },
	{ "net.core.somaxconn", RULE_FIXED, "65535", 0, SCOPE_NETNS,
	  "Accept queue for bursts (nginx must ask for it too: listen ... backlog=)." },
	{ "net.ipv4.tcp_max_syn_backlog", RULE_FIXED, "8192", 0, SCOPE_NETNS,
	  "SYN queue for bursts; the kernel sizes it by memory (128 on 1 GiB)." },
	{ "net.core.netdev_max_backlog", RULE_FIXED, "16384", 0, SCOPE_GLOBAL,
	  "NIC receive backlog per CPU, for bursts of incoming packets." },
	{ "net.core.rmem_max", RULE_BUFFER_MAX, NULL, 212992, SCOPE_GLOBAL,
	  "Ceiling for SO_RCVBUF: lets a server ask for a buffer that fills a long fat pipe." },
	{ "net.core.wmem_max", RULE_BUFFER_MAX, NULL, 212992, SCOPE_GLOBAL,
	  "Ceiling for SO_SNDBUF, the send side of the same." },
	{ "net.ipv4.tcp_rmem", RULE_BUFFER_VECTOR, "4096 131072", 6291456, SCOPE_NETNS,
	  "Let receive autotuning grow a buffer to the bandwidth-delay product." },
	{ "net.ipv4.tcp_wmem", RULE_BUFFER_VECTOR, "4096 16384", 4194304, SCOPE_NETNS,
	  "Let send autotuning grow a buffer to the bandwidth-delay product." },
	{ "net.ipv4.tcp_tw_reuse", RULE_FIXED, "1", 0, SCOPE_NETNS,
	  "Reuse TIME-WAIT sockets for outgoing connections (PHP to database and cache)." },
	{ "net.ipv4.tcp_fin_timeout", RULE_FIXED, "15", 0, SCOPE_NETNS,
	  "Reclaim FIN-WAIT-2 sockets after 15 s instead of 60." },
	{ "net.ipv4.ip_local_port_range", RULE_FIXED, "10240 65535", 0, SCOPE_NETNS,
	  "More ephemeral ports, none below 10240: 3306, 6379, 9000 stay free for their servers." },
	{ "net.ipv4.tcp_keepalive_time", RULE_FIXED, "300", 0, SCOPE_NETNS,
	  "Probe an idle connection after 5 minutes, not 2 hours." },
	{ "net.ipv4.tcp_keepalive_intvl", RULE_FIXED, "30", 0, SCOPE_NETNS,
	  "Then every 30 s." },
	{ "net.ipv4.tcp_keepalive_probes", RULE_FIXED, "5", 0, SCOPE_NETNS,
	  "And drop it after 5 unanswered probes." },
	{ "net.ipv4.tcp_syncookies", RULE_FIXED, "1", 0, SCOPE_NETNS,
	  "SYN-flood defence (the default; undoes older scripts that turned it off)." },
	{ "net.ipv4.tcp_sack", RULE_FIXED, "1", 0, SCOPE_NETNS,
	  "Selective ACK: recover several losses in one round trip (the default)." },
	{ "net.ipv4.tcp_timestamps", RULE_FIXED, "1", 0, SCOPE_NETNS,
	  "Timestamps: RTT measurement and PAWS, needed by tcp_tw_reuse (the default)." },
	{ "net.ipv4.tcp_slow_start_after_idle", RULE_FIXED, "0", 0, SCOPE_NETNS,
	  "Keep-alive connections keep their window across idle gaps." },
	{ "net.ipv4.tcp_notsent_lowat", RULE_FIXED, "16384", 0, SCOPE_NETNS,
	  "Park less unsent data in the send queue: lower latency with BBR and HTTP/2." },
	{ "net.ipv4.tcp_mtu_probing", RULE_FIXED, "1", 0, SCOPE_NETNS,
	  "After repeated timeouts, suspect a PMTU black hole: drop to tcp_base_mss and probe up." },
};
const size_t n_tunables = ELEMENTSOF(tunables);
_Static_assert(ELEMENTSOF(tunables) <= SETTINGS_MAX,
	       "struct profile has room for SETTINGS_MAX settings, one a tunable");

const struct tunable *tunable_find(const char *key)
{
	for (size_t i = 0; i < n_tunables; i++)
		if (strcmp(tunables[i].key, key) == 0)
			return &tunables[i];
	return NULL;
}

/* The keys of the installer's file (share/installer/) that no row sets:
 * purge sets them again from it once it is back (takeover.c). */
const char *const installer_keys[] = { "net.core.rmem_default", "net.core.wmem_default" };
const size_t n_installer_keys = ELEMENTSOF(installer_keys);

/* A key the undo journal may name, and so one purge may write: a row's, the
 * list a row's write widens, or one of the installer's. debian/postrm holds
 * the same list (tests/postrm-journal-test.sh compares them). */
bool tunable_journaled(const char *key)
{
	if (tunable_find(key))
		return true;
	for (size_t i = 0; i < n_tunables; i++)
		if (tunables[i].widens && strcmp(tunables[i].widens, key) == 0)
			return true;
	for (size_t i = 0; i < n_installer_keys; i++)
		if (strcmp(installer_keys[i], key) == 0)
			return true;
	return false;
}

/* What detection must find out for the table: the module of each row that
 * names one, once, with the key that lists its value once it is in. */
size_t profile_module_needs(struct module_need *ret, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < n_tunables; i++) {
		const struct tunable *t = &tunables[i];
		bool listed = false;

		if (!t->module)
			continue;
		for (size_t j = 0; j < n; j++)
			listed = listed || strcmp(ret[j].module, t->module) == 0;
		if (listed || n == max)
			continue;
		ret[n++] = (struct module_need){ .module = t->module,
						 .key = t->available ?: t->key,
						 .value = t->value };
	}
	return n;
}

const struct setting *profile_find(const struct profile *p, const char *key)
{
	for (size_t i = 0; i < p->n_settings; i++)
		if (strcmp(p->settings[i].key, key) == 0)
			return &p->settings[i];
	return NULL;
}

static const char *const congestion_names[] = {
	[CONGESTION_AUTO] = "auto",
	[CONGESTION_BBR] = "bbr",
	[CONGESTION_CUBIC] = "cubic",
};

int congestion_from_string(const char *s, enum congestion *ret)
{
	for (size_t i = 0; i < ELEMENTSOF(congestion_names); i++)
		if (strcmp(s, congestion_names[i]) == 0) {
			*ret = (enum congestion)i;
			return 0;
		}
	return -EINVAL;
}

const char *congestion_to_string(enum congestion congestion)
{
	return congestion_names[congestion];
}

/* MemTotal leaves out what the kernel reserves for itself, so a "1 GiB"
 * machine shows about 960 MiB. Rounding up to 128 MiB gives the size the
 * machine was sold with, and buffer maxima that are round numbers. */
uint64_t nominal_memory_mib(uint64_t mem_kib)
{
	return (mem_kib + 128 * 1024 - 1) / (128 * 1024) * 128;
}

/* The row that turns BBR on, and the one that gives it fq. */
static const struct tunable *rule_row(enum rule rule)
{
	for (size_t i = 0; i < n_tunables; i++)
		if (tunables[i].rule == rule)
			return &tunables[i];
	return NULL;
}

/* What detection found of the module a rule depends on. */
static enum modstate rule_modstate(const struct sysinfo *info, enum rule rule)
{
	const struct tunable *t = rule_row(rule);

	return t && t->module ? sysinfo_module_state(info, t->module) : MODSTATE_MISSING;
}

static const char *decide_bbr(const struct sysinfo *info, enum congestion choice,
			      bool *ret_bbr)
{
	enum modstate bbr = rule_modstate(info, RULE_BBR);

	*ret_bbr = false;
	switch (choice) {
	case CONGESTION_CUBIC:
		return "cubic was chosen.";
	case CONGESTION_BBR:
		if (!modstate_usable(bbr))
			return bbr == MODSTATE_BLACKLISTED ?
				       "bbr was chosen, but tcp_bbr is blacklisted." :
				       "bbr was chosen, but this kernel has no tcp_bbr.";
		*ret_bbr = true;
		return "bbr was chosen.";
	case CONGESTION_AUTO:
		break;
	}
	if (info->cpus < 2)
		return "auto, and 1 CPU: BBR's pacing would compete with PHP for it.";
	if (bbr == MODSTATE_BLACKLISTED)
		return "auto, but tcp_bbr is blacklisted.";
	if (!modstate_usable(bbr))
		return "auto, but this kernel has no tcp_bbr.";
	*ret_bbr = true;
	return "auto, with 2 or more CPUs and BBR in this kernel.";
}

/* A module that is not built in is listed in modules-load.d, loaded or not. */
static bool loadable(enum modstate state)
{
	return state == MODSTATE_MODULE || state == MODSTATE_LOADED;
}

void profile_compute(const struct sysinfo *info, enum congestion choice,
		     struct profile *ret_profile)
{
	struct profile p = {
		.choice = choice,
		.cpus = info->cpus,
		.mem_mib = nominal_memory_mib(info->mem_kib),
	};
	uint64_t by_memory;
	bool bbr, fq;

	p.why = decide_bbr(info, choice, &bbr);
	fq = bbr && modstate_usable(rule_modstate(info, RULE_FQ));
	p.congestion = !bbr ? "cubic with the fq_codel qdisc, Debian's defaults." :
		       fq   ? "bbr with the fq qdisc." :
			      "bbr; this kernel has no fq qdisc, so BBR paces itself.";
	p.no_module = !bbr ? "BBR is not used." : "BBR is built into this kernel.";
	p.no_module_why = !bbr;

	by_memory = p.mem_mib * (1u << 20) / 64;
	p.buffer_max = by_memory < BUFFER_CEILING ? by_memory : BUFFER_CEILING;

	for (size_t i = 0; i < n_tunables; i++) {
		const struct tunable *t = &tunables[i];
		struct setting *s = &p.settings[p.n_settings];
		uint64_t max = p.buffer_max > t->floor ? p.buffer_max : t->floor;
		bool holds = true;

		switch (t->rule) {
		case RULE_BBR:
		case RULE_FQ:
			holds = t->rule == RULE_BBR ? bbr : fq;
			if (!holds && !t->otherwise)
				continue;
			snprintf(s->value, sizeof(s->value), "%s",
				 holds ? t->value : t->otherwise);
			break;
		case RULE_FIXED:
			snprintf(s->value, sizeof(s->value), "%s", t->value);
			break;
		case RULE_BUFFER_MAX:
			snprintf(s->value, sizeof(s->value), "%" PRIu64, max);
			break;
		case RULE_BUFFER_VECTOR:
			snprintf(s->value, sizeof(s->value), "%s %" PRIu64, t->value, max);
			break;
		}
		s->key = t->key;
		s->optional = t->scope == SCOPE_GLOBAL;
		s->reason = holds ? t->reason : t->otherwise_reason;
		p.n_settings++;
		if (holds && t->module_at_boot && p.n_modules < SYSINFO_MODULES_MAX &&
		    loadable(sysinfo_module_state(info, t->module))) {
			p.module_notes[p.n_modules] = t->module_note;
			p.modules[p.n_modules++] = t->module;
		}
	}
	*ret_profile = p;
}
