/*
 * --sample as folded stacks (flamegraph.pl, inferno, speedscope):
 * "relocate;_dl_start;...;do_lookup_x 12", the phase as the root frame,
 * then the frames outermost first, the count in samples.
 */
#include "render/samples.h"

void samples_frame_name(struct sbuf *sb, const struct trace_sampling *s, uint32_t frame)
{
	char buf[64];
	const char *name = sample_frame_label(&s->frame[frame], buf, sizeof buf);

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		sbuf_putc(sb, *p == ';' || *p < 0x20 || *p == 0x7f ? '_' : (char)*p);
}

void render_samples_folded(FILE *f, const struct report *rep)
{
	const struct sample_report *sr = rep->samples;
	const struct trace_sampling *s = sr->s;

	for (int p = 0; p < PH_COUNT; p++) {
		const struct phase_samples *ph = &sr->ph[p];
		for (size_t i = 0; i < ph->nst; i++) {
			const struct trace_sample *x = &s->s[ph->st[i].sample];
			struct sbuf sb = {0};
			sbuf_printf(&sb, "%s", phase_name(p));
			for (uint32_t k = x->len; k-- > 0;) {
				sbuf_putc(&sb, ';');
				samples_frame_name(&sb, s, s->chain[x->first + k]);
			}
			fprintf(f, "%s %zu\n", sb.buf, ph->st[i].count);
			sbuf_free(&sb);
		}
	}
}
