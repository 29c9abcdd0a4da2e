/*
 * libFuzzer target for trace files (`ldprof report`, `ldprof diff`): the
 * input is a file's bytes. It is read through the entry report uses
 * (saved_trace_open, on a memfd by its /proc path, so the file reader
 * itself runs), and the report it builds is rendered as text and JSON.
 * No input may crash, hang, leak or read without bound. Build and run with
 * `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/saved.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];
static FILE *devnull;

static void setup(void)
{
	memfd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	devnull = fopen("/dev/null", "w");
	if (memfd < 0 || !devnull)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct text_style style = {.color = true, .utf8 = true};
	struct trace t;
	struct tracefile_info info;
	struct report rep;
	struct errbuf err;

	if (memfd < 0)
		setup();
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	if (saved_trace_open(path, &t, &info, &rep, &err) == 0) {
		render_text(devnull, &rep, &style);
		render_json(devnull, &rep);
	}
	saved_trace_free(&t, &rep);
	return 0;
}
