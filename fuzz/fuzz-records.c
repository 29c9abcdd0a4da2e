/*
 * libFuzzer target for the shim's shared-memory record buffer: the input
 * is a buffer as a profiled program leaves it (header, records, names;
 * docs/record-format.md). It is validated and decoded into a run as the
 * launcher does after every run (shm_decode, without the run's pid and
 * clock window, which an input cannot know), and the run analysed as the
 * report analyses it (analyze_run). A follow-mode buffer (ldprof -f: a
 * chunk set per process) is also decoded process by process
 * (shm_decode_procs) and each process's records analysed as a run of
 * their own. The program writes that buffer, so nothing in it may be
 * trusted: no input may crash, hang or leak. Build and run with `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/analyze.h"
#include "run/shm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each process of a follow-mode buffer, analysed as a run from its exec to its last record. */
static void each_process(const void *buf, size_t size, struct trace *t)
{
	struct shm_proc *p;
	size_t n;
	uint64_t lost;
	struct errbuf err;

	if (shm_decode_procs(buf, size, NULL, t, &p, &n, &lost, &err))
		return;
	for (size_t i = 0; i < n; i++) {
		struct trace_run v = {.profiled = true, .shim_attached = true,
				      .exec_ts = p[i].version_ts, .reap_ts = p[i].version_ts,
				      .ev = p[i].ev, .nev = p[i].nev, .shm_flags = p[i].flags};
		struct run_breakdown bd;
		for (size_t k = 0; k < p[i].nev; k++)
			v.reap_ts = p[i].ev[k].ts > v.reap_ts ? p[i].ev[k].ts : v.reap_ts;
		analyze_run(t, &v, &bd);
		run_breakdown_free(&bd);
	}
	shm_procs_free(p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = {"/fuzz/prog", NULL};
	struct trace t;
	struct trace_run *r;
	struct run_breakdown bd;
	struct errbuf err;
	/* The launcher's buffer is page-aligned; libFuzzer's input need not be. */
	void *buf = malloc(size ? size : 1);

	memcpy(buf, data, size);
	trace_init(&t, 1, argv);
	t.program = xstrdup(argv[0]);
	t.tsc_hz = 1e9;
	r = trace_add_run(&t);
	r->profiled = true;
	if (shm_decode(buf, size, NULL, &t, r, &err) == 0) {
		analyze_run(&t, r, &bd);
		run_breakdown_free(&bd);
	}
	each_process(buf, size, &t);
	trace_free(&t);
	free(buf);
	return 0;
}
