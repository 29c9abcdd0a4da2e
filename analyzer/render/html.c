/*
 * The HTML pieces the pages (report-html.c, workload/workload-html.c) and
 * their figures use: escaped text, durations and the notes.
 */

#include "render/html.h"
#include "render/render.h"

void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

void html_dur(char *buf, size_t n, double us)
{
	render_dur(buf, n, us, true); /* the page is UTF-8 */
}

void html_notes(FILE *f, char *const *notes, size_t n)
{
	if (!n)
		return;
	fputs("<section id=\"notes\"><h2>Notes</h2><ul>\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs("<li>", f);
		html_text(f, notes[i]);
		fputs("</li>\n", f);
	}
	fputs("</ul></section>\n", f);
}
