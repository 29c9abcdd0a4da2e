/*
 * Reading a trace file: one walk over the header and the sections, from a
 * buffer (tracefile_decode) or from a file read as the walk goes
 * (tracefile_read). Each step reads only what the header before it
 * announced, within the limits of tracefile.h, so report and diff never
 * hold more than one section, and a device or pipe that is not a trace is
 * refused after its first bytes. The format is in docs/trace-format.md.
 */
#include "trace/tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "trace/tracefile-sections.h"

/* ZSTD_FRAMEHEADERSIZE_MAX; zstd.h gives it only under ZSTD_STATIC_LINKING_ONLY. */
#define ZSTD_FRAME_HEADER_MAX 18
/* A file is read ahead by this much (a section costs a read or two), at most MAX_READ at once. */
#define READ_AHEAD 4096
#define MAX_READ   (1u << 20)

/* The bytes walked: a buffer, or a file whose bytes from offset at are in buf. */
struct source {
	const uint8_t *mem; /* the buffer, or NULL to read fd */
	size_t len;	    /* the buffer's size */
	int fd;
	size_t at; /* offset in the file of what src_need returns */
	uint8_t *buf;
	size_t nbuf, capbuf;
	int error; /* errno of a failed read */
};

/* Read more of the file into buf, until it holds n bytes or the file ends. */
static void fill(struct source *s, size_t n)
{
	while (s->nbuf < n && !s->error) {
		size_t want = n - s->nbuf + READ_AHEAD;
		ssize_t got;

		if (want > MAX_READ)
			want = MAX_READ;
		if (s->nbuf + want > s->capbuf) {
			s->capbuf = s->nbuf + want > 2 * s->capbuf ? s->nbuf + want : 2 * s->capbuf;
			s->buf = xrealloc(s->buf, s->capbuf);
		}
		got = read(s->fd, s->buf + s->nbuf, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			s->error = errno;
		if (got <= 0)
			return;
		s->nbuf += (size_t)got;
	}
}

/* The next n bytes in *p; returns how many there are (fewer at the end of the file). */
static size_t src_need(struct source *s, size_t n, const uint8_t **p)
{
	size_t have;

	if (s->mem) {
		*p = s->mem + s->at;
		have = s->len - s->at;
	} else {
		fill(s, n);
		*p = s->buf;
		have = s->nbuf;
	}
	return n < have ? n : have;
}

/* Step over n bytes that src_need returned. */
static void src_skip(struct source *s, size_t n)
{
	s->at += n;
	if (!s->mem) {
		memmove(s->buf, s->buf + n, s->nbuf - n);
		s->nbuf -= n;
	}
}

static int check_header(struct source *src, struct tracefile_info *info, struct errbuf *err)
{
	const uint8_t *buf;
	size_t n = src_need(src, TRACEFILE_HEADER_SIZE, &buf);
	uint32_t size;

	if (n < 8 || memcmp(buf, TRACEFILE_MAGIC, 8))
		return set_err(err, EINVAL, "not an ldprof trace (no %s magic)", TRACEFILE_MAGIC);
	if (n < TRACEFILE_HEADER_SIZE)
		return set_err(err, EPROTO, "truncated: the header is incomplete");
	info->version = get_le32(buf + 8);
	size = get_le32(buf + 12);
	if (info->version > TRACEFILE_VERSION)
		return set_err(err, ENOTSUP,
			       "trace format version %u is newer than this ldprof reads (%u)",
			       info->version, TRACEFILE_VERSION);
	if (buf[16] != TRACEFILE_LITTLE_ENDIAN)
		return set_err(err, ENOTSUP, "byte order %u is not supported (little-endian only)",
			       buf[16]);
	if (info->version == 0 || size < TRACEFILE_HEADER_SIZE ||
	    size > TRACEFILE_MAX_HEADER_SIZE || src_need(src, size, &buf) < size)
		return set_err(err, EPROTO, "damaged header");
	src_skip(src, size);
	return 0;
}

struct section {
	uint32_t type, flags;
	uint64_t size, raw;
	const uint8_t *data;
};

/* The section header's fields, and whether they are possible. */
static bool parse_section_header(const uint8_t *p, struct section *s)
{
	s->type = get_le32(p);
	s->flags = get_le32(p + 4);
	s->size = get_le64(p + 8);
	s->raw = get_le64(p + 16);
	/* A frame is never larger than zstd's bound for its content, plus its header. */
	return tracefile_header_check(p) == get_le32(p + 24) && (s->flags & TF_SEC_F_ZSTD) &&
	       s->raw <= TRACEFILE_MAX_RAW_SECTION &&
	       s->size <= ZSTD_compressBound(s->raw) + ZSTD_FRAME_HEADER_MAX;
}

/*
 * The next section, read only as far as each header allows: its header,
 * then its frame's header (which must claim the raw size), then the rest.
 * 0, 1 when the file ends inside the section, or -EPROTO.
 */
static int frame_section(struct source *src, size_t nsections, struct section *s,
			 struct errbuf *err)
{
	const size_t hdr = TRACEFILE_SECTION_HDR_SIZE;
	const uint8_t *p;
	size_t head;

	if (src_need(src, hdr, &p) < hdr)
		return 1;
	if (!parse_section_header(p, s))
		return set_err(err, EPROTO, "damaged section header at byte %zu", src->at);
	if (!nsections && s->type != TF_SEC_META)
		return set_err(err, EPROTO, "the first section is not META");
	if (src->at + hdr + s->size > TRACEFILE_MAX_FILE_SIZE)
		return set_err(err, EPROTO, "damaged: larger than the %llu GiB a trace may be",
			       TRACEFILE_MAX_FILE_SIZE >> 30);
	head = s->size < ZSTD_FRAME_HEADER_MAX ? s->size : ZSTD_FRAME_HEADER_MAX;
	if (src_need(src, hdr + head, &p) < hdr + head)
		return 1;
	if (ZSTD_getFrameContentSize(p + hdr, head) != s->raw)
		return set_err(err, EPROTO, "damaged section at byte %zu (size mismatch)", src->at);
	if (src_need(src, hdr + s->size, &p) < hdr + s->size)
		return 1;
	s->data = p + hdr;
	return 0;
}

static int inflate(const struct section *s, size_t at, void **out, struct errbuf *err)
{
	size_t n;

	*out = xmalloc(s->raw ? s->raw : 1);
	n = ZSTD_decompress(*out, s->raw, s->data, s->size);
	if (ZSTD_isError(n) || n != s->raw)
		return set_err(err, EPROTO, "damaged section at byte %zu (%s)", at,
			       ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
	return 0;
}

/* Walk the sections; returns 0 with info->truncated set when the file ends early. */
static int read_sections(struct source *src, struct trace *t, struct tracefile_info *info,
			 struct tf_decode_state *st, struct errbuf *err)
{
	uint64_t raw_total = 0;

	for (;;) {
		struct section s = {0};
		void *raw = NULL;
		int r = frame_section(src, info->sections, &s, err);

		if (r > 0 && src->error)
			return set_err(err, src->error, "%s", strerror(src->error));
		if (r) {
			info->truncated = r > 0;
			return r > 0 ? 0 : r;
		}
		/* A few KiB of zstd can claim 256 MiB: bound the work, not only the memory. */
		if ((raw_total += s.raw) > TRACEFILE_MAX_RAW_TOTAL)
			return set_err(err, EPROTO, "damaged: more than %llu GiB once decompressed",
				       TRACEFILE_MAX_RAW_TOTAL >> 30);
		if ((r = inflate(&s, src->at, &raw, err)) == 0 && s.type != TF_SEC_END)
			r = tf_decode_section(s.type, cursor_of(raw, s.raw), t, st, err);
		free(raw);
		if (r < 0)
			return r;
		if (r > 0 && (s.flags & TF_SEC_F_CRITICAL))
			return set_err(err, ENOTSUP, "section type %u needs a newer ldprof",
				       s.type);
		info->unknown_skipped += r > 0;
		info->sections++;
		src_skip(src, TRACEFILE_SECTION_HDR_SIZE + s.size);
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

static int walk(struct source *src, struct trace *t, struct tracefile_info *info,
		struct errbuf *err)
{
	struct tf_decode_state st = {0};
	int r;

	memset(t, 0, sizeof *t);
	memset(info, 0, sizeof *info);
	if ((r = check_header(src, info, err)))
		return r;
	r = read_sections(src, t, info, &st, err);
	if (!r)
		r = check_complete(t, info, &st, err);
	tf_decode_finish(t, &st);
	return r;
}

int tracefile_decode(const void *data, size_t n, struct trace *t, struct tracefile_info *info,
		     struct errbuf *err)
{
	struct source src = {.mem = n ? data : (const uint8_t *)"", .len = n, .fd = -1};

	return walk(&src, t, info, err);
}

int tracefile_read(const char *path, struct trace *t, struct tracefile_info *info,
		   struct errbuf *err)
{
	struct source src = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
	struct errbuf why;
	struct stat st;
	int r;

	memset(t, 0, sizeof *t);
	memset(info, 0, sizeof *info);
	if (src.fd < 0)
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(src.fd, &st) == 0 && S_ISDIR(st.st_mode))
		r = set_err(err, EISDIR, "%s: is a directory", path);
	else if ((r = walk(&src, t, info, &why)))
		set_err(err, -r, "%s: %s", path, why.msg);
	else
		trace_count_lazy(t);
	free(src.buf);
	close(src.fd);
	return r;
}
