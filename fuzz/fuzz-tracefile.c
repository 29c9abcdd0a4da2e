/*
 * libFuzzer target for trace files (`ldprof report`, `ldprof diff`). An
 * input is read through the entry report uses (saved_trace_open, on a
 * memfd by its /proc path, so the file reader itself runs), and the report
 * it builds is rendered as text and JSON (with samples, as folded, chrome
 * and HTML too). No input may crash, hang, leak or
 * read without bound. Build and run with `make fuzz`.
 *
 * An input is either a whole file (it starts with the magic), or a list of
 * sections in the clear, [type: 1 byte][size: 4 bytes LE][payload], which
 * is framed and compressed here as the writer would: mutations then reach
 * the payload decoders instead of failing the zstd checksum.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "model/saved.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];
static FILE *devnull;
static ZSTD_CCtx *cctx;

static void setup(void)
{
	memfd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	devnull = fopen("/dev/null", "w");
	cctx = ZSTD_createCCtx();
	if (memfd < 0 || !devnull || !cctx)
		abort();
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
}

/* One section as tracefile_put_section frames it, compressed faster. */
static void put_section(struct bbuf *out, uint32_t type, const uint8_t *p, size_t n)
{
	size_t bound = ZSTD_compressBound(n), z;
	uint8_t *buf = xmalloc(bound);
	struct bbuf h = {0};

	z = ZSTD_compress2(cctx, buf, bound, n ? p : (const uint8_t *)"", n);
	if (ZSTD_isError(z))
		abort();
	bb_le32(&h, type);
	bb_le32(&h, TF_SEC_F_ZSTD);
	bb_le64(&h, z);
	bb_le64(&h, n);
	bb_le32(&h, tracefile_header_check(h.p));
	bb_le32(&h, 0);
	bb_put(out, h.p, h.len);
	bb_put(out, buf, z);
	bb_free(&h);
	free(buf);
}

/* A file from sections in the clear; type 255 (END) ends it early. */
static void pack(const uint8_t *d, size_t n, struct bbuf *out)
{
	static const uint8_t header[TRACEFILE_HEADER_SIZE] = {'L',
							      'D',
							      'P',
							      'R',
							      'O',
							      'F',
							      'T',
							      'R',
							      TRACEFILE_VERSION,
							      0,
							      0,
							      0,
							      TRACEFILE_HEADER_SIZE,
							      0,
							      0,
							      0,
							      TRACEFILE_LITTLE_ENDIAN};

	bb_put(out, header, sizeof header);
	while (n >= 5) {
		uint32_t type = d[0], len = get_le32(d + 1);
		d += 5, n -= 5;
		if (len > n)
			len = (uint32_t)n;
		put_section(out, type, d, len);
		d += len, n -= len;
	}
	put_section(out, TF_SEC_END, NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct text_style style = {.color = true, .utf8 = true};
	struct bbuf packed = {0};
	struct trace t;
	struct tracefile_info info;
	struct report rep;
	struct errbuf err;

	if (memfd < 0)
		setup();
	if (size < 8 || memcmp(data, TRACEFILE_MAGIC, 8)) {
		pack(data, size, &packed);
		data = packed.p, size = packed.len;
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	if (saved_trace_open(path, &t, &info, &rep, &err) == 0) {
		render_text(devnull, &rep, &style);
		render_json(devnull, &rep);
		if (rep.samples) { /* --sample's renderers: what the other formats add */
			render_folded(devnull, &rep, false);
			render_chrome(devnull, &rep, true);
			render_html(devnull, &rep);
		}
	}
	saved_trace_free(&t, &rep);
	bb_free(&packed);
	return 0;
}
