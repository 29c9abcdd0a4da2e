/* ldprof record: not implemented yet (see issue 5). */
#include <stdio.h>
#include <string.h>

#include "commands.h"

const char usage_record[] = "usage: ldprof record ...\n"
			"\n"
			"Not implemented yet.\n";

int cmd_record(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return print_usage(find_command("record"), stdout);
	fputs("ldprof record: not implemented yet\n", stderr);
	return EXIT_FAIL;
}
