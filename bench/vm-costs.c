/*
 * vm-costs: what this machine charges for the two things the relocation
 * cost model counts beyond cache lines and page faults (docs/model.md,
 * "The first read of a page"):
 *
 *  - the first read of a file page that the kernel's fault-around mapped
 *    (no fault of its own): pages_read;
 *  - an mprotect of N written pages, as ld.so's of a RELRO segment, whose
 *    pages the kernel flushes from the TLB one by one: relro_pages.
 *
 * Usage: vm-costs FILE [ROUNDS]. FILE: any file of at least 64 KiB, read
 * into the page cache first. Prints the median over ROUNDS (default 15)
 * of each figure, in cycles of the TSC and in microseconds. Standalone
 * (libc, no ldprof code): the figures are the machine's, not ours.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define WINDOW_PAGES 16 /* fault_around_bytes, 64 KiB */
#define PAGE 4096L

static unsigned long long tsc(void)
{
	unsigned aux;
	return __rdtscp(&aux);
}

static long faults(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt + r.ru_majflt;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* FILE's first window mapped at a 64 KiB-aligned address inside a
   reservation of twice its size (*reserved, to munmap). Fault-around
   stops at a page table's end, a 2 MiB boundary: a window across one
   faults again past it, round after round, as mmap hands back the same
   address (1 time in 32 by chance). */
static volatile unsigned char *map_window(int fd, void **reserved)
{
	size_t size = WINDOW_PAGES * PAGE;
	char *r = mmap(NULL, 2 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at;

	if (r == MAP_FAILED)
		return MAP_FAILED;
	at = ((uintptr_t)r + size - 1) & ~(uintptr_t)(size - 1);
	*reserved = r;
	return mmap((void *)at, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
}

/* The mean cycles of the first read of each page fault-around mapped:
   one read faults in the window, then each other page is read once.
   -1 when one of those reads faulted after all (not in the page cache). */
static double first_reads(int fd)
{
	void *reserved = NULL;
	volatile unsigned char *p = map_window(fd, &reserved);
	unsigned long long sum = 0, t;
	unsigned char sink = 0;
	long f;

	if (p == MAP_FAILED) {
		if (reserved)
			munmap(reserved, 2 * WINDOW_PAGES * PAGE);
		return -1;
	}
	sink += p[0];
	f = faults();
	for (int i = 1; i < WINDOW_PAGES; i++) {
		t = tsc();
		sink += p[i * PAGE + 64 * (i % 60)];
		sum += tsc() - t;
	}
	(void)sink;
	munmap(reserved, 2 * WINDOW_PAGES * PAGE);
	return faults() != f ? -1 : (double)sum / (WINDOW_PAGES - 1);
}

/* The cycles of an mprotect to read-only of n private pages just written
   (exits when it cannot map them). */
static double mprotect_cycles(int n)
{
	char *p = mmap(NULL, (size_t)(n + 2) * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long long t;

	if (p == MAP_FAILED) {
		perror("vm-costs: mmap");
		exit(1);
	}
	for (int i = 0; i < n + 2; i++)
		p[i * PAGE] = 1;
	t = tsc();
	mprotect(p + PAGE, (size_t)n * PAGE, PROT_READ);
	t = tsc() - t;
	munmap(p, (size_t)(n + 2) * PAGE);
	return (double)t;
}

/* TSC cycles per microsecond, against CLOCK_MONOTONIC over 50 ms. */
static double cycles_per_us(void)
{
	struct timespec a, b, d = {0, 50 * 1000 * 1000};
	unsigned long long t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = tsc();
	nanosleep(&d, NULL);
	t1 = tsc();
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(t1 - t0) / ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3);
}

int main(int argc, char **argv)
{
	static const int sizes[] = {1, 16, 32, 64};
	double per_us, v[256], w[256], m[4];
	int rounds = argc > 2 ? atoi(argv[2]) : 15, fd, n = 0;
	struct stat st;

	if (argc < 2 || rounds < 1 || rounds > 256) {
		fprintf(stderr, "usage: vm-costs FILE [ROUNDS (1-256)]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size < WINDOW_PAGES * PAGE) {
		fprintf(stderr, "vm-costs: %s: not a readable file of 64 KiB or more\n", argv[1]);
		return 1;
	}
	per_us = cycles_per_us();
	for (int r = 0; r < rounds; r++) {
		double c = first_reads(fd);
		if (c >= 0)
			v[n++] = c;
	}
	if (!n) {
		fprintf(stderr, "vm-costs: %s: its pages fault on every read (not in the page cache?)\n",
			argv[1]);
		return 1;
	}
	mprotect_cycles(1); /* the first one in a process pays for more */
	for (int k = 0; k < 4; k++) {
		for (int r = 0; r < rounds; r++)
			w[r] = mprotect_cycles(sizes[k]);
		m[k] = median(w, rounds);
	}
	double first = median(v, n);
	printf("first read of a page fault-around mapped: %.0f cycles, %.2f us (%d of %d rounds without a fault)\n",
	       first, first / per_us, n, rounds);
	for (int k = 0; k < 4; k++)
		printf("mprotect of %2d written pages: %.0f cycles, %.1f us\n", sizes[k], m[k],
		       m[k] / per_us);
	printf("per page flushed (1 to 32 pages): %.2f us\n", (m[2] - m[0]) / 31 / per_us);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
