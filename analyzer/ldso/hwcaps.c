/*
 * CPU facts and search subdirectories, as glibc 2.36's ld.so derives them
 * (sysdeps/x86/cpu-features.c, get-isa-level.h, elf/dl-hwcaps.c). Written
 * here because no library exports ld.so's view: the only other source is
 * parsing `ld.so --help`, which the tests do to check this file.
 */
#include "ldso/hwcaps.h"

#include <cpuid.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "base/util.h"

struct cpuid_regs {
	unsigned eax, ebx, ecx, edx;
};

static struct cpuid_regs cpuid(unsigned leaf, unsigned sub)
{
	struct cpuid_regs r = {0, 0, 0, 0};

	__cpuid_count(leaf, sub, r.eax, r.ebx, r.ecx, r.edx);
	return r;
}

static unsigned long long xgetbv0(void)
{
	unsigned lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

#define BIT(v, n) (((v) >> (n)) & 1u)

/* The features get_isa_level and the platform checks look at, "usable" as
   glibc's update_active decides: AVX needs the OS to save YMM state, AVX512
   also the opmask and ZMM state. */
struct usable {
	bool cmov, cx8, fpu, fxsr, mmx, sse, sse2;
	bool cx16, lahf, popcnt, sse3, ssse3, sse41, sse42;
	bool avx, avx2, bmi1, bmi2, f16c, fma, lzcnt, movbe;
	bool avx512f, avx512bw, avx512cd, avx512dq, avx512vl, avx512er, avx512pf;
};

static void read_usable(struct usable *u, unsigned max_leaf)
{
	struct cpuid_regs l1 = cpuid(1, 0), l7 = {0, 0, 0, 0}, e1 = {0, 0, 0, 0};
	unsigned long long xcr0 = 0;

	if (max_leaf >= 7)
		l7 = cpuid(7, 0);
	if (cpuid(0x80000000, 0).eax >= 0x80000001)
		e1 = cpuid(0x80000001, 0);
	*u = (struct usable){
		.fpu = BIT(l1.edx, 0),
		.cx8 = BIT(l1.edx, 8),
		.cmov = BIT(l1.edx, 15),
		.mmx = BIT(l1.edx, 23),
		.fxsr = BIT(l1.edx, 24),
		.sse = BIT(l1.edx, 25),
		.sse2 = BIT(l1.edx, 26),
		.sse3 = BIT(l1.ecx, 0),
		.ssse3 = BIT(l1.ecx, 9),
		.cx16 = BIT(l1.ecx, 13),
		.sse41 = BIT(l1.ecx, 19),
		.sse42 = BIT(l1.ecx, 20),
		.movbe = BIT(l1.ecx, 22),
		.popcnt = BIT(l1.ecx, 23),
		.lahf = BIT(e1.ecx, 0),
		.lzcnt = BIT(e1.ecx, 5),
		.bmi1 = BIT(l7.ebx, 3),
		.bmi2 = BIT(l7.ebx, 8),
	};
	if (!BIT(l1.ecx, 27)) /* OSXSAVE: no xgetbv, no AVX */
		return;
	xcr0 = xgetbv0();
	if ((xcr0 & 6) != 6)
		return;
	if (BIT(l1.ecx, 28)) {
		u->avx = true;
		u->avx2 = BIT(l7.ebx, 5);
		u->fma = BIT(l1.ecx, 12);
		u->f16c = BIT(l1.ecx, 29);
	}
	if ((xcr0 & 0xe0) == 0xe0 && BIT(l7.ebx, 16)) {
		u->avx512f = true;
		u->avx512dq = BIT(l7.ebx, 17);
		u->avx512pf = BIT(l7.ebx, 26);
		u->avx512er = BIT(l7.ebx, 27);
		u->avx512cd = BIT(l7.ebx, 28);
		u->avx512bw = BIT(l7.ebx, 30);
		u->avx512vl = BIT(l7.ebx, 31);
	}
}

static unsigned isa_level(const struct usable *u)
{
	unsigned isa = 0;

	if (!(u->cmov && u->cx8 && u->fpu && u->fxsr && u->mmx && u->sse && u->sse2))
		return 0;
	isa = ISA_BASELINE;
	if (!(u->cx16 && u->lahf && u->popcnt && u->sse3 && u->ssse3 && u->sse41 && u->sse42))
		return isa;
	isa |= ISA_V2;
	if (!(u->avx && u->avx2 && u->bmi1 && u->bmi2 && u->f16c && u->fma && u->lzcnt && u->movbe))
		return isa;
	isa |= ISA_V3;
	if (u->avx512f && u->avx512bw && u->avx512cd && u->avx512dq && u->avx512vl)
		isa |= ISA_V4;
	return isa;
}

void cpu_facts_detect(struct cpu_facts *c)
{
	struct cpuid_regs v = cpuid(0, 0);
	const char *plat = (const char *)getauxval(AT_PLATFORM);
	struct usable u;

	memset(c, 0, sizeof *c);
	read_usable(&u, v.eax);
	c->isa = isa_level(&u);
	/* "GenuineIntel" in EBX, EDX, ECX. */
	c->intel = v.ebx == 0x756e6547 && v.edx == 0x49656e69 && v.ecx == 0x6c65746e;
	if (c->intel && u.avx512cd) {
		if (u.avx512er)
			c->xeon_phi = u.avx512pf;
		else
			c->avx512_1 = u.avx512bw && u.avx512dq && u.avx512vl;
	}
	c->haswell = c->intel && !c->xeon_phi && u.avx2 && u.fma && u.bmi1 && u.bmi2 && u.lzcnt &&
		     u.movbe && u.popcnt;
	c->at_platform = plat ? plat : "x86_64";
}

size_t hwcaps_glibc_names(unsigned isa, const char **names)
{
	size_t n = 0;

	/* Each level needs the ones below it (get_isa_level nests them). */
	if (isa & ISA_V4)
		names[n++] = "x86-64-v4";
	if (isa & ISA_V3)
		names[n++] = "x86-64-v3";
	if (isa & ISA_V2)
		names[n++] = "x86-64-v2";
	return n;
}

/*
 * The legacy part: every subset of the components (hwcap names in bit
 * order, the platform, "tls"), largest mask first, each subset spelled
 * from its last component to its first: with x86_64, x86_64, tls that is
 * tls/x86_64/x86_64/, tls/x86_64/, tls/x86_64/, tls/, x86_64/x86_64/, ...
 * and finally "" for the directory itself.
 */
static void add_legacy(struct hwcaps *h, const char **comp, size_t ncomp)
{
	for (unsigned long mask = (1ul << ncomp); mask-- > 0;) {
		struct sbuf sb = {0};
		sbuf_printf(&sb, "%s", "");
		for (size_t i = ncomp; i-- > 0;)
			if (mask & (1ul << i))
				sbuf_printf(&sb, "%s/", comp[i]);
		if (h->nsubdir < HWCAPS_MAX)
			h->subdir[h->nsubdir++] = sb.buf;
		else
			sbuf_free(&sb);
	}
}

void hwcaps_init(struct hwcaps *h, const struct cpu_facts *c)
{
	const char *comp[4];
	size_t ncomp = 0;

	memset(h, 0, sizeof *h);
	h->cpu = *c;
	h->platform = c->xeon_phi ? "xeon_phi" : c->haswell ? "haswell" : c->at_platform;
	h->nglibc_names = hwcaps_glibc_names(c->isa, h->glibc_names);
	for (size_t i = 0; i < h->nglibc_names; i++)
		h->subdir[h->nsubdir++] = xasprintf("glibc-hwcaps/%s/", h->glibc_names[i]);
	h->nglibc = h->nsubdir;
	/* HWCAP_X86_64 is always set on x86-64; HWCAP_X86_AVX512_1 on some
	   Intel CPUs. Both are in HWCAP_IMPORTANT, the default mask. */
	h->hwcap_bits = 1u << 1;
	comp[ncomp++] = "x86_64";
	if (c->avx512_1) {
		h->hwcap_bits |= 1u << 2;
		comp[ncomp++] = "avx512_1";
	}
	comp[ncomp++] = h->platform;
	comp[ncomp++] = "tls";
	add_legacy(h, comp, ncomp);
}

void hwcaps_free(struct hwcaps *h)
{
	for (size_t i = 0; i < h->nsubdir; i++)
		free(h->subdir[i]);
	h->nsubdir = 0;
}
