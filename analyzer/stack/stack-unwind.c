/*
 * One sample unwound with libunwind's remote API. The sampled process's
 * mappings become load spans (one per object and load address); libunwind's
 * cache of register rules by address (UNW_CACHE_GLOBAL) is kept from
 * sample to sample while the mappings only grow, and flushed when they
 * change under an address it may have cached (another process, an exec, a
 * newer mapping over an older one's object).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stack/stack-int.h"

static bool same_map(const struct stack_map *a, const struct stack_map *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       (a->path == b->path || (a->path && b->path && !strcmp(a->path, b->path)));
}

/* The object a mapping is of, and its load bias; NULL for no readable object. */
static struct stack_obj *map_object(struct stack_unwinder *u, const struct stack_map *m,
				    uint64_t *bias)
{
	struct stack_obj *o;
	uint64_t vaddr;

	if (!m->path || m->end <= m->start)
		return NULL;
	if (!strcmp(m->path, "[vdso]"))
		o = stack_obj_vdso(u);
	else if (m->path[0] != '/')
		return NULL; /* [stack], [heap], //anon: no file behind it */
	else
		o = stack_obj_get(u, m->path);
	if (o->open_err || !stack_obj_offset_to_vaddr(o, m->pgoff, &vaddr))
		return NULL;
	*bias = m->start - vaddr;
	return o;
}

static int by_lo(const void *pa, const void *pb)
{
	const struct stack_span *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->map - b->map;
}

/*
 * Drop the spans that [lo, hi) overlaps: a newer mapping replaces what was
 * there (dlclose, then dlopen at the same place). True if any was dropped.
 */
static bool drop_overlapped(struct stack_unwinder *u, uint64_t lo, uint64_t hi)
{
	size_t kept = 0;

	for (size_t k = 0; k < u->nspans; k++)
		if (u->spans[k].hi <= lo || u->spans[k].lo >= hi)
			u->spans[kept++] = u->spans[k];
	bool dropped = kept != u->nspans;
	u->nspans = kept;
	return dropped;
}

/*
 * The span of map i's object, unless the same object at the same bias has
 * one (an object's segments are mapped one by one). True if it replaced
 * another object's span, whose addresses libunwind may have cached.
 */
static bool add_span(struct stack_unwinder *u, size_t i)
{
	uint64_t bias;
	struct stack_obj *o = map_object(u, &u->maps[i], &bias);

	if (!o)
		return false;
	for (size_t k = 0; k < u->nspans; k++)
		if (u->spans[k].obj == o && u->spans[k].bias == bias)
			return false;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t k = 0; k < o->nsegs; k++) {
		lo = o->segs[k].vaddr < lo ? o->segs[k].vaddr : lo;
		if (o->segs[k].vaddr + o->segs[k].memsz > hi)
			hi = o->segs[k].vaddr + o->segs[k].memsz;
	}
	if (lo + bias < lo || hi + bias < hi)
		return false; /* a hostile mapping would wrap around */
	bool replaced = drop_overlapped(u, lo + bias, hi + bias);
	GROW(u->spans, u->spans_cap, u->nspans + 1);
	u->spans[u->nspans++] = (struct stack_span){lo + bias, hi + bias, bias, o, (int)i};
	return replaced;
}

static void forget_maps(struct stack_unwinder *u)
{
	for (size_t i = 0; i < u->nmaps; i++)
		free((char *)u->maps[i].path);
	u->nmaps = u->nspans = 0;
}

/*
 * Take the sample's mappings. The same list, or the last one with more
 * appended (a process mapping its libraries), keeps libunwind's cache;
 * anything else, or overlapping objects, starts over.
 */
static void sync_maps(struct stack_unwinder *u, const struct stack_map *maps, size_t nmaps)
{
	size_t keep = 0;

	while (keep < u->nmaps && keep < nmaps && same_map(&u->maps[keep], &maps[keep]))
		keep++;
	if (keep == u->nmaps && keep == nmaps)
		return;
	bool grown = keep == u->nmaps;
	if (!grown)
		forget_maps(u);
	bool replaced = false;
	GROW(u->maps, u->maps_cap, nmaps);
	for (size_t i = u->nmaps; i < nmaps; i++) {
		u->maps[i] = maps[i];
		u->maps[i].path = maps[i].path ? xstrdup(maps[i].path) : NULL;
		u->nmaps = i + 1;
		replaced |= add_span(u, i);
	}
	qsort(u->spans, u->nspans, sizeof(*u->spans), by_lo);
	if (!grown || replaced)
		unw_flush_cache(u->as, 0, 0);
}

