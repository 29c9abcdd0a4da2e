/* The loader's hash functions and a real object's tables. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elfobj.h"
#include "unit.h"

static void hashes(void)
{
	/* Values glibc's dl_new_hash and _dl_elf_hash give. */
	CHECK(ldso_gnu_hash("") == 5381);
	CHECK(ldso_gnu_hash("printf") == 0x156b2bb8u);
	CHECK(ldso_sysv_hash("") == 0);
	CHECK(ldso_sysv_hash("printf") == 0x077905a6u);
	/* setup_vdso_pointers' LINUX_2.6 hash. */
	CHECK(ldso_sysv_hash("LINUX_2.6") == 61765110u);
}

static void libc_tables(void)
{
	struct elfobj *o;
	struct errbuf err;

	if (elfobj_open("/lib/x86_64-linux-gnu/libc.so.6", &o, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(0);
		return;
	}
	CHECK(o->hash.style == HASH_GNU && o->nsyms > 1000);
	CHECK(o->hash.nbuckets > 0 && o->hash.avg_chain >= 1.0);
	CHECK(o->versym && o->nvdefs > 10);
	/* Every symbol's name is in range and its version index known. */
	unsigned bad = 0;
	for (uint32_t i = 1; i < o->nsyms; i++)
		bad += !*elfobj_sym_name(o, i);
	CHECK(bad == 0);
	CHECK(!strcmp(o->soname, "libc.so.6"));
	CHECK(o->relocs.relative + o->relocs.relr > 0 && o->reloc_pages > 0);
	elfobj_close(o);
}

/* A copy of PATH in a fresh temporary file, whose name goes to TMPL. */
static int copy_to_temp(const char *path, char *tmpl)
{
	char buf[65536];
	ssize_t n;
	int in = open(path, O_RDONLY), out = mkstemp(tmpl), r = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		r |= write(out, buf, (size_t)n) != n;
	r |= in < 0 || out < 0;
	if (in >= 0)
		close(in);
	if (out >= 0)
		r |= close(out);
	return r;
}

/* calibrate's bloom-N fillers: every Bloom word all ones, nothing else moved. */
static void fill_bloom(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char tmpl[] = "/tmp/elfsym_test.XXXXXX";
	struct elfobj *a = NULL, *b = NULL;
	struct errbuf err;

	if (copy_to_temp(libc, tmpl)) {
		CHECK(0);
		if (strcmp(tmpl, "/tmp/elfsym_test.XXXXXX"))
			unlink(tmpl);
		return;
	}
	CHECK(elf_fill_bloom(tmpl, &err) == 0);
	if (!elfobj_open(libc, &a, &err) && !elfobj_open(tmpl, &b, &err)) {
		uint32_t words = b->hash.bloom_words, ones = 0;
		for (uint32_t i = 0; i < words; i++)
			ones += b->gnu.bloom[i] == ~(uint64_t)0;
		CHECK(words > 0 && ones == words);
		/* Before the filter and after it, the file is as it was. */
		size_t off = (size_t)((const unsigned char *)b->gnu.bloom - b->image);
		CHECK(a->image_size == b->image_size);
		CHECK(!memcmp(a->image, b->image, off));
		CHECK(!memcmp(a->image + off + words * 8, b->image + off + words * 8,
			      b->image_size - off - words * 8));
	} else {
		CHECK(0);
	}
	elfobj_close(a);
	elfobj_close(b);
	unlink(tmpl);
	/* Not an ELF file: an error that says so. */
	CHECK(elf_fill_bloom("/proc/self/status", &err) < 0 && err.msg[0]);
}

int main(void)
{
	hashes();
	libc_tables();
	fill_bloom();
	return unit_done("elfsym");
}
