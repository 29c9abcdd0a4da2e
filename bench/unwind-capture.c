/*
 * Capture real samples for the unwinding benchmark. This is a bench tool's
 * own small sampler, not ldprof's (run/sample*.c): the benchmark measures
 * the stack layer alone, on samples taken as the launcher takes them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unwind-capture.h"

#define RING_PAGES 128 /* 512 KiB: within the unprivileged perf_event_mlock_kb */
#define PERIOD_NS  20000
#define STACK_USER 8192

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;
	uint8_t *scratch; /* one record that wraps around */
};

static void fill_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = PERIOD_NS;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = stack_regs_mask();
	a->sample_stack_user = STACK_USER;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->mmap = 1; /* mmap2 only chooses the record format: mmap asks for the records */
	a->mmap2 = 1;
	a->comm = 1;
	a->watermark = 1;
	a->wakeup_watermark = RING_PAGES * 4096 / 4;
}

static int ring_open(struct ring *r, pid_t pid, struct errbuf *err)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);

	fill_attr(&a);
	r->fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return set_err(err, errno, "perf_event_open: %s", strerror(errno));
	r->size = (size_t)RING_PAGES * (size_t)page;
	void *m = mmap(NULL, r->size + (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (m == MAP_FAILED) {
		int e = errno;
		close(r->fd);
		return set_err(err, e, "perf ring: mmap: %s", strerror(e));
	}
	r->meta = m;
	r->data = (uint8_t *)m + page;
	r->scratch = xmalloc(r->size);
	return 0;
}

static void ring_close(struct ring *r)
{
	munmap(r->meta, r->size + (size_t)sysconf(_SC_PAGESIZE));
	close(r->fd);
	free(r->scratch);
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

static void add_map(struct cap_run *run, const uint8_t *p, size_t size)
{
	/* PERF_RECORD_MMAP2 after its header: pid, tid, addr, len, pgoff, ids, prot, flags, name */
	if (size < 8 + 64 + 1)
		return;
	const uint8_t *b = p + 8;
	GROW(run->maps, run->maps_cap, run->nmaps + 1);
	run->maps[run->nmaps++] =
		(struct stack_map){u64_at(b + 8), u64_at(b + 8) + u64_at(b + 16), u64_at(b + 24),
				   strndup((const char *)b + 64, size - 8 - 64)};
}

static void add_sample(struct capture *c, struct cap_run *run, const uint8_t *p, size_t size)
{
	const uint8_t *b = p + 8, *end = p + size;
	struct cap_sample cs = {.nmaps = run->nmaps};
	uint64_t mask = stack_regs_mask();
	size_t nregs = (size_t)__builtin_popcountll(mask);

	if (end - b < 24 + 8)
		return;
	cs.s.ip = u64_at(b);
	b += 24; /* ip, pid/tid, time */
	if (!u64_at(b) || end - b < (ptrdiff_t)(8 + 8 * nregs + 8))
		return; /* no user registers (abi 0) */
	stack_regs_unpack(&cs.s, mask, (const uint64_t *)(b + 8), nregs);
	b += 8 + 8 * nregs;
	uint64_t len = u64_at(b);
	if ((uint64_t)(end - b) < 8 + len + 8)
		return;
	uint64_t dyn = u64_at(b + 8 + len);
	cs.s.stack_len = dyn < len ? dyn : len;
	GROW(run->bytes, run->bytes_cap, run->nbytes + cs.s.stack_len);
	memcpy(run->bytes + run->nbytes, b + 8, cs.s.stack_len);
	cs.s.stack = (const uint8_t *)(uintptr_t)run->nbytes; /* an offset until the run ends */
	run->nbytes += cs.s.stack_len;
	GROW(run->samples, run->samples_cap, run->nsamples + 1);
	run->samples[run->nsamples++] = cs;
	c->nsamples++;
}

static void forget_maps(struct cap_run *run)
{
	for (size_t i = 0; i < run->nmaps; i++)
		free((char *)run->maps[i].path);
	run->nmaps = 0;
}

static void record(struct capture *c, struct cap_run *run, const uint8_t *p, size_t size)
{
	const struct perf_event_header *h = (const void *)p;

	if (h->type == PERF_RECORD_MMAP2)
		add_map(run, p, size);
	else if (h->type == PERF_RECORD_SAMPLE)
		add_sample(c, run, p, size);
	else if (h->type == PERF_RECORD_LOST && size >= 24)
		c->lost += u64_at(p + 16);
	else if (h->type == PERF_RECORD_COMM && h->misc & PERF_RECORD_MISC_COMM_EXEC)
		forget_maps(run); /* a new image: the mappings before it are gone */
}

static void drain(struct capture *c, struct cap_run *run, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		size_t off = tail % r->size;
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof h; i++)
			((uint8_t *)&h)[i] = r->data[(off + i) % r->size];
		if (h.size < sizeof h || tail + h.size > head)
			break;
		const uint8_t *p = r->data + off;
		if (off + h.size > r->size) {
			size_t first = r->size - off;
			memcpy(r->scratch, r->data + off, first);
			memcpy(r->scratch + first, r->data, h.size - first);
			p = r->scratch;
		}
		record(c, run, p, h.size);
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* The child waits for the event to be open, then runs argv with no output. */
static pid_t start_child(char *const argv[], int *go)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char b;
		int null = open("/dev/null", O_RDWR);
		dup2(null, 1);
		dup2(null, 2);
		close(p[1]);
		if (read(p[0], &b, 1) == 1)
			execv(argv[0], argv);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static int one_run(struct capture *c, char *const argv[], struct errbuf *err)
{
	struct ring r;
	int go, status;
	pid_t pid = start_child(argv, &go);

	if (pid < 0)
		return set_err(err, errno, "fork: %s", strerror(errno));
	int ret = ring_open(&r, pid, err);
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return ret;
	}
	GROW(c->runs, c->runs_cap, c->nruns + 1);
	struct cap_run *run = &c->runs[c->nruns++];
	memset(run, 0, sizeof(*run));
	if (write(go, "g", 1) != 1)
		ret = set_err(err, errno, "starting the child: %s", strerror(errno));
	close(go);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		struct pollfd pf = {r.fd, POLLIN, 0};
		poll(&pf, 1, 2);
		drain(c, run, &r);
	}
	drain(c, run, &r);
	ring_close(&r);
	for (size_t i = 0; i < run->nsamples; i++)
		run->samples[i].s.stack = run->bytes + (uintptr_t)run->samples[i].s.stack;
	return ret;
}

int capture_runs(struct capture *c, char *const argv[], size_t want, size_t max_runs,
		 struct errbuf *err)
{
	memset(c, 0, sizeof(*c));
	c->period_ns = PERIOD_NS;
	c->stack_user = STACK_USER;
	while (c->nsamples < want && c->nruns < max_runs) {
		int ret = one_run(c, argv, err);
		if (ret)
			return ret;
	}
	return 0;
}

void capture_free(struct capture *c)
{
	for (size_t i = 0; i < c->nruns; i++) {
		forget_maps(&c->runs[i]);
		free(c->runs[i].maps);
		free(c->runs[i].samples);
		free(c->runs[i].bytes);
	}
	free(c->runs);
}
