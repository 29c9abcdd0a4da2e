/* The hwcaps subdirectory lists ld.so builds, for made-up CPUs. */
#include <string.h>

#include "ldso/hwcaps.h"
#include "unit.h"

static int find(const struct hwcaps *h, const char *s)
{
	for (size_t i = 0; i < h->nsubdir; i++)
		if (!strcmp(h->subdir[i], s))
			return (int)i;
	return -1;
}

static void amd_v4(void)
{
	struct cpu_facts c = {
		ISA_BASELINE | ISA_V2 | ISA_V3 | ISA_V4, false, false, false, false, "x86_64"};
	struct hwcaps h;

	hwcaps_init(&h, &c);
	CHECK(h.nglibc == 3);
	CHECK(!strcmp(h.subdir[0], "glibc-hwcaps/x86-64-v4/"));
	CHECK(!strcmp(h.subdir[2], "glibc-hwcaps/x86-64-v2/"));
	/* x86_64 (hwcap), x86_64 (platform), tls: 8 combinations, as
	   LD_DEBUG=libs shows them. */
	CHECK(h.nsubdir == 3 + 8);
	CHECK(!strcmp(h.subdir[3], "tls/x86_64/x86_64/"));
	CHECK(!strcmp(h.subdir[4], "tls/x86_64/"));
	CHECK(!strcmp(h.subdir[6], "tls/"));
	CHECK(!strcmp(h.subdir[7], "x86_64/x86_64/"));
	CHECK(!strcmp(h.subdir[h.nsubdir - 1], ""));
	CHECK(!strcmp(h.platform, "x86_64"));
	hwcaps_free(&h);
}

static void intel_haswell_avx512(void)
{
	struct cpu_facts c = {ISA_BASELINE | ISA_V2 | ISA_V3, true, true, true, false, "x86_64"};
	struct hwcaps h;

	hwcaps_init(&h, &c);
	CHECK(h.nglibc == 2);
	CHECK(!strcmp(h.platform, "haswell"));
	/* x86_64, avx512_1, haswell, tls: 16 combinations. */
	CHECK(h.nsubdir == 2 + 16);
	CHECK(find(&h, "tls/haswell/avx512_1/x86_64/") == 2);
	CHECK(find(&h, "haswell/") >= 0 && find(&h, "avx512_1/") >= 0);
	CHECK(h.hwcap_bits == ((1u << 1) | (1u << 2)));
	hwcaps_free(&h);
}

static void baseline_only(void)
{
	struct cpu_facts c = {ISA_BASELINE, false, false, false, false, "x86_64"};
	const char *names[4];
	struct hwcaps h;

	hwcaps_init(&h, &c);
	CHECK(h.nglibc == 0 && h.nglibc_names == 0);
	CHECK(hwcaps_glibc_names(ISA_BASELINE | ISA_V2, names) == 1);
	CHECK(!strcmp(names[0], "x86-64-v2"));
	hwcaps_free(&h);
}

static void this_cpu(void)
{
	struct cpu_facts c;

	cpu_facts_detect(&c);
	/* Every x86-64 CPU has the baseline; levels nest. */
	CHECK(c.isa & ISA_BASELINE);
	CHECK(!(c.isa & ISA_V3) || (c.isa & ISA_V2));
	CHECK(!(c.isa & ISA_V4) || (c.isa & ISA_V3));
	CHECK(c.at_platform && *c.at_platform);
}

int main(void)
{
	amd_v4();
	intel_haswell_avx512();
	baseline_only();
	this_cpu();
	return unit_done("hwcaps");
}
