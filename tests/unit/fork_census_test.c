/*
 * Unit tests for the fork census (run/fork-census.h): the tally counts the
 * forks and vforks of the program's own image (the top's before it
 * executes another, and those of its forks before they execute: a double
 * fork's middle), not those of what a child executed, nor threads. Then
 * real runs under ptrace: a subshell's fork and a program that cannot run
 * (tests/t0227-forks.sh holds the counts to strace -f's).
 */
#include <errno.h>
#include <stdlib.h>

#include "run/fork-census.h"
#include "unit.h"

static void test_tally(void)
{
	struct fork_tally t;

	fork_tally_start(&t, 100);
	fork_tally_child(&t, 100, 101, TALLY_FORK);   /* the top's fork */
	fork_tally_child(&t, 101, 102, TALLY_FORK);   /* the middle's: still the image */
	fork_tally_exec(&t, 102);		      /* 102 executes gpgconf */
	fork_tally_child(&t, 102, 103, TALLY_FORK);   /* gpgconf's fork: not the image */
	fork_tally_child(&t, 100, 104, TALLY_VFORK);  /* posix_spawn: shared */
	fork_tally_child(&t, 100, 105, TALLY_THREAD); /* a thread of the top */
	fork_tally_child(&t, 105, 106, TALLY_FORK);   /* forked by that thread: the image */
	fork_tally_child(&t, 999, 107, TALLY_FORK);   /* a parent never seen */
	CHECK(t.c.forks == 3 && t.c.vforks == 1);
	fork_tally_exec(&t, 100); /* the top executes another program */
	fork_tally_child(&t, 100, 108, TALLY_FORK);
	CHECK(t.c.forks == 3);
	fork_tally_free(&t);
}

/* NSS's configuration opened: once a process of the image, not by what it executed. */
static void test_nss(void)
{
	struct fork_tally t;

	fork_tally_start(&t, 100);
	fork_tally_child(&t, 100, 101, TALLY_FORK);
	fork_tally_open(&t, 100, "/etc/ld.so.cache");
	CHECK(t.c.nss == 0);
	fork_tally_open(&t, 100, "/etc/nsswitch.conf");
	fork_tally_open(&t, 100, "/etc/nsswitch.conf"); /* its second: the same process */
	fork_tally_open(&t, 101, "/etc/nsswitch.conf");
	CHECK(t.c.nss == 2);
	fork_tally_exec(&t, 101);
	fork_tally_child(&t, 100, 102, TALLY_FORK);
	fork_tally_exec(&t, 102); /* 102 executes id, which looks its user up */
	fork_tally_open(&t, 102, "/etc/nsswitch.conf");
	fork_tally_open(&t, 999, "/etc/nsswitch.conf"); /* never seen */
	CHECK(t.c.nss == 2);
	fork_tally_free(&t);
}

static void test_real(void)
{
	struct fork_counts c = {.forks = 99, .vforks = 99, .nss = 99};
	struct errbuf err;
	char *dbl[] = {"/bin/sh", "-c", "(/bin/true &) ; wait; exit 0", NULL};
	char *ex[] = {"/bin/sh", "-c", "exec /bin/true", NULL};
	char *none[] = {"/nonexistent/prog", NULL};

	/* dash: a subshell by fork, which forks /bin/true in the background; then exit. */
	CHECK(fork_census("/bin/sh", dbl, 10, true, &c, &err) == 0);
	CHECK(c.forks >= 1 && c.nss == 0);
	/* dash allocates (its parser's stack blocks): its exit seen, with a heap. */
	CHECK(c.heap_seen && c.heap);
	/* ...and its maps then: its own file and libc mapped, each some pages. */
	CHECK(c.mapped_seen && c.nmapped >= 2);
	for (size_t i = 0; i < c.nmapped; i++)
		CHECK(c.mapped[i].path[0] == '/' && c.mapped[i].pages > 0);
	fork_counts_free(&c);
	/* Its first process executes /bin/true: the image's exit is never seen. */
	CHECK(fork_census("/bin/sh", ex, 10, false, &c, &err) == 0);
	CHECK(!c.heap_seen && !c.heap && !c.mapped_seen && !c.nmapped);
	CHECK(fork_census("/nonexistent/prog", none, 10, false, &c, &err) == -ENOEXEC);
}

int main(void)
{
	test_tally();
	test_nss();
	test_real();
	return unit_done("fork_census_test");
}
