/*
 * ldprof's audit module (LD_AUDIT). It timestamps the loader's milestones
 * and each object's constructors and destructors into a shared-memory buffer
 * that the launcher reads after the process is reaped.
 *
 * Rules, because this code runs inside ld.so while the program starts:
 *  - freestanding: no DT_NEEDED, no libc, no malloc, raw system calls only;
 *    a libc here would be a second copy in the audit namespace (~800 us);
 *  - never break the program: on any doubt, stop recording and return;
 *  - no stdio, no errno: system calls return -errno in rax, which we keep;
 *  - every record is written only by the process the launcher started
 *    (record.c), so forked children cannot corrupt the record; in follow
 *    mode (ldprof -f) every process records, each into chunks of its own.
 */
#include "shim.h"
#include "shim-elfsym.h"

/* What the process's start tells us, found before our state may be written. */
struct start_info {
	const char *spec;	     /* LDPROF_SHM's value, or NULL */
	struct link_map *rtld;	     /* ld.so's own map */
	const ElfW(auxv_t) * auxv;
};

/*
 * The environment, without libc: ld.so exports __libc_stack_end, the
 * initial stack pointer, where argc, argv and envp begin.
 */
static void find_start(struct link_map *any, const char *key, struct start_info *out)
{
	struct link_map *m = any;
	uintptr_t addr = 0;

	*out = (struct start_info){0, 0, 0};
	while (m->l_prev)
		m = m->l_prev;
	for (; m && !addr; m = m->l_next)
		if ((addr = shim_lookup(m, "__libc_stack_end")))
			out->rtld = m;
	if (!addr || !*(char ***)addr)
		return;
	char **argv = *(char ***)addr + 1; /* skip argc */
	while (*argv)
		argv++;
	char **env = argv + 1;
	for (; *env; env++)
		if (!out->spec && shim_startswith(*env, key))
			out->spec = *env + shim_strlen(key);
	out->auxv = (const ElfW(auxv_t) *)(env + 1);
}

static int parse_uint(const char **s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && v < (1ull << 40))
		v = v * 10 + (uint64_t)(*p++ - '0');
	*s = p;
	*out = v;
	return 0;
}

static int header_ok(const struct ldprof_shm_header *h, uint64_t bytes, int follow)
{
	const char *magic = LDPROF_SHM_MAGIC;

	for (int k = 0; k < 8; k++)
		if (h->magic[k] != magic[k])
			return 0;
	return h->version == LDPROF_SHM_VERSION && h->header_size == sizeof(*h) &&
	       h->record_size == sizeof(struct ldprof_record) && h->total_size == bytes &&
	       h->clock == LDPROF_CLOCK_TSC && !(h->options & LDPROF_OPT_FOLLOW) == !follow &&
	       (uint64_t)h->records_off + (uint64_t)h->records_cap * h->record_size <= bytes &&
	       (uint64_t)h->strings_off + h->strings_cap <= bytes;
}

/* The chunk area: inside the buffer, records aligned, room for one at least. */
static int chunks_ok(const struct ldprof_shm_header *h, uint64_t bytes)
{
	return h->chunk_size >= sizeof(struct ldprof_chunk) + sizeof(struct ldprof_record) &&
	       !(h->chunk_size % 8) && !(h->chunks_off % 8) && h->chunks_off >= sizeof(*h) &&
	       (uint64_t)h->chunks_off + (uint64_t)h->chunks_cap * h->chunk_size <= bytes;
}

/*
 * Follow mode: any process reopens the launcher's buffer by its path. The
 * size is checked before the first load, so that whatever file the path
 * names (the launcher gone and its pid reused) cannot fault us. The fd is
 * not moved high: it lives only between these three calls, before any of
 * the program's code runs, and is closed once the buffer is mapped.
 */
/*
 * -f's buffer as a System V segment ("sysv:ID"): one shmat, where opening
 * a /proc/PID/fd path costs ~8 us more here. Its size is checked first,
 * as the file's is below: a segment smaller than bytes would fault.
 */
