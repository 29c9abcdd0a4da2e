/* Following a process tree: the perf events, their rings, the reaping (follow.h). */
#include "run/follow.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "base/tsc.h"
#include "run/follow-tree.h"

static void unpublish_live(struct follow *f);

/* 256 KiB per ring: drained while the run goes on, so it need not hold a run. */
#define RING_BYTES_DEFAULT (256u * 1024)

static long page_size(void)
{
	return perf_page_size();
}

int follow_init(struct follow *f, struct errbuf *err)
{
	sigset_t chld;
	const char *kb = getenv("LDPROF_FOLLOW_RING_KB"); /* tests: a tiny ring */

	memset(f, 0, sizeof *f);
	f->sigfd = -1;
	f->ring_bytes = RING_BYTES_DEFAULT;
	if (kb && *kb) {
		unsigned long v = strtoul(kb, NULL, 10);
		size_t want = (size_t)page_size(), bytes = v * 1024;
		while (want < bytes && want < (64u << 20))
			want <<= 1;
		f->ring_bytes = want;
	}
	/* Orphans come to us instead of init: reaped, counted, timed. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return set_err(err, errno, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	f->sigfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
	if (f->sigfd < 0) {
		int e = errno;
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		return set_err(err, e, "signalfd: %s", strerror(e));
	}
	return 0;
}

static void rings_close(struct follow *f)
{
	for (size_t i = 0; i < f->nring; i++)
		perf_ring_close(&f->ring[i]);
	free(f->ring);
	f->ring = NULL;
	f->nring = 0;
}

static void records_free(struct follow *f)
{
	for (size_t i = 0; i < f->nrec; i++)
		free(f->rec[i].str);
	f->nrec = 0;
	f->nreap = 0;
	f->lost = 0;
}

void follow_fini(struct follow *f)
{
	if (f->active)
		follow_abort(f);
	unpublish_live(f);
	rings_close(f);
	records_free(f);
	free(f->rec);
	free(f->reap);
	free(f->scratch.buf);
	if (f->sigfd >= 0)
		close(f->sigfd);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	memset(f, 0, sizeof *f);
	f->sigfd = -1;
}

void follow_prepare(struct follow *f)
{
	sigset_t chld;

	records_free(f);
	f->top_reaped = f->all_reaped = false;
	f->top = 0;
	f->maxrss_kb = 0;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	getrusage(RUSAGE_CHILDREN, &f->ru0);
	perf_clock_pair(&f->start_tsc, &f->start_ns);
	if (!f->cal_tsc) {
		f->cal_tsc = f->start_tsc;
		f->cal_ns = f->start_ns;
	}
	f->active = true;
}

/*
 * Bench only (make bench-follow's floor): no mmap records, so that their
 * cost can be told from the rest; children the shim cannot enter then
 * have no binary.
 */
static bool no_mmap_records(void)
{
	return getenv("LDPROF_FOLLOW_NO_MMAP") != NULL;
}

static void fill_attr(struct perf_event_attr *a, size_t ring_bytes)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->enable_on_exec = 1;
	/* Refused at perf_event_paranoid 2 otherwise; task records still come. */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC_RAW;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring_bytes / 4);
	a->inherit = 1;
	a->task = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->mmap = !no_mmap_records(); /* executable mappings: the first after an exec is the binary */
	a->mmap2 = a->mmap;
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static struct perf_ring *ring_add(struct follow *f)
{
	f->ring = xrealloc(f->ring, (f->nring + 1) * sizeof *f->ring);
	f->ring[f->nring] = (struct perf_ring){.fd = -1};
	return &f->ring[f->nring++];
}

/*
 * One inherited event per CPU, each with its own ring, as perf record
 * does. Not one inherited per-task event redirected into one ring
 * (PERF_EVENT_IOC_SET_OUTPUT): the kernel's ring writers are CPU-local
 * (local_t), so children writing at once from two CPUs corrupt its head;
 * records then stop, with no PERF_RECORD_LOST (docs/design.md).
 */
static int attach_per_cpu(struct follow *f, pid_t pid, const char **what)
{
	struct perf_event_attr a;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int r;

	fill_attr(&a, f->ring_bytes);
	for (long cpu = 0; cpu < ncpu; cpu++) {
		int fd = perf_open(&a, pid, (int)cpu);
		*what = "perf_event_open";
		if (fd < 0 && errno == ENODEV)
			continue; /* an offline CPU */
		if (fd < 0)
			return -errno;
		*what = "mmap of a perf ring";
		if ((r = perf_ring_map(ring_add(f), fd, f->ring_bytes)))
			return r;
	}
	return f->nring ? 0 : -ENODEV;
}

