/*
 * libFuzzer target for static archives (model/static-archives.h): the
 * verdict replays a static link through the archive of every library it
 * finds one for (libNAME.a beside the library or in the toolchain's
 * directories), which anyone who can write there can hand ldprof. An
 * input is an archive's contents, read on a memfd by its /proc path,
 * replayed twice: from a few names, and from every name its index
 * defines (every member pulled, its COMDAT groups and FDEs read). No
 * input may crash or leak. Build and run with `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/static-archives.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"inl_a", "inl_b", "main", "_Z5chainILi1EEii"};
	const char *paths[] = {path};
	uint64_t fdes;

	if (memfd < 0) {
		memfd = memfd_create("fuzz-archive", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	(void)static_archive_usable(path);
	(void)archive_group_fdes(paths, 1, names, sizeof names / sizeof *names, &fdes);
	(void)archive_group_fdes(paths, 1, NULL, 0, &fdes);
	return 0;
}
