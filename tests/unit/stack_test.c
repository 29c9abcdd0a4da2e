/*
 * The stack layer on samples captured in this process: a known call chain
 * unwinds to its names in order, through this binary, libc and the
 * mappings perf would report (the executable ones only); each symbol
 * source is chosen when it should be; bad and hostile samples give errors,
 * never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "stack/stack.h"
#include "unit.h"

#define MAX_MAPS 256
#define STACK_BYTES                                                                                \
	65528 /* perf's largest sample_stack_user: room for the sanitizer build's frames */
#define MAX_FRAMES 64

/*
 * Save every general-purpose register into regs[] (indexed as perf's) as
 * they will be when this returns: the ip is the return address and the sp
 * the caller's. So the caller's state is captured exactly as a sample taken
 * right after the call would see it.
 */
void capture_regs(uint64_t *regs);
__asm__(".text\n"
	".type capture_regs, @function\n"
	"capture_regs:\n"
	"	mov %rax, 0*8(%rdi)\n"
	"	mov %rbx, 1*8(%rdi)\n"
	"	mov %rcx, 2*8(%rdi)\n"
	"	mov %rdx, 3*8(%rdi)\n"
	"	mov %rsi, 4*8(%rdi)\n"
	"	mov %rdi, 5*8(%rdi)\n"
	"	mov %rbp, 6*8(%rdi)\n"
	"	lea 8(%rsp), %rax\n"
	"	mov %rax, 7*8(%rdi)\n"
	"	mov (%rsp), %rax\n"
	"	mov %rax, 8*8(%rdi)\n"
	"	mov %r8, 16*8(%rdi)\n"
	"	mov %r9, 17*8(%rdi)\n"
	"	mov %r10, 18*8(%rdi)\n"
	"	mov %r11, 19*8(%rdi)\n"
	"	mov %r12, 20*8(%rdi)\n"
	"	mov %r13, 21*8(%rdi)\n"
	"	mov %r14, 22*8(%rdi)\n"
	"	mov %r15, 23*8(%rdi)\n"
	"	mov 0*8(%rdi), %rax\n"
	"	ret\n"
	".size capture_regs, .-capture_regs\n");

/* An untyped label in code, as hand-written assembly has (ld.so's _start, _dl_start_user). */
void untyped_label(void);
__asm__(".text\n"
	".p2align 4\n"
	"untyped_label:\n"
	"	nop\n"
	"	nop\n"
	"	ret\n");

struct captured {
	struct stack_sample sample;
	uint8_t stack[STACK_BYTES];
	struct stack_map maps[MAX_MAPS + 1]; /* room for one more */
	size_t nmaps;
	char *paths[MAX_MAPS];
	uint64_t stack_end;
};

/*
 * The mappings perf reports by default (executable ones, PERF_RECORD_MMAP2
 * without mmap_data) and where the stack ends, from /proc/self/maps.
 */
static void read_maps(struct captured *c)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	c->nmaps = 0;
	while (f && fgets(line, sizeof line, f) && c->nmaps < MAX_MAPS) {
		unsigned long start, end, off;
		char perms[8], path[4096] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   path) < 4)
			continue;
		if (!strcmp(path, "[stack]"))
			c->stack_end = end;
		if (perms[2] != 'x')
			continue;
		c->paths[c->nmaps] = strdup(path);
		c->maps[c->nmaps] = (struct stack_map){start, end, off, c->paths[c->nmaps]};
		c->nmaps++;
	}
	if (f)
		fclose(f);
}

static void free_maps(struct captured *c)
{
	for (size_t i = 0; i < c->nmaps; i++)
		free(c->paths[i]);
}

/*
 * Copy raw stack memory as perf does, redzones and all: byte by byte and
 * unseen by AddressSanitizer, which would take it for an overflow.
 */
__attribute__((no_sanitize_address, noinline)) static void
copy_stack(uint8_t *to, const volatile uint8_t *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
}

/* Take a sample of the caller: registers, then the stack bytes above its sp. */
static __attribute__((noinline)) void take_sample(struct captured *c, uint64_t *regs)
{
	struct stack_sample *s = &c->sample;

	s->ip = regs[PERF_REG_X86_IP];
	memcpy(s->regs, regs, sizeof(s->regs));
	s->regs_mask = stack_regs_mask();
	uint64_t sp = regs[PERF_REG_X86_SP];
	s->stack_len = c->stack_end - sp < STACK_BYTES ? c->stack_end - sp : STACK_BYTES;
	copy_stack(c->stack, (const volatile uint8_t *)sp, s->stack_len);
	s->stack = c->stack;
}

