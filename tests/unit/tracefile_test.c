/*
 * Unit tests for the trace file: a trace survives the round trip (the same
 * report, byte for byte); a file cut anywhere is either refused or read up
 * to its last whole section; damage is refused, never read out of range
 * (the ASan build checks that); unknown sections and fields are skipped;
 * a file is read through a pipe as from disk, and a stream that is not a
 * trace is refused after its first bytes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-trace.h"
#include "render/render.h"
#include "trace/tracefile.h"
#include "unit.h"

/* The JSON report of t, as a string. */
static char *report_json(const struct trace *t)
{
	struct report rep;
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	report_build(t, &rep);
	render_json(f, &rep);
	fclose(f);
	report_free(&rep);
	return s;
}

static void encode_fake(size_t runs, struct bbuf *b, struct trace *t)
{
	fake_trace(t, &(struct fake_opts){.runs = runs, .slow = 1});
	tracefile_encode(t, b);
}

static void test_roundtrip(void)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;

	fake_trace(&t, &(struct fake_opts){.runs = 100, .slow = 1});
	for (size_t i = 0; i < t.nrun; i++) /* the shared cache's state, every third contended */
		t.run[i].line_ns = i % 3 ? 12.5 : 104.25, t.run[i].line_hot_ns = 11.75;
	for (int k = 0; k < CACHE_DECAY_POINTS; k++)
		t.run[9].decay_ns[k] = 12.25 + 20 * k; /* the first and last readings' spells */
	for (size_t i = 0; i < t.nrun; i++) /* preempted twice every fourth run; run 5 unknown */
		t.run[i].usage.nivcsw = i == 5 ? -1 : i % 4 ? 0 : 2;
	for (size_t i = 0; i < t.nrun; i++) /* the tree's CPU time; run 5's unknown (one ran on) */
		t.run[i].usage.tree_cpu_us = i == 5 ? NAN : 1000.5 + (double)i;
	t.model.line_hot_ns = 10.5, t.model.line_contended_pct = 62.5, t.model.contended_blocks_pct = 77.5;
	t.forks_counted = true, t.image_forks = 10, t.image_vforks = 3; /* dar -V has no vforks */
	t.model.fork_fixed_us = 71.5, t.model.fork_per_object_us = 3.625, t.fork_price_now = true;
	t.model.fork_lazy_fixed_us = 151.5, t.model.fork_lazy_per_object_us = 14.25;
	t.static_side.fork_lazy = true;
	t.image_nss = 2, t.model.nss_us = 187.25, t.nss_price_now = true, t.nss_cal_us = 147.5;
	/* A static build's facts: its IFUNCs and the FDEs its first unwind sorts, and the price. */
	t.static_side.known = true, t.static_side.ifunc_bound = 30, t.static_side.ifunc_extra = 6;
	t.static_side.fdes = 20000, t.static_side.fdes_erratic = 11362;
	t.static_side.fdes_erratic_own = 5000, t.static_side.have_kept = true;
	t.static_side.fdes_runtime_kept = 4000, t.static_side.fdes_erratic_kept = 9000;
	t.static_side.have_unwinder = true, t.static_side.unwinder = 1;
	t.model.fde_sort_us = 0.0195, t.model.fde_sort_lo = 0.0135, t.model.fde_sort_hi = 0.0197;
	t.model.fde_floor = 998, t.unwind_price_now = true, t.unwind_cal_price = 0.0257;
	/* The exit path's prices, and a library's pages mapped at exit (0 counted is not absent).
	 */
	t.model.exit_per_object_us = 3.5, t.model.exit_per_page_us = 0.25;
	t.model.exit_per_kib_us = 0.0375, t.model.unmap_page_us = 0.125;
	t.obj[3].have_mapped = true, t.obj[3].mapped_pages = 227;
	t.obj[4].have_mapped = true, t.obj[4].mapped_pages = 0;
	/* The fault costs the verdict priced with, and its validated error. */
	t.model.fault_us = 2.5, t.model.fault_lo = 2.25, t.model.fault_hi = 3.0;
	t.model.fault_rest_us = 2.125, t.fault_us_now = 4.75;
	t.model.verdict_err_pct = 12.5, t.model.verdict_err_us = 40;
	t.model.priced_line_ns = 13.5, t.cold_line_shifted = true, t.cold_line_cal_us = 0.0625;
	tracefile_encode(&t, &b);
	CHECK(memcmp(b.p, TRACEFILE_MAGIC, 8) == 0);
	CHECK(tracefile_decode(b.p, b.len, &u, &info, &err) == 0);
	CHECK(!info.truncated && !info.warning[0]);
	CHECK(info.runs_expected == 200 && u.nrun == 200);
	/* 200 runs at 64 a section: 4 RUNS sections, plus META ... MODEL and END. */
	CHECK(info.sections == 10);
	CHECK(u.argc == 2 && !strcmp(u.argv[1], "--flag"));
	CHECK(!strcmp(u.machine.hostname, "fakehost") && u.machine.ncpus == 2);
	CHECK(u.nenv == 1 && !strcmp(u.env[0], "LD_BIND_NOW=1"));
	CHECK(u.recorded_at == 1700000000 && !strcmp(u.cwd, "/nonexistent-cwd"));
	CHECK(u.nobj == t.nobj && u.obj[2].role == ROLE_VDSO && !u.obj[2].have_facts);
	CHECK(u.obj[3].relocs.relative == 400 && !strcmp(u.obj[3].soname, "liba.so.1"));
	CHECK(!strcmp(u.obj[3].build_id, t.obj[3].build_id));
	CHECK(u.run[6].nev == t.run[6].nev && u.run[6].ev[3].ts == t.run[6].ev[3].ts);
	CHECK(u.run[7].reap_ts == t.run[7].reap_ts && u.run[9].usage.minflt == 100);
	CHECK(u.run[9].line_ns == 104.25 && u.run[10].line_ns == 12.5);
	CHECK(u.run[9].line_hot_ns == 11.75 && u.run[10].line_hot_ns == 11.75);
	for (int k = 0; k < CACHE_DECAY_POINTS; k++)
		CHECK(u.run[9].decay_ns[k] == 12.25 + 20 * k && u.run[10].decay_ns[k] == 0);
	CHECK(u.model.line_hot_ns == 10.5 && u.model.line_contended_pct == 62.5);
	CHECK(u.model.contended_blocks_pct == 77.5);
	CHECK(u.run[8].usage.nivcsw == 2 && u.run[9].usage.nivcsw == 0 && u.run[5].usage.nivcsw == -1);
	CHECK(u.run[8].usage.tree_cpu_us == 1008.5 && isnan(u.run[5].usage.tree_cpu_us));
	CHECK(u.forks_counted && u.image_forks == 10 && u.image_vforks == 3);
	CHECK(u.model.fork_fixed_us == 71.5 && u.model.fork_per_object_us == 3.625 && u.fork_price_now);
	CHECK(u.model.fork_lazy_fixed_us == 151.5 && u.model.fork_lazy_per_object_us == 14.25);
	CHECK(u.static_side.fork_lazy);
	CHECK(u.image_nss == 2 && u.model.nss_us == 187.25);
	CHECK(u.model.exit_per_object_us == 3.5 && u.model.exit_per_page_us == 0.25);
	CHECK(u.model.exit_per_kib_us == 0.0375 && u.model.unmap_page_us == 0.125);
	CHECK(u.obj[3].have_mapped && u.obj[3].mapped_pages == 227);
	CHECK(u.obj[4].have_mapped && u.obj[4].mapped_pages == 0 && !u.obj[2].have_mapped);
	CHECK(u.model.fault_us == 2.5 && u.model.fault_lo == 2.25 && u.model.fault_hi == 3.0);
	CHECK(u.model.fault_rest_us == 2.125 && u.fault_us_now == 4.75);
	CHECK(u.model.verdict_err_pct == 12.5 && u.model.verdict_err_us == 40);
	CHECK(u.model.priced_line_ns == 13.5 && u.cold_line_shifted &&
	      u.cold_line_cal_us == 0.0625);
	CHECK(u.nss_price_now && u.nss_cal_us == 147.5);
	CHECK(u.static_side.known && u.static_side.ifunc_bound == 30 && u.static_side.ifunc_extra == 6);
	CHECK(u.static_side.fdes == 20000 && u.static_side.fdes_erratic == 11362);
	CHECK(u.static_side.fdes_erratic_own == 5000 && u.static_side.have_kept);
	CHECK(u.static_side.fdes_runtime_kept == 4000 && u.static_side.fdes_erratic_kept == 9000);
	CHECK(u.static_side.have_unwinder && u.static_side.unwinder == 1);
	CHECK(u.model.fde_sort_us == 0.0195 && u.model.fde_sort_lo == 0.0135);
	CHECK(u.model.fde_sort_hi == 0.0197 && u.model.fde_floor == 998);
	CHECK(u.unwind_price_now && u.unwind_cal_price == 0.0257);

	char *a = report_json(&t), *c = report_json(&u);
	CHECK(a && c && !strcmp(a, c));
	free(a);
	free(c);
	trace_free(&u);
	/* A calibration that did not record the share: still unknown when read back. */
	struct bbuf b2 = {0};
	t.model.contended_blocks_pct = NAN;
	tracefile_encode(&t, &b2);
	CHECK(tracefile_decode(b2.p, b2.len, &u, &info, &err) == 0);
	CHECK(isnan(u.model.contended_blocks_pct));
	trace_free(&u);
	bb_free(&b2);
	trace_free(&t);
	bb_free(&b);
}

