/*
 * The trace file's container: header, framed and compressed sections, the
 * atomic write and the tolerant read. The payloads are in
 * tracefile-sections.c; the format is in docs/trace-format.md.
 */
#include "run/tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "run/tracefile-sections.h"

/* Level 9: a 1000-run trace compresses in milliseconds and ~15% smaller than at 3. */
#define ZSTD_LEVEL 9
/* No section of a sane trace comes near this; a larger claim is damage. */
#define MAX_RAW_SECTION (1u << 30)

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
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
	bb_le32(&h, fnv1a(h.p, 24));
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
	tracefile_put_section(out, TF_SEC_END, 0, &p);
}

static int check_header(const uint8_t *buf, size_t n, struct tracefile_info *info,
			struct errbuf *err)
{
	if (n < 8 || memcmp(buf, TRACEFILE_MAGIC, 8))
		return set_err(err, EINVAL, "not an ldprof trace (no %s magic)", TRACEFILE_MAGIC);
	if (n < TRACEFILE_HEADER_SIZE)
		return set_err(err, EPROTO, "truncated: the header is incomplete");
	info->version = get_le32(buf + 8);
	if (info->version > TRACEFILE_VERSION)
		return set_err(err, ENOTSUP,
			       "trace format version %u is newer than this ldprof reads (%u)",
			       info->version, TRACEFILE_VERSION);
	if (info->version == 0 || get_le32(buf + 12) < TRACEFILE_HEADER_SIZE ||
	    get_le32(buf + 12) > n)
		return set_err(err, EPROTO, "damaged header");
	if (buf[16] != TRACEFILE_LITTLE_ENDIAN)
		return set_err(err, ENOTSUP, "byte order %u is not supported (little-endian only)",
			       buf[16]);
	return 0;
}

struct section {
	uint32_t type, flags;
	uint64_t size, raw;
	const uint8_t *data;
};

/* 0, 1 when the file ends inside the section, or -EPROTO. */
static int frame_section(const uint8_t *p, size_t left, size_t at, struct section *s,
			 struct errbuf *err)
{
	if (left < TRACEFILE_SECTION_HDR_SIZE)
		return 1;
	if (fnv1a(p, 24) != get_le32(p + 24))
		return set_err(err, EPROTO, "damaged section header at byte %zu", at);
	s->type = get_le32(p);
	s->flags = get_le32(p + 4);
	s->size = get_le64(p + 8);
	s->raw = get_le64(p + 16);
	s->data = p + TRACEFILE_SECTION_HDR_SIZE;
	if (s->raw > MAX_RAW_SECTION || !(s->flags & TF_SEC_F_ZSTD))
		return set_err(err, EPROTO, "damaged section header at byte %zu", at);
	return s->size > left - TRACEFILE_SECTION_HDR_SIZE ? 1 : 0;
}

static int inflate(const struct section *s, size_t at, void **out, struct errbuf *err)
{
	unsigned long long claimed = ZSTD_getFrameContentSize(s->data, s->size);
	size_t n;

	*out = xmalloc(s->raw ? s->raw : 1);
	if (claimed != s->raw)
		return set_err(err, EPROTO, "damaged section at byte %zu (size mismatch)", at);
	n = ZSTD_decompress(*out, s->raw, s->data, s->size);
	if (ZSTD_isError(n) || n != s->raw)
		return set_err(err, EPROTO, "damaged section at byte %zu (%s)", at,
			       ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
	return 0;
}

/* Walk the sections; returns 0 with info->truncated set when the file ends early. */
static int read_sections(const uint8_t *buf, size_t n, struct trace *t, struct tracefile_info *info,
			 struct tf_decode_state *st, struct errbuf *err)
{
	size_t at = get_le32(buf + 12);

	for (;;) {
		struct section s = {0};
		void *raw = NULL;
		int r = frame_section(buf + at, n - at, at, &s, err);
		if (r) {
			info->truncated = r > 0;
			return r > 0 ? 0 : r;
		}
		if ((r = inflate(&s, at, &raw, err)) == 0 && s.type != TF_SEC_END)
			r = tf_decode_section(s.type, cursor_of(raw, s.raw), t, st, err);
		free(raw);
		if (r < 0)
			return r;
		if (r > 0 && (s.flags & TF_SEC_F_CRITICAL))
			return set_err(err, ENOTSUP, "section type %u needs a newer ldprof",
				       s.type);
		info->unknown_skipped += r > 0;
		info->sections++;
		at += TRACEFILE_SECTION_HDR_SIZE + s.size;
		if (s.type == TF_SEC_END)
			return 0;
	}
}

/* What a whole or cut-off file must hold to be reported. */
static int check_complete(const struct trace *t, struct tracefile_info *info,
			  const struct tf_decode_state *st, struct errbuf *err)
{
	info->runs_expected = st->runs_expected;
	if (info->truncated && (!st->have_objects || !t->nrun))
		return set_err(err, EPROTO, "truncated before its first run");
	if (!st->have_objects)
		return set_err(err, EPROTO, "damaged: no OBJECTS section");
	if (!t->nrun)
		return set_err(err, EPROTO, "holds no runs");
	if (info->truncated && t->nrun < st->runs_expected) {
		snprintf(info->warning, sizeof info->warning,
			 "truncated: read the first %zu of %zu runs (up to its last whole section)",
			 t->nrun, st->runs_expected);
		return 0;
	}
	if (info->truncated) {
		snprintf(info->warning, sizeof info->warning,
			 "truncated after its last run (all %zu runs were read)", t->nrun);
		return 0;
	}
	if (t->nrun != st->runs_expected)
		return set_err(err, EPROTO, "damaged: %zu runs, but the header says %zu", t->nrun,
			       st->runs_expected);
	return 0;
}

int tracefile_decode(const void *data, size_t n, struct trace *t, struct tracefile_info *info,
		     struct errbuf *err)
{
	struct tf_decode_state st = {0};
	int r;

	memset(t, 0, sizeof *t);
	memset(info, 0, sizeof *info);
	if ((r = check_header(data, n, info, err)))
		return r;
	r = read_sections(data, n, t, info, &st, err);
	if (!r)
		r = check_complete(t, info, &st, err);
	tf_decode_finish(t, &st);
	return r;
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

static int read_file(const char *path, struct bbuf *b, struct errbuf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t chunk[65536];
	ssize_t n;

	if (fd < 0)
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return set_err(err, EISDIR, "%s: is a directory", path);
	}
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return set_err(err, e, "%s: %s", path, strerror(e));
		}
		bb_put(b, chunk, (size_t)n);
	}
	close(fd);
	return 0;
}

int tracefile_read(const char *path, struct trace *t, struct tracefile_info *info,
		   struct errbuf *err)
{
	struct bbuf b = {0};
	struct errbuf why;
	int r;

	memset(t, 0, sizeof *t);
	memset(info, 0, sizeof *info);
	if ((r = read_file(path, &b, err)))
		return r;
	if ((r = tracefile_decode(b.p ? b.p : (void *)"", b.len, t, info, &why)))
		set_err(err, -r, "%s: %s", path, why.msg);
	bb_free(&b);
	return r;
}