static long attach_segment(const char *id_text, uint64_t bytes)
{
	long ds[14]; /* struct shmid64_ds: shm_segsz is its seventh word */
	uint64_t id;

	if (parse_uint(&id_text, &id) || *id_text || id > 0x7fffffff)
		return -1;
	if (shim_syscall3(SHIM_SYS_shmctl, (long)id, 2 /* IPC_STAT */, (long)ds) ||
	    (uint64_t)ds[6] != bytes)
		return -1;
	return shim_syscall3(SHIM_SYS_shmat, (long)id, 0, 0);
}

static struct ldprof_shm_header *map_path(const char *path, uint64_t bytes)
{
	long st[18]; /* struct stat; st_size is the seventh word */
	long fd, p = -1;

	if (path[0] == 's' && path[1] == 'y' && path[2] == 's' && path[3] == 'v' && path[4] == ':') {
		p = attach_segment(path + 5, bytes);
		return p < 0 && p > -4096 ? 0 : (struct ldprof_shm_header *)p;
	}
	fd = shim_syscall3(SHIM_SYS_open, (long)path, 02 | 02000000 /* O_RDWR|O_CLOEXEC */, 0);

	if (fd < 0)
		return 0;
	if (!shim_syscall3(SHIM_SYS_fstat, fd, (long)st, 0) && (uint64_t)st[6] == bytes)
		p = shim_syscall6(SHIM_SYS_mmap, 0, (long)bytes, 3 /* PROT_READ|PROT_WRITE */,
				  1 /* MAP_SHARED */, fd, 0);
	shim_syscall1(SHIM_SYS_close, fd);
	return p < 0 && p > -4096 ? 0 : (struct ldprof_shm_header *)p;
}

/*
 * The executable's path in the string area: as execve was given it
 * (AT_EXECFN, a script's own path for a script), made absolute with the
 * cwd. Not readlink("/proc/self/exe"): in a new process that costs ~26 us
 * here (the kernel builds the process's /proc entries); getcwd is ~1 us,
 * and only for a relative path.
 */
static uint32_t exe_name(void)
{
	const char *fn = 0;
	char buf[512];
	long n;
	size_t k, j = 0;

	for (const ElfW(auxv_t) *a = shim.auxv; a && a->a_type != AT_NULL; a++)
		if (a->a_type == 31 /* AT_EXECFN */)
			fn = (const char *)a->a_un.a_val;
	if (!fn || fn[0] == '/')
		return fn ? shim_copy_string(fn) : UINT32_MAX;
	if ((n = shim_syscall3(SHIM_SYS_getcwd, (long)buf, sizeof buf, 0)) <= 1)
		return shim_copy_string(fn);
	k = (size_t)n - 1; /* the length with its NUL */
	while (fn[j] == '.' && fn[j + 1] == '/')
		j += 2;
	if (k + 1 + shim_strlen(fn + j) >= sizeof buf)
		return shim_copy_string(fn);
	if (buf[k - 1] != '/')
		buf[k++] = '/';
	for (; fn[j]; j++)
		buf[k++] = fn[j];
	buf[k] = 0;
	return shim_copy_string(buf);
}

static int setup_follow(const char *path, uint64_t bytes, uint64_t version_ts,
			const struct start_info *start)
{
	struct ldprof_shm_header *h = map_path(path, bytes);

	if (!h)
		return -1;
	if (!header_ok(h, bytes, 1) || !chunks_ok(h, bytes))
		goto fail;
	h->shim_version = LDPROF_SHM_VERSION;
	shim.pid = shim_getpid();
	shim.ppid = (int)shim_syscall1(SHIM_SYS_getppid, 0);
	shim.tcb_tid_ok = shim_tcb_tid() == shim.pid;
	shim.strings = (char *)h + h->strings_off;
	shim.chunks = (char *)h + h->chunks_off;
	shim.chunk_size = h->chunk_size;
	shim.per_chunk = (h->chunk_size - (uint32_t)sizeof(struct ldprof_chunk)) /
			 (uint32_t)sizeof(struct ldprof_record);
	shim.shm = h;
	shim.follow = 1;
	shim.version_ts = version_ts;
	shim.rtld = start->rtld;
	shim.auxv = start->auxv;
	if (shim_chunk_start(0))
		goto fail;
	shim.chunk0->exe_name = exe_name();
	return 0;
fail:
	shim.shm = 0;
	shim.follow = 0;
	shim_syscall3(SHIM_SYS_munmap, (long)h, (long)bytes, 0);
	return -1;
}

