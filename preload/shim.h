/*
 * Internal interfaces and state of the audit module. The files call only
 * downward: audit.c (the la_* entries) -> lazy.c -> ctor.c, hooks.c ->
 * stubs.S -> trampoline.c -> record.c (the state and shim_emit) ->
 * shim-elfsym.c.
 */
#ifndef LDPROF_SHIM_H
#define LDPROF_SHIM_H

#include <elf.h>
#include <link.h>
#include <stdint.h>

#include "ldprof-record.h"
#include "shim-limits.h"
#include "shim-sys.h"

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
			     void *);
typedef void (*exit_fn)(int);

/* The functions wrapped to see main's entry and return and the exit call. */
enum hook_id { HOOK_START_MAIN, HOOK_EXIT, HOOK__EXIT, HOOK__EXIT_C99, HOOK_COUNT };

struct fn_list {
	uintptr_t single; /* DT_INIT or DT_FINI, run-time address, or 0 */
	uintptr_t array;  /* run-time address of the original array */
	uint32_t count;	  /* entries in the array */
};

/*
 * Objects whose state lives in struct shim_state: enough for most
 * programs, few enough that the whole state fits the run buffer's first
 * page with its header (LDPROF_SHM_STATE_BYTES).
 */
#define SHIM_STATE_OBJS 32

struct obj_state {
	struct fn_list init, fini;
	void *init_slot[1], *fini_slot[1];    /* one-entry replacement arrays */
	uint64_t symbind_first, symbind_last; /* ldprof-audit-symbind.so only */
	uint32_t symbind_count;
	struct link_map *map;
	uintptr_t plt_unbound0; /* lazy.c: slot 0's value while unbound (slot i's is +16 i), or 0 */
};

/*
 * All mutable state in one object. In a run without -f it lives in the
 * launcher's buffer, which the shim maps over the window that its image
 * reserves (preload/shim.lds), so its pages are the buffer's; otherwise
 * in the window's own zero pages, private to the process.
 */
struct shim_state {
	struct ldprof_shm_header *shm;
	struct ldprof_record *recs;
	char *strings;
	uint64_t version_ts;   /* la_version's time: it runs before we can record */
	struct link_map *rtld; /* ld.so's own map: never modified */
	struct link_map *main; /* the executable */
	const ElfW(auxv_t) * auxv;
	uint32_t nobj;
	int off;	/* recording disabled for this process */
	int pid;	/* the process that owns the buffer, or in follow mode its chunks */
	int tcb_tid_ok; /* glibc's TCB holds our tid: shim_tcb_tid() is usable */
	int preload;	/* ldprof's preload does the hooks instead */
	int hooked;	/* hooks installed */
	int exiting;	/* an exit function was called (recursion guard) */
	int main_done;	/* main returned or exit was called: the next CONSISTENT is the exit's */
	int lazy_done;	/* lazy.c counted at exit */
	int cpu_notes;	/* CPU records at LA_ACT_DELETE before main's end (SHIM_CPU_NOTES_MAX) */
	int ended;	/* the end's getrusage is taken */
	uint32_t lazy_seen; /* objects of the startup whose unbound PLT values lazy.c noted */
	int follow;	/* follow mode (LDPROF_OPT_FOLLOW): the fields at the end */
	size_t *relro_size_at;	     /* hooks.c: ld.so's l_relro_size of the executable, zeroed */
	size_t relro_size;	     /* ...its value */
	uintptr_t relro_lo, relro_hi; /* the pages it protects */
	void *real[HOOK_COUNT]; /* hooks.c: the functions the slots were bound to, or NULL */
	void *stub[HOOK_COUNT]; /* ...the PLT stubs of those still unbound (lazy), or NULL */
	main_fn real_main;
	struct obj_state objs[SHIM_STATE_OBJS]; /* the first objects; shim_obj() */
	/*
	 * Follow mode only: this process's own chunks. Last, so that a run
	 * without -f keeps as many objects on the first .bss page as before.
	 */
	int ppid;
	struct ldprof_chunk *chunk0; /* the first chunk: its counter numbers every record */
	char *chunks;		     /* the shared chunk area */
	uint32_t chunk_size, per_chunk;
	uint32_t chunk_idx[LDPROF_MAX_CHUNKS]; /* chunk k >= 1: 1 + its index in the area */
};