/* Every prefix: refused (no run yet) or read as truncated with whole sections. */
static void test_truncation(void)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;
	size_t ok = 0, refused = 0, last_runs = 0;
	bool monotonic = true;

	encode_fake(100, &b, &t);
	for (size_t n = 0; n < b.len; n++) {
		int r = tracefile_decode(b.p, n, &u, &info, &err);
		if (r == 0) {
			ok++;
			monotonic &= info.truncated && (u.nrun % 64 == 0 || u.nrun == 200) &&
				     u.nrun >= last_runs;
			last_runs = u.nrun;
		} else {
			refused++;
			monotonic &= last_runs == 0 && (r == -EPROTO || r == -EINVAL);
		}
		trace_free(&u);
	}
	CHECK(ok > 0 && refused > 0 && monotonic);
	CHECK(last_runs == 200);
	/* Cut inside the last RUNS section: the other 192 runs are kept. */
	CHECK(tracefile_decode(b.p, b.len - 60, &u, &info, &err) == 0);
	CHECK(info.truncated && u.nrun == 192);
	CHECK(strstr(info.warning, "192 of 200 runs") != NULL);
	trace_free(&u);
	trace_free(&t);
	bb_free(&b);
}

/* Whether byte i is a reserved one, which readers ignore: in the header or a section header. */
static bool reserved_byte(const struct bbuf *b, size_t i)
{
	if (i < TRACEFILE_HEADER_SIZE)
		return i >= 17;
	for (size_t at = TRACEFILE_HEADER_SIZE; at < b->len;
	     at += TRACEFILE_SECTION_HDR_SIZE + (size_t)get_le64(b->p + at + 8))
		if (i >= at + 28 && i < at + 32)
			return true;
	return false;
}

