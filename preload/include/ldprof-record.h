/*
 * The shared-memory record format between the ldprof launcher and its shim.
 * Documented in docs/record-format.md; keep the two in step.
 *
 * This header is used by the freestanding audit module, by the preload and by
 * the analyzer, so it may include nothing but <stdint.h>.
 *
 * Layout of the buffer (a memfd created by the launcher, mapped MAP_SHARED by
 * the launcher and, through an inherited fd, by the shim in the profiled
 * process):
 *
 *	[struct ldprof_shm_header][shim state][strings][struct ldprof_record x records_cap]
 *
 * In follow mode (ldprof -f, LDPROF_OPT_FOLLOW) every process of the
 * workload that loads the shim reopens the buffer by a path and records
 * into chunks of its own, claimed with an atomic add:
 *
 *	[struct ldprof_shm_header][strings][chunk x chunks_cap]
 *	chunk = [struct ldprof_chunk][struct ldprof_record x per chunk]
 *
 * Every field has a fixed size and offset. A reader checks magic, version,
 * header_size and record_size before it trusts anything else.
 */
#ifndef LDPROF_RECORD_H
#define LDPROF_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define LDPROF_SHM_MAGIC   "LDPRFSHM" /* 8 bytes, no terminator stored */
#define LDPROF_SHM_VERSION 5u

/*
 * The environment variable that carries "FD,BYTES" to the shim; in follow
 * mode "FD,BYTES,PATH", where PATH reopens the buffer from any process
 * (/proc/<launcher pid>/fd/<FD>) and the fd itself stays close-on-exec.
 */
#define LDPROF_SHM_ENV "LDPROF_SHM"

/* Clock used for every timestamp in one buffer. */
enum ldprof_clock {
	LDPROF_CLOCK_TSC = 1, /* rdtsc; the launcher calibrates ticks/s */
};

/* Header flags, set by the shim. */
enum ldprof_shm_flags {
	LDPROF_SHM_F_OVERFLOW = 1u << 0,      /* records were dropped: buffer full */
	LDPROF_SHM_F_STR_OVERFLOW = 1u << 1,  /* a name did not fit */
	LDPROF_SHM_F_TOO_MANY_OBJS = 1u << 2, /* objects beyond the stub table */
	LDPROF_SHM_F_NO_PRELOAD = 1u << 3,    /* the preload was not found */
	/* Follow mode, in a chunk's flags (struct ldprof_chunk) with the above. */
	LDPROF_CHUNK_F_FORKED = 1u << 8,     /* a fork of the exec named by version_ts, no exec */
	LDPROF_CHUNK_F_RUSAGE = 1u << 9,     /* utime_us and stime_us are set */
	LDPROF_CHUNK_F_ARGV = 1u << 10,	     /* argv_off and argv_n are set */
	LDPROF_CHUNK_F_ARGV_TRUNC = 1u << 11, /* argv was longer than the copy */
};

/* Header options, set by the launcher. */
enum ldprof_shm_options {
	LDPROF_OPT_PRELOAD = 1u << 0, /* ldprof's preload is loaded: it hooks main/exit */
	LDPROF_OPT_FOLLOW = 1u << 1,  /* follow mode: every process records in chunks */
};

struct ldprof_shm_header {
	char magic[8];	      /* LDPROF_SHM_MAGIC */
	uint32_t version;     /* LDPROF_SHM_VERSION */
	uint32_t header_size; /* sizeof(struct ldprof_shm_header) */
	uint32_t record_size; /* sizeof(struct ldprof_record) */
	uint32_t total_size;  /* bytes of the whole buffer */
	uint32_t records_off; /* offset of the record array */
	uint32_t records_cap; /* capacity of the record array */
	uint32_t strings_off; /* offset of the string area */
	uint32_t strings_cap; /* bytes in the string area */
	uint32_t clock;	      /* enum ldprof_clock */
	int32_t pid;	      /* the only process allowed to record */
	uint64_t exec_ts;     /* launcher: last timestamp before execve */
	int32_t exec_errno;   /* launcher: errno when execve failed, else 0 */
	/* Written by the shim; updated with atomic operations. */
	uint32_t claimed;      /* 0 until one shim instance owns the buffer */
	uint32_t nrecords;     /* records reserved (may exceed records_cap) */
	uint32_t strings_used; /* bytes of the string area in use */
	uint32_t flags;	       /* enum ldprof_shm_flags */
	uint32_t shim_version; /* LDPROF_SHM_VERSION as the shim knows it */
	uint32_t options;      /* launcher: enum ldprof_shm_options */
	/* Follow mode only (zero otherwise): the chunk area. */
	uint32_t chunk_size;  /* launcher: bytes per chunk, header included */
	uint32_t chunks_off;  /* launcher: offset of the chunk area */
	uint32_t chunks_cap;  /* launcher: chunks in it */
	uint32_t chunks_used; /* shim, atomic add: chunks claimed (may exceed chunks_cap) */
	uint32_t lost_execs;  /* shim, atomic add: execs that found no free chunk */
	uint32_t lost_forks;  /* shim, atomic add: forked children that found none */
	uint32_t state_off;   /* launcher: LDPROF_SHM_STATE_OFF in a run buffer, else 0 */
	uint64_t reserved[2]; /* zero; room for later versions */
};

