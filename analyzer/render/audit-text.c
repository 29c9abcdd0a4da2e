/* The audit's report: a ranked table and a summary, JSON, or CSV. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/out/textsafe.h"
#include "model/audit.h"
#include "base/out/json.h"
#include "render/output.h"
#include "render/render.h"

struct job {
	const struct audit *a;
	size_t top;
};

static size_t count(const struct audit *a, enum audit_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += a->e[i].kind == k;
	return n;
}

static void text_rows(FILE *f, const struct audit *a, size_t top)
{
	bool measured = false;

	for (size_t i = 0; i < a->n; i++)
		measured = measured || !isnan(a->e[i].measured_us);
	fprintf(f, "%9s %6s %4s %7s %7s %5s  %s%s\n", "loader us", "share", "libs", "relocs",
		"lookups", "pages", measured ? "measured (total/loader us)  " : "",
		"program / top recommendation");
	for (size_t i = 0, shown = 0; i < a->n && shown < top; i++) {
		const struct audit_entry *e = &a->e[i];
		if (e->kind != AK_DYNAMIC)
			continue;
		shown++;
		fprintf(f, "%9.1f %5.1f%% %4u %7.0f %7.0f %5.0f  ", e->cost_us, 100 * e->share,
			e->libs, e->relocations, e->lookups, e->pages);
		if (measured && !isnan(e->measured_us))
			fprintf(f, "%10.1f / %-10.1f      ", e->measured_us, e->measured_loader_us);
		else if (measured)
			fprintf(f, "%-28s ", "-");
		fprintf(f, "%s%s\n", term_safe(e->path), e->missing ? "  [missing libraries]" : "");
		if (e->advice)
			fprintf(f, "%44s%s (saves %.1f us)\n", "", term_clean(e->advice),
				e->advice_us);
		if (e->unused)
			fprintf(f, "%44sunused: %s\n", "", term_clean(e->unused));
	}
}

static void text_summary(FILE *f, const struct audit *a)
{
	size_t dyn = count(a, AK_DYNAMIC), errs = count(a, AK_ERROR);
	double total = 0;

	for (size_t i = 0; i < a->n; i++)
		if (a->e[i].kind == AK_DYNAMIC)
			total += a->e[i].cost_us;
	fprintf(f, "\n%zu ELF files: %zu dynamic, %zu static, %zu errors (%zu files looked at)\n",
		a->n, dyn, count(a, AK_STATIC), errs, a->files_seen);
	if (dyn)
		fprintf(f, "modelled loader cost: %.1f us per exec on average (%s model)\n",
			total / (double)dyn, a->model.calibrated ? "calibrated" : "uncalibrated");
	if (a->nlib)
		fprintf(f, "\nlibraries that cost the most across the set:\n");
	for (size_t i = 0; i < a->nlib && i < 10; i++)
		fprintf(f, "  %s: loaded by %u binaries, %.0f us each\n", term_safe(a->lib[i].path),
			a->lib[i].users, a->lib[i].total_us / a->lib[i].users);
	if (errs)
		fprintf(f, "\nerrors:\n");
	for (size_t i = 0, shown = 0; i < a->n; i++) {
		if (a->e[i].kind != AK_ERROR)
			continue;
		if (shown++ == 20) {
			fprintf(f, "  ... and %zu more\n", errs - 20);
			break;
		}
		fprintf(f, "  %s: %s\n", term_safe(a->e[i].path), term_clean(a->e[i].error));
	}
	if (a->interrupted)
		fprintf(f, "\ninterrupted: the report covers the files done so far\n");
}

static int render_text_audit(FILE *f, void *arg, struct errbuf *err)
{
	const struct job *j = arg;

	(void)err;
	text_rows(f, j->a, j->top);
	text_summary(f, j->a);
	return 0;
}

static void json_entry(struct json *j, const struct audit_entry *e)
{
	static const char *const kinds[] = {"dynamic", "static", "error"};

	json_obj_open(j, NULL);
	json_str(j, "path", e->path);
	json_str(j, "kind", kinds[e->kind]);
	if (e->kind == AK_ERROR) {
		json_str(j, "error", e->error);
		json_obj_close(j);
		return;
	}
	json_str(j, "elf_kind", e->elf_kind);
	if (e->kind == AK_DYNAMIC) {
		json_num(j, "loader_cost_us", e->cost_us);
		json_num(j, "share", e->share);
		json_int(j, "libraries", e->libs);
		json_int(j, "missing_libraries", e->missing);
		json_num(j, "relocations", e->relocations);
		json_num(j, "lookups", e->lookups);
		json_num(j, "pages_written", e->pages);
		json_str(j, "unused", e->unused);
		json_str(j, "advice", e->advice);
		json_num(j, "advice_saved_us", e->advice ? e->advice_us : NAN);
		json_num(j, "measured_total_us", e->measured_us);
		json_num(j, "measured_loader_us", e->measured_loader_us);
	}
	json_obj_close(j);
}

static int render_json_audit(FILE *f, void *arg, struct errbuf *err)
{
	const struct audit *a = ((const struct job *)arg)->a;
	struct json j;

	(void)err;
	json_begin(&j, f);
	json_obj_open(&j, NULL);
	json_str(&j, "schema", "ldprof-audit/1");
	json_bool(&j, "calibrated", a->model.calibrated);
	json_int(&j, "files_seen", (long long)a->files_seen);
	json_bool(&j, "interrupted", a->interrupted);
	json_arr_open(&j, "entries");
	for (size_t i = 0; i < a->n; i++)
		json_entry(&j, &a->e[i]);
	json_arr_close(&j);
	json_arr_open(&j, "libraries");
	for (size_t i = 0; i < a->nlib; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "path", a->lib[i].path);
		json_int(&j, "users", a->lib[i].users);
		json_num(&j, "cost_us_each", a->lib[i].total_us / a->lib[i].users);
		json_num(&j, "cost_us_total", a->lib[i].total_us);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
	return 0;
}

/* RFC 4180: quote every text field, double the quotes inside. */
static int render_csv_audit(FILE *f, void *arg, struct errbuf *err)
{
	const struct audit *a = ((const struct job *)arg)->a;
	static const char *const kinds[] = {"dynamic", "static", "error"};

	(void)err;
	fputs("path,kind,loader_cost_us,share,libraries,missing,relocations,lookups,pages,unused,"
	      "advice,advice_saved_us,measured_total_us,measured_loader_us,error,model\n",
	      f);
	for (size_t i = 0; i < a->n; i++) {
		const struct audit_entry *e = &a->e[i];
		csv_field(f, e->path);
		fprintf(f, ",%s,", kinds[e->kind]);
		if (e->kind == AK_DYNAMIC)
			fprintf(f, "%.1f,%.4f,%u,%u,%.0f,%.0f,%.0f", e->cost_us, e->share, e->libs,
				e->missing, e->relocations, e->lookups, e->pages);
		else
			fputs(",,,,,,", f);
		fputc(',', f);
		csv_field(f, e->unused);
		fputc(',', f);
		csv_field(f, e->advice);
		fprintf(f, ",");
		if (e->advice)
			fprintf(f, "%.1f", e->advice_us);
		fprintf(f, ",");
		if (!isnan(e->measured_us))
			fprintf(f, "%.1f,%.1f", e->measured_us, e->measured_loader_us);
		else
			fputc(',', f);
		fputc(',', f);
		csv_field(f, e->error);
		/* Which figures the modelled columns rest on, as the text's summary says. */
		fprintf(f, ",%s\n", a->model.calibrated ? "calibrated" : "uncalibrated");
	}
	return 0;
}

int audit_write(const struct out_opts *out, const struct audit *a, size_t top, struct errbuf *err)
{
	struct job j = {a, top};

	switch (out->format) {
	case OUT_JSON:
		return write_atomic(out->path, render_json_audit, &j, err);
	case OUT_CSV:
		return write_atomic(out->path, render_csv_audit, &j, err);
	default:
		return write_atomic(out->path, render_text_audit, &j, err);
	}
}