static volatile int sink;

static __attribute__((noinline)) int inner(struct captured *c)
{
	uint64_t regs[PERF_REG_X86_64_MAX];

	capture_regs(regs);
	take_sample(c, regs);
	return sink + 1;
}

static __attribute__((noinline)) int middle(struct captured *c)
{
	return inner(c) + sink + 2;
}

static __attribute__((noinline)) int outer(struct captured *c)
{
	return middle(c) * 3 + sink;
}

/* The file offset of a function of this binary, through a stack_map of it. */
static uint64_t offset_of(const struct captured *c, uintptr_t addr, const char **path)
{
	for (size_t i = 0; i < c->nmaps; i++)
		if (addr >= c->maps[i].start && addr < c->maps[i].end) {
			*path = c->maps[i].path;
			return addr - c->maps[i].start + c->maps[i].pgoff;
		}
	*path = NULL;
	return 0;
}

static const char *frame_name(struct stack_unwinder *u, const struct captured *c,
			      const struct stack_frame *f, struct stack_sym *sym)
{
	struct errbuf err = {{0}};

	if (f->map < 0 || stack_symbolize(u, c->maps[f->map].path, f->offset, sym, &err))
		return "?";
	return sym->name ? sym->name : "?";
}

/* The index of the first frame named name, or -1. */
static int find_frame(struct stack_unwinder *u, const struct captured *c,
		      const struct stack_frame *frames, int n, const char *name,
		      struct stack_sym *sym)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(frame_name(u, c, &frames[i], sym), name))
			return i;
	return -1;
}

static __attribute__((noinline)) void known_chain(struct stack_unwinder *u)
{
	static struct captured c;
	struct stack_frame frames[MAX_FRAMES];
	struct stack_sym sym;
	struct errbuf err = {{0}};
	bool complete;

	read_maps(&c);
	sink = outer(&c);
	int n = stack_unwind(u, c.maps, c.nmaps, &c.sample, frames, MAX_FRAMES, &complete, &err);
	if (n < 0 || !complete)
		fprintf(stderr, "stack_test: %d frames: %s\n", n, err.msg);
	CHECK(n >= 6);
	CHECK(complete);
	if (n < 6)
		goto out;
	CHECK(!strcmp(frame_name(u, &c, &frames[0], &sym), "inner"));
	CHECK(sym.source == SYM_SYMTAB && sym.offset > 0);
	CHECK(!strcmp(frame_name(u, &c, &frames[1], &sym), "middle"));
	CHECK(!strcmp(frame_name(u, &c, &frames[2], &sym), "outer"));
	CHECK(!strcmp(frame_name(u, &c, &frames[3], &sym), "known_chain"));
	CHECK(!strcmp(frame_name(u, &c, &frames[4], &sym), "main"));
	CHECK(frames[0].ip == c.sample.ip);
	/* libc's static start-up function is only in its debug file (libc6-dbg). */
	int start = find_frame(u, &c, frames, n, "__libc_start_call_main", &sym);
	if (start < 0)
		fprintf(stderr, "stack_test: no __libc_start_call_main: is libc6-dbg installed?\n");
	CHECK(start == 5);
	CHECK(start < 0 || (sym.source == SYM_DEBUGFILE && !strcmp(sym.object, "libc.so.6")));
	/* The outermost frame is the executable's _start. */
	CHECK(!strcmp(frame_name(u, &c, &frames[n - 1], &sym), "_start"));

	/* Again, from libunwind's cache: the same frames. */
	struct stack_frame again[MAX_FRAMES];
	int n2 = stack_unwind(u, c.maps, c.nmaps, &c.sample, again, MAX_FRAMES, &complete, &err);
	CHECK(n2 == n && complete);
	for (int i = 0; i < n && i < n2; i++)
		CHECK(again[i].ip == frames[i].ip && again[i].map == frames[i].map &&
		      again[i].offset == frames[i].offset);
out:
	free_maps(&c);
}

