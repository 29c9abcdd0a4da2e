/*
 * make bench-unwind: how fast the stack layer unwinds and symbolises real
 * samples. It captures samples of a program's runs (unwind-capture.c),
 * then times one unwinder (created inside the timing, so opening and
 * reading every object counts) over TARGET samples: the captured runs in
 * turn, as many times over as it takes. Each run's mappings differ from the
 * last one's (ASLR), so each run starts from a cold libunwind cache, as in
 * a real session; only the per-object caches carry over, as they do there.
 *
 *   unwind-bench [-n TARGET] [-c CAPTURE] PROG ARGS...
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/strmap.h"
#include "unwind-capture.h"

#define MAX_FRAMES   127
#define GOAL_SAMPLES 100000
#define GOAL_SECONDS 2.0

struct tally {
	size_t samples, frames, complete, failed, named;
	double first_pass;  /* seconds for the captured samples once, objects opened cold */
	double cpu;	    /* this process's CPU seconds for them all */
	struct strmap self; /* leaf "name (object)" -> count, for a sanity check */
};

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void count_self(struct tally *t, const struct stack_sym *sym)
{
	char key[512];

	snprintf(key, sizeof key, "%s (%s)", sym->name ? sym->name : "?", sym->object);
	uintptr_t n = (uintptr_t)strmap_get(&t->self, key);
	strmap_put(&t->self, key, (void *)(n + 1));
}

static void one_sample(struct stack_unwinder *u, const struct cap_run *run,
		       const struct cap_sample *cs, struct tally *t)
{
	struct stack_frame frames[MAX_FRAMES];
	struct stack_sym sym;
	struct errbuf err;
	bool complete;
	int n = stack_unwind(u, run->maps, cs->nmaps, &cs->s, frames, MAX_FRAMES, &complete, &err);

	t->samples++;
	if (n < 0) {
		t->failed++;
		return;
	}
	t->complete += complete;
	t->frames += (size_t)n;
	for (int i = 0; i < n; i++) {
		if (frames[i].map < 0)
			continue;
		stack_symbolize(u, run->maps[frames[i].map].path, frames[i].offset, &sym, &err);
		t->named += sym.name != NULL;
		if (i == 0)
			count_self(t, &sym);
	}
}

static double replay(const struct capture *c, size_t target, struct tally *t)
{
	struct stack_unwinder *u;
	struct errbuf err;
	double t0 = now(), cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);

	if (stack_unwinder_new(&u, &err)) {
		fprintf(stderr, "unwind-bench: %s\n", err.msg);
		exit(1);
	}
	while (t->samples < target) {
		for (size_t r = 0; r < c->nruns && t->samples < target; r++)
			for (size_t i = 0; i < c->runs[r].nsamples && t->samples < target; i++)
				one_sample(u, &c->runs[r], &c->runs[r].samples[i], t);
		if (!t->first_pass)
			t->first_pass = now() - t0;
	}
	stack_unwinder_free(u);
	t->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	return now() - t0;
}

struct top {
	const char *name;
	uintptr_t n;
};

static int by_count(const void *pa, const void *pb)
{
	const struct top *a = pa, *b = pb;

	return a->n != b->n ? (a->n < b->n ? 1 : -1) : strcmp(a->name, b->name);
}

static void print_top(struct tally *t)
{
	struct top *top = xcalloc(t->self.n + 1, sizeof(*top));
	size_t n = 0;

	for (size_t i = 0; i < t->self.cap; i++)
		if (t->self.slot[i].key)
			top[n++] =
				(struct top){t->self.slot[i].key, (uintptr_t)t->self.slot[i].value};
	qsort(top, n, sizeof(*top), by_count);
	printf("   top self:");
	for (size_t i = 0; i < n && i < 5; i++)
		printf("%s %.0f%% %s", i ? "," : "", 100.0 * (double)top[i].n / (double)t->samples,
		       top[i].name);
	printf("\n");
	free(top);
}

/*
 * The goal is judged on CPU time: the machines are shared, and the wall
 * time (printed too) also counts whatever else ran on them meanwhile.
 */
static bool report(const struct capture *c, const struct tally *t, double secs)
{
	size_t ok = t->samples - t->failed;
	double per_sample = t->cpu / (double)t->samples;
	double projected = GOAL_SAMPLES * per_sample;

	printf("   captured %zu samples from %zu runs (period %llu us, %u-byte stacks, %llu "
	       "lost)\n",
	       c->nsamples, c->nruns, (unsigned long long)c->period_ns / 1000, c->stack_user,
	       (unsigned long long)c->lost);
	printf("   unwound and symbolised %zu samples (the captured ones %.1f times over): "
	       "%.3f s of CPU (%.3f s wall), %.0f samples/s\n",
	       t->samples, (double)t->samples / (double)c->nsamples, t->cpu, secs,
	       1.0 / per_sample);
	if (t->samples >= c->nsamples)
		printf("   the first pass, each object opened and read cold: %zu samples in %.3f s "
		       "wall\n",
		       c->nsamples, t->first_pass);
	printf("   %.1f frames a sample, %.1f%% of the samples to their outermost frame, "
	       "%.1f%% not unwound, %.1f%% of the frames named\n",
	       ok ? (double)t->frames / (double)ok : 0.0,
	       100.0 * (double)t->complete / (double)t->samples,
	       100.0 * (double)t->failed / (double)t->samples,
	       t->frames ? 100.0 * (double)t->named / (double)t->frames : 0.0);
	printf("   goal: %d samples in <= %.0f s: %s (%.3f s of CPU at this rate)\n", GOAL_SAMPLES,
	       GOAL_SECONDS, projected <= GOAL_SECONDS ? "met" : "NOT met", projected);
	return projected <= GOAL_SECONDS;
}

int main(int argc, char **argv)
{
	size_t target = GOAL_SAMPLES, want = 20000;
	struct capture c;
	struct errbuf err;
	struct tally t = {0};
	int opt;

	while ((opt = getopt(argc, argv, "+n:c:")) != -1) {
		if (opt == 'n')
			target = strtoul(optarg, NULL, 10);
		else if (opt == 'c')
			want = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind >= argc || !target || !want) {
		fprintf(stderr, "usage: unwind-bench [-n TARGET] [-c CAPTURE] PROG ARGS...\n");
		return 2;
	}
	if (capture_runs(&c, argv + optind, want, want, &err)) {
		printf("   skipped: %s\n", err.msg);
		capture_free(&c);
		return 0;
	}
	if (!c.nsamples) {
		printf("   skipped: no samples captured\n");
		capture_free(&c);
		return 0;
	}
	double secs = replay(&c, target, &t);
	bool met = report(&c, &t, secs);
	print_top(&t);
	strmap_free(&t.self, NULL);
	capture_free(&c);
	return met ? 0 : 1; /* make bench names the goal missed */
}
