/*
 * libFuzzer target for the shim's shared-memory record buffer: the input
 * is a buffer as a profiled program leaves it (header, records, names;
 * docs/record-format.md). It is validated and decoded into a run as the
 * launcher does after every run (shm_decode, without the run's pid and
 * clock window, which an input cannot know), and the run analysed as the
 * report analyses it (analyze_run). The program writes that buffer, so nothing in it may be
 * trusted: no input may crash, hang or leak. Build and run with `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/analyze.h"
#include "run/shm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	trace_free(&t);
	free(buf);
	return 0;
}
