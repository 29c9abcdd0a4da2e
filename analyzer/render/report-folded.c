/*
 * Folded stacks for flamegraph tools (flamegraph.pl, inferno, speedscope):
 * "sh.dynamic;relocate;libedit.so.2 412", one line per stack, the count in
 * whole microseconds of the slice's own time. The median run by default
 * (the lines add up to its total), or the sum over every counted run.
 * A trace with --sample samples gives them instead (samples-folded.c).
 */
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "render/samples.h"
#include "model/timeline.h"

struct stack_total {
	char *stack;
	int64_t ns;
};

struct folded {
	struct stack_total *v;
	size_t n, cap;
};

/* A frame name with what would break the format (';', control characters) replaced. */
static void put_frame(struct sbuf *sb, const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		sbuf_putc(sb, *p == ';' || *p < 0x20 || *p == 0x7f ? '_' : (char)*p);
}

static void frame_of(struct sbuf *sb, const struct trace *t, const struct tl_slice *s)
{
	if (s->kind == TL_RUN)
		put_frame(sb, path_basename(t->program));
	else if (s->kind == TL_PHASE)
		put_frame(sb, phase_name(s->phase));
	else
		put_frame(sb, object_label(&t->obj[s->obj]));
}

/* root;...;slice i */
static char *stack_of(const struct trace *t, const struct timeline *tl, size_t i)
{
	size_t chain[64], n = 0;
	struct sbuf sb = {0};

	for (size_t k = i; k != SIZE_MAX && n < ARRAY_SIZE(chain); k = tl->s[k].parent)
		chain[n++] = k;
	while (n--) {
		frame_of(&sb, t, &tl->s[chain[n]]);
		if (n)
			sbuf_putc(&sb, ';');
	}
	return sb.buf ? sb.buf : xstrdup("?");
}

static void add_stack(struct folded *fo, char *stack, int64_t ns)
{
	for (size_t i = 0; i < fo->n; i++) {
		if (!strcmp(fo->v[i].stack, stack)) {
			fo->v[i].ns += ns;
			free(stack);
			return;
		}
	}
	GROW(fo->v, fo->cap, fo->n);
	fo->v[fo->n++] = (struct stack_total){stack, ns};
}

static void add_run(struct folded *fo, const struct report *rep, size_t run)
{
	const struct trace *t = rep->t;
	struct timeline tl = {0};

	timeline_build(rep, run, &tl);
	for (size_t i = 0; i < tl.n; i++)
		add_stack(fo, stack_of(t, &tl, i), timeline_self_ns(&tl, i));
	timeline_free(&tl);
}

void render_folded(FILE *f, const struct report *rep, bool all_runs)
{
	struct folded fo = {0};
	size_t median = median_run(rep);
	int64_t cum_ns = 0, printed_us = 0;

	if (samples_present(rep)) { /* --sample: what ran, rather than the phases' times */
		render_samples_folded(f, rep);
		return;
	}
	for (size_t i = 0; i < rep->t->nrun; i++)
		if (all_runs ? run_counted(rep, i) : i == median)
			add_run(&fo, rep, i);
	/* Rounding the running sum keeps the counts adding up to the rounded total. */
	for (size_t i = 0; i < fo.n; i++) {
		cum_ns += fo.v[i].ns;
		int64_t upto = (cum_ns + 500) / 1000, count = upto - printed_us;
		if (count > 0)
			fprintf(f, "%s %lld\n", fo.v[i].stack, (long long)count);
		printed_us = upto;
		free(fo.v[i].stack);
	}
	free(fo.v);
}