/* The same sample, with the maps given in another order (the cache starts over). */
static void maps_reordered(struct stack_unwinder *u)
{
	static struct captured c;
	struct stack_frame frames[MAX_FRAMES];
	struct stack_sym sym;
	struct errbuf err = {{0}};
	bool complete;

	read_maps(&c);
	sink = outer(&c);
	for (size_t i = 0; i < c.nmaps / 2; i++) {
		struct stack_map t = c.maps[i];
		c.maps[i] = c.maps[c.nmaps - 1 - i];
		c.maps[c.nmaps - 1 - i] = t;
	}
	int n = stack_unwind(u, c.maps, c.nmaps, &c.sample, frames, MAX_FRAMES, &complete, &err);
	CHECK(n >= 3 && complete);
	CHECK(n >= 3 && !strcmp(frame_name(u, &c, &frames[2], &sym), "outer"));
	free_maps(&c);
}

/*
 * A newer mapping over an older one's object (dlclose, then dlopen at the
 * same place) replaces it: the ip is then in the newer object, whatever
 * libunwind had cached for that address.
 */
static void newer_mapping(struct stack_unwinder *u)
{
	static struct captured c;
	struct stack_map maps[MAX_MAPS + 1];
	struct stack_frame frames[MAX_FRAMES];
	struct stack_sym sym;
	struct errbuf err;
	bool complete;
	const char *self, *zstd;

	sink = (int)ZSTD_compressBound(1);
	read_maps(&c);
	sink = outer(&c);
	int n = stack_unwind(u, c.maps, c.nmaps, &c.sample, frames, MAX_FRAMES, &complete, &err);
	CHECK(n >= 3 && !strcmp(frame_name(u, &c, &frames[0], &sym), "inner"));
	offset_of(&c, c.sample.ip, &self);
	offset_of(&c, (uintptr_t)ZSTD_compressBound, &zstd);
	size_t at = 0, z = 0;
	for (size_t i = 0; i < c.nmaps; i++) {
		at = c.maps[i].start <= c.sample.ip && c.sample.ip < c.maps[i].end ? i : at;
		z = zstd && c.maps[i].path == zstd ? i : z;
	}
	if (!self || !zstd) {
		CHECK(0);
		goto out;
	}
	memcpy(maps, c.maps, c.nmaps * sizeof(*maps));
	maps[c.nmaps] = (struct stack_map){c.maps[at].start, c.maps[at].end, c.maps[z].pgoff, zstd};
	c.maps[c.nmaps] = maps[c.nmaps];
	n = stack_unwind(u, maps, c.nmaps + 1, &c.sample, frames, MAX_FRAMES, &complete, &err);
	CHECK(n >= 1 && frames[0].map == (int)c.nmaps);
	if (n >= 1) {
		c.nmaps++;
		frame_name(u, &c, &frames[0], &sym);
		c.nmaps--;
		CHECK(!strcmp(sym.object, path_basename(zstd)));
	}
out:
	free_maps(&c);
}

/* A truncated stack, an ip in no mapping, malformed samples. */
static void bad_samples(struct stack_unwinder *u)
{
	static struct captured c;
	struct stack_frame frames[MAX_FRAMES];
	struct errbuf err = {{0}};
	bool complete = true;

	read_maps(&c);
	sink = outer(&c);
	struct stack_sample s = c.sample;

	/* 16 bytes of stack: inner's caller cannot be found past middle at most. */
	s.stack_len = 16;
	int n = stack_unwind(u, c.maps, c.nmaps, &s, frames, MAX_FRAMES, &complete, &err);
	CHECK(n >= 1 && n < 4 && !complete && err.msg[0]);
	s.stack_len = 0;
	n = stack_unwind(u, c.maps, c.nmaps, &s, frames, MAX_FRAMES, &complete, &err);
	CHECK(n >= 1 && n < 4 && !complete);

	s = c.sample;
	s.ip = 16; /* the zero page */
	CHECK(stack_unwind(u, c.maps, c.nmaps, &s, frames, MAX_FRAMES, &complete, &err) == -ENOENT);
	CHECK(strstr(err.msg, "no mapping") != NULL);

	s = c.sample;
	s.stack = NULL;
	CHECK(stack_unwind(u, c.maps, c.nmaps, &s, frames, MAX_FRAMES, &complete, &err) == -EINVAL);
	s = c.sample;
	s.regs_mask &= ~(1ull << PERF_REG_X86_SP);
	CHECK(stack_unwind(u, c.maps, c.nmaps, &s, frames, MAX_FRAMES, &complete, &err) == -EINVAL);
	CHECK(stack_unwind(u, c.maps, c.nmaps, &c.sample, frames, 0, &complete, &err) == -EINVAL);

	/* Two frames asked for: those two, and not complete. */
	n = stack_unwind(u, c.maps, c.nmaps, &c.sample, frames, 2, &complete, &err);
	CHECK(n == 2 && !complete);

	/* The ip's mapping names a file that is not there. */
	struct stack_map gone = {c.sample.ip & ~0xfffull, (c.sample.ip | 0xfff) + 1, 0,
				 "/nonexistent/ldprof-stack-test"};
	CHECK(stack_unwind(u, &gone, 1, &c.sample, frames, MAX_FRAMES, &complete, &err) == -ENOENT);
	CHECK(strstr(err.msg, "no readable object") != NULL);
	/* ... or is anonymous (JIT code): said so. */
	gone.path = NULL;
	CHECK(stack_unwind(u, &gone, 1, &c.sample, frames, MAX_FRAMES, &complete, &err) == -ENOENT);
	CHECK(strstr(err.msg, "(anonymous)") != NULL);
	free_maps(&c);
}

