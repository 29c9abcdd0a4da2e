/*
 * faultrun: one run of a program under an audit module with a real
 * record buffer, wrapped so that perf can watch it, to list the run's page
 * faults one by one (bench/faults.mk, docs/design.md "what the shim costs").
 *
 *   faultrun [--shm] AUDIT.so|- WRAPPER... -- faultrun --child AUDIT.so|- PROG ARGS...
 *
 * The outer call makes the buffer (--shm) and runs WRAPPER (perf record);
 * the inner call, running as the process perf watches, claims the buffer for
 * its own pid, as the launcher does before its fork, sets LD_AUDIT and execs
 * PROG, so that the audit module's whole start-up is in the recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "run/shm.h"
#include "base/tsc.h"

static int child(char **argv)
{
	const char *spec = getenv("LDPROF_SHM");

	if (spec) {
		int fd = atoi(spec);
		size_t size = strtoul(strchr(spec, ',') + 1, NULL, 10);
		struct ldprof_shm_header *h =
			mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (h == MAP_FAILED) {
			perror("faultrun: mmap");
			return 127;
		}
		h->pid = getpid();
		h->exec_ts = tsc_now();
		munmap(h, size);
		fcntl(fd, F_SETFD, 0);
	}
	if (strcmp(argv[0], "-"))
		setenv("LD_AUDIT", argv[0], 1);
	execv(argv[1], argv + 1);
	perror("faultrun: exec");
	return 127;
}

int main(int argc, char **argv)
{
	struct shm_buf shm;
	struct errbuf err;

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return child(argv + 2);
	if (argc > 2 && !strcmp(argv[1], "--shm")) {
		if (shm_create(&shm, LDPROF_SHM_RUN_BYTES, &err) || shm_reset(&shm, &err)) {
			fprintf(stderr, "faultrun: %s\n", err.msg);
			return 1;
		}
		char spec[64];
		snprintf(spec, sizeof spec, "%d,%zu", shm.fd, shm.size);
		setenv("LDPROF_SHM", spec, 1);
		fcntl(shm.fd, F_SETFD, 0);
		argv++;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: faultrun [--shm] WRAPPER... -- faultrun --child AUDIT|- PROG...\n");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror("faultrun: exec");
	return 127;
}