extern struct shim_state shim SHIM_HIDDEN;
/* Objects SHIM_STATE_OBJS and beyond, in the image's own zero pages. */
extern struct obj_state shim_more_objs[LDPROF_MAX_OBJS - SHIM_STATE_OBJS] SHIM_HIDDEN;

static inline struct obj_state *shim_obj(uint32_t idx)
{
	return idx < SHIM_STATE_OBJS ? &shim.objs[idx] : &shim_more_objs[idx - SHIM_STATE_OBJS];
}
/* The window the run buffer is mapped over; shim sits LDPROF_SHM_STATE_OFF into it. */
extern char ldprof_shm_window[] SHIM_HIDDEN;

/*
 * Append one record; does nothing when recording is off or when the caller
 * is not the process that owns the buffer (a child forked at any phase,
 * even in a constructor). The check is one load from glibc's TCB and no
 * system call for the owner's main thread; other threads and children ask
 * the kernel. In follow mode a forked child (its own TCB, so its own
 * memory) becomes the owner of chunks of its own instead (record.c).
 */
SHIM_HIDDEN void shim_emit(uint64_t ts, uint16_t type, uint16_t obj, uint32_t u32, uint64_t a,
			   uint64_t b);

/* Whether the caller is the owner: one load from the TCB, or a system call. */
SHIM_HIDDEN int shim_owner(void);

/*
 * Whether the caller is the owner, by a getpid system call: for the exit
 * milestones, because a vfork child shares the owner's TCB (and its tid)
 * and may _exit through the executable's hooked GOT.
 */
SHIM_HIDDEN int shim_owner_strict(void);

/* Set header flags (enum ldprof_shm_flags); in follow mode, the first chunk's. */
SHIM_HIDDEN void shim_flag(uint32_t flags);

/*
 * Follow mode: claim this process's first chunk (flags: LDPROF_CHUNK_F_*).
 * -1 when the area is full, counted in lost_execs (or lost_forks).
 */
SHIM_HIDDEN int shim_chunk_start(uint32_t flags);

/* Follow mode, else nothing: a bounded copy of argv (at __libc_start_main). */
SHIM_HIDDEN void shim_note_argv(int argc, char **argv);

/* getrusage(RUSAGE_SELF) once, at main's return or the exit call: into the chunk in follow
   mode, else a LDPROF_REC_CPU record. */
SHIM_HIDDEN void shim_note_end(void);
/*
 * A LDPROF_REC_CPU record now: the process's CPU time and minor page faults
 * so far, for the cost model (docs/model.md, "The run's own traffic"). One
 * getrusage system call; the caller has checked that it is the owner, not
 * in follow mode.
 */
SHIM_HIDDEN void shim_note_cpu(void);
/* CPU records at LA_ACT_DELETE before main's end, at most (audit.c). */
#define SHIM_CPU_NOTES_MAX 8

/* Copy a name into the string area; its offset, or UINT32_MAX when full. */
SHIM_HIDDEN uint32_t shim_copy_string(const char *s);

/*
 * Point an object's constructor and destructor entries in .dynamic at
 * trampoline idx. Returns enum ldprof_obj_flags.
 */
SHIM_HIDDEN unsigned shim_instrument(struct link_map *m, uint32_t idx);

/*
 * Lazy binding (lazy.c): at each LA_ACT_CONSISTENT before the exit, note
 * where the new objects' unbound PLT slots point; at the exit's, count per
 * object the slots bound since (LDPROF_REC_LAZY).
 */
SHIM_HIDDEN void shim_lazy_note(void);
SHIM_HIDDEN void shim_lazy_note_opened(struct obj_state *o);
SHIM_HIDDEN void shim_lazy_count(void);

/*
 * After relocation: point the GOT slots that call __libc_start_main and the
 * exit functions at our wrappers (hooks.c), then shim_protect_relro.
 */
SHIM_HIDDEN uint64_t shim_install_hooks(void);

/*
 * At the executable's la_objopen: have ld.so leave its RELRO writable
 * until shim_protect_relro (hooks.c), if ld.so's link_map shows where.
 */
SHIM_HIDDEN void shim_take_relro(void);

/* Protect the executable's RELRO as ld.so would have; the ticks it took, or 0. */
SHIM_HIDDEN uint64_t shim_protect_relro(void);

/* Whether addr is one of hooks.c's wrappers (a slot we pointed there). */
SHIM_HIDDEN int shim_is_wrapper(uintptr_t addr);

#endif