/* Random registers and stack bytes, and garbage mappings: errors or short stacks only. */
static void hostile_samples(struct stack_unwinder *u)
{
	static struct captured c;
	struct stack_frame frames[MAX_FRAMES];
	struct errbuf err;
	bool complete;
	unsigned seed = 12345;
	int ok = 0;

	read_maps(&c);
	sink = outer(&c);
	for (int round = 0; round < 3000; round++) {
		struct stack_sample s = c.sample;
		uint8_t bytes[512];
		for (size_t i = 0; i < sizeof bytes; i++)
			bytes[i] = (uint8_t)rand_r(&seed);
		/* Keep the ip real half the time, so the walk starts inside an object. */
		if (round & 1)
			s.ip = c.maps[(size_t)rand_r(&seed) % c.nmaps].start +
			       (unsigned)rand_r(&seed) % 4096;
		for (int r = 0; r < PERF_REG_X86_64_MAX; r++)
			if (rand_r(&seed) % 4 == 0)
				s.regs[r] = (uint64_t)rand_r(&seed) << 32 | (unsigned)rand_r(&seed);
		s.stack = bytes;
		s.stack_len = (unsigned)rand_r(&seed) % (sizeof bytes + 1);
		int n = stack_unwind(u, c.maps, c.nmaps, &s, frames, MAX_FRAMES, &complete, &err);
		ok += n >= -EINVAL && n <= MAX_FRAMES;
	}
	CHECK(ok == 3000);

	/* Mappings that end before they start, or wrap around, or have absurd offsets. */
	struct stack_map bad[4] = {
		{c.sample.ip + 4096, c.sample.ip, 0, c.maps[0].path},
		{c.sample.ip & ~0xfffull, UINT64_MAX, UINT64_MAX - 5, c.maps[0].path},
		{0, UINT64_MAX, 0, "[vdso]"},
		{0, 4096, 0, NULL},
	};
	for (size_t k = 0; k <= ARRAY_SIZE(bad); k++) {
		int n = stack_unwind(u, bad, k, &c.sample, frames, MAX_FRAMES, &complete, &err);
		CHECK(n >= -EINVAL && n <= MAX_FRAMES);
	}
	free_maps(&c);
}

static int run(const char *cmd)
{
	int ret = system(cmd);

	if (ret)
		fprintf(stderr, "stack_test: failed (%d): %s\n", ret, cmd);
	return ret;
}

/*
 * Each source, on copies of this test binary made with objcopy: .symtab
 * kept; stripped with a .gnu_debuglink (and no build-id) to a debug file;
 * the same without the debug file (.dynsym only, which holds no function of
 * this binary); plus a system library, libzstd (.dynsym only), and the vDSO.
 */
