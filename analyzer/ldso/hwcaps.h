/*
 * The hardware-capability subdirectories ld.so searches in every library
 * directory, computed from this CPU as glibc 2.36's ld.so computes them:
 *
 *   glibc-hwcaps/x86-64-v4/ .. v2/   the ISA levels the CPU supports
 *                                    (get_isa_level: CPUID plus XCR0)
 *   tls/x86_64/x86_64/ ... x86_64/   the legacy combinations of the
 *                                    "important" hwcap bits, the platform
 *                                    and "tls" (_dl_important_hwcaps)
 *   ""                               the directory itself
 *
 * `ld.so --help` prints the same facts; a test compares them.
 */
#ifndef LDPROF_HWCAPS_H
#define LDPROF_HWCAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GNU_PROPERTY_X86_ISA_1_* bits, as glibc's cpu_features->isa_1. */
enum {
	ISA_BASELINE = 1,
	ISA_V2 = 2,
	ISA_V3 = 4,
	ISA_V4 = 8,
};

/* What the CPU offers, as glibc's init_cpu_features sees it. */
struct cpu_facts {
	unsigned isa;		 /* ISA_* bits */
	bool intel;		 /* "GenuineIntel": only then are platform and avx512_1 set */
	bool avx512_1;		 /* Intel with usable AVX512 CD, BW, DQ, VL, without ER */
	bool haswell;		 /* Intel with usable AVX2, FMA, BMI1/2, LZCNT, MOVBE, POPCNT */
	bool xeon_phi;		 /* Intel with usable AVX512 CD, ER, PF */
	const char *at_platform; /* the kernel's AT_PLATFORM */
};

#define HWCAPS_MAX 40

struct hwcaps {
	struct cpu_facts cpu;
	const char *platform; /* $PLATFORM: "haswell", "xeon_phi" or AT_PLATFORM */
	/* Subdirectory suffixes in search order, each "" or ending in '/'. */
	char *subdir[HWCAPS_MAX];
	size_t nsubdir;
	size_t nglibc; /* the first nglibc are glibc-hwcaps/... */
	/* Active glibc-hwcaps names, best first, for the ld.so.cache priorities. */
	const char *glibc_names[4];
	size_t nglibc_names;
	uint64_t hwcap_bits; /* dl_hwcap & HWCAP_IMPORTANT: bit 1 x86_64, bit 2 avx512_1 */
};

/* Read the CPU (CPUID, XGETBV, AT_PLATFORM). */
void cpu_facts_detect(struct cpu_facts *c);
/* Build the subdirectory list from c (tests pass made-up CPUs). */
void hwcaps_init(struct hwcaps *h, const struct cpu_facts *c);
void hwcaps_free(struct hwcaps *h);

/* glibc-hwcaps names as the ISA level bits select them, best first. */
size_t hwcaps_glibc_names(unsigned isa, const char **names);

#endif
