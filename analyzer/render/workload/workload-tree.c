/*
 * The top of the process tree as text, for the median run: each process
 * with its command, execs and startup; siblings that ran the same images
 * collapse into one line ("× 21") whose children are all of theirs, so a
 * loop's thousand iterations read as one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/strmap.h"
#include "base/out/textsafe.h"
#include "render/workload/workload-render.h"

#define TREE_DEPTH 8  /* levels shown */
#define TREE_LINES 60 /* lines shown; the JSON has every process */

struct tree_out {
	FILE *f;
	const struct workload *w;
	const struct text_style *st;
	const struct run_tree *tr;
	size_t run;
	size_t *kid_off, *kids; /* children of p: kids[kid_off[p] .. kid_off[p + 1]) */
	size_t lines;
	bool cut;
};

struct group {
	size_t *member;
	size_t n, cap;
};

/* The images a process ran, in order; a fork that never executed ran its parent's. */
static const char *forked_image(const struct tree_out *o, size_t p);

static char *signature(const struct tree_out *o, size_t p)
{
	const struct tree_proc *tp = &o->tr->proc[p];
	size_t len = 1, k;
	char *s;

	if (!tp->nexec) {
		const char *img = forked_image(o, p);
		return xasprintf("(fork of)\n%s", img ? img : "");
	}
	for (k = 0; k < tp->nexec; k++)
		len += strlen(tp->exec[k].path ? tp->exec[k].path : "?") + 1;
	s = xcalloc(len, 1);
	for (k = 0; k < tp->nexec; k++) {
		strcat(s, tp->exec[k].path ? tp->exec[k].path : "?");
		strcat(s, "\n");
	}
	return s;
}

/* The image a process runs when it was forked: its parent's last one. */
static const char *forked_image(const struct tree_out *o, size_t p)
{
	uint32_t parent = o->tr->proc[p].parent;

	/* Bounded: a parent comes before its child (tree.h), but never trust a loop. */
	for (size_t hops = 0; parent < o->tr->nproc && hops <= o->tr->nproc; hops++) {
		const struct tree_proc *pp = &o->tr->proc[parent];
		if (pp->nexec)
			return pp->exec[pp->nexec - 1].path;
		parent = pp->parent;
	}
	return NULL;
}

/* The startup (exec to main) of every recorded exec of process p, summed; NAN if none. */
static double proc_startup(const struct tree_out *o, size_t p)
{
	const struct wl_exec *x = workload_exec(o->w, o->run, (uint32_t)p);
	double sum = NAN;

	for (size_t k = 0; x && k < o->tr->proc[p].nexec; k++, x++)
		if (!isnan(x[0].startup_us))
			sum = (isnan(sum) ? 0 : sum) + x[0].startup_us;
	return sum;
}

/* Whether two execs ran with the same arguments (unknown ones differ). */
static bool same_argv(const struct tree_exec *a, const struct tree_exec *b)
{
	if (!a->argv || !b->argv || a->argc != b->argc)
		return false;
	for (size_t i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], b->argv[i]))
			return false;
	return true;
}

/* Whether every member of g ran each image with the same arguments. */
static bool same_commands(const struct tree_out *o, const struct group *g)
{
	const struct tree_proc *first = &o->tr->proc[g->member[0]];

	for (size_t i = 1; i < g->n; i++)
		for (size_t k = 0; k < first->nexec; k++)
			if (!same_argv(&first->exec[k], &o->tr->proc[g->member[i]].exec[k]))
				return false;
	return true;
}

/* One image of the chain: its command line, or only its name (full: false). */
static void image_label(const struct tree_out *o, size_t p, size_t k, bool full, char *cmd,
			size_t n)
{
	const struct tree_exec *e = &o->tr->proc[p].exec[k];

	if (p == 0 && k == 0 && !e->argv) /* the launched command, as given */
		snprintf(cmd, n, "%s", term_safe(o->w->t->argv[0]));
	else if (full)
		wl_command(o->w->t, e, cmd, n);
	else if (e->argv && e->argc)
		snprintf(cmd, n, "%s", term_safe(path_basename(e->argv[0])));
	else
		snprintf(cmd, n, "%s", term_safe(path_basename(e->path ? e->path : e->comm)));
}

/*
 * A group's line: the exec chain ("A -> B"); with each image's command
 * line when every member ran the same one, else with the images' names
 * ("cc x 6" for six compilers of six files). Cut to LABEL_MAX.
 */
