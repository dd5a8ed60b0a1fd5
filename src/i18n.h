/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The messages an administrator reads, through gettext: English is the
 * source, po/ holds the translations. _() marks a message and translates
 * it; N_() only marks one, translated where it is printed; ngettext() is
 * for a message with a count in it. What scripts and programs read (--json,
 * --prometheus, the journal, detect --may-tune, render) is never marked. */
#pragma once

#include <libintl.h>

#define TEXTDOMAIN "wp-panel-nettune"

#define _(msgid) gettext(msgid)
#define N_(msgid) msgid
