/* SPDX-License-Identifier: MIT */
/*
 * html.c - one self-contained HTML page: an SVG swimlane picture of the
 * interleaving (one lane per context, a bar per stretch of steps, a tick
 * per conflicting access, a cross at the failing access, a dashed line
 * at each preemption) followed by the text report.  No scripts, no
 * external resources; hovering a mark shows its step (SVG <title>).
 *
 * The lane count is stated in the page (<svg data-lanes>, and the element
 * with id "lanes"), so that a test can check a headless rendering.
 */
#include "report/report.h"
#include "report/memnotes.h"
#include "memory/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LANE_H	44
#define TOP	34
#define LEFT	110
#define WIDTH	1100	/* drawing area for the steps */

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static double xpos(const struct pr_report *r, uint64_t step)
{
	uint64_t total = r->res->steps ? r->res->steps : 1;

	return LEFT + (double)(step > 0 ? step - 1 : 0) * WIDTH / (double)total;
}

static void title_el(FILE *f, const struct pr_report *r,
		     const struct pr_event *e)
{
	char who[96];

	fprintf(f, "<title>step %llu, %s: ", (unsigned long long)e->step,
		pr_report_who(r, e, who, sizeof(who)));
	esc(f, e->label);
	fprintf(f, " on ");
	esc(f, e->obj);
	if (e->before[0]) {
		fprintf(f, " (");
		esc(f, e->before);
		if (e->after[0] && strcmp(e->before, e->after)) {
			fprintf(f, " -&gt; ");
			esc(f, e->after);
		}
		fprintf(f, ")");
	}
	fprintf(f, "</title>");
}

/*
 * tso, weak: each store's time in its CPU's store buffer, a green strip
 * along the bottom of the CPU's lane from the store to the step it
 * reached memory (to the end if it never did).
 */
static void buffered(FILE *f, const struct pr_report *r)
{
	const struct pr_event_log *log = r->log;

	for (size_t i = 0; i < log->nmem; i++) {
		const struct pr_mem_note *n = &log->mem[i];
		uint64_t at;
		double x0, x1;
		int y;

		if (n->kind != PR_ME_STORE || n->ctx >= log->nctx)
			continue;
		at = pr_mem_note_flushed(log, n);
		x0 = xpos(r, n->store_step);
		x1 = xpos(r, at ? at : r->res->steps + 1);
		y = TOP + n->ctx * LANE_H + LANE_H - 9;
		fprintf(f, "<rect class=\"buffered\" x=\"%.1f\" y=\"%d\" "
			"width=\"%.1f\" height=\"4\" fill=\"#5a5\" opacity=\"0.7\">"
			"<title>%s's store buffer: ", x0, y,
			x1 - x0 < 1 ? 1 : x1 - x0, log->ctx_name[n->ctx]);
		esc(f, n->obj);
		fprintf(f, " = ");
		esc(f, n->val_s);
		fprintf(f, ", stored at step %llu, ",
			(unsigned long long)n->store_step);
		if (at)
			fprintf(f, "in memory at step %llu</title></rect>\n",
				(unsigned long long)at);
		else
			fprintf(f, "never in memory</title></rect>\n");
	}
}

/* weak: a load that read an older value, a mark on its CPU's lane. */
static void older_reads(FILE *f, const struct pr_report *r)
{
	const struct pr_event_log *log = r->log;

	for (size_t i = 0; i < log->nmem; i++) {
		const struct pr_mem_note *n = &log->mem[i];
		int y;

		if (n->kind != PR_ME_OLD || n->reader < 0 ||
		    n->reader >= log->nctx)
			continue;
		y = TOP + n->reader * LANE_H + 2;
		fprintf(f, "<rect class=\"older\" x=\"%.1f\" y=\"%d\" "
			"width=\"3\" height=\"%d\" fill=\"#c60\">"
			"<title>%s read an older value: ", xpos(r, n->step), y,
			LANE_H - 14, log->ctx_name[n->reader]);
		esc(f, n->obj);
		fprintf(f, " = ");
		esc(f, n->seen_s);
		fprintf(f, " at step %llu (newer: ", (unsigned long long)n->step);
		esc(f, n->val_s);
		fprintf(f, ")</title></rect>\n");
	}
}