int follow_attach(struct follow *f, pid_t pid, struct errbuf *err)
{
	const char *what = "perf_event_open";
	int r;

	f->top = pid;
	if (!(r = attach_per_cpu(f, pid, &what)))
		return 0;
	rings_close(f);
	if (r == -EACCES || r == -EPERM)
		return set_err(err, -r,
			       "-f: %s: %s (following a workload needs perf task events: "
			       "kernel.perf_event_paranoid must be 2 or less)",
			       what, strerror(-r));
	return set_err(err, -r, "-f: %s: %s", what, strerror(-r));
}

size_t follow_pollfds(const struct follow *f, struct pollfd *p, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nring && n + 1 < max; i++)
		p[n++] = (struct pollfd){.fd = f->ring[i].fd, .events = POLLIN};
	if (n < max)
		p[n++] = (struct pollfd){.fd = f->sigfd, .events = POLLIN};
	return n;
}

static void add_rec(struct follow *f, const struct follow_rec *r)
{
	if (f->nrec == f->caprec) {
		f->caprec = f->caprec ? 2 * f->caprec : 1024;
		f->rec = xrealloc(f->rec, f->caprec * sizeof *f->rec);
	}
	f->rec[f->nrec] = *r;
	f->rec[f->nrec].seq = (uint32_t)f->nrec;
	f->nrec++;
}

/* The string at off in a record of size bytes, before the sample_id trailer. */
static char *rec_string(const char *p, size_t off, size_t size)
{
	size_t end = size >= off + 16 ? size - 16 : off;

	return xasprintf("%.*s", (int)strnlen(p + off, end - off), p + off);
}

/* One whole record; bounds are checked against its own size. */
static void decode(void *arg, const char *p, size_t size)
{
	struct follow *f = arg;
	struct perf_event_header h;
	struct follow_rec r = {0};

	memcpy(&h, p, sizeof h);
	r.type = h.type;
	switch (h.type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size < 32)
			return;
		r.pid = (int32_t)perf_u32_at(p, 8);
		r.ppid = (int32_t)perf_u32_at(p, 12);
		r.tid = (int32_t)perf_u32_at(p, 16);
		r.ns = perf_u64_at(p, 24);
		break;
	case PERF_RECORD_COMM:
		if (!(h.misc & PERF_RECORD_MISC_COMM_EXEC) || size < 32)
			return; /* a rename (PR_SET_NAME) is no exec */
		r.pid = (int32_t)perf_u32_at(p, 8);
		r.tid = (int32_t)perf_u32_at(p, 12);
		r.ns = perf_u64_at(p, size - 8);
		r.str = rec_string(p, 16, size);
		break;
	case PERF_RECORD_MMAP2:
		if (size < 72 + 16 || (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
			return;
		r.pid = (int32_t)perf_u32_at(p, 8);
		r.tid = (int32_t)perf_u32_at(p, 12);
		r.ns = perf_u64_at(p, size - 8);
		r.str = rec_string(p, 72, size);
		break;
	case PERF_RECORD_LOST:
		if (size >= 24)
			f->lost += perf_u64_at(p, 16);
		return;
	default:
		return;
	}
	add_rec(f, &r);
}

static void add_reap(struct follow *f, pid_t pid, int status)
{
	if (f->nreap == f->capreap) {
		f->capreap = f->capreap ? 2 * f->capreap : 16;
		f->reap = xrealloc(f->reap, f->capreap * sizeof *f->reap);
	}
	f->reap[f->nreap++] = (struct follow_reap){pid, status, tsc_now()};
}

/* Reap every child that has exited; ECHILD means the whole tree is gone. */
static void reap_ready(struct follow *f)
{
	for (;;) {
		siginfo_t si;
		struct rusage ru;
		int status;
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == ECHILD)
				f->all_reaped = true;
			if (errno != EINTR)
				return;
			continue;
		}
		if (!si.si_pid)
			return;
		/* Before its pid is freed for reuse: no signal may follow it. */
		if (si.si_pid == f->top)
			interrupt_set_group(0);
		if (wait4(si.si_pid, &status, 0, &ru) < 0)
			continue;
		if (ru.ru_maxrss > f->maxrss_kb)
			f->maxrss_kb = ru.ru_maxrss;
		if (si.si_pid == f->top)
			f->top_reaped = true;
		add_reap(f, si.si_pid, status);
	}
}

