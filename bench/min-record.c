/*
 * The floor of recording at all: an audit module that does only what any
 * LD_AUDIT recorder must. It finds LDPROF_SHM in the environment (through
 * ld.so's __libc_stack_end, as the shim does: there is no libc yet), maps
 * the launcher's buffer over a window of its own image (min-record.lds),
 * closes the fd, and writes one fixed-size, rdtsc-stamped record per
 * la_objopen, la_activity and la_preinit: no names, no checks of the
 * header or the pid, no trampolines, no hooks. make bench-overhead puts it
 * between the do-nothing floor (min-audit-ro) and the shim.
 */
#include <link.h>

#include "ldprof-record.h"
#include "shim-elfsym.h"

/* The window the buffer goes over: its address is known, so no pointer is stored. */
extern char min_record_window[] SHIM_HIDDEN;

static struct ldprof_shm_header *header(void)
{
	return (struct ldprof_shm_header *)min_record_window;
}

static const char *find_spec(struct link_map *m)
{
	static const char key[] = LDPROF_SHM_ENV "=";
	uintptr_t addr = 0;

	while (m->l_prev)
		m = m->l_prev;
	for (; m && !addr; m = m->l_next)
		addr = shim_lookup(m, "__libc_stack_end");
	if (!addr || !*(char ***)addr)
		return 0;
	char **p = *(char ***)addr + 1; /* argc, then argv */
	while (*p)
		p++;
	for (p++; *p; p++)
		if (shim_startswith(*p, key))
			return *p + sizeof key - 1;
	return 0;
}

static long number(const char **s)
{
	long v = 0;

	while (**s >= '0' && **s <= '9')
		v = v * 10 + (*(*s)++ - '0');
	return v;
}

/*
 * The window's own pages are the file's, read-only: with no buffer they
 * become zero pages, writable, whose header says there is no room, so
 * that the records go nowhere.
 */
static void no_buffer(void)
{
	shim_syscall6(SHIM_SYS_mmap, (long)min_record_window, LDPROF_SHM_RUN_BYTES, 3,
		      0x32 /* MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS */, -1, 0);
}

/* "FD,BYTES": map it over the window, close the fd. Only a run buffer fits. */
static void setup(struct link_map *m)
{
	const char *s = find_spec(m);
	long fd = s ? number(&s) : -1, p = -1;

	if (s && *s++ == ',' && number(&s) == LDPROF_SHM_RUN_BYTES)
		p = shim_syscall6(SHIM_SYS_mmap, (long)min_record_window, LDPROF_SHM_RUN_BYTES,
				  3 /* PROT_READ|PROT_WRITE */, 0x11 /* MAP_SHARED|MAP_FIXED */, fd,
				  0);
	if (p != (long)min_record_window) {
		no_buffer();
		return;
	}
	shim_syscall1(SHIM_SYS_close, fd);
	/*
	 * Read before the first write: a read fault maps the launcher's
	 * pages around it (fault-around), the records' page with the
	 * header's; a write fault on a shared mapping maps only its own.
	 */
	(void)*(volatile uint32_t *)&header()->records_cap;
}

/* One record, from the first la_objopen on (which sets up). */
static void record(uint16_t type, uint16_t obj, uint32_t u32, uint64_t a)
{
	uint64_t ts = shim_now();
	struct ldprof_shm_header *h = header();
	uint32_t i = __atomic_fetch_add(&h->nrecords, 1, __ATOMIC_RELAXED);

	if (i >= h->records_cap)
		return;
	struct ldprof_record *r = (struct ldprof_record *)((char *)h + h->records_off) + i;
	*r = (struct ldprof_record){ts, type, obj, u32, a, 0};
}

SHIM_EXPORT unsigned int la_version(unsigned int version)
{
	shim_scratch_set(1); /* setup pending: the first la_objopen does it (shim-sys.h) */
	return version;
}

SHIM_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	if (shim_scratch_get()) {
		shim_scratch_set(0);
		setup(map);
	}
	*cookie = 0;
	record(LDPROF_REC_OBJOPEN, 0, 0, map->l_addr);
	(void)lmid;
	return 0;
}

SHIM_EXPORT void la_activity(uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	record(LDPROF_REC_ACTIVITY, LDPROF_NO_OBJ, flag, 0);
}

SHIM_EXPORT void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
	record(LDPROF_REC_PREINIT, LDPROF_NO_OBJ, 0, 0);
}
