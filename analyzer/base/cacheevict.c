/*
 * Hand-rolled: emptying the CPU caches is reading something larger than
 * them, and no library we use does it. The cache sizes come from sysfs,
 * not sysconf(_SC_LEVEL3_CACHE_SIZE): in this project's VMs glibc's cpuid
 * reading reports the host's 384 MiB, sysfs the 32 MiB the guest shares.
 */
#include "base/cacheevict.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

enum { LINE = 64, MAX_CPUS = 8 };

#define EVICT_DEFAULT_BYTES ((size_t)64 << 20)

/* One cache's size from sysfs ("32768K"), 0 when absent. */
static size_t sysfs_cache_size(unsigned index)
{
	char path[96];
	unsigned long v = 0;
	char unit = 0;
	FILE *f;

	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/size", index);
	if (!(f = fopen(path, "r")))
		return 0;
	int n = fscanf(f, "%lu%c", &v, &unit);
	fclose(f);
	if (n < 1)
		return 0;
	return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v;
}

/* One cache's level from sysfs, 0 when absent. */
static unsigned sysfs_cache_level(unsigned index)
{
	char path[96];
	unsigned level = 0;
	FILE *f;

	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/level", index);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%u", &level) != 1)
		level = 0;
	fclose(f);
	return level;
}

size_t cache_l2_bytes(void)
{
	for (unsigned i = 0; i < 8; i++)
		if (sysfs_cache_level(i) == 2)
			return sysfs_cache_size(i);
	return 0;
}

size_t cache_evict_bytes(void)
{
	size_t largest = 0;

	for (unsigned i = 0; i < 8; i++) {
		size_t s = sysfs_cache_size(i);
		largest = s > largest ? s : largest;
	}
	/* At least the default: a VM's sysfs may list only a small L2. */
	if (2 * largest < EVICT_DEFAULT_BYTES)
		return EVICT_DEFAULT_BYTES;
	return largest > ((size_t)512 << 20) ? (size_t)1 << 30 : 2 * largest;
}

/* One read of every line: the buffer's lines displace whatever was cached. */
static void sweep_once(const volatile uint64_t *buf, size_t bytes)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < bytes / sizeof *buf; i += LINE / sizeof *buf)
		sum += buf[i];
	__asm__ volatile("" : : "r"(sum) : "memory");
}

/* The helper's CPUs: those it may run on, the first MAX_CPUS. */
static unsigned helper_cpus(int *cpu, const cpu_set_t *all)
{
	unsigned n = 0;

	for (int c = 0; c < CPU_SETSIZE && n < MAX_CPUS; c++)
		if (CPU_ISSET(c, all))
			cpu[n++] = c;
	return n;
}

/* Every fd from lo up, but keep: close_range, or one at a time where the kernel lacks it. */
static void close_from(int lo, int keep)
{
	long max = sysconf(_SC_OPEN_MAX);

	if (lo < keep && !close_range((unsigned)lo, (unsigned)keep - 1, 0) &&
	    !close_range((unsigned)keep + 1, ~0u, 0))
		return;
	if (lo > keep && !close_range((unsigned)lo, ~0u, 0))
		return;
	for (long fd = lo; fd < (max > 0 ? max : 1024); fd++)
		if (fd != keep)
			close((int)fd);
}

/*
 * Only what it needs: its socket, moved above the standard fds (ldprof
 * may have been started with them closed), and /dev/null as those. Returns
 * the socket's fd.
 */
static int helper_fds(int sock)
{
	if (sock < 3) {
		int up = fcntl(sock, F_DUPFD_CLOEXEC, 3);
		if (up < 0)
			_exit(1);
		close(sock);
		sock = up;
	}
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 3 && null >= 0; fd++)
		if (fd != null)
			dup2(null, fd);
	close_from(3, sock);
	return sock;
}

static _Noreturn void helper(int sock, size_t bytes)
{
	cpu_set_t all, one;
	int cpu[MAX_CPUS];
	char c = 'E';
	pid_t self = getpid();

	/* Ctrl-C is the launcher's to handle; the launcher's end, its socket's EOF, is the helper's. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_NAME, "ldprof-evict"); /* in ps and /proc: not ldprof itself */
	sock = helper_fds(sock);
	void *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED || sched_getaffinity(0, sizeof all, &all)) {
		(void)!write(sock, &c, 1);
		_exit(1);
	}
	unsigned n = helper_cpus(cpu, &all);
	c = 'R';
	if (write(sock, &c, 1) != 1 || write(sock, &self, sizeof self) != sizeof self)
		_exit(1);
	while (read(sock, &c, 1) == 1) {
		/* On each CPU, so that its private caches are emptied too. */
		for (unsigned i = 0; i < n; i++) {
			CPU_ZERO(&one);
			CPU_SET(cpu[i], &one);
			sched_setaffinity(0, sizeof one, &one);
			sweep_once(buf, bytes);
		}
		sched_setaffinity(0, sizeof all, &all);
		if (write(sock, &c, 1) != 1)
			break;
	}
	_exit(0);
}

/* N bytes from the helper, retried across signals: 0, or -errno (-EPIPE: it is gone). */
static int recv_all(int sock, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t k = recv(sock, (char *)buf + got, n - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k ? -errno : -EPIPE;
		got += (size_t)k;
	}
	return 0;
}

int cache_evictor_start(struct cache_evictor *ev, size_t bytes, struct errbuf *err)
{
	int sv[2], ret, status;
	pid_t mid;
	char c = 0;

	memset(ev, 0, sizeof *ev);
	ev->sock = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return set_err(err, errno, "cannot start the cache evictor: socketpair: %s",
			       strerror(errno));
	/*
	 * Forked twice: the helper is handed to init (or to a subreaper above
	 * ldprof), not left a child here, where -f waits for every child.
	 */
	mid = fork();
	if (mid < 0) {
		ret = set_err(err, errno, "cannot start the cache evictor: fork: %s",
			      strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (mid == 0) {
		close(sv[0]);
		pid_t h = fork();
		if (h == 0)
			helper(sv[1], bytes);
		_exit(h < 0 ? 1 : 0);
	}
	close(sv[1]);
	ev->sock = sv[0];
	ev->bytes = bytes;
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	if ((ret = recv_all(ev->sock, &c, 1)) || c != 'R' ||
	    (ret = recv_all(ev->sock, &ev->pid, sizeof ev->pid))) {
		cache_evictor_stop(ev);
		return set_err(err, ret ? ret : -ENOMEM,
			       "cannot start the cache evictor: its %zu MiB buffer: %s",
			       bytes >> 20, ret ? strerror(-ret) : "mmap failed");
	}
	return 0;
}

int cache_evictor_sweep(struct cache_evictor *ev, struct errbuf *err)
{
	char c = 'S';
	int ret;

	if (send(ev->sock, &c, 1, MSG_NOSIGNAL) != 1)
		return set_err(err, errno, "the cache evictor stopped: %s", strerror(errno));
	if ((ret = recv_all(ev->sock, &c, 1)))
		return set_err(err, ret, "the cache evictor stopped: %s", strerror(-ret));
	return 0;
}

/*
 * The helper is not ldprof's child: closing its socket ends it (it reads
 * EOF between sweeps, and a sweep is never left running). Not a kill: its
 * pid, once it is gone, may be another process's.
 */
void cache_evictor_stop(struct cache_evictor *ev)
{
	if (ev->sock >= 0)
		close(ev->sock);
	ev->pid = 0;
	ev->sock = -1;
}