/* Undo map_buffer: the window gets its zero pages back, any other mapping goes. */
static void unmap_buffer(long p, uint64_t bytes)
{
	long win = (long)ldprof_shm_window;

	if (p == win || p < 0)
		shim_syscall6(SHIM_SYS_mmap, win, LDPROF_SHM_RUN_BYTES, 3,
			      0x32 /* MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS */, -1, 0);
	else
		shim_syscall3(SHIM_SYS_munmap, p, (long)bytes, 0);
}

/*
 * A run buffer (LDPROF_SHM_RUN_BYTES, no -f) goes over the window that our
 * image reserves for it, so that our state is in its pages (shim.h). A
 * buffer without our state area (another layout), or any failure, puts
 * the zero pages back, as ld.so left them (nothing was written there
 * before), and maps the buffer anywhere instead: the state then stays in
 * the window's own pages, one fault more, and recording goes on.
 */
static long map_buffer(long fd, uint64_t bytes)
{
	long win = (long)ldprof_shm_window, p;

	if (bytes == LDPROF_SHM_RUN_BYTES && (char *)&shim - ldprof_shm_window == LDPROF_SHM_STATE_OFF) {
		p = shim_syscall6(SHIM_SYS_mmap, win, (long)bytes, 3 /* PROT_READ|PROT_WRITE */,
				  0x11 /* MAP_SHARED|MAP_FIXED */, fd, 0);
		if (p == win && ((struct ldprof_shm_header *)p)->state_off == LDPROF_SHM_STATE_OFF)
			return p;
		unmap_buffer(p == win ? p : -1, bytes);
	}
	return shim_syscall6(SHIM_SYS_mmap, 0, (long)bytes, 3, 1 /* MAP_SHARED */, fd, 0);
}

/* Map the launcher's buffer named by LDPROF_SHM="FD,BYTES" (or "FD,BYTES,PATH"). */
static int setup(struct link_map *any, uint64_t version_ts)
{
	struct start_info start;
	uint64_t fd, bytes;
	long p;

	find_start(any, LDPROF_SHM_ENV "=", &start);
	const char *spec = start.spec;

	if (!spec || parse_uint(&spec, &fd) || *spec++ != ',' || parse_uint(&spec, &bytes) ||
	    (*spec && *spec != ',') || bytes < sizeof(struct ldprof_shm_header) || fd > 1u << 20)
		return -1;
	if (*spec)
		return spec[1] ? setup_follow(spec + 1, bytes, version_ts, &start) : -1;
	p = map_buffer((long)fd, bytes);
	if (p < 0 && p > -4096)
		return -1;
	struct ldprof_shm_header *h = (void *)p;
	int pid = shim_getpid();
	/*
	 * The fd is only ours if it holds our header for this very pid; an
	 * unrelated file that a grandchild inherited under the same number
	 * must be left open and untouched.
	 */
	if (!header_ok(h, bytes, 0) || h->pid != pid) {
		unmap_buffer(p, bytes);
		return -1;
	}
	shim_syscall1(SHIM_SYS_close, (long)fd); /* the program's fds stay as they were */
	uint32_t unclaimed = 0;
	if (!__atomic_compare_exchange_n(&h->claimed, &unclaimed, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED)) {
		unmap_buffer(p, bytes);
		return -1;
	}
	h->shim_version = LDPROF_SHM_VERSION;
	shim.pid = pid;
	shim.tcb_tid_ok = shim_tcb_tid() == pid; /* ld.so set up TLS before loading us */
	shim.recs = (struct ldprof_record *)((char *)h + h->records_off);
	shim.strings = (char *)h + h->strings_off;
	shim.shm = h;
	shim.version_ts = version_ts;
	shim.rtld = start.rtld;
	shim.auxv = start.auxv;
	return 0;
}

