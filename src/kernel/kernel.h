/* SPDX-License-Identifier: MIT */
/*
 * kernel.h - the kernel layer in one include, and its per-run reset.
 *
 * Model setup, before every run, outside any context:
 *
 *	kernel_reset(nr_cpus);		   first: all kernel state to zero
 *	... reset the model, INIT_* its structures ...
 *	for (cpu = 0; cpu < nr_cpus; cpu++)
 *		pr_spawn(name, body, arg, 0);  CPUs get ids 0..nr_cpus-1
 *	rcu_start_daemon();		   then the "rcu" daemon
 */
#ifndef PAGERACE_KERNEL_KERNEL_H
#define PAGERACE_KERNEL_KERNEL_H

#include "runtime/context.h"
#include "kernel/compiler.h"
#include "kernel/access.h"
#include "kernel/barrier.h"
#include "kernel/atomic.h"
#include "kernel/bitops.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/irq.h"
#include "kernel/spinlock.h"
#include "kernel/kasan.h"
#include "kernel/slab.h"
#include "kernel/rcu.h"

/**
 * kernel_reset - reset every per-run piece of kernel state
 * @nr_cpus: CPU contexts this run will have (num_online_cpus())
 *
 * Interrupt flags, preempt counts and RCU nesting on every CPU; the RCU
 * queue, clock and daemon; every kmem_cache emptied and re-poisoned and
 * every shadow pool back to its initial state.  Installs the object
 * resolver naming pool objects (see kernel_set_obj_resolver).  Caches and
 * pools themselves persist: create them once, or in every setup (creation
 * is idempotent by name / base address).
 */
void kernel_reset(int nr_cpus);

/**
 * kernel_set_obj_resolver - chain the model's object resolver after
 * kernel/'s: a name is first looked up in the shadow pools ("node#3"),
 * then asked of @next.  Use this instead of pr_set_obj_resolver, which
 * would replace kernel/'s.
 */
void kernel_set_obj_resolver(pr_obj_resolver next);

#endif /* PAGERACE_KERNEL_KERNEL_H */
