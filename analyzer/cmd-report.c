/* ldprof report: not implemented yet (see issue 5). */
#include <stdio.h>
#include <string.h>

#include "commands.h"

const char usage_report[] = "usage: ldprof report ...\n"
			"\n"
			"Not implemented yet.\n";

int cmd_report(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return print_usage(find_command("report"), stdout);
	fputs("ldprof report: not implemented yet\n", stderr);
	return EXIT_FAIL;
}