/*
 * The buffer of a run without -f: LDPROF_SHM_RUN_BYTES, holding the shim's
 * own state (private to the shim, never read by the launcher) in
 * [LDPROF_SHM_STATE_OFF, + LDPROF_SHM_STATE_BYTES). The shim maps the whole
 * buffer over a window of its own image reserved for it (preload/shim.lds),
 * so that its state needs no page of its own: the pages that the launcher
 * wrote before the fork are mapped by one fault, where private state would
 * cost one more (docs/design.md, "what the shim costs"). The records and
 * the names are laid out after the state: the pages that a run touches
 * are the first few, which the kernel's fault-around maps together.
 */
#define LDPROF_SHM_RUN_BYTES   (128u * 1024)
#define LDPROF_SHM_STATE_OFF   128u  /* right after the header, in its page */
#define LDPROF_SHM_STATE_BYTES 3968u /* the rest of that page */

/* The layout is the format: no implicit padding, fixed offsets. */
_Static_assert(sizeof(struct ldprof_shm_header) == 128, "header size is part of the format");
_Static_assert(offsetof(struct ldprof_shm_header, exec_ts) == 48, "header layout");
_Static_assert(offsetof(struct ldprof_shm_header, nrecords) == 64, "header layout");
_Static_assert(offsetof(struct ldprof_shm_header, chunk_size) == 84, "header layout");
_Static_assert(offsetof(struct ldprof_shm_header, reserved) == 112, "header layout");

/*
 * A chunk's header (follow mode). A chunk belongs to the process named by
 * pid, and only that process writes it. A process's records are numbered
 * by one atomic counter, nrecords of its first chunk (seq 0); record i
 * lives in its chunk i / per-chunk (per-chunk = (chunk_size - 64) / 32),
 * claimed when the first record needs it. The fields after nrecords are
 * meaningful in the first chunk only; later chunks have them zero.
 */
#define LDPROF_MAX_CHUNKS 32 /* per process: records beyond are dropped (OVERFLOW) */
#define LDPROF_ARGV_MAX	  16 /* argv strings copied */
#define LDPROF_ARG_MAX	  256 /* bytes of one copied argument, its NUL included */

struct ldprof_chunk {
	int32_t pid;	     /* the process that writes this chunk */
	int32_t ppid;	     /* its parent when it claimed the chunk */
	uint32_t seq;	     /* 0 for the first chunk, then 1, 2, ... */
	uint32_t flags;	     /* enum ldprof_shm_flags, LDPROF_CHUNK_F_* */
	uint64_t version_ts; /* la_version of the exec: with pid, its identity */
	uint32_t nrecords;   /* records reserved by the process (may exceed the chunks) */
	uint32_t exe_name;   /* string offset of the path execve was given (AT_EXECFN, made
				absolute; a script's own path), UINT32_MAX if none */
	uint32_t argv_off;   /* string offset of argv_n consecutive NUL-terminated strings */
	uint32_t argv_n;     /* strings copied, <= LDPROF_ARGV_MAX */
	uint32_t argc;	     /* the program's argc */
	uint32_t reserved32; /* zero */
	uint64_t utime_us;   /* getrusage(RUSAGE_SELF) at main's return or the exit call */
	uint64_t stime_us;
};

_Static_assert(sizeof(struct ldprof_chunk) == 64, "chunk header size is part of the format");
_Static_assert(offsetof(struct ldprof_chunk, version_ts) == 16, "chunk layout");
_Static_assert(offsetof(struct ldprof_chunk, utime_us) == 48, "chunk layout");

/* Record types. Values are part of the format: never renumber. */
enum ldprof_rec_type {
	LDPROF_REC_VERSION = 1,	    /* la_version: the loader starts auditing */
	LDPROF_REC_OBJOPEN = 2,	    /* la_objopen: an object was mapped */
	LDPROF_REC_ACTIVITY = 3,    /* la_activity: u32 = LA_ACT_* */
	LDPROF_REC_INIT_BEGIN = 4,  /* an object's constructors start */
	LDPROF_REC_INIT_END = 5,    /* ...and end */
	LDPROF_REC_PREINIT = 6,	    /* la_preinit: all constructors done */
	LDPROF_REC_MAIN_RETURN = 7, /* main returned; a = its value */
	LDPROF_REC_EXIT_CALL = 8,   /* exit/_exit/_Exit called; a = status */
	LDPROF_REC_FINI_BEGIN = 9,  /* an object's destructors start */
	LDPROF_REC_FINI_END = 10,   /* ...and end */
	LDPROF_REC_OBJCLOSE = 11,   /* la_objclose */
	LDPROF_REC_MAIN_ENTER = 12, /* the main wrapper starts */
	LDPROF_REC_SYMBIND = 13,    /* la_symbind64 during an object's relocation */
	LDPROF_REC_FORKED = 14,	    /* follow mode: the first record of a forked child */
	LDPROF_REC_LAZY = 15,	    /* at exit: an object's lazy PLT slots bound since startup */
	LDPROF_REC_CPU = 16, /* the process's CPU time and page faults so far (version 4; 5: b) */
};

