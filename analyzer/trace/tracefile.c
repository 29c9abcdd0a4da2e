/*
 * The trace file's container as written: header, framed and compressed
 * sections, the atomic write. Reading is in tracefile-read.c, the payloads
 * in tracefile-sections.c; the format is in docs/trace-format.md.
 */
#include "trace/tracefile.h"

#include <stdlib.h>
#include <zstd.h>

#include "trace/tracefile-sections.h"

/* Level 9: a 1000-run trace compresses in milliseconds and ~15% smaller than at 3. */
#define ZSTD_LEVEL 9

/* FNV-1a (32-bit): a check of 24 bytes needs no more. */
uint32_t tracefile_header_check(const uint8_t *p)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < 24; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static void put_header(struct bbuf *b)
{
	static const uint8_t zero[11];

	bb_put(b, TRACEFILE_MAGIC, 8);
	bb_le32(b, TRACEFILE_VERSION);
	bb_le32(b, TRACEFILE_HEADER_SIZE);
	bb_put(b, (uint8_t[]){TRACEFILE_LITTLE_ENDIAN}, 1);
	bb_put(b, zero, 3); /* reserved */
	bb_le32(b, 0);	    /* flags */
	bb_le64(b, 0);	    /* reserved */
}

void tracefile_put_section(struct bbuf *out, uint32_t type, uint32_t flags, struct bbuf *payload)
{
	size_t bound = ZSTD_compressBound(payload->len), n;
	uint8_t *z = xmalloc(bound);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	struct bbuf h = {0};

	if (!cc)
		abort();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, ZSTD_LEVEL);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	n = ZSTD_compress2(cc, z, bound, payload->p ? payload->p : (void *)"", payload->len);
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(n))
		abort(); /* cannot happen with a bound-sized buffer */
	bb_le32(&h, type);
	bb_le32(&h, flags | TF_SEC_F_ZSTD);
	bb_le64(&h, n);
	bb_le64(&h, payload->len);
	bb_le32(&h, tracefile_header_check(h.p));
	bb_le32(&h, 0);
	bb_put(out, h.p, h.len);
	bb_put(out, z, n);
	bb_free(&h);
	bb_free(payload);
	free(z);
}

void tracefile_encode(const struct trace *t, struct bbuf *out)
{
	struct bbuf p = {0};

	put_header(out);
	tf_encode_meta(t, &p);
	tracefile_put_section(out, TF_SEC_META, 0, &p);
	tf_encode_machine(t, &p);
	tracefile_put_section(out, TF_SEC_MACHINE, 0, &p);
	tf_encode_env(t, &p);
	tracefile_put_section(out, TF_SEC_ENV, 0, &p);
	tf_encode_objects(t, &p);
	tracefile_put_section(out, TF_SEC_OBJECTS, 0, &p);
	tf_encode_model(t, &p);
	tracefile_put_section(out, TF_SEC_MODEL, 0, &p);
	/* Runs in chunks, so that a file cut short keeps all but the last chunk. */
	for (size_t i = 0; i < t->nrun; i += TRACEFILE_RUNS_PER_SECTION) {
		tf_encode_runs(t, i, TRACEFILE_RUNS_PER_SECTION, &p);
		tracefile_put_section(out, TF_SEC_RUNS, 0, &p);
		for (size_t k = i; k < i + TRACEFILE_RUNS_PER_SECTION && k < t->nrun; k++)
			if (t->run[k].tree) {
				tf_encode_tree(t, k, &p);
				tracefile_put_section(out, TF_SEC_TREE, 0, &p);
			}
	}
	if (t->sampling) {
		tf_encode_samples(t, &p);
		tracefile_put_section(out, TF_SEC_SAMPLES, 0, &p);
	}
	tracefile_put_section(out, TF_SEC_END, 0, &p);
}

static int write_encoded(FILE *f, void *arg, struct errbuf *err)
{
	const struct bbuf *b = arg;

	(void)err;
	fwrite(b->p, 1, b->len, f); /* write_atomic checks ferror */
	return 0;
}

int tracefile_write(const char *path, const struct trace *t, struct errbuf *err)
{
	struct bbuf b = {0};
	int r;

	tracefile_encode(t, &b);
	r = write_atomic(path, write_encoded, &b, err);
	bb_free(&b);
	return r;
}
