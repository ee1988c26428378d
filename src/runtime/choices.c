/* SPDX-License-Identifier: MIT */
/*
 * choices.c - the enabled choices at a decision: which contexts can run
 * and which injections can be delivered, in a fixed order (contexts by id,
 * then injections by id) so that an index means the same in every run.
 */
#include "runtime/sched_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- decisions ------------------------------------------------------- */

PR_NO_TSAN int sched_ctx_enabled(const struct pr_ctx *c)
{
	return c->state == CTX_RUNNABLE ||
	       (c->state == CTX_SPINNING && c->spin_epoch != pr_hot.store_epoch);
}

PR_NO_TSAN int sched_inj_enabled(const struct pr_injection *e)
{
	const struct pr_ctx *t = &sched_rt.ctx[e->ctx];

	return e->remaining > 0 && !t->events_off && !t->in_event &&
	       (t->state == CTX_RUNNABLE || t->state == CTX_SPINNING);
}

PR_NO_TSAN void sched_build_choices(struct pr_choices *cs, enum pr_reason reason)
{
	cs->n = 0;
	cs->current = -1;
	for (int i = 0; i < sched_rt.nctx; i++) {
		struct pr_ctx *c = &sched_rt.ctx[i];

		if (!sched_ctx_enabled(c))
			continue;
		if (i == sched_rt.cur && c->state == CTX_RUNNABLE)
			cs->current = cs->n;
		cs->c[cs->n].ctx = (uint8_t)i;
		cs->c[cs->n].inject = -1;
		cs->c[cs->n].was_spinning = c->state == CTX_SPINNING;
		cs->n++;
	}
	for (int i = 0; i < sched_rt.ninj; i++) {
		if (!sched_inj_enabled(&sched_rt.inj[i]))
			continue;
		cs->c[cs->n].ctx = (uint8_t)sched_rt.inj[i].ctx;
		cs->c[cs->n].inject = (int8_t)i;
		cs->c[cs->n].was_spinning = 0;
		cs->n++;
	}
	cs->reason = reason;
	cs->prev_ctx = sched_rt.cur;
	cs->step = sched_rt.steps;
	cs->seg_steps = sched_rt.seg_steps;
	cs->seg_code = sched_rt.seg_code;
	cs->at = sched_rt.cur >= 0 ? sched_ctx_at(sched_rt.cur) : NULL;
}

PR_NO_TSAN int pr_sched_pending(int code, struct pr_pending *p)
{
	const struct pr_ctx *c;

	memset(p, 0, sizeof(*p));
	if (code >= PR_CHOICE_EVENT) {
		code -= PR_CHOICE_EVENT;
		if (code >= sched_rt.ninj)
			return -1;
		p->ctx = sched_rt.inj[code].ctx;
		p->runnable = sched_inj_enabled(&sched_rt.inj[code]);
		return 0;
	}
	if (code < 0 || code >= sched_rt.nctx)
		return -1;
	c = &sched_rt.ctx[code];
	p->ctx = code;
	p->runnable = c->state == CTX_RUNNABLE;
	p->site = sched_ctx_at(code);
	p->obj = code == sched_rt.cur ? pr_hot.obj : c->at_obj;
	if (p->site == &sched_site_start) {
		p->site = NULL;		/* not started: no access pending */
		p->obj = NULL;
	} else if (p->site == &sched_site_iret) {
		p->site = c->irq_at;
		p->obj = c->irq_obj;
	}
	return 0;
}
