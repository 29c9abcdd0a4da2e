/* Durations as every renderer writes them, in the unit that suits each. */
#include <math.h>

#include "render/render.h"

void render_dur(char *buf, size_t n, double us, bool utf8)
{
	if (isnan(us))
		snprintf(buf, n, "-");
	else if (fabs(us) < 1000)
		snprintf(buf, n, "%.1f %s", us, utf8 ? "\u00b5s" : "us");
	else if (fabs(us) < 1e6)
		snprintf(buf, n, "%.3f ms", us / 1e3);
	else
		snprintf(buf, n, "%.2f s", us / 1e6);
}
