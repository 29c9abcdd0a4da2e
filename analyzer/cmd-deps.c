/* ldprof deps: what ld.so will load and bind, read from the files. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

const char usage_deps[] = "usage: ldprof deps [OPTIONS] FILE...\n"
			  "\n"
			  "Show what ld.so will load and bind for FILE. (In progress.)\n";

int cmd_deps(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return print_usage(find_command("deps"), stdout);
	fputs("ldprof deps: not implemented yet\n", stderr);
	return EXIT_FAIL;
}
