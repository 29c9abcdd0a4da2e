/* The exit statuses every command shares, and the library code that decides them. */
#ifndef LDPROF_EXIT_H
#define LDPROF_EXIT_H

enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* the work could not be done (a run failed, ...) */
	EXIT_USAGE = 2, /* bad options or bad input */
};

#endif