/* The newest mapping addr is in, or -1. */
static int map_index(const struct stack_unwinder *u, uint64_t addr)
{
	for (size_t i = u->nmaps; i-- > 0;)
		if (addr >= u->maps[i].start && addr < u->maps[i].end)
			return (int)i;
	return -1;
}

/*
 * A frame at ip: its mapping and the file offset of the instruction it is
 * in (ip - 1 for a return address). False when ip is in no mapping and no
 * object: a garbage return address.
 */
static bool make_frame(struct stack_ctx *c, uint64_t ip, bool leaf, struct stack_frame *f)
{
	uint64_t at = leaf ? ip : ip - 1, off;
	const struct stack_span *s = stack_span_find(c, at);

	f->ip = ip;
	f->map = map_index(c->u, at);
	if (s && stack_obj_vaddr_to_offset(s->obj, at - s->bias, &off)) {
		f->offset = off;
		/* a mapping of that object: the one ip is in, else the one the span came from */
		if (f->map < 0 || !c->u->maps[f->map].path ||
		    strcmp(c->u->maps[f->map].path, s->obj->path))
			f->map = s->map;
		return true;
	}
	if (f->map < 0)
		return false;
	f->offset = at - c->u->maps[f->map].start + c->u->maps[f->map].pgoff;
	return true;
}

static int check_sample(const struct stack_sample *s, int max, struct errbuf *err)
{
	if (max < 1)
		return set_err(err, EINVAL, "unwinding: no room for a frame");
	if (!(s->regs_mask >> PERF_REG_X86_SP & 1))
		return set_err(err, EINVAL, "unwinding: the sample has no stack pointer");
	if (s->stack_len && !s->stack)
		return set_err(err, EINVAL,
			       "unwinding: the sample has a stack length but no bytes");
	return 0;
}

/* Walk the callers of frames[0] into frames[1..max); returns the count. */
static int walk(struct stack_ctx *c, unw_cursor_t *cur, struct stack_frame *frames, int max,
		bool *complete, struct errbuf *err)
{
	int n = 1;
	unw_word_t ip, sp, prev_sp = c->sample->regs[PERF_REG_X86_SP];

	while (n < max) {
		int r = unw_step(cur);
		if (r == 0) {
			*complete = true;
			return n;
		}
		if (r < 0) {
			set_err(err, -r, "unwinding: %s above %#lx", unw_strerror(r),
				(unsigned long)frames[n - 1].ip);
			return n;
		}
		if (unw_get_reg(cur, UNW_REG_IP, &ip) || unw_get_reg(cur, UNW_REG_SP, &sp)) {
			set_err(err, EINVAL, "unwinding: no ip or sp above %#lx",
				(unsigned long)frames[n - 1].ip);
			return n;
		}
		if (ip == frames[n - 1].ip && sp == prev_sp) {
			set_err(err, ELOOP, "unwinding: the frame at %#lx is its own caller",
				(unsigned long)ip);
			return n;
		}
		if (!make_frame(c, ip, false, &frames[n])) {
			set_err(err, ENOENT, "unwinding: return address %#lx is in no mapping",
				(unsigned long)ip);
			return n;
		}
		prev_sp = sp;
		n++;
	}
	set_err(err, E2BIG, "unwinding: more than %d frames", max);
	return n;
}

int stack_unwind(struct stack_unwinder *u, const struct stack_map *maps, size_t nmaps,
		 const struct stack_sample *sample, struct stack_frame *frames, int max,
		 bool *complete, struct errbuf *err)
{
	struct stack_ctx c = {u, sample, NULL};
	unw_cursor_t cur;
	int ret;

	*complete = false;
	if ((ret = check_sample(sample, max, err)))
		return ret;
	sync_maps(u, maps, nmaps);
	if (!make_frame(&c, sample->ip, true, &frames[0]))
		return set_err(err, ENOENT, "unwinding: ip %#lx is in no mapping",
			       (unsigned long)sample->ip);
	if (!stack_span_find(&c, sample->ip))
		return set_err(err, ENOENT, "unwinding: ip %#lx is in no readable object (%s)",
			       (unsigned long)sample->ip,
			       u->maps[frames[0].map].path ? u->maps[frames[0].map].path
							   : "anonymous");
	if ((ret = unw_init_remote(&cur, u->as, &c)) < 0) {
		set_err(err, -ret, "unwinding: %s", unw_strerror(ret));
		return 1;
	}
	return walk(&c, &cur, frames, max, complete, err);
}
