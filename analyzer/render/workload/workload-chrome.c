/*
 * The workload as a Chrome/Perfetto trace: one process track per process
 * of the median run (or of every run), named with its image and pid and
 * its parent's, ordered so that each process follows its parent
 * (process_sort_index: the tree in depth-first order). On each track the
 * process's life, and inside it each exec with its phases and per-object
 * slices, laid out by the same timeline as a lone run's (model/timeline.h).
 * ts and dur are microseconds printed from whole nanoseconds.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "base/out/json.h"
#include "base/version.h"
#include "model/timeline.h"
#include "render/workload/workload-render.h"

struct chrome {
	FILE *f;
	const struct workload *w;
	size_t run;
	int pid_base; /* the tracks of this run: pid_base + process index */
	int sort;     /* the next process_sort_index */
};

static void put_us(FILE *f, int64_t ns)
{
	if (ns < 0) {
		fputc('-', f);
		ns = -ns;
	}
	fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

/* Nanoseconds from the run's exec_ts. */
static int64_t run_ns(const struct chrome *c, uint64_t ts)
{
	return (int64_t)llround(workload_run_us(c->w, c->run, ts) * 1000);
}

static void slice(const struct chrome *c, int pid, const char *name, const char *cat, int64_t start,
		  int64_t end)
{
	fputs(",\n{\"name\":", c->f);
	json_put_string(c->f, name);
	fprintf(c->f, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", cat);
	put_us(c->f, start);
	fputs(",\"dur\":", c->f);
	put_us(c->f, end > start ? end - start : 0);
	fprintf(c->f, ",\"pid\":%d,\"tid\":%d", pid, pid);
}

static const char *slice_name(const struct trace *sub, const struct tl_slice *s, char *buf,
			      size_t n)
{
	static const char *const verbs[] = {"", "", "load", "relocate", "init", "fini"};

	if (s->kind == TL_RUN)
		return path_basename(sub->program);
	if (s->kind == TL_PHASE)
		return phase_name(s->phase);
	snprintf(buf, n, "%s %s", object_label(&sub->obj[s->obj]), verbs[s->kind]);
	return buf;
}

static int64_t at_most(int64_t v, int64_t limit)
{
	return v < limit ? v : limit;
}

/*
 * An exec with records: its timeline from its binary's report, shifted to
 * its start, and cut at limit (the next exec's start, or its process's
 * end): the ends come from separate conversions and may disagree by a
 * nanosecond.
 */
static void exec_timeline(const struct chrome *c, int pid, const struct wl_exec *x, int64_t at,
			  int64_t limit)
{
	const struct wl_binary *b = &c->w->bins[x->bin];
	struct timeline tl = {0};
	char buf[512];

	timeline_build(&b->rep, x->bd->run, &tl);
	for (size_t i = 0; i < tl.n; i++) {
		const struct tl_slice *s = &tl.s[i];
		slice(c, pid, slice_name(b->sub, s, buf, sizeof buf), tl_kind_name(s->kind),
		      at_most(at + s->start_ns, limit), at_most(at + s->end_ns, limit));
		fputs(",\"args\":{", c->f);
		if (s->kind == TL_RUN) {
			fputs("\"path\":", c->f);
			json_put_string(c->f, b->path);
			fprintf(c->f, ",\"startup_us\":%.3f", x->startup_us);
		} else if (s->kind != TL_PHASE) {
			fputs("\"path\":", c->f);
			json_put_string(c->f, b->sub->obj[s->obj].path);
		}
		fputs("}}", c->f);
	}
	timeline_free(&tl);
}

/* Each exec's slices, none past the next exec's start, the last none past its process's end. */
static void exec_slices(const struct chrome *c, int pid, size_t proc, int64_t proc_end)
{
	const struct trace *t = c->w->t;
	const struct tree_proc *p = &t->run[c->run].tree->proc[proc];
	const struct wl_exec *x = workload_exec(c->w, c->run, (uint32_t)proc);

	for (size_t k = 0; x && k < p->nexec; k++, x++) {
		const struct tree_exec *e = &p->exec[k];
		int64_t at = run_ns(c, workload_exec_start(t, x));
		int64_t limit = k + 1 < p->nexec ? run_ns(c, workload_exec_start(t, x + 1)) : proc_end;
		if (x->bd) {
			exec_timeline(c, pid, x, at, limit);
			continue;
		}
		/* An end never seen: to the run's end, as its process (end_unseen). */
		uint64_t end_ts = e->end_ts ? e->end_ts : c->w->t->run[c->run].reap_ts;
		int64_t end = at_most(run_ns(c, end_ts), limit);
		slice(c, pid, e->path ? path_basename(e->path) : "?", "exec", at, end);
		fputs(",\"args\":{\"path\":", c->f);
		json_put_string(c->f, e->path);
		fprintf(c->f, ",\"kind\":\"%s\",\"reason\":", tree_exec_kind_name(e->kind));
		json_put_string(c->f, x->reason);
		fputs("}}", c->f);
	}
}

static void metadata(const struct chrome *c, int pid, const char *what, const char *key,
		     const char *s, long long v)
{
	fprintf(c->f,
		",\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"%s\":", what,
		pid, pid, key);
	if (s)
		json_put_string(c->f, s);
	else
		fprintf(c->f, "%lld", v);
	fputs("}}", c->f);
}

/* The image p runs: its last exec's, or its nearest executing ancestor's (parents come first). */
static const char *image(const struct run_tree *tr, size_t p)
{
	for (size_t hops = 0; p < tr->nproc && hops <= tr->nproc; p = tr->proc[p].parent, hops++)
		if (tr->proc[p].nexec)
			return path_basename(tr->proc[p].exec[tr->proc[p].nexec - 1].path
						     ? tr->proc[p].exec[tr->proc[p].nexec - 1].path
						     : "?");
	return "?";
}

/* How the process ended, as the JSON says it: exit_status or signal, and whence (null: unknown). */
static void exit_args(struct chrome *c, const struct tree_proc *tp)
{
	char sig[SIGNAL_NAME_MAX];

	if (!tp->have_status)
		fputs("\"exit_status\":null,\"signal\":null,\"exit_status_from\":null", c->f);
	else if (WIFSIGNALED(tp->wait_status) && signal_name(WTERMSIG(tp->wait_status), sig))
		fprintf(c->f, "\"exit_status\":null,\"signal\":\"%s\",\"exit_status_from\":\"%s\"", sig,
			tp->status_from_shim ? "shim" : "ldprof");
	else
		fprintf(c->f, "\"exit_status\":%d,\"signal\":null,\"exit_status_from\":\"%s\"",
			WEXITSTATUS(tp->wait_status), tp->status_from_shim ? "shim" : "ldprof");
}

static void process_track(struct chrome *c, size_t p)
{
	const struct run_tree *tr = c->w->t->run[c->run].tree;
	const struct tree_proc *tp = &tr->proc[p];
	int pid = c->pid_base + (int)p;
	char name[512];

	if (tp->parent < tr->nproc)
		snprintf(name, sizeof name, "%s%s (pid %d, child of %s %d)",
			 tp->nexec ? "" : "fork of ", image(tr, p), tp->pid, image(tr, tp->parent),
			 tr->proc[tp->parent].pid);
	else
		snprintf(name, sizeof name, "%s (pid %d, run %zu)", image(tr, p), tp->pid,
			 workload_run_ordinal(c->w, c->run));
	metadata(c, pid, "process_name", "name", name, 0);
	metadata(c, pid, "process_sort_index", "sort_index", NULL, c->sort++);
	metadata(c, pid, "thread_name", "name", name, 0);
	/*
	 * The process's life encloses its execs: the earliest start, the latest
	 * end. An end never seen is drawn to the run's end and said so
	 * (end_unseen), not shortened to nothing.
	 */
	int64_t run_end = run_ns(c, c->w->t->run[c->run].reap_ts);
	bool unseen = !tp->exit_ts;
	int64_t start = run_ns(c, tp->fork_ts), end = unseen ? run_end : run_ns(c, tp->exit_ts);
	const struct wl_exec *x = workload_exec(c->w, c->run, (uint32_t)p);
	for (size_t k = 0; x && k < tp->nexec; k++, x++) {
		int64_t s = run_ns(c, workload_exec_start(c->w->t, x));
		int64_t e = isnan(x->wall_us) ? run_end : s + (int64_t)llround(x->wall_us * 1000);
		/* And as far as an exec drawn from its own end (exec_slices) reaches. */
		if (tp->exec[k].end_ts && run_ns(c, tp->exec[k].end_ts) > e)
			e = run_ns(c, tp->exec[k].end_ts);
		unseen |= isnan(x->wall_us);
		start = s < start ? s : start;
		end = e > end ? e : end;
	}
	slice(c, pid, name, "process", start, end);
	fprintf(c->f,
		",\"args\":{\"pid\":%d,\"ppid\":%d,\"execs\":%zu,\"orphan\":%s,\"end_unseen\":%s,",
		tp->pid, tp->ppid, tp->nexec, tp->orphan ? "true" : "false", unseen ? "true" : "false");
	exit_args(c, tp);
	fputs("}}", c->f);
	exec_slices(c, pid, p, end);
}

/* Depth-first from the top, so that each process's track follows its parent's. */
static void tracks(struct chrome *c)
{
	const struct run_tree *tr = c->w->t->run[c->run].tree;
	size_t n = tr->nproc, *stack = xmalloc((n + 1) * sizeof *stack), depth = 0;
	size_t *first_kid = xmalloc((n + 1) * sizeof *first_kid),
	       *next = xmalloc((n + 1) * sizeof *next);

	for (size_t p = 0; p < n; p++)
		first_kid[p] = next[p] = SIZE_MAX;
	for (size_t p = n; p-- > 1;) /* children in order of their fork */
		if (tr->proc[p].parent < n) {
			next[p] = first_kid[tr->proc[p].parent];
			first_kid[tr->proc[p].parent] = p;
		}
	if (n)
		stack[depth++] = 0;
	while (depth) {
		size_t p = stack[--depth];
		process_track(c, p);
		size_t kids = 0;
		for (size_t k = first_kid[p]; k != SIZE_MAX; k = next[k])
			kids++;
		size_t at = depth + kids;
		for (size_t k = first_kid[p]; k != SIZE_MAX; k = next[k])
			stack[--at] = k; /* pushed in reverse, popped in fork order */
		depth += kids;
	}
	free(stack);
	free(first_kid);
	free(next);
}

void render_workload_chrome(FILE *f, const struct workload *w, bool all_runs)
{
	struct chrome c = {f, w, 0, 1, 0};

	fputs("{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
	      "\"args\":{\"name\":\"ldprof -f\"}}",
	      f);
	for (size_t i = 0; i < w->t->nrun; i++) {
		if (!w->proc_first[i] || (!all_runs && i != w->median_run))
			continue;
		c.run = i;
		tracks(&c);
		c.pid_base += (int)w->t->run[i].tree->nproc;
	}
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"ldprof_version\":"
	      "\"" LDPROF_VERSION "\",\"schema\":\"ldprof-workload/1\",\"median_run\":",
	      f);
	fprintf(f, "%lld,\"runs\":%zu}}\n",
		w->median_run == SIZE_MAX ? -1LL
					  : (long long)workload_run_ordinal(w, w->median_run),
		w->runs);
}
