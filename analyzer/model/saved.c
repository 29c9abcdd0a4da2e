#include "model/saved.h"

#include <string.h>

#include "trace/machine.h"

int saved_trace_open(const char *path, struct trace *t, struct tracefile_info *info,
		     struct report *rep, struct errbuf *err)
{
	char *changed;
	int r;

	memset(rep, 0, sizeof *rep);
	if ((r = tracefile_read(path, t, info, err)))
		return r;
	report_build(t, rep);
	if (info->warning[0])
		report_add_note(rep, xasprintf("the trace file is %s", info->warning));
	trace_changed_objects(t, &changed);
	report_add_note(rep, changed);
	report_add_note(rep, trace_other_machine_note(t));
	return 0;
}

void saved_trace_free(struct trace *t, struct report *rep)
{
	report_free(rep);
	trace_free(t);
}
