/*
 * A program file's pages as the kernel holds them when it read the file
 * from disk. How a file was written decides how its page cache holds it:
 * ext4 keeps what large writes wrote (cp, GNU ld's large sections)
 * in 64 KiB folios, what small writes wrote, and what exec's
 * faults read from disk, in single pages, and a fault-around fault costs
 * 1.2 against 2.8 us here (docs/model.md, "The page cache's folios"): a
 * fresh copy of bash-static ran 14 to 18% faster than the installed file.
 * So programs whose runs are set side by side are first put in one state,
 * that of a file read from disk.
 */
#ifndef LDPROF_PAGECACHE_H
#define LDPROF_PAGECACHE_H

#include "base/util.h"

/*
 * Write path's dirty pages back and drop its pages from the page cache, so
 * that its next run reads it from disk; pages some process maps stay.
 * Returns 0 or -errno (err says which step failed).
 */
int page_cache_settle(const char *path, struct errbuf *err);
/* The same for every regular file directly in dir. */
int page_cache_settle_dir(const char *dir, struct errbuf *err);

#endif
