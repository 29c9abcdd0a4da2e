/*
 * Compare two sides' runs. The ratio and difference come from the plain
 * runs (no shim on either side, timed alike from the last timestamp before
 * execve to reaping), paired round by round because A and B ran back to
 * back; their CIs are a paired percentile bootstrap. Phases come from the
 * profiled runs of dynamic sides.
 */
#include "model/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/timeline.h"

#define ROUNDS 1000

static void interval_of(double *d, size_t n, double point, struct interval *out)
{
	out->median = point;
	percentile_ci95(d, n, &out->lo, &out->hi);
}

static void totals(struct compare *c)
{
	size_t cap = c->t[0]->nrun + c->t[1]->nrun + 1;
	double *a = xmalloc(cap * sizeof *a), *b = xmalloc(cap * sizeof *b);
	double *ra = xmalloc(cap * sizeof *ra), *rb = xmalloc(cap * sizeof *rb);
	double ratio[ROUNDS], diff[ROUNDS];
	size_t na = trace_counted_totals(c->t[0], false, a),
	       nb = trace_counted_totals(c->t[1], false, b);
	uint64_t seed = 0x853c49e6748fea9bull;

	c->pairs = na < nb ? na : nb;
	summarize(memcpy(ra, a, na * sizeof *a), na, &c->plain[0]);
	summarize(memcpy(rb, b, nb * sizeof *b), nb, &c->plain[1]);
	if (!c->pairs)
		goto out;
	for (int r = 0; r < ROUNDS; r++) {
		for (size_t i = 0; i < c->pairs; i++) {
			size_t k = bootstrap_rand(&seed) % c->pairs;
			ra[i] = a[k];
			rb[i] = b[k];
		}
		double ma = median_picked(ra, NULL, c->pairs, ra);
		double mb = median_picked(rb, NULL, c->pairs, rb);
		ratio[r] = mb / ma;
		diff[r] = mb - ma;
	}
	double ma = c->plain[0].median, mb = c->plain[1].median;
	interval_of(ratio, ROUNDS, mb / ma, &c->ratio);
	interval_of(diff, ROUNDS, mb - ma, &c->diff);
	c->significant = c->diff.lo > 0 || c->diff.hi < 0;
out:
	free(a);
	free(b);
	free(ra);
	free(rb);
}

/* Per-phase differences with a bootstrap over each side's runs. */
static void phases(struct compare *c)
{
	const struct run_breakdown *bd[2] = {c->rep[0].bd, c->rep[1].bd};
	size_t n[2], *pick[2], *valid[2];
	double *buf, est[2][PH_COUNT], (*d)[PH_COUNT] = xmalloc(ROUNDS * sizeof *d);
	uint64_t seed = 0xda3e39cb94b95bdbull;

	for (int s = 0; s < 2; s++) {
		pick[s] = xmalloc((c->rep[s].nbd + 1) * sizeof *pick[s]);
		valid[s] = xmalloc((c->rep[s].nbd + 1) * sizeof *valid[s]);
		n[s] = report_valid_breakdowns(&c->rep[s], valid[s]);
	}
	buf = xmalloc((n[0] + n[1] + 1) * sizeof *buf);
	for (int p = 0; p < PH_COUNT; p++) {
		c->phase[p].a_us = n[0] ? c->rep[0].phase[p].median : NAN;
		c->phase[p].b_us = n[1] ? c->rep[1].phase[p].median : NAN;
	}
	if (!n[0] || !n[1])
		goto out; /* a static side has no phases to compare */
	for (int r = 0; r < ROUNDS; r++) {
		for (int s = 0; s < 2; s++) {
			for (size_t i = 0; i < n[s]; i++)
				pick[s][i] = valid[s][bootstrap_rand(&seed) % n[s]];
			phase_estimates(bd[s], pick[s], n[s], buf, est[s]);
		}
		for (int p = 0; p < PH_COUNT; p++)
			d[r][p] = est[1][p] - est[0][p];
	}
	for (int p = 0; p < PH_COUNT; p++) {
		double col[ROUNDS];
		size_t m = 0;
		for (int r = 0; r < ROUNDS; r++)
			if (!isnan(d[r][p]))
				col[m++] = d[r][p];
		struct phase_delta *pd = &c->phase[p];
		if (!m || isnan(pd->a_us) || isnan(pd->b_us))
			continue;
		pd->known = true;
		interval_of(col, m, pd->b_us - pd->a_us, &pd->diff);
		pd->significant = pd->diff.lo > 0 || pd->diff.hi < 0;
	}
out:
	for (int s = 0; s < 2; s++) {
		free(pick[s]);
		free(valid[s]);
	}
	free(buf);
	free(d);
}

static bool has_lib(const struct compare *c, int side, const char *key)
{
	for (size_t i = 0; i < c->rep[side].nobjs; i++) {
		const struct report_object *ro = &c->rep[side].objs[i];
		if (c->t[side]->obj[ro->obj].role == ROLE_LIBRARY &&
		    !strcmp(object_label(&c->t[side]->obj[ro->obj]), key))
			return true;
	}
	return false;
}

/* Libraries (not the executable, loader or vDSO) that only one side loads. */
static void only_one_side(struct compare *c)
{
	c->only = xcalloc(c->rep[0].nobjs + c->rep[1].nobjs + 1, sizeof *c->only);
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < c->rep[s].nobjs; i++) {
			const struct report_object *ro = &c->rep[s].objs[i];
			if (c->t[s]->obj[ro->obj].role != ROLE_LIBRARY ||
			    has_lib(c, !s, object_label(&c->t[s]->obj[ro->obj])))
				continue;
			c->only[c->nonly++] = (struct lib_only){s, ro};
		}
}

void compare_build(const struct trace *a, const struct trace *b, struct compare *c)
{
	memset(c, 0, sizeof *c);
	c->t[0] = a;
	c->t[1] = b;
	report_build(a, &c->rep[0]);
	report_build(b, &c->rep[1]);
	totals(c);
	phases(c);
	only_one_side(c);
}

void compare_totals(const struct trace *a, const struct trace *b, struct compare *c)
{
	memset(c, 0, sizeof *c);
	c->t[0] = a;
	c->t[1] = b;
	totals(c);
}

void compare_free(struct compare *c)
{
	report_free(&c->rep[0]);
	report_free(&c->rep[1]);
	free(c->only);
	memset(c, 0, sizeof *c);
}