SHIM_EXPORT unsigned int la_version(unsigned int version)
{
	shim_scratch_set(shim_now()); /* taken by the first la_objopen: see setup_once */
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

/* At the executable's la_objopen: map the buffer, or turn recording off. */
static void setup_once(struct link_map *map, uint64_t version_ts)
{
	if (setup(map, version_ts)) {
		shim.off = 1;
		return;
	}
	shim_emit(version_ts, LDPROF_REC_VERSION, LDPROF_NO_OBJ, 0, LAV_CURRENT, 0);
}

/* The preload's hook: how the preload records without libc or lookups. */
static void hook_record(uint16_t type, uint32_t u32, uint64_t a)
{
	uint64_t ts = shim_now();

	if (type == LDPROF_HOOK_ARGV) {
		shim_note_argv((int)u32, (char **)(uintptr_t)a);
		return;
	}
	/* Only the owner's first exit call: see hooks.c's do_exit. */
	if (type == LDPROF_REC_EXIT_CALL &&
	    (!shim_owner_strict() || __atomic_exchange_n(&shim.exiting, 1, __ATOMIC_RELAXED)))
		return;
	shim_emit(ts, type, LDPROF_NO_OBJ, u32, a, 0);
	if (type == LDPROF_REC_MAIN_RETURN || type == LDPROF_REC_EXIT_CALL) {
		if (shim_owner())
			shim.main_done = 1;
		shim_note_end();
	}
}

static unsigned attach_preload(struct link_map *m)
{
	struct ldprof_preload_hook *hook = (void *)shim_lookup(m, LDPROF_HOOK_SYMBOL);

	if (!hook || hook->version != LDPROF_HOOK_VERSION)
		return 0;
	hook->record = hook_record;
	hook->ready = 1;
	shim.preload = 1;
	return LDPROF_OBJ_PRELOAD_SHIM;
}

SHIM_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	uint64_t ts = shim_now();
	unsigned flags = 0;

	/*
	 * ld.so reports to us the audit modules loaded after ours (a user's
	 * LD_AUDIT=ours:theirs), each in a namespace of its own where there is
	 * no ld.so to find the environment through. The first object of the
	 * base namespace (the executable) is where we set up; the others'
	 * objects before it are not recorded. Until then la_version's time
	 * waits in the TCB (shim_scratch_set), and our state is not touched.
	 */
	uint64_t version_ts = shim_scratch_get();
	if (version_ts) {
		if (lmid != LM_ID_BASE)
			return 0;
		shim_scratch_set(0);
		setup_once(map, version_ts);
	}
	/* A forked child of a run without -f shares our state: it only reads it. */
	if (shim.off || (!shim.follow && !shim_owner()))
		return 0;
	uint32_t idx = shim.nobj < LDPROF_NO_OBJ ? shim.nobj++ : LDPROF_NO_OBJ;
	if (idx == 0) {
		shim.main = map;
		/* Before relocation: the hooks' stores then need no mprotect pair (hooks.c). */
		if (lmid == LM_ID_BASE && !(shim.shm->options & LDPROF_OPT_PRELOAD))
			shim_take_relro();
	}
	if (idx < LDPROF_MAX_OBJS) {
		shim_obj(idx)->map = map;
		if (shim.hooked && lmid == LM_ID_BASE)
			shim_lazy_note_opened(shim_obj(idx));
	}
	*cookie = idx;
	if (map == shim.rtld)
		flags = LDPROF_OBJ_LOADER;
	else if (lmid == LM_ID_BASE &&
		 !((shim.shm->options & LDPROF_OPT_PRELOAD) && (flags = attach_preload(map))))
		flags = shim_instrument(map, idx);
	uint32_t name = shim_copy_string(map->l_name ? map->l_name : "");
	shim_emit(ts, LDPROF_REC_OBJOPEN, (uint16_t)idx, name, map->l_addr,
		  (uint64_t)lmid << 32 | flags);
#ifdef LDPROF_SYMBIND
	/* Ask for la_symbind64 on every binding from and to this object. */
	return LA_FLG_BINDTO | LA_FLG_BINDFROM;
#else
	return 0;
#endif
}

