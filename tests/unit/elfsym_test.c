/* The loader's hash functions and a real object's tables. */
#include <string.h>

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

int main(void)
{
	hashes();
	libc_tables();
	return unit_done("elfsym");
}