/*
 * Flip each byte in turn: never a crash, and every change but to reserved
 * bytes is refused, or read as the very same trace: a zstd frame has bits
 * its decoder does not use (an entropy table's description can hold some),
 * and a flip there leaves the content, which its checksum vouches for,
 * unchanged (seen once, when the model's counts grew by one).
 */
static void test_damage(void)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;
	size_t missed = 0;

	encode_fake(3, &b, &t);
	char *want = report_json(&t);
	for (size_t i = 0; i < b.len; i++) {
		b.p[i] ^= 0x5a;
		int r = tracefile_decode(b.p, b.len, &u, &info, &err);
		if (!r && !reserved_byte(&b, i)) {
			char *got = report_json(&u);
			missed += !got || !want || strcmp(got, want) != 0;
			free(got);
		}
		trace_free(&u);
		b.p[i] ^= 0x5a;
	}
	free(want);
	CHECK(missed == 0);
	trace_free(&t);
	bb_free(&b);
}

static void test_refusals(void)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;

	CHECK(tracefile_decode("hello world, not a trace", 24, &u, &info, &err) == -EINVAL);
	CHECK(strstr(err.msg, "not an ldprof trace") != NULL);
	trace_free(&u);
	CHECK(tracefile_decode("", 0, &u, &info, &err) == -EINVAL);
	trace_free(&u);
	encode_fake(2, &b, &t);
	b.p[8] = 7; /* version 7 */
	CHECK(tracefile_decode(b.p, b.len, &u, &info, &err) == -ENOTSUP);
	CHECK(strstr(err.msg, "version 7 is newer") != NULL);
	trace_free(&u);
	b.p[8] = 1;
	b.p[16] = 2; /* big-endian */
	CHECK(tracefile_decode(b.p, b.len, &u, &info, &err) == -ENOTSUP);
	trace_free(&u);
	trace_free(&t);
	bb_free(&b);
}

