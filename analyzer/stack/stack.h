/*
 * Offline unwinding and symbols for perf samples of another process
 * (ldprof run --sample): libunwind's remote API walks one sample's captured
 * registers and user stack bytes, with each object's .eh_frame_hdr and
 * .eh_frame read through libelf, and every frame's address is named from
 * the object's symbols (.symtab, else its separate debug file, else
 * .dynsym, else object+0xoffset).
 *
 * An unwinder caches per object (by path): the open Elf, its load segments,
 * its unwind table and its symbols sorted by address, so that unwinding
 * many samples of the same process costs little per sample. Everything it
 * returns (names, paths) stays valid until stack_unwinder_free.
 *
 * The samples are read from the trace file, so their registers and stack
 * bytes may be anything: a hostile sample gives an error or a short stack,
 * never a crash or a read outside the given bytes.
 *
 * One unwinder serves one thread. Unwinding is fastest when the samples of
 * one process are given in turn, each with the mappings known at its time
 * in the order perf reported them (the list only grows): libunwind's cache
 * of register rules by address is kept while the list only grows, and
 * flushed when it changes otherwise (another process, an exec).
 *
 * Interface stability: helper S (h/sample) codes against this header.
 * Changes since the first commit: none (comments only).
 */
#ifndef LDPROF_STACK_H
#define LDPROF_STACK_H

#include <asm/perf_regs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/*
 * One mapping of the sampled process, as PERF_RECORD_MMAP2 gives it
 * (addr, addr + len, pgoff, filename). The event needs attr.mmap = 1 as
 * well as mmap2 = 1 (mmap2 only picks the record's format); the executable
 * mappings it then reports are enough, without mmap_data: an object's
 * other segments are found from its file. File-backed mappings unwind and
 * symbolize through their file; "[vdso]" through this process's own vDSO
 * (the same kernel, so unwind on the machine that recorded); any other
 * name ("[stack]", "//anon") only serves as a known address range.
 */
struct stack_map {
	uint64_t start, end; /* [start, end) in the sampled process */
	uint64_t pgoff;	     /* file offset of start */
	const char *path;
};

/* What perf gave for one sample (PERF_SAMPLE_IP | REGS_USER | STACK_USER). */
struct stack_sample {
	uint64_t ip;
	uint64_t regs[PERF_REG_X86_64_MAX]; /* indexed by enum perf_event_x86_regs */
	uint64_t regs_mask;		    /* which regs[] are valid: the sample_regs_user mask */
	const uint8_t *stack; /* the STACK_USER bytes, starting at regs[PERF_REG_X86_SP] */
	uint64_t stack_len;   /* how many are valid: the record's dyn_size */
};

struct stack_frame {
	uint64_t ip; /* absolute: the sample's ip for frames[0], a return address above it */
	int map;     /* index in the maps given to stack_unwind, -1 if in none */
	/*
	 * The file offset inside maps[map].path of the instruction this frame
	 * is in: for frames[0] ip's, for a caller ip - 1's (a return address may
	 * be the first byte of the next function). Pass it to stack_symbolize.
	 */
	uint64_t offset;
};

enum stack_sym_source {
	SYM_SYMTAB,    /* the object's own .symtab */
	SYM_DEBUGFILE, /* .symtab of its separate debug file (build-id or .gnu_debuglink) */
	SYM_DYNSYM,    /* its .dynsym: exported names only */
	SYM_NONE,      /* no symbol covers the address: show object+0xoffset */
};

struct stack_sym {
	const char *name;   /* the raw (not demangled) symbol name; NULL for SYM_NONE */
	const char *object; /* the object's basename ("ld-linux-x86-64.so.2") */
	/*
	 * From the symbol's start; for SYM_NONE from the object's start in its
	 * ELF addresses (as objdump shows them), or the file offset when the
	 * file could not be read.
	 */
	uint64_t offset;
	enum stack_sym_source source;
};

struct stack_unwinder;

int stack_unwinder_new(struct stack_unwinder **out, struct errbuf *err);
void stack_unwinder_free(struct stack_unwinder *u);

/*
 * Unwind one sample into frames[0..n), n <= max; frames[0].ip is sample->ip.
 * Returns n >= 1, or -errno with err set and no frames:
 *   -ENOENT  the ip is in no mapping, or in one with no readable object
 *            (the caller shows "[unwind failed]");
 *   -EINVAL  a malformed sample (IP or SP missing from regs_mask, a NULL
 *            stack with a length, max < 1).
 * *complete says whether the walk reached the outermost frame (_start,
 * clone). When false, it stopped on an error (err says which) or at max:
 * the frames found are right, and the caller shows "[unwind failed]" above
 * them (as their outermost frame).
 */
int stack_unwind(struct stack_unwinder *u, const struct stack_map *maps, size_t nmaps,
		 const struct stack_sample *sample, struct stack_frame *frames, int max,
		 bool *complete, struct errbuf *err);

/*
 * The symbol at file_offset in the object at path. Returns 0, or -errno
 * when the object cannot be read (err says why); *out is filled either way
 * (SYM_NONE with the object's basename and file_offset on error), so the
 * caller can always show something.
 */
int stack_symbolize(struct stack_unwinder *u, const char *path, uint64_t file_offset,
		    struct stack_sym *out, struct errbuf *err);

/* "symtab", "debug", "dynsym", "none": how the report says where a name came from. */
const char *stack_sym_source_name(enum stack_sym_source source);

/* The registers the sampler must ask for (perf_event_attr.sample_regs_user). */
uint64_t stack_regs_mask(void);

/*
 * Spread a sample's packed user registers (the record's regs[], one word
 * per bit set in mask, lowest bit first) into sample->regs and set
 * sample->regs_mask. -EINVAL if n does not match the mask's bit count or
 * the mask has bits beyond PERF_REG_X86_64_MAX.
 */
int stack_regs_unpack(struct stack_sample *sample, uint64_t mask, const uint64_t *packed, size_t n);

#endif