/* LDPROF_REC_OBJOPEN flags, in the low bits of b. */
enum ldprof_obj_flags {
	LDPROF_OBJ_INIT_TIMED = 1u << 0,   /* constructors are trampolined */
	LDPROF_OBJ_FINI_TIMED = 1u << 1,   /* destructors are trampolined */
	LDPROF_OBJ_DYN_RO = 1u << 2,	   /* .dynamic read-only: not timed */
	LDPROF_OBJ_PRELOAD_SHIM = 1u << 3, /* ldprof's own preload */
	LDPROF_OBJ_HAS_INIT = 1u << 4,	   /* DT_INIT or DT_INIT_ARRAY present */
	LDPROF_OBJ_HAS_FINI = 1u << 5,	   /* DT_FINI or DT_FINI_ARRAY present */
	LDPROF_OBJ_LOADER = 1u << 6,	   /* ld.so itself: never modified */
};

/* LDPROF_REC_EXIT_CALL: u32 says which function. */
enum ldprof_exit_kind {
	LDPROF_EXIT_EXIT = 1,
	LDPROF_EXIT__EXIT = 2,
	LDPROF_EXIT__EXIT_C99 = 3, /* _Exit */
};

#define LDPROF_NO_OBJ 0xffffu

/*
 * One event, 32 bytes. Per type:
 *   VERSION     a = version ld.so offered
 *   OBJOPEN     obj = index in open order, u32 = name offset in strings
 *               (UINT32_MAX if it did not fit), a = l_addr,
 *               b = lmid << 32 | enum ldprof_obj_flags
 *   ACTIVITY    u32 = LA_ACT_CONSISTENT (0), LA_ACT_ADD (1), LA_ACT_DELETE (2)
 *   INIT_BEGIN, FINI_BEGIN  obj
 *   INIT_END, FINI_END      obj, u32 = functions called,
 *               a = index of the slowest one, b = its duration in ticks
 *   PREINIT, MAIN_ENTER     -
 *   MAIN_RETURN a = main's return value
 *   EXIT_CALL   u32 = enum ldprof_exit_kind, a = status
 *   OBJCLOSE    obj
 *   SYMBIND     obj, u32 = la_symbind64 calls while ld.so relocated obj
 *               (BIND_NOW PLT slots), a = first and b = last timestamp;
 *               written at LA_ACT_CONSISTENT, only by ldprof-audit-symbind.so
 *   LAZY        obj, u32 = its lazy PLT slots bound since startup, a = its
 *               JUMP_SLOT slots, b = the ticks counting them took
 *   CPU         a = user + system time of the process so far, in us
 *               (getrusage; the kernel keeps the sum exact), b = its minor
 *               page faults so far (ru_minflt): right after the startup's
 *               LA_ACT_CONSISTENT record, when main returns or exit is
 *               called, and at each of the first 8 LA_ACT_DELETEs before
 *               that (_dl_fini's stands in for main's end when a library
 *               called exit); not in follow mode (the chunk's utime_us and
 *               stime_us hold it there)
 *   FORKED      the first record of a forked child's chunks (follow mode):
 *               ts = the chunk's version_ts (the image it inherited),
 *               u32 = objects opened before the fork (their indices stay
 *               valid), a = the parent's pid, b = when the shim saw the child
 */
struct ldprof_record {
	uint64_t ts;
	uint16_t type;
	uint16_t obj;
	uint32_t u32;
	uint64_t a;
	uint64_t b;
};

_Static_assert(sizeof(struct ldprof_record) == 32, "record size is part of the format");

/*
 * The preload exports one object of this type; the audit module fills it in
 * when loading is complete, so the preload needs no libc and no lookups of
 * its own. Both sides check .version.
 */
#define LDPROF_HOOK_SYMBOL  "ldprof_preload_hook"
#define LDPROF_HOOK_VERSION 2u

/*
 * Not a record type: what the preload passes to hook.record at
 * __libc_start_main in follow mode, u32 = argc, a = argv.
 */
#define LDPROF_HOOK_ARGV 0x100u

struct ldprof_preload_hook {
	uint32_t version; /* LDPROF_HOOK_VERSION, set at build time */
	uint32_t ready;	  /* set to 1 by the audit module when filled */
	void (*record)(uint16_t type, uint32_t u32, uint64_t a);
	void (*real_exit)(int) __attribute__((noreturn));
	void (*real__exit)(int) __attribute__((noreturn));
	void (*real__Exit)(int) __attribute__((noreturn));
	int (*real_libc_start_main)(int (*main)(int, char **, char **), int argc, char **argv,
				    void (*init)(void), void (*fini)(void), void (*rtld_fini)(void),
				    void *stack_end);
};

#endif