/* The offset of the last section (END). */
static size_t last_section(const struct bbuf *b)
{
	size_t at = TRACEFILE_HEADER_SIZE, last = at;

	while (at < b->len) {
		last = at;
		at += TRACEFILE_SECTION_HDR_SIZE + (size_t)get_le64(b->p + at + 8);
	}
	return last;
}

/* A section of a type this version does not know, just before END. */
static void insert_before_end(struct bbuf *b, uint32_t type, uint32_t flags)
{
	size_t end = last_section(b);
	struct bbuf tail = {0}, payload = {0};

	bb_put(&tail, b->p + end, b->len - end);
	b->len = end;
	tlv_str(&payload, 1, "something from a newer ldprof");
	tracefile_put_section(b, type, flags, &payload);
	bb_put(b, tail.p, tail.len);
	bb_free(&tail);
}

static void test_unknown_sections(void)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;

	encode_fake(2, &b, &t);
	insert_before_end(&b, 77, 0);
	CHECK(tracefile_decode(b.p, b.len, &u, &info, &err) == 0);
	CHECK(info.unknown_skipped == 1 && u.nrun == 4);
	trace_free(&u);
	bb_free(&b);
	tracefile_encode(&t, &b);
	insert_before_end(&b, 78, TF_SEC_F_CRITICAL);
	CHECK(tracefile_decode(b.p, b.len, &u, &info, &err) == -ENOTSUP);
	trace_free(&u);
	trace_free(&t);
	bb_free(&b);
}

/*
 * A pipe whose writer (a child) sends the first n bytes of b, then zeros
 * until the reader closes it; the child exits with the KiB it managed to
 * write, 255 for "all it tried". Returns the read end.
 */
static int stream_of(const struct bbuf *b, size_t n, bool zeros_after, pid_t *child)
{
	int fd[2];

	if (pipe(fd))
		abort();
	if ((*child = fork()) == 0) {
		static const char zero[1024];
		size_t sent = 0;
		signal(SIGPIPE, SIG_IGN);
		close(fd[0]);
		if (n && write(fd[1], b->p, n) != (ssize_t)n)
			_exit(0);
		while (zeros_after && sent < (64u << 20) && write(fd[1], zero, sizeof zero) > 0)
			sent += sizeof zero;
		_exit(sent >> 10 > 254 ? 255 : (int)(sent >> 10));
	}
	close(fd[1]);
	return fd[0];
}

/* tracefile_read of a pipe: the trace's report, or the error; *kib is what the writer sent after n. */
static int read_stream(const struct bbuf *b, size_t n, bool zeros, char **json, int *kib)
{
	struct trace u;
	struct tracefile_info info;
	struct errbuf err;
	char path[64];
	pid_t child;
	int st, fd = stream_of(b, n, zeros, &child);
	int r;

	snprintf(path, sizeof path, "/dev/fd/%d", fd);
	r = tracefile_read(path, &u, &info, &err);
	*json = r ? NULL : report_json(&u);
	trace_free(&u);
	close(fd);
	waitpid(child, &st, 0);
	*kib = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return r;
}

