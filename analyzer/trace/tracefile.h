/*
 * The trace file (`ldprof record`, `ldprof report`, `ldprof diff`): a
 * versioned header, then zstd-compressed sections, each a list of
 * tag-length-value fields. Format and compatibility rule:
 * docs/trace-format.md.
 */
#ifndef LDPROF_TRACEFILE_H
#define LDPROF_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/tlv.h"
#include "trace/trace.h"
#include "base/util.h"

#define TRACEFILE_MAGIC		   "LDPROFTR" /* 8 bytes, no NUL stored */
#define TRACEFILE_VERSION	   1u
#define TRACEFILE_HEADER_SIZE	   32u
#define TRACEFILE_SECTION_HDR_SIZE 32u
#define TRACEFILE_LITTLE_ENDIAN	   1u
#define TRACEFILE_RUNS_PER_SECTION 64u
/*
 * Limits a reader holds a file to, so that a damaged or hostile file (or
 * /dev/zero) is refused instead of read without bound. A 1000-run trace
 * is 200 KiB and its largest section well under 1 MiB.
 */
#define TRACEFILE_MAX_HEADER_SIZE 4096u
#define TRACEFILE_MAX_RAW_SECTION (256u << 20) /* decompressed */
#define TRACEFILE_MAX_FILE_SIZE	  (4ull << 30) /* the whole file */
#define TRACEFILE_MAX_RAW_TOTAL	  (4ull << 30) /* all sections, decompressed */

/* Section types. Values are part of the format: never renumber. */
enum tracefile_section {
	TF_SEC_META = 1,    /* the command, the program, the TSC rate, the run count */
	TF_SEC_MACHINE = 2, /* kernel, glibc, CPU, host */
	TF_SEC_ENV = 3,	    /* LD_* and GLIBC_TUNABLES as NAME=VALUE */
	TF_SEC_OBJECTS = 4, /* every object seen, with its ELF facts and identity */
	TF_SEC_RUNS = 5,    /* up to TRACEFILE_RUNS_PER_SECTION runs and their events */
	TF_SEC_MODEL = 6,   /* the relocation cost model's calibration the report uses */
	TF_SEC_TREE = 7,    /* -f: one run's process tree, after the RUNS section with the run */
	TF_SEC_SAMPLES =
		8, /* --sample: the symbolised frames and every sample, after the last RUNS */
	TF_SEC_END = 255, /* the file is complete */
};

/* Section flags. */
enum {
	TF_SEC_F_ZSTD = 1,     /* the payload is one zstd frame (always, in version 1) */
	TF_SEC_F_CRITICAL = 2, /* a reader that does not know the type must refuse the file */
};

struct tracefile_info {
	uint32_t version;
	bool truncated;		/* the file ended before its END section */
	size_t runs_expected;	/* as META says */
	size_t sections;	/* whole sections read */
	size_t unknown_skipped; /* sections of types this ldprof does not know */
	char warning[512];	/* why the trace is incomplete; empty if it is not */
};

/*
 * Append one section: its 32-byte header, then payload (which is freed) as
 * one zstd frame with a checksum. New section types go through this too.
 */
void tracefile_put_section(struct bbuf *out, uint32_t type, uint32_t flags, struct bbuf *payload);

/* A section header's check field: FNV-1a (32-bit) of its first 24 bytes. */
uint32_t tracefile_header_check(const uint8_t *p);

/* The whole file for t, in memory. */
void tracefile_encode(const struct trace *t, struct bbuf *out);
/*
 * Read a file's bytes into t (which this initialises; trace_free it even
 * on error). A file cut off after at least one whole RUNS section is read
 * up to its last whole section, with info->truncated and a warning. Else
 * -EINVAL (not a trace), -ENOTSUP (a newer version), -EPROTO (damaged),
 * with err set to the reason.
 */
int tracefile_decode(const void *buf, size_t n, struct trace *t, struct tracefile_info *info,
		     struct errbuf *err);

/* Write atomically: a temporary file in the same directory, then rename. */
int tracefile_write(const char *path, const struct trace *t, struct errbuf *err);
/*
 * Read path as tracefile_decode reads a buffer, one section at a time: the
 * header is checked before anything else is read, each section is read
 * only as far as its header says and the limits above allow, and at most
 * one section is in memory. A device, FIFO or pipe that is not a trace is
 * refused after its first 32 bytes. Errors are "PATH: WHY".
 */
int tracefile_read(const char *path, struct trace *t, struct tracefile_info *info,
		   struct errbuf *err);

#endif
