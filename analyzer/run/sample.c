/* --sample: the perf event on one run, its ring, its records (sample.h). */
#include "run/sample.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * 4 MiB: 2 ms of CPU at 20 us is 100 samples of 8 KiB, which the launcher,
 * on a busy machine, may not drain in time from a smaller ring. Halved
 * while the locked-memory limits refuse (perf_event_mlock_kb).
 */
#define RING_BYTES_DEFAULT (4096u * 1024)

void sampler_init(struct sampler *s, uint64_t period_ns)
{
	const char *kb = getenv("LDPROF_SAMPLE_RING_KB"); /* tests: a tiny ring, lost samples */

	memset(s, 0, sizeof *s);
	s->ring.fd = -1;
	s->period_ns = period_ns ? period_ns : SAMPLE_PERIOD_NS_DEFAULT;
	s->regs_mask = stack_regs_mask();
	s->ring_bytes = RING_BYTES_DEFAULT;
	if (kb && *kb) {
		size_t want = (size_t)perf_page_size(), bytes = strtoul(kb, NULL, 10) * 1024;
		while (want < bytes && want < (64u << 20))
			want <<= 1;
		s->ring_bytes = want;
	}
	/* The unwinder comes with the first samples (sampler_finish). */
}

void sampler_clear(struct sampler *s)
{
	for (size_t i = 0; i < s->nraw; i++)
		free(s->raw[i].stack);
	for (size_t i = 0; i < s->nmap; i++)
		free(s->map[i].path);
	s->nraw = s->nmap = 0;
	s->lost = 0;
}

void sampler_fini(struct sampler *s)
{
	perf_ring_close(&s->ring);
	sampler_clear(s);
	free(s->raw);
	free(s->map);
	free(s->scratch.buf);
	if (s->uw)
		stack_unwinder_free(s->uw);
	memset(s, 0, sizeof *s);
	s->ring.fd = -1;
}

void sampler_prepare(struct sampler *s)
{
	sampler_clear(s);
	perf_clock_pair(&s->start_tsc, &s->start_ns);
	if (!s->cal_tsc) {
		s->cal_tsc = s->start_tsc;
		s->cal_ns = s->start_ns;
	}
}

static void fill_attr(const struct sampler *s, struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = s->period_ns; /* cpu-clock counts nanoseconds */
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = s->regs_mask;
	a->sample_stack_user = SAMPLE_STACK_BYTES;
	a->sample_id_all = 1; /* the times of MMAP2 and COMM records */
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->exclude_kernel = 1; /* allowed unprivileged at perf_event_paranoid 2 */
	a->exclude_hv = 1;
	a->mmap = 1;  /* executable mappings only (no mmap_data) */
	a->mmap2 = 1; /* with their file offset and inode */
	a->comm = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC_RAW;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(s->ring_bytes / 8);
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -99;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -99;
		fclose(f);
	}
	return v;
}

static int refused(int e, struct errbuf *err)
{
	int level = paranoid_level();

	if (level == -99)
		return set_err(err, e, "perf_event_open: %s", strerror(e));
	return set_err(err, e, "perf_event_open: %s (kernel.perf_event_paranoid=%d)", strerror(e),
		       level);
}

int sampler_attach(struct sampler *s, pid_t pid, struct errbuf *err)
{
	const char *fake = getenv("LDPROF_TEST_PERF_EPERM");
	struct perf_event_attr a;
	int fd, r;

	if (fake && *fake == '1')
		return refused(EACCES, err);
	fill_attr(s, &a);
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return refused(errno, err);
	if ((r = perf_ring_map(&s->ring, fd, s->ring_bytes))) {
		perf_ring_close(&s->ring);
		return set_err(err, -r, "mmap of the perf ring: %s", strerror(-r));
	}
	s->pid = pid;
	return 0;
}

bool sampler_active(const struct sampler *s)
{
	return s->ring.base != NULL;
}

struct pollfd sampler_pollfd(const struct sampler *s)
{
	return (struct pollfd){.fd = s->ring.fd, .events = POLLIN};
}

/* ip, pid/tid, time, abi + regs, size + bytes + dyn_size: bounds checked against size. */
static void decode_sample(struct sampler *s, const char *p, size_t size)
{
	size_t nregs = (size_t)__builtin_popcountll(s->regs_mask), off = 32;
	uint64_t regs[64], abi, len, dyn;
	struct sample_raw x = {0};

	if (size < off + 8)
		return;
	x.st.ip = perf_u64_at(p, 8);
	x.pid = perf_u32_at(p, 16);
	x.tid = perf_u32_at(p, 20);
	x.ns = perf_u64_at(p, 24);
	abi = perf_u64_at(p, off);
	off += 8;
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		if (size < off + 8 * nregs || nregs > 64)
			return;
		memcpy(regs, p + off, 8 * nregs);
		off += 8 * nregs;
		if (stack_regs_unpack(&x.st, s->regs_mask, regs, nregs))
			return;
	}
	if (size < off + 8)
		return;
	len = perf_u64_at(p, off);
	off += 8;
	if (len && size >= off + len + 8) {
		dyn = perf_u64_at(p, off + len);
		if (dyn > len)
			dyn = len;
		x.stack = xmalloc(dyn ? dyn : 1);
		memcpy(x.stack, p + off, dyn);
		x.st.stack = x.stack;
		x.st.stack_len = dyn;
	}
	GROW(s->raw, s->capraw, s->nraw);
	s->raw[s->nraw++] = x;
}

static void decode_mmap2(struct sampler *s, const char *p, size_t size)
{
	struct perf_event_header h;
	size_t end = size - 16; /* the sample_id trailer: pid/tid, time */

	memcpy(&h, p, sizeof h);
	if (size < 72 + 16 || (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return;
	if (perf_u32_at(p, 8) != (uint32_t)s->pid)
		return;
	GROW(s->map, s->capmap, s->nmap);
	s->map[s->nmap++] = (struct sample_map){
		.start = perf_u64_at(p, 16),
		.end = perf_u64_at(p, 16) + perf_u64_at(p, 24),
		.pgoff = perf_u64_at(p, 32),
		.path = xasprintf("%.*s", (int)strnlen(p + 72, end - 72), p + 72),
	};
}

static void decode(void *arg, const char *p, size_t size)
{
	struct sampler *s = arg;
	struct perf_event_header h;

	memcpy(&h, p, sizeof h);
	switch (h.type) {
	case PERF_RECORD_SAMPLE:
		decode_sample(s, p, size);
		break;
	case PERF_RECORD_MMAP2:
		decode_mmap2(s, p, size);
		break;
	case PERF_RECORD_LOST:
		if (size >= 24)
			s->lost += perf_u64_at(p, 16);
		break;
	}
}

void sampler_service(struct sampler *s)
{
	if (sampler_active(s))
		if (perf_ring_drain(&s->ring, &s->scratch, decode, s))
			s->lost++; /* at least one sample */
}

uint64_t sampler_ns_to_ticks(const struct sampler *s, uint64_t ns, uint64_t end_tsc,
			     uint64_t end_ns)
{
	double rate = end_ns > s->cal_ns && end_tsc > s->cal_tsc
			      ? (double)(end_tsc - s->cal_tsc) / (double)(end_ns - s->cal_ns)
			      : 1.0;
	double d = (double)(int64_t)(ns - s->start_ns) * rate;
	int64_t t = (int64_t)s->start_tsc + (int64_t)d;

	return t > 0 ? (uint64_t)t : 0;
}

void sampler_abort(struct sampler *s)
{
	perf_ring_close(&s->ring);
	sampler_clear(s);
}
