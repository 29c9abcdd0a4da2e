/*
 * libFuzzer target for calibration files (model_read: every report and
 * the verdict read one, from $XDG_CACHE_HOME or $LDPROF_CALIBRATION, which
 * anyone can hand ldprof). An input is a file's contents, read on a memfd
 * by its /proc path. No input may crash or leak, and one that reads must
 * write back (model_save) to a file that reads again to the same figures.
 * Build and run with `make fuzz`.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64], saved[64];

static void setup(void)
{
	memfd = memfd_create("fuzz-calibration", MFD_CLOEXEC);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
	snprintf(saved, sizeof saved, "/tmp/fuzz-calibration.%d", (int)getpid());
}

/* Written with %.9g: the same figure to nine digits. */
static int same(double a, double b)
{
	return a == b || fabs(a - b) <= 1e-8 * fmax(fabs(a), fabs(b));
}

static void check_round_trip(const struct model_coefs *m)
{
	struct model_coefs back;
	struct errbuf err;

	if (model_save(m, saved, &err) || model_read(saved, &back, &err))
		abort();
	for (int k = 0; k < MODEL_NFEAT; k++)
		if (!same(m->coef_us[k], back.coef_us[k]))
			abort();
	if (!same(m->intercept_us, back.intercept_us) || !same(m->fault_us, back.fault_us) ||
	    !same(m->dynamic_fixed_us, back.dynamic_fixed_us))
		abort();
	unlink(saved);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_coefs m;
	struct errbuf err;

	if (memfd < 0)
		setup();
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	if (!model_read(path, &m, &err))
		check_round_trip(&m);
	return 0;
}
