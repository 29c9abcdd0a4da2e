/*
 * The shim's state and its one writer of records. Every other file of the
 * audit module (audit.c, ctor.c, trampoline.c, hooks.c) calls down into
 * this one and it calls none of them, so the module's call graph has no
 * cycle (tools/check-layers proves it in make check).
 */
#include "shim.h"

/* In its own section, which preload/shim.lds places inside the window. */
struct shim_state shim __attribute__((section(".bss.ldprof_state")));
struct obj_state shim_more_objs[LDPROF_MAX_OBJS - SHIM_STATE_OBJS];
_Static_assert(sizeof(struct shim_state) <= LDPROF_SHM_STATE_BYTES,
	       "the shim's state must fit the run buffer's state area");

static int divert(int pid);

/*
 * A child forked by the program shares this MAP_SHARED buffer and a copy of
 * the shim's state, at every phase: a constructor may fork. So every record
 * proves which process writes it. fork stores the child's own tid in its
 * TCB, so the owner's main thread is recognised by one load; any other
 * thread, or a process whose TCB is unusable, asks the kernel. Nothing here
 * writes the shim's state: a vfork child shares it with the owner.
 *
 * Follow mode: a process whose TCB holds its own pid, yet is not the owner,
 * was made by fork (a vfork or posix_spawn child runs on its parent's TCB,
 * and so shows the parent's tid), so its memory is its own: it takes
 * chunks of its own (divert) and never writes the parent's.
 */
static int forked_child(int pid)
{
	return shim.follow && shim.tcb_tid_ok && shim_tcb_tid() == pid && !divert(pid);
}

int shim_owner(void)
{
	int pid;

	if (shim.tcb_tid_ok && shim_tcb_tid() == shim.pid)
		return 1;
	pid = shim_getpid();
	return pid == shim.pid || forked_child(pid);
}

int shim_owner_strict(void)
{
	int pid;

	if (!shim.shm)
		return 0;
	pid = shim_getpid();
	return pid == shim.pid || forked_child(pid);
}

static uint32_t *flags_word(void)
{
	return shim.follow ? &shim.chunk0->flags : &shim.shm->flags;
}

void shim_flag(uint32_t flags)
{
	if (shim.shm && shim_owner())
		__atomic_fetch_or(flags_word(), flags, __ATOMIC_RELAXED);
}

static struct ldprof_chunk *chunk_at(uint32_t i)
{
	return (struct ldprof_chunk *)(shim.chunks + (uintptr_t)i * shim.chunk_size);
}

/* A chunk of the shared area, by its index, or UINT32_MAX when none is left. */
static uint32_t claim(void)
{
	uint32_t i = __atomic_fetch_add(&shim.shm->chunks_used, 1, __ATOMIC_RELAXED);

	return i < shim.shm->chunks_cap ? i : UINT32_MAX;
}

/* The buffer is new for each run, so a claimed chunk is all zero. */
static void chunk_init(struct ldprof_chunk *c, uint32_t seq)
{
	c->pid = shim.pid;
	c->ppid = shim.ppid;
	c->seq = seq;
	c->version_ts = shim.version_ts;
	if (!seq)
		c->exe_name = UINT32_MAX;
}

int shim_chunk_start(uint32_t flags)
{
	uint32_t i = claim();

	if (i == UINT32_MAX) {
		__atomic_fetch_add((flags & LDPROF_CHUNK_F_FORKED) ? &shim.shm->lost_forks
								   : &shim.shm->lost_execs,
				   1, __ATOMIC_RELAXED);
		return -1;
	}
	for (uint32_t k = 0; k < LDPROF_MAX_CHUNKS; k++)
		shim.chunk_idx[k] = 0;
	shim.chunk0 = chunk_at(i);
	chunk_init(shim.chunk0, 0);
	shim.chunk0->flags = flags;
	return 0;
}

/*
 * Chunk k of this process, claimed by the first record that needs it. Two
 * threads may race for it: one installs its claim, the other's chunk stays
 * blank (all zero), which the reader skips.
 */
static struct ldprof_chunk *chunk_for(uint32_t k)
{
	uint32_t i, have = 0;