static void symbol_sources(void)
{
	static struct captured c;
	char dir[] = "/tmp/ldprof-stack-XXXXXX", cmd[8192], path[256];
	struct stack_unwinder *u;
	struct stack_sym sym;
	struct errbuf err;
	const char *self;

	read_maps(&c);
	if (!mkdtemp(dir) || stack_unwinder_new(&u, &err)) {
		CHECK(0);
		return;
	}
	uint64_t off = offset_of(&c, (uintptr_t)middle, &self);
	CHECK(self != NULL);
	snprintf(cmd, sizeof cmd,
		 "cd %s && objcopy --remove-section=.note.gnu.build-id /proc/%d/exe full && "
		 "objcopy --only-keep-debug full t.debug 2>/dev/null && "
		 "objcopy --strip-all --add-gnu-debuglink=t.debug full stripped && "
		 "cp stripped nodebug && mkdir sub && cp stripped sub/nodebug",
		 dir, (int)getpid());
	if (!self || run(cmd))
		goto out;

	snprintf(path, sizeof path, "%s/full", dir);
	CHECK(stack_symbolize(u, path, off, &sym, &err) == 0);
	CHECK(sym.source == SYM_SYMTAB && sym.name && !strcmp(sym.name, "middle"));
	CHECK(!strcmp(sym.object, "full"));

	/* An untyped label names the code after it; a function's name wins over a label's. */
	uint64_t label = offset_of(&c, (uintptr_t)untyped_label + 1, &self);
	CHECK(stack_symbolize(u, path, label, &sym, &err) == 0);
	CHECK(sym.source == SYM_SYMTAB && sym.name && !strcmp(sym.name, "untyped_label"));
	CHECK(sym.offset == 1);

	snprintf(path, sizeof path, "%s/stripped", dir);
	CHECK(stack_symbolize(u, path, off, &sym, &err) == 0);
	CHECK(sym.source == SYM_DEBUGFILE && sym.name && !strcmp(sym.name, "middle"));

	/* sub/nodebug's link names t.debug, which is not in sub/ (nor in sub/.debug/). */
	snprintf(path, sizeof path, "%s/sub/nodebug", dir);
	CHECK(stack_symbolize(u, path, off, &sym, &err) == 0);
	CHECK(sym.source == SYM_NONE && sym.name == NULL && sym.offset > 0);
	CHECK(!strcmp(sym.object, "nodebug"));

	/* A debug file that is not the object's (its CRC differs) is not taken. */
	snprintf(cmd, sizeof cmd, "cd %s && printf x >> t.debug", dir);
	CHECK(run(cmd) == 0);
	snprintf(path, sizeof path, "%s/nodebug", dir);
	CHECK(stack_symbolize(u, path, off, &sym, &err) == 0);
	CHECK(sym.source == SYM_NONE);

	/* A FIFO or a folder where an object was: an error at once, never a hang. */
	snprintf(path, sizeof path, "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(stack_symbolize(u, path, 0x10, &sym, &err) == -ENODEV);
	CHECK(strstr(err.msg, "not a regular file") != NULL && sym.source == SYM_NONE);
	CHECK(stack_symbolize(u, dir, 0x10, &sym, &err) == -ENODEV);

	CHECK(stack_symbolize(u, "/nonexistent/lib.so", 0x1234, &sym, &err) == -ENOENT);
	CHECK(sym.source == SYM_NONE && sym.offset == 0x1234 && !strcmp(sym.object, "lib.so"));
	CHECK(strstr(err.msg, "/nonexistent/lib.so") != NULL);
out:
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	run(cmd);
	stack_unwinder_free(u);
	free_maps(&c);
}

/* The file range [off, off + size) of section name in the ELF file at path; false if none. */
static bool section_range(const char *path, const char *name, uint64_t *off, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	bool found = false;

	if (elf && !elf_getshdrstrndx(elf, &shstrndx))
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !found;
		     scn = elf_nextscn(elf, scn)) {
			GElf_Shdr sh;
			const char *n;
			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			    !strcmp(n, name)) {
				*off = sh.sh_offset;
				*size = sh.sh_size;
				found = true;
			}
		}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* Overwrite [off, off + size) of fd with random bytes, keeping the first keep. */
static void scribble(int fd, uint64_t off, uint64_t size, uint64_t keep, unsigned *seed)
{
	uint8_t b[4096];

	for (uint64_t at = keep; at < size; at += sizeof b) {
		size_t n = size - at < sizeof b ? (size_t)(size - at) : sizeof b;
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)rand_r(seed);
		CHECK(pwrite(fd, b, n, (off_t)(off + at)) == (ssize_t)n);
	}
}

/*
 * A copy of this binary whose .eh_frame and .eh_frame_hdr are random
 * (with the header's first bytes kept half the time, so that its table is
 * searched): the sample unwinds to an error or a short stack, never a
 * crash or a read outside the file.
 */
