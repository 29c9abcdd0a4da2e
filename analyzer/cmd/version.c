/* ldprof version. */
#include <stdio.h>

#include "base/version.h"
#include "cmd/commands.h"
#include "cmd/options.h"

const char usage_version[] = "usage: ldprof version\n"
			     "\n"
			     "Print ldprof's version.\n";

int cmd_version(const struct command *cmd, int argc, char **argv)
{
	const struct opt opts[] = {OPT_GROUP("Options:"), OPT_HELP(), OPT_END()};
	int first, r;

	if ((r = parse_options(cmd, argc, argv, opts, &first)) >= 0)
		return r;
	printf("ldprof %s\n", LDPROF_VERSION);
	return EXIT_OK;
}
