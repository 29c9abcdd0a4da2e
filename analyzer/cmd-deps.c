/* ldprof deps: what ld.so will load and bind, read from the files. */
#include <stdio.h>

#include "commands.h"

const char usage_deps[] = "usage: ldprof deps [OPTIONS] FILE...\n"
			  "\n"
			  "Not implemented yet.\n";

int cmd_deps(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("ldprof deps: not implemented yet\n", stderr);
	return EXIT_FAIL;
}
