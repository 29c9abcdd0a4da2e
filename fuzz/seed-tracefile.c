/*
 * Seeds for fuzz-tracefile's second form: a trace file's sections in the
 * clear, [type: 1 byte][size: 4 bytes LE][payload], which the target frames
 * and compresses again (fuzz/fuzz-tracefile.c).
 *
 *	seed-tracefile TRACE OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "trace/tracefile.h"

static void die(const char *what)
{
	fprintf(stderr, "seed-tracefile: %s\n", what);
	exit(1);
}

int main(int argc, char **argv)
{
	FILE *in, *out;
	static uint8_t file[1 << 24];
	size_t n, at = TRACEFILE_HEADER_SIZE;

	if (argc != 3 || !(in = fopen(argv[1], "rb")) || !(out = fopen(argv[2], "wb")))
		die("usage: seed-tracefile TRACE OUT");
	n = fread(file, 1, sizeof file, in);
	while (at + TRACEFILE_SECTION_HDR_SIZE <= n) {
		const uint8_t *h = file + at;
		uint64_t size = get_le64(h + 8), raw = get_le64(h + 16);
		uint8_t *p = malloc(raw ? raw : 1), le[5] = {(uint8_t)get_le32(h)};
		if (!p || size > n - at - TRACEFILE_SECTION_HDR_SIZE ||
		    ZSTD_decompress(p, raw, h + TRACEFILE_SECTION_HDR_SIZE, size) != raw)
			die("not a whole trace");
		for (int i = 0; i < 4; i++)
			le[1 + i] = (uint8_t)(raw >> (8 * i));
		if (le[0] != TF_SEC_END) {
			fwrite(le, 1, sizeof le, out);
			fwrite(p, 1, raw, out);
		}
		free(p);
		at += TRACEFILE_SECTION_HDR_SIZE + size;
	}
	fclose(in);
	return fclose(out) ? 1 : 0;
}
