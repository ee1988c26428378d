/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - short text reports of verdicts.
 */
#include "report/verdict.h"
#include "strategy/strategy.h"

void pr_report_verdict_line(FILE *f, const struct pr_verdict *v)
{
	fprintf(f, "%s", v->kind);
	if (v->obj[0] && v->obj[0] != '-')
		fprintf(f, " on %s", v->obj);
	fprintf(f, " at step %llu", (unsigned long long)v->step);
	if (v->ctx >= 0)
		fprintf(f, " (%s%s)", v->ctx_name,
			v->in_event ? ", in interrupt" : "");
	if (v->msg[0])
		fprintf(f, ": %s", v->msg);
	fputc('\n', f);
}

void pr_report_verdict(FILE *f, const struct pr_run_result *res,
		       size_t nsegments)
{
	const struct pr_verdict *v = &res->verdict;

	fprintf(f, "  verdict:  ");
	pr_report_verdict_line(f, v);
	if (v->site[0])
		fprintf(f, "  at:       %s (%s)\n", v->site, v->where);
	fprintf(f, "  schedule: %zu segment%s, %llu step%s, %llu preemption%s\n",
		nsegments, nsegments == 1 ? "" : "s",
		(unsigned long long)res->steps, res->steps == 1 ? "" : "s",
		(unsigned long long)res->preemptions,
		res->preemptions == 1 ? "" : "s");
}
