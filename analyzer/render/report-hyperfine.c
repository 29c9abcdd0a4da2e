/*
 * hyperfine's JSON export (hyperfine --export-json), for the totals, so
 * that scripts written for hyperfine read ldprof's runs: results[] with
 * the command, mean, stddev, median, user, system, min, max, times[] and
 * exit_codes[], in seconds. The first result is the runs the report's
 * total is about; the plain runs without the shim follow when there are.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/out/json.h"
#include "render/render.h"
#include "model/timeline.h"

struct totals {
	double *s;	     /* seconds */
	int *exit_code;	     /* -1: killed by a signal (null) */
	double user, system; /* means, seconds */
	size_t n;
};

static void collect(const struct trace *t, bool profiled, struct totals *tt)
{
	tt->s = xmalloc((t->nrun + 1) * sizeof *tt->s);
	tt->exit_code = xmalloc((t->nrun + 1) * sizeof *tt->exit_code);
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (!trace_run_counted(r, profiled))
			continue;
		tt->s[tt->n] = trace_run_us(t, r) / 1e6;
		tt->exit_code[tt->n] = WIFEXITED(r->wait_status) ? WEXITSTATUS(r->wait_status) : -1;
		tt->user += r->usage.utime_us / 1e6;
		tt->system += r->usage.stime_us / 1e6;
		tt->n++;
	}
	if (tt->n) {
		tt->user /= (double)tt->n;
		tt->system /= (double)tt->n;
	}
}

static void put_num(FILE *f, const char *key, double v)
{
	fprintf(f, "      \"%s\": ", key);
	if (isfinite(v))
		fprintf(f, "%.9g,\n", v);
	else
		fputs("null,\n", f);
}

/* The command line as a shell would take it back: words with specials in single quotes. */
static void put_command(FILE *f, const struct trace *t, const char *suffix)
{
	struct sbuf sb = {0};

	for (int i = 0; i < t->argc; i++) {
		const char *a = t->argv[i];
		if (i)
			sbuf_putc(&sb, ' ');
		if (*a && !strpbrk(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!")) {
			sbuf_printf(&sb, "%s", a);
			continue;
		}
		char *q = sh_quote(a);
		sbuf_printf(&sb, "%s", q);
		free(q);
	}
	sbuf_printf(&sb, "%s", suffix);
	fputs("      \"command\": ", f);
	json_put_string(f, sb.buf ? sb.buf : "");
	fputs(",\n", f);
	sbuf_free(&sb);
}

static void result(FILE *f, const struct trace *t, bool profiled, const char *suffix, bool last)
{
	struct totals tt = {0};
	struct summary sm;
	double mean = 0, var = 0;

	collect(t, profiled, &tt);
	for (size_t i = 0; i < tt.n; i++)
		mean += tt.s[i] / (double)tt.n;
	for (size_t i = 0; i < tt.n; i++)
		var += (tt.s[i] - mean) * (tt.s[i] - mean);
	fputs("    {\n", f);
	put_command(f, t, suffix);
	put_num(f, "mean", tt.n ? mean : NAN);
	put_num(f, "stddev", tt.n > 1 ? sqrt(var / (double)(tt.n - 1)) : NAN);
	double *sorted = xmalloc((tt.n + 1) * sizeof *sorted);
	memcpy(sorted, tt.s, tt.n * sizeof *sorted);
	summarize(sorted, tt.n, &sm);
	free(sorted);
	put_num(f, "median", sm.median);
	put_num(f, "user", tt.user);
	put_num(f, "system", tt.system);
	put_num(f, "min", sm.min);
	put_num(f, "max", sm.max);
	fputs("      \"times\": [", f);
	for (size_t i = 0; i < tt.n; i++)
		fprintf(f, "%s%.9g", i ? ", " : "", tt.s[i]);
	fputs("],\n      \"exit_codes\": [", f);
	for (size_t i = 0; i < tt.n; i++) {
		fputs(i ? ", " : "", f);
		if (tt.exit_code[i] < 0)
			fputs("null", f);
		else
			fprintf(f, "%d", tt.exit_code[i]);
	}
	fprintf(f, "],\n      \"parameters\": {\"ldprof\": \"%s\"}\n    }%s\n",
		profiled ? "profiled" : "plain", last ? "" : ",");
	free(tt.s);
	free(tt.exit_code);
}

void render_hyperfine(FILE *f, const struct report *rep)
{
	bool both = rep->profiled && rep->plain_runs;

	fputs("{\n  \"results\": [\n", f);
	result(f, rep->t, rep->profiled, "", !both);
	if (both)
		result(f, rep->t, false, " (without ldprof's shim)", true);
	fputs("  ]\n}\n", f);
}

void render_hyperfine_plain(FILE *f, const struct trace *const *t, size_t n)
{
	fputs("{\n  \"results\": [\n", f);
	for (size_t i = 0; i < n; i++)
		result(f, t[i], false, "", i + 1 == n);
	fputs("  ]\n}\n", f);
}