#ifdef LDPROF_SYMBIND
/*
 * The direct cross-check of the cost model (ldprof-audit-symbind.so): for
 * a BIND_NOW object ld.so calls this for each PLT slot while relocating the
 * object, so the first and last calls bracket that part of its relocation.
 * Exporting it costs every program something (ld.so then keeps per-object
 * binding results), so the default module does not.
 */
SHIM_EXPORT uintptr_t la_symbind64(ElfW(Sym) * sym, unsigned int ndx, uintptr_t *refcook,
				   uintptr_t *defcook, unsigned int *flags, const char *symname)
{
	uint64_t ts = shim_now();
	uintptr_t idx = *refcook;

	(void)ndx, (void)defcook, (void)flags, (void)symname;
	if (!shim.off && !shim.hooked && idx < LDPROF_MAX_OBJS) {
		struct obj_state *o = shim_obj(idx);
		if (!o->symbind_count++)
			o->symbind_first = ts;
		o->symbind_last = ts;
	}
	return sym->st_value;
}

static void emit_symbind(void)
{
	for (uint32_t i = 0; i < shim.nobj && i < LDPROF_MAX_OBJS; i++) {
		const struct obj_state *o = shim_obj(i);
		if (o->symbind_count)
			shim_emit(o->symbind_last, LDPROF_REC_SYMBIND, (uint16_t)i,
				  o->symbind_count, o->symbind_first, o->symbind_last);
	}
}
#else
static void emit_symbind(void)
{
}
#endif

SHIM_EXPORT void la_activity(uintptr_t *cookie, unsigned int flag)
{
	uint64_t ts = shim_now();

	(void)cookie;
	if (shim.off)
		return;
	int startup = flag == LA_ACT_CONSISTENT && !shim.hooked && (shim.follow || shim_owner());
	/*
	 * The hooks first, which protect the executable's RELRO for ld.so
	 * (hooks.c): that mprotect is ld.so's work, so its time is counted
	 * before the end of relocation, as it is without ldprof.
	 */
	if (startup)
		ts += shim.preload ? shim_protect_relro() : shim_install_hooks();
	shim_emit(ts, LDPROF_REC_ACTIVITY, LDPROF_NO_OBJ, flag, 0, 0);
	/*
	 * Where the start ends, the page faults so far: those of main and the
	 * constructors are the memory the run moves after it (docs/model.md,
	 * "Faults, not CPU time"). In the init phase, as the end's is in exit.
	 */
	if (startup && !shim.follow)
		shim_note_cpu();
	/*
	 * Main's end unseen (a library called exit, which the hooks do not
	 * cover): _dl_fini's LA_ACT_DELETE stands in for it, as in the
	 * analyzer, which takes the last one (a dlclose in main has its own).
	 * A few at most, so that a program that closes libraries in a loop
	 * cannot fill the record buffer with them; past that the analyzer
	 * finds none after main's end and prices the run without it.
	 */
	if (flag == LA_ACT_DELETE && !shim.follow && !shim.main_done &&
	    shim.cpu_notes < SHIM_CPU_NOTES_MAX && shim_owner()) {
		shim.cpu_notes++;
		shim_note_cpu();
	}
	if (flag != LA_ACT_CONSISTENT || (!shim.follow && !shim_owner()))
		return;
	if (startup) {
		emit_symbind();
		shim.hooked = 1;
		shim_lazy_note(); /* the startup's objects; later ones at their la_objopen */
	} else if (shim.main_done && !__atomic_exchange_n(&shim.lazy_done, 1, __ATOMIC_RELAXED)) {
		shim_lazy_count();
	}
}

SHIM_EXPORT void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
	if (shim.off)
		return;
	shim_emit(shim_now(), LDPROF_REC_PREINIT, LDPROF_NO_OBJ, 0, 0, 0);
}

/*
 * No la_objclose: at exit ld.so would call it once per object, and the
 * destructor trampolines and LA_ACT_DELETE already tell what it would.
 */