	if (!k)
		return shim.chunk0;
	if (k >= LDPROF_MAX_CHUNKS)
		return 0;
	if ((have = __atomic_load_n(&shim.chunk_idx[k], __ATOMIC_ACQUIRE)))
		return chunk_at(have - 1);
	if ((i = claim()) == UINT32_MAX)
		return 0;
	if (!__atomic_compare_exchange_n(&shim.chunk_idx[k], &have, i + 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return chunk_at(have - 1);
	chunk_init(chunk_at(i), k);
	return chunk_at(i);
}

static struct ldprof_record *reserve(void)
{
	uint32_t i;
	struct ldprof_chunk *c;

	if (!shim.follow) {
		i = __atomic_fetch_add(&shim.shm->nrecords, 1, __ATOMIC_RELAXED);
		if (i < shim.shm->records_cap)
			return &shim.recs[i];
	} else {
		i = __atomic_fetch_add(&shim.chunk0->nrecords, 1, __ATOMIC_RELAXED);
		if ((c = chunk_for(i / shim.per_chunk)))
			return (struct ldprof_record *)(c + 1) + i % shim.per_chunk;
	}
	shim_flag(LDPROF_SHM_F_OVERFLOW);
	return 0;
}

void shim_emit(uint64_t ts, uint16_t type, uint16_t obj, uint32_t u32, uint64_t a, uint64_t b)
{
	struct ldprof_record *r;

	if (!shim.shm || !shim_owner() || !(r = reserve()))
		return;
	r->ts = ts;
	r->type = type;
	r->obj = obj;
	r->u32 = u32;
	r->a = a;
	r->b = b;
}

/*
 * A forked child's own chunks: they name the image it inherited (the
 * parent's version_ts) and start with FORKED, which says how many objects
 * it inherited, so that its records may name them. Its memory is private,
 * so writing the state here touches no other process.
 */
static int divert(int pid)
{
	const struct ldprof_chunk *parent = shim.chunk0;
	uint32_t nobj = shim.nobj;
	int parent_pid = shim.pid;

	shim.pid = pid;
	shim.ppid = (int)shim_syscall1(SHIM_SYS_getppid, 0);
	shim.exiting = 0;
	shim.ended = 0;
	if (shim_chunk_start(LDPROF_CHUNK_F_FORKED)) {
		shim.off = 1;
		shim.shm = 0;
		return -1;
	}
	/* The same executable and argv: the strings are shared. */
	shim.chunk0->exe_name = parent->exe_name;
	if (parent->flags & LDPROF_CHUNK_F_ARGV) {
		shim.chunk0->argv_off = parent->argv_off;
		shim.chunk0->argv_n = parent->argv_n;
		shim.chunk0->argc = parent->argc;
		shim.chunk0->flags |= parent->flags & (LDPROF_CHUNK_F_ARGV | LDPROF_CHUNK_F_ARGV_TRUNC);
	}
	shim_emit(shim.version_ts, LDPROF_REC_FORKED, LDPROF_NO_OBJ, nobj, (uint64_t)parent_pid,
		  shim_now());
	return 0;
}

/* Room for len bytes in the string area: their offset, or UINT32_MAX. */
static uint32_t string_space(uint32_t len)
{
	uint32_t off = __atomic_fetch_add(&shim.shm->strings_used, len, __ATOMIC_RELAXED);

	if (off + len > shim.shm->strings_cap || off + len < off) {
		shim_flag(LDPROF_SHM_F_STR_OVERFLOW);
		return UINT32_MAX;
	}
	return off;
}

uint32_t shim_copy_string(const char *s)
{
	uint32_t len = (uint32_t)shim_strlen(s) + 1, off;

	if (!shim_owner() || (off = string_space(len)) == UINT32_MAX)
		return UINT32_MAX;
	for (uint32_t k = 0; k < len; k++)
		shim.strings[off + k] = s[k];
	return off;
}

/* Bytes of s copied, at most LDPROF_ARG_MAX - 1. */
static uint32_t arg_len(const char *s)
{
	uint32_t n = 0;

	while (n < LDPROF_ARG_MAX - 1 && s[n])
		n++;
	return n;
}

void shim_note_argv(int argc, char **argv)
{
	uint32_t n = 0, len = 0, off, flags = LDPROF_CHUNK_F_ARGV;
	char *out;

	if (!shim.follow || !shim.shm || argc < 0 || !argv || !shim_owner())
		return;
	while (n < (uint32_t)argc && n < LDPROF_ARGV_MAX && argv[n]) {
		uint32_t l = arg_len(argv[n]);
		if (argv[n][l])
			flags |= LDPROF_CHUNK_F_ARGV_TRUNC;
		len += l + 1;
		n++;
	}
	if (n < (uint32_t)argc)
		flags |= LDPROF_CHUNK_F_ARGV_TRUNC;
	if (!len || (off = string_space(len)) == UINT32_MAX)
		return;
	out = shim.strings + off;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t l = arg_len(argv[k]);
		for (uint32_t j = 0; j < l; j++)
			*out++ = argv[k][j];
		*out++ = 0;
	}
	shim.chunk0->argv_off = off;
	shim.chunk0->argv_n = n;
	shim.chunk0->argc = (uint32_t)argc;
	__atomic_fetch_or(&shim.chunk0->flags, flags, __ATOMIC_RELAXED);
}

/*
 * The process's user and system time so far, in us, and its minor page
 * faults (minflt may be NULL): 0, or -1 when the kernel refuses.
 */
static int self_cpu(uint64_t *utime, uint64_t *stime, uint64_t *minflt)
{
	/* struct rusage: ru_utime and ru_stime, each {sec, usec}, then 14 longs, ru_minflt
	   the fifth of them */
	long ru[18];

	if (shim_syscall3(SHIM_SYS_getrusage, 0 /* RUSAGE_SELF */, (long)ru, 0) < 0)
		return -1;
	*utime = (uint64_t)ru[0] * 1000000u + (uint64_t)ru[1];
	*stime = (uint64_t)ru[2] * 1000000u + (uint64_t)ru[3];
	if (minflt)
		*minflt = (uint64_t)ru[8];
	return 0;
}

void shim_note_cpu(void)
{
	uint64_t utime, stime, minflt;

	if (!self_cpu(&utime, &stime, &minflt))
		shim_emit(shim_now(), LDPROF_REC_CPU, LDPROF_NO_OBJ, 0, utime + stime, minflt);
}

void shim_note_end(void)
{
	uint64_t utime, stime;

	if (!shim.shm || !shim_owner() || __atomic_exchange_n(&shim.ended, 1, __ATOMIC_RELAXED))
		return;
	if (!shim.follow) {
		shim_note_cpu();
		return;
	}
	if (self_cpu(&utime, &stime, NULL))
		return;
	shim.chunk0->utime_us = utime;
	shim.chunk0->stime_us = stime;
	__atomic_fetch_or(&shim.chunk0->flags, LDPROF_CHUNK_F_RUSAGE, __ATOMIC_RELAXED);
}