static void corrupt_unwind_tables(void)
{
	static struct captured c;
	char dir[] = "/tmp/ldprof-stack-XXXXXX", cmd[4200], path[256];
	struct stack_map maps[MAX_MAPS];
	struct stack_frame frames[MAX_FRAMES];
	uint64_t hoff, hsize, foff, fsize;
	unsigned seed = 777;
	const char *self;
	int survived = 0;

	read_maps(&c);
	sink = outer(&c);
	offset_of(&c, c.sample.ip, &self);
	if (!self || !mkdtemp(dir)) {
		CHECK(0);
		goto out;
	}
	snprintf(path, sizeof path, "%s/corrupt", dir);
	snprintf(cmd, sizeof cmd, "cp %s %s", self, path);
	CHECK(run(cmd) == 0);
	CHECK(section_range(path, ".eh_frame_hdr", &hoff, &hsize));
	CHECK(section_range(path, ".eh_frame", &foff, &fsize));
	for (size_t i = 0; i < c.nmaps; i++) {
		maps[i] = c.maps[i];
		if (!strcmp(c.maps[i].path, self))
			maps[i].path = path;
	}
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	for (int round = 0; fd >= 0 && round < 40; round++) {
		struct stack_unwinder *u;
		struct errbuf err;
		bool complete;
		scribble(fd, hoff, hsize, round & 1 ? 4 : 0, &seed);
		scribble(fd, foff, fsize, 0, &seed);
		if (stack_unwinder_new(&u, &err))
			break;
		int n = stack_unwind(u, maps, c.nmaps, &c.sample, frames, MAX_FRAMES, &complete,
				     &err);
		survived += n >= -EINVAL && n <= MAX_FRAMES;
		stack_unwinder_free(u);
	}
	CHECK(survived == 40);
	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	run(cmd);
out:
	free_maps(&c);
}

/* .dynsym of a system library (libzstd has no .symtab and no debug file) and the vDSO. */
static void dynsym_sources(void)
{
	static struct captured c;
	struct stack_unwinder *u;
	struct stack_sym sym;
	struct errbuf err;
	const char *path;

	if (stack_unwinder_new(&u, &err)) {
		CHECK(0);
		return;
	}
	sink = (int)ZSTD_compressBound(1);
	read_maps(&c);
	uint64_t off = offset_of(&c, (uintptr_t)ZSTD_compressBound, &path);
	CHECK(path && strstr(path, "libzstd") != NULL);
	if (path) {
		CHECK(stack_symbolize(u, path, off + 1, &sym, &err) == 0);
		CHECK(sym.source == SYM_DYNSYM && sym.name &&
		      !strcmp(sym.name, "ZSTD_compressBound"));
		CHECK(sym.offset == 1);
	}
	for (size_t i = 0; i < c.nmaps; i++)
		if (!strcmp(c.maps[i].path, "[vdso]")) {
			/* Somewhere in its text, a __vdso_ function or its alias. */
			int ret = stack_symbolize(u, "[vdso]", 0x700, &sym, &err);
			CHECK(ret == 0 && !strcmp(sym.object, "[vdso]"));
		}
	stack_unwinder_free(u);
	free_maps(&c);
}

static void regs(void)
{
	struct stack_sample s;
	uint64_t packed[3] = {11, 22, 33};
	uint64_t mask = stack_regs_mask();

	CHECK(mask >> PERF_REG_X86_IP & 1 && mask >> PERF_REG_X86_SP & 1 &&
	      mask >> PERF_REG_X86_R15 & 1);
	CHECK(!(mask >> PERF_REG_X86_DS & 1) && !(mask >> PERF_REG_X86_FS & 1));
	uint64_t m3 = 1ull << PERF_REG_X86_BX | 1ull << PERF_REG_X86_SP | 1ull << PERF_REG_X86_R12;
	CHECK(stack_regs_unpack(&s, m3, packed, 3) == 0);
	CHECK(s.regs[PERF_REG_X86_BX] == 11 && s.regs[PERF_REG_X86_SP] == 22 &&
	      s.regs[PERF_REG_X86_R12] == 33 && s.regs[PERF_REG_X86_AX] == 0);
	CHECK(s.regs_mask == m3);
	CHECK(stack_regs_unpack(&s, m3, packed, 2) == -EINVAL);
	CHECK(stack_regs_unpack(&s, 1ull << 40, packed, 1) == -EINVAL);
	CHECK(!strcmp(stack_sym_source_name(SYM_DEBUGFILE), "debug"));
}

int main(void)
{
	struct stack_unwinder *u;
	struct errbuf err;

	regs();
	if (stack_unwinder_new(&u, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(0);
		return unit_done("stack");
	}
	known_chain(u);
	maps_reordered(u);
	newer_mapping(u);
	bad_samples(u);
	hostile_samples(u);
	known_chain(u);
	stack_unwinder_free(u);
	symbol_sources();
	dynsym_sources();
	corrupt_unwind_tables();
	return unit_done("stack");
}
