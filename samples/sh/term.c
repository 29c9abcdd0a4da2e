/*
 * The terminfo side of the terminal, through libtinfo's own API.
 *
 * libedit already uses terminfo for line editing; this file uses it
 * directly so the shell, like FreeBSD's, depends on the terminal library
 * in its own right and not only through libedit.  <term.h> defines macros
 * named like common words (lines, columns...), so it is kept here, alone.
 */
#include <stdio.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "sh.h"

/*
 * Load the terminal description once, on first use: a shell running
 * scripts never pays for reading the terminfo database.
 */
static int term_ready(void)
{
	static int state; /* 0: not tried, 1: loaded, -1: failed */
	int err;

	if (state == 0) {
		/* Passing &err stops setupterm from exiting on failure. */
		state = setupterm(NULL, STDOUT_FILENO, &err) == OK ? 1 : -1;
		if (state < 0)
			sh_error("%s", err == 0 ? "unknown terminal type" : "no terminfo database");
	}
	return state > 0;
}

static int put_byte(int c)
{
	return putchar(c);
}

/* Clear the screen as the terminal's "clear" capability says. */
int term_clear(void)
{
	const char *seq;
	int rows;

	if (!term_ready())
		return 1;
	seq = tigetstr("clear");
	if (seq == NULL || seq == (char *)-1) {
		sh_error("clear: the terminal cannot clear the screen");
		return 1;
	}
	/* tputs pads by the number of lines affected: the whole screen. */
	rows = tigetnum("lines");
	tputs(seq, rows > 0 ? rows : 1, put_byte);
	return fflush(stdout) == 0 ? 0 : 1;
}