#define LABEL_MAX 100
static void label(const struct tree_out *o, const struct group *g, char *buf, size_t n)
{
	size_t p = g->member[0], used = 0;
	const struct tree_proc *tp = &o->tr->proc[p];
	bool full = g->n == 1 || same_commands(o, g);

	if (!tp->nexec) {
		const char *img = forked_image(o, p);
		snprintf(buf, n, "(fork of %s)",
			 img ? term_safe(wl_short_path(o->w->t, img)) : "the launcher");
		return;
	}
	buf[0] = 0;
	for (size_t k = 0; k < tp->nexec && used + 8 < n; k++) {
		char cmd[512];
		image_label(o, p, k, full, cmd, sizeof cmd);
		int m = snprintf(buf + used, n - used, "%s%s",
				 k ? (o->st->utf8 ? " \u2192 " : " -> ") : "", cmd);
		used += m > 0 ? (size_t)m : 0;
	}
	if (strlen(buf) > LABEL_MAX && n > LABEL_MAX) {
		size_t cut = LABEL_MAX - 3;
		while (cut && ((unsigned char)buf[cut] & 0xc0) == 0x80)
			cut--; /* not inside a UTF-8 sequence */
		memcpy(buf + cut, "...", 4);
	}
}

/* One status for the line: "exit 3", "SIGTERM", "unknown". */
static void status_word(const struct tree_proc *p, char *buf, size_t n)
{
	char sig[SIGNAL_NAME_MAX];

	if (!p->have_status)
		snprintf(buf, n, "unknown");
	else if (WIFSIGNALED(p->wait_status) && signal_name(WTERMSIG(p->wait_status), sig))
		snprintf(buf, n, "%s", sig);
	else
		snprintf(buf, n, "exit %d", WEXITSTATUS(p->wait_status));
}

/*
 * Forks that never executed have no startup: their wall time (the
 * median), and how they ended: one status, or each distinct one.
 */
static void print_forks(const struct tree_out *o, const struct group *g)
{
	double *v = xmalloc((g->n + 1) * sizeof *v);
	size_t nv = 0, used = 0;
	char d[32], all[128] = "", one[48];

	for (size_t i = 0; i < g->n; i++) {
		const struct tree_proc *p = &o->tr->proc[g->member[i]];
		bool said = false;
		if (p->exit_ts)
			v[nv++] = workload_run_us(o->w, o->run, p->exit_ts) -
				  workload_run_us(o->w, o->run, p->fork_ts);
		for (size_t k = 0; k < i && !said; k++) {
			const struct tree_proc *q = &o->tr->proc[g->member[k]];
			said = q->have_status == p->have_status &&
			       (!p->have_status || q->wait_status == p->wait_status);
		}
		status_word(p, one, sizeof one);
		if (!said && used + strlen(one) + 3 < sizeof all)
			used += (size_t)snprintf(all + used, sizeof all - used, "%s%s",
						 used ? ", " : "", one);
	}
	render_dur(d, sizeof d, nv ? median_picked(v, NULL, nv, v) : NAN, o->st->utf8);
	free(v);
	fprintf(o->f, "  [no exec, %s%s, %s]\n", d, g->n > 1 && nv ? " each" : "", all);
}

static void print_group(struct tree_out *o, const struct group *g, const char *prefix, bool last)
{
	char name[1024], st[32];
	double *v = xmalloc((g->n + 1) * sizeof *v);
	size_t recorded = 0;

	for (size_t i = 0; i < g->n; i++)
		recorded += !isnan(v[i] = proc_startup(o, g->member[i]));
	render_dur(st, sizeof st, median_picked(v, NULL, g->n, v), o->st->utf8);
	free(v);
	label(o, g, name, sizeof name);
	fprintf(o->f, "  %s%s%s", prefix,
		o->st->utf8 ? (last ? "\u2514\u2500 " : "\u251c\u2500 ") : (last ? "`- " : "|- "),
		name);
	if (g->n > 1)
		fprintf(o->f, " %s %zu", o->st->utf8 ? "\u00d7" : "x", g->n);
	o->lines++;
	if (!o->tr->proc[g->member[0]].nexec) {
		print_forks(o, g);
		return;
	}
	fprintf(o->f, "  [%zu exec%s", o->tr->proc[g->member[0]].nexec,
		o->tr->proc[g->member[0]].nexec == 1 ? "" : "s");
	if (strcmp(st, "-"))
		fprintf(o->f, ", startup %s%s", st, g->n > 1 ? " each" : "");
	if (recorded && recorded < g->n)
		fprintf(o->f, " (median of the %zu recorded)", recorded);
	fprintf(o->f, "]\n");
}