static void lanes(FILE *f, const struct pr_report *r)
{
	const struct pr_event_log *log = r->log;
	double unit = (double)WIDTH / (double)(r->res->steps ? r->res->steps : 1);
	int n = log->nctx;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" data-lanes=\"%d\" "
		"width=\"%d\" height=\"%d\" font-family=\"monospace\" font-size=\"12\">\n",
		n, LEFT + WIDTH + 20, TOP + n * LANE_H + 20);
	fprintf(f, "<text x=\"%d\" y=\"18\">steps 1-%llu</text>\n", LEFT,
		(unsigned long long)r->res->steps);
	for (int c = 0; c < n; c++) {
		int y = TOP + c * LANE_H;

		fprintf(f, "<rect class=\"lane\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
			y, LEFT + WIDTH + 20, LANE_H, c % 2 ? "#f4f4f4" : "#ffffff");
		fprintf(f, "<text x=\"6\" y=\"%d\">", y + LANE_H / 2 + 4);
		esc(f, log->ctx_name[c]);
		fprintf(f, "</text>\n");
	}
	for (size_t a = 0; a < log->n;) {
		const struct pr_event *e = &log->ev[a];
		size_t b = a;
		int y = TOP + e->ctx * LANE_H;
		double x0, x1;

		while (b + 1 < log->n && pr_event_same_thread(&log->ev[b + 1], e))
			b++;
		x0 = xpos(r, e->step);
		x1 = xpos(r, log->ev[b].step) + (unit < 1 ? 1 : unit);
		fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"fill=\"%s\" stroke=\"#335\" stroke-width=\"0.5\">"
			"<title>%s%s: steps %llu-%llu</title></rect>\n",
			x0, y + 10, x1 - x0, LANE_H - 20,
			e->inject >= 0 ? "#e8a33d" : "#7aa6d8",
			log->ctx_name[e->ctx], e->inject >= 0 ? " (interrupt)" : "",
			(unsigned long long)e->step,
			(unsigned long long)log->ev[b].step);
		for (size_t i = a; i <= b; i++) {
			const struct pr_event *s = &log->ev[i];
			double x = xpos(r, s->step) + unit / 2;

			if (r->important[i] == 2) {
				fprintf(f, "<g stroke=\"#c00\" stroke-width=\"3\">"
					"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
					"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
					x - 7, y + 8, x + 7, y + LANE_H - 8,
					x - 7, y + LANE_H - 8, x + 7, y + 8);
				title_el(f, r, s);
				fprintf(f, "</g>\n");
			} else if (r->important[i]) {
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"3\" height=\"%d\" fill=\"#c00\">",
					x - 1.5, y + 4, LANE_H - 8);
				title_el(f, r, s);
				fprintf(f, "</rect>\n");
			}
			if (s->preempted) {
				double px = xpos(r, s->step) + unit;

				fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
					"stroke=\"#000\" stroke-dasharray=\"4 3\">"
					"<title>%s preempted after step %llu</title></line>\n",
					px, TOP, px, TOP + n * LANE_H,
					log->ctx_name[s->ctx],
					(unsigned long long)s->step);
			}
		}
		a = b + 1;
	}
	buffered(f, r);
	older_reads(f, r);
	fprintf(f, "</svg>\n");
}

void pr_report_html(FILE *f, struct pr_report *r)
{
	const struct pr_verdict *v = &r->res->verdict;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m) {
		pr_report_text(m, r);
		fclose(m);
	}
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>pagerace: ");
	esc(f, r->title);
	fprintf(f, "</title>\n<style>body{font-family:sans-serif;margin:16px}"
		"pre{font-size:12px;background:#fafafa;padding:8px}</style>\n"
		"</head><body>\n<h1>");
	if (r->res->failed) {
		fprintf(f, "BUG: ");
		esc(f, v->kind);
		fprintf(f, " on ");
		esc(f, v->obj);
	} else {
		fprintf(f, "no failure");
	}
	fprintf(f, "</h1>\n<p>");
	esc(f, r->title);
	fprintf(f, ": %llu steps, %llu preemptions, <span id=\"lanes\">%d</span> lanes. "
		"Bars are stretches of steps (orange: interrupt handlers), red ticks "
		"conflicting accesses, the red cross the failing access, dashed lines "
		"preemptions%s%s%s.</p>\n",
		(unsigned long long)r->res->steps,
		(unsigned long long)r->res->preemptions, r->log->nctx,
		r->log->memory ? "; green strips stores waiting in a CPU's store "
		"buffer (memory model " : "",
		r->log->memory ? pr_mem_name(r->log->memory) : "",
		r->log->memory ? ")" : "");
	lanes(f, r);
	fprintf(f, "<pre>");
	if (text)
		esc(f, text);
	fprintf(f, "</pre>\n</body></html>\n");
	free(text);
}