static void test_streams(void)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;
	char *want, *got;
	int kib;

	encode_fake(100, &b, &t);
	want = report_json(&t);
	CHECK(read_stream(&b, b.len, false, &got, &kib) == 0);
	CHECK(got && !strcmp(got, want));
	free(got);
	/* Zeros at byte 0, after the header, after META's section header: refused
	   at once; the writer gets no further than the pipe's buffer (64 KiB). */
	CHECK(read_stream(&b, 0, true, &got, &kib) == -EINVAL && kib < 128);
	CHECK(read_stream(&b, TRACEFILE_HEADER_SIZE, true, &got, &kib) == -EPROTO && kib < 128);
	CHECK(read_stream(&b, TRACEFILE_HEADER_SIZE + TRACEFILE_SECTION_HDR_SIZE, true, &got,
			  &kib) == -EPROTO &&
	      kib < 128);
	CHECK(tracefile_read("/dev/zero", &u, &info, &err) == -EINVAL);
	CHECK(strstr(err.msg, "/dev/zero: not an ldprof trace") != NULL);
	trace_free(&u);
	free(want);
	trace_free(&t);
	bb_free(&b);
}

static void test_tlv_skips_unknown_fields(void)
{
	struct bbuf b = {0};
	struct cursor c, v;
	unsigned tag;
	uint64_t seen = 0;

	tlv_uint(&b, 1, 300);
	tlv_str(&b, 99, "from a newer ldprof");
	tlv_sint(&b, 2, -5);
	c = cursor_of(b.p, b.len);
	while (tlv_next(&c, &tag, &v)) {
		if (tag == 1)
			seen += val_uint(&v);
		else if (tag == 2)
			seen += (uint64_t)(val_sint(&v) + 10);
	}
	CHECK(!c.bad && seen == 305);
	c = cursor_of(b.p, b.len - 1);
	while (tlv_next(&c, &tag, &v))
		;
	CHECK(c.bad);
	bb_free(&b);
}

/* A three-process tree on run 1: the top (2 execs), a child with argv and events, an orphan. */
static struct run_tree *fake_tree(const struct trace *t)
{
	struct run_tree *tr = xcalloc(1, sizeof *tr);
	uint64_t base = t->run[1].exec_ts;

	tr->nproc = 3;
	tr->proc = xcalloc(3, sizeof *tr->proc);
	tr->lost_events = 2;
	tr->lost_execs = 1;
	tr->unmatched_execs = 4;
	tr->cpu_user_us = 1234.5;
	tr->cpu_sys_us = 67.25;
	tr->have_cpu = true;
	tr->proc[0] = (struct tree_proc){.pid = 100, .ppid = 1, .parent = TREE_NO_PROC,
					 .fork_ts = base, .exit_ts = base + 9000,
					 .wait_status = 7 << 8, .have_status = true};
	tr->proc[0].nexec = 2;
	tr->proc[0].exec = xcalloc(2, sizeof(struct tree_exec));
	tr->proc[0].exec[0] = (struct tree_exec){.ts = base + 100, .end_ts = base + 500,
						 .path = xstrdup("/bin/a"), .comm = xstrdup("a"),
						 .kind = TREE_EXEC_SHIM};
	tr->proc[0].exec[1] = (struct tree_exec){.ts = base + 500, .end_ts = base + 9000,
						 .path = NULL, .comm = xstrdup("b"),
						 .kind = TREE_EXEC_SETUID};
	tr->proc[1] = (struct tree_proc){.pid = 101, .ppid = 100, .parent = 0,
					 .fork_ts = base + 200, .exit_ts = base + 800};
	tr->proc[1].nexec = 1;
	tr->proc[1].exec = xcalloc(1, sizeof(struct tree_exec));
	struct tree_exec *e = &tr->proc[1].exec[0];
	*e = (struct tree_exec){.ts = base + 300, .end_ts = base + 800, .path = xstrdup("/bin/c"),
				.comm = xstrdup("c"), .kind = TREE_EXEC_SHIM, .shm_flags = 4,
				.utime_us = 10, .stime_us = 2, .have_cpu = true};
	e->argc = 2;
	e->argv = xcalloc(3, sizeof *e->argv);
	e->argv[0] = xstrdup("c");
	e->argv[1] = xstrdup("--x");
	e->nev = 2;
	e->ev = xcalloc(2, sizeof *e->ev);
	e->ev[0] = (struct trace_event){.ts = base + 310, .type = 1, .obj = 0, .a = 5};
	e->ev[1] = (struct trace_event){.ts = base + 320, .type = 2, .obj = TRACE_NO_OBJ, .b = 9};
	tr->proc[2] = (struct tree_proc){.pid = 102, .ppid = 101, .parent = 1,
					 .fork_ts = base + 400, .exit_ts = 0, .orphan = true,
					 .wait_status = 9, .have_status = true};
	return tr;
}

