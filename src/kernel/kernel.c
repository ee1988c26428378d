/* SPDX-License-Identifier: MIT */
/*
 * kernel.c - kernel_reset and the object-name resolver chain (kernel.h).
 */
#include "kernel/kernel.h"

static pr_obj_resolver next_resolver;

static int kernel_resolver(const void *obj, char *buf, unsigned len)
{
	if (kasan_obj_name(obj, buf, len))
		return 1;
	return next_resolver ? next_resolver(obj, buf, len) : 0;
}

void kernel_set_obj_resolver(pr_obj_resolver next)
{
	next_resolver = next == kernel_resolver ? NULL : next;
	pr_set_obj_resolver(kernel_resolver);
}

void kernel_reset(int nr_cpus)
{
	kernel_nr_cpus = nr_cpus > 0 ? nr_cpus : 1;
	kcpu_reset();
	rcu_reset();
	kasan_reset();
	kmem_cache_reset();
	pr_set_obj_resolver(kernel_resolver);
}
