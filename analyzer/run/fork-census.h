/*
 * The forks a program's own image makes in one run: each copies its
 * address space, and a dynamic image's costs more to copy and tear down
 * (docs/model.md, "The forks"), while a vfork or posix_spawn child shares
 * it and copies nothing. perf's task records do not tell the two apart
 * (dash starts its commands by vfork), so the census is one run under
 * ptrace, outside the measurement, whose fork, vfork and clone events say
 * which each is. For a program that binds NSS functions it also stops the
 * image's processes at their system calls, to see which open NSS's
 * configuration, and at the program's exit it reads whether it allocated
 * (its heap). The program's output goes to /dev/null.
 */
#ifndef LDPROF_FORK_CENSUS_H
#define LDPROF_FORK_CENSUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/util.h"

struct fork_counts {
	uint32_t forks;	 /* children that copied the program's image */
	uint32_t vforks; /* vfork and posix_spawn children of it: shared, nothing copied */
	/*
	 * Processes of the image that looked something up through NSS (opened
	 * /etc/nsswitch.conf, as glibc does once a process at its first
	 * getpwuid, getgrnam, getaddrinfo, ...): a dynamic libc runs that code
	 * spread over more pages than a static link packs it into.
	 */
	uint32_t nss;
	/*
	 * The program's first process at its exit, while it still ran the
	 * image: seen, and whether it had a heap then (a [heap] in its maps:
	 * its brk grew, as glibc's malloc grows it at the first allocation).
	 * A static glibc start makes that allocation itself, whatever the
	 * program does; a dynamic one leaves it to the program.
	 */
	bool heap_seen, heap;
	/*
	 * The same process at its exit: each file it had mapped, and the
	 * page-cache pages of it mapped then (smaps' Shared_Clean and
	 * Private_Clean), which exit unmaps: fault-around maps 16 at a fault,
	 * and a dynamic image's libraries spread the code a run executes over
	 * more of them than a static link packs it into. mapped_seen: read.
	 */
	struct mapped_file {
		char *path; /* as the kernel names it: symbolic links resolved */
		uint32_t pages;
	} * mapped;
	size_t nmapped;
	bool mapped_seen;
};

/* Free what c holds (its mapped files). */
void fork_counts_free(struct fork_counts *c);

/*
 * Which processes run the program's image: the top until it executes
 * another, a child from its parent's at the fork until it executes. Apart
 * from ptrace, for the unit tests.
 */
struct fork_tally {
	struct tally_proc {
		pid_t pid;
		bool image; /* runs the program's image */
		bool live;  /* traced, not yet exited nor detached */
		bool nss;   /* counted in c.nss */
		bool pending; /* stopped before its parent's fork event: image or not, unknown */
	} *p;
	size_t n, cap;
	struct fork_counts c;
};

void fork_tally_start(struct fork_tally *t, pid_t top);
void fork_tally_exec(struct fork_tally *t, pid_t pid);
/* A new task of parent's: a fork, a vfork (shared memory) or a thread (neither counted). */
enum tally_kind { TALLY_FORK, TALLY_VFORK, TALLY_THREAD };
void fork_tally_child(struct fork_tally *t, pid_t parent, pid_t child, enum tally_kind k);
/* pid opened path: an NSS lookup of the image's when it is nsswitch.conf (once a process). */
void fork_tally_open(struct fork_tally *t, pid_t pid, const char *path);
void fork_tally_free(struct fork_tally *t);

/*
 * Run path with argv and the environment under ptrace until it exits
 * (what it left running is let go: a daemon it started lives on), or
 * timeout_s, after which all it started is killed, and count. With
 * watch_nss, the image's processes stop at each system call too (about 14
 * us a call here: a caller passes it only for a program that binds NSS
 * functions), else c->nss stays 0. -errno with err set when it could not
 * be traced or run; on success *c holds memory (fork_counts_free).
 */
int fork_census(const char *path, char *const argv[], double timeout_s, bool watch_nss,
		struct fork_counts *c, struct errbuf *err);

#endif