static void test_tree_roundtrip(void)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;

	fake_trace(&t, &(struct fake_opts){.runs = 2, .slow = 1});
	t.follow = true;
	t.run[1].tree = fake_tree(&t);
	tracefile_encode(&t, &b);
	CHECK(tracefile_decode(b.p, b.len, &u, &info, &err) == 0);
	CHECK(info.sections == 8 && !info.unknown_skipped); /* one TREE section more */
	CHECK(u.follow && !u.run[0].tree && u.run[1].tree && !u.run[2].tree);
	const struct run_tree *x = t.run[1].tree, *y = u.run[1].tree;
	CHECK(y && y->nproc == 3 && y->lost_events == 2 && y->lost_execs == 1);
	CHECK(y && y->unmatched_execs == 4);
	CHECK(y && y->have_cpu && y->cpu_user_us == 1234.5 && y->cpu_sys_us == 67.25);
	for (size_t i = 0; y && i < 3; i++) {
		const struct tree_proc *p = &x->proc[i], *q = &y->proc[i];
		CHECK(p->pid == q->pid && p->ppid == q->ppid && p->parent == q->parent);
		CHECK(p->fork_ts == q->fork_ts && p->exit_ts == q->exit_ts);
		CHECK(p->have_status == q->have_status && p->wait_status == q->wait_status);
		CHECK(p->orphan == q->orphan && p->nexec == q->nexec);
		for (size_t k = 0; k < p->nexec && k < q->nexec; k++) {
			const struct tree_exec *e = &p->exec[k], *f = &q->exec[k];
			CHECK(e->ts == f->ts && e->end_ts == f->end_ts && e->kind == f->kind);
			CHECK((!e->path && !f->path) || (e->path && f->path && !strcmp(e->path, f->path)));
			CHECK(!strcmp(e->comm, f->comm) && e->argc == f->argc && !e->argv == !f->argv);
			for (size_t a = 0; a < e->argc && f->argv; a++)
				CHECK(!strcmp(e->argv[a], f->argv[a]));
			CHECK(e->shm_flags == f->shm_flags && e->have_cpu == f->have_cpu);
			CHECK(e->utime_us == f->utime_us && e->stime_us == f->stime_us);
			CHECK(e->nev == f->nev);
			for (size_t v = 0; v < e->nev && v < f->nev; v++)
				CHECK(e->ev[v].ts == f->ev[v].ts && e->ev[v].type == f->ev[v].type &&
				      e->ev[v].obj == f->ev[v].obj && e->ev[v].a == f->ev[v].a &&
				      e->ev[v].b == f->ev[v].b);
		}
	}
	trace_free(&u);

	/* Every byte flipped: refused or read, never out of bounds (ASan) nor a wrong parent. */
	size_t read_ok = 0;
	for (size_t i = 0; i < b.len; i++) {
		b.p[i] ^= 0x5a;
		if (tracefile_decode(b.p, b.len, &u, &info, &err) == 0) {
			read_ok++;
			for (size_t r = 0; r < u.nrun; r++)
				for (size_t k = 0; u.run[r].tree && k < u.run[r].tree->nproc; k++) {
					uint32_t par = u.run[r].tree->proc[k].parent;
					CHECK(par == TREE_NO_PROC || par < k);
				}
		}
		trace_free(&u);
		b.p[i] ^= 0x5a;
	}
	CHECK(read_ok < b.len / 4); /* the checksums catch nearly all */
	trace_free(&t);
	bb_free(&b);
}

int main(void)
{
	test_roundtrip();
	test_truncation();
	test_streams();
	test_damage();
	test_refusals();
	test_unknown_sections();
	test_tlv_skips_unknown_fields();
	test_tree_roundtrip();
	return unit_done("tracefile_test");
}