static void level(struct tree_out *o, const size_t *procs, size_t n, int depth, const char *prefix);

static void children_of(struct tree_out *o, const struct group *g, int depth, const char *prefix,
			bool last)
{
	size_t nk = 0, *all;
	char *sub;

	for (size_t i = 0; i < g->n; i++)
		nk += o->kid_off[g->member[i] + 1] - o->kid_off[g->member[i]];
	if (!nk)
		return;
	sub = xasprintf("%s%s", prefix, last ? "   " : (o->st->utf8 ? "\u2502  " : "|  "));
	if (depth + 1 >= TREE_DEPTH) {
		fprintf(o->f, "  %s... %zu processes below\n", sub, nk);
		o->lines++;
		free(sub);
		return;
	}
	all = xmalloc(nk * sizeof *all);
	nk = 0;
	for (size_t i = 0; i < g->n; i++)
		for (size_t k = o->kid_off[g->member[i]]; k < o->kid_off[g->member[i] + 1]; k++)
			all[nk++] = o->kids[k];
	level(o, all, nk, depth + 1, sub);
	free(all);
	free(sub);
}

/* Group the siblings procs[0..n) by the images they ran, in order of appearance. */
static size_t group_siblings(const struct tree_out *o, const size_t *procs, size_t n,
			     struct group *groups)
{
	struct strmap by_sig = {0};
	size_t ng = 0;

	for (size_t i = 0; i < n; i++) {
		char *sig = signature(o, procs[i]);
		size_t *slot = strmap_get(&by_sig, sig);
		if (!slot) {
			slot = xmalloc(sizeof *slot);
			*slot = ng;
			groups[ng++] = (struct group){NULL, 0, 0};
			strmap_put(&by_sig, sig, slot);
		}
		struct group *g = &groups[*slot];
		GROW(g->member, g->cap, g->n); /* grown: a thousand distinct siblings stay small */
		g->member[g->n++] = procs[i];
		free(sig);
	}
	strmap_free(&by_sig, free);
	return ng;
}

static void level(struct tree_out *o, const size_t *procs, size_t n, int depth, const char *prefix)
{
	struct group *groups = xmalloc((n + 1) * sizeof *groups);
	size_t ng = group_siblings(o, procs, n, groups);

	for (size_t i = 0; i < ng; i++) {
		if (o->lines >= TREE_LINES) {
			o->cut = true;
		} else {
			print_group(o, &groups[i], prefix, i + 1 == ng);
			children_of(o, &groups[i], depth, prefix, i + 1 == ng);
		}
		free(groups[i].member);
	}
	free(groups);
}

static void index_children(struct tree_out *o)
{
	size_t n = o->tr->nproc, *fill = xcalloc(n + 1, sizeof *fill);

	o->kid_off = xcalloc(n + 2, sizeof *o->kid_off);
	o->kids = xmalloc((n + 1) * sizeof *o->kids);
	for (size_t p = 1; p < n; p++)
		if (o->tr->proc[p].parent < n)
			o->kid_off[o->tr->proc[p].parent + 1]++;
	for (size_t p = 0; p < n; p++)
		o->kid_off[p + 1] += o->kid_off[p];
	for (size_t p = 1; p < n; p++) {
		uint32_t q = o->tr->proc[p].parent;
		if (q < n)
			o->kids[o->kid_off[q] + fill[q]++] = p;
	}
	free(fill);
}

void render_workload_tree(FILE *f, const struct workload *w, const struct text_style *st)
{
	struct tree_out o = {f, w, st, NULL, w->median_run, NULL, NULL, 0, false};
	size_t top = 0;

	if (w->median_run == SIZE_MAX || !w->t->run[w->median_run].tree)
		return;
	o.tr = w->t->run[w->median_run].tree;
	if (!o.tr->nproc)
		return;
	index_children(&o);
	fprintf(f,
		"\n  process tree of run %zu (the median one), siblings that ran the same images "
		"collapsed:\n",
		workload_run_ordinal(w, w->median_run));
	level(&o, &top, 1, 0, "");
	if (o.cut)
		fprintf(f, "  ... (cut at %d lines: the JSON and CSV outputs have every process)\n",
			TREE_LINES);
	free(o.kid_off);
	free(o.kids);
}
