/* A text renderer's stream with its style, and the SGR escapes it allows (none without colour). */
#ifndef LDPROF_TEXT_OUT_H
#define LDPROF_TEXT_OUT_H

#include <stdio.h>

#include "render/render.h"

struct text_out {
	FILE *f;
	const struct text_style *st;
};

static inline const char *text_sgr(const struct text_out *o, const char *code)
{
	return o->st->color ? code : "";
}
#define BOLD(o)	 text_sgr(o, "\033[1m")
#define DIM(o)	 text_sgr(o, "\033[2m")
#define CYAN(o)	 text_sgr(o, "\033[36m")
#define RESET(o) text_sgr(o, "\033[0m")

/* A line per exit status of the runs ("  exit status 0 in every run"), each after whose. */
void text_outcomes(const struct text_out *o, const char *whose, const struct report *rep);

/* A duration with "µs" only where the terminal takes UTF-8. */
static inline void text_dur(const struct text_out *o, char *buf, size_t n, double us)
{
	render_dur(buf, n, us, o->st->utf8);
}

#endif