static void drain_sigfd(struct follow *f)
{
	struct signalfd_siginfo si[8];

	while (read(f->sigfd, si, sizeof si) > 0)
		;
}

static void drain_all(struct follow *f)
{
	for (size_t i = 0; i < f->nring; i++)
		if (perf_ring_drain(&f->ring[i], &f->scratch, decode, f))
			f->lost++; /* at least one record */
}

/*
 * Tell the signal handlers which processes are alive, so that a second
 * Ctrl-C, SIGTERM or Ctrl-Z reaches those outside the run's group too.
 * Rebuilt when records came in; the set the handlers may be reading is
 * freed only once the other one is published.
 */
static void publish_live(struct follow *f)
{
	pid_t *live;
	size_t n;

	if (f->nrec == f->live_nrec && f->live[f->live_cur])
		return;
	n = follow_tree_live(f->rec, f->nrec, f->top_reaped ? 0 : f->top, &live);
	f->live_cur ^= 1;
	free(f->live[f->live_cur]);
	f->live[f->live_cur] = live;
	interrupt_set_extra(live, n);
	free(f->live[f->live_cur ^ 1]);
	f->live[f->live_cur ^ 1] = NULL;
	f->live_nrec = f->nrec;
}

static void unpublish_live(struct follow *f)
{
	interrupt_set_extra(NULL, 0);
	for (int i = 0; i < 2; i++) {
		free(f->live[i]);
		f->live[i] = NULL;
	}
	f->live_nrec = 0;
}

void follow_service(struct follow *f)
{
	drain_all(f);
	drain_sigfd(f);
	reap_ready(f);
	/* A reaped process's EXIT was written before it could be reaped. */
	drain_all(f);
	if (f->nring)
		publish_live(f);
}

bool follow_done(const struct follow *f)
{
	return f->all_reaped;
}

void follow_signal_live(struct follow *f, int sig)
{
	pid_t *live = NULL;
	size_t n = 0;

	drain_all(f);
	n = follow_tree_live(f->rec, f->nrec, f->top_reaped ? 0 : f->top, &live);
	for (size_t i = 0; i < n; i++)
		kill(live[i], sig);
	free(live);
}

static void unblock_sigchld(void)
{
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_UNBLOCK, &chld, NULL);
}

/* perf ns (CLOCK_MONOTONIC_RAW) to ticks: the run's start pair, the session's rate. */
static void clock_map(const struct follow *f, struct follow_clock *c)
{
	uint64_t end_tsc, end_ns;

	perf_clock_pair(&end_tsc, &end_ns);
	c->tsc0 = f->start_tsc;
	c->ns0 = f->start_ns;
	c->ticks_per_ns = end_ns > f->cal_ns && end_tsc > f->cal_tsc
				  ? (double)(end_tsc - f->cal_tsc) / (double)(end_ns - f->cal_ns)
				  : 1.0;
}

struct run_tree *follow_finish(struct follow *f, uint64_t exec_ts, int *top_status,
			       uint64_t *reap_ts, struct rusage *usage)
{
	struct follow_clock c;
	struct run_tree *t;

	drain_all(f);
	unpublish_live(f);
	clock_map(f, &c);
	rings_close(f);
	*top_status = 0;
	*reap_ts = f->nreap ? f->reap[f->nreap - 1].ts : tsc_now();
	for (size_t i = 0; i < f->nreap; i++)
		if (f->reap[i].pid == f->top)
			*top_status = f->reap[i].status;
	getrusage(RUSAGE_CHILDREN, usage);
	t = follow_tree_build(f->rec, f->nrec, f->reap, f->nreap, f->top, exec_ts, &c);
	t->lost_events += f->lost;
	follow_tree_cpu(t, &f->ru0, usage);
	/* RUSAGE_CHILDREN's is the largest child of the whole session. */
	usage->ru_maxrss = f->maxrss_kb;
	drain_sigfd(f);
	unblock_sigchld();
	f->active = false;
	return t;
}

void follow_abort(struct follow *f)
{
	unpublish_live(f);
	rings_close(f);
	if (f->top > 0 && !f->top_reaped) {
		kill(f->top, SIGKILL);
		waitpid(f->top, NULL, 0);
	}
	drain_sigfd(f);
	unblock_sigchld();
	f->active = false;
}
