/* SPDX-License-Identifier: MIT */
/*
 * prims.c - the kernel primitives a litmus body may call, performed by
 * pagerace's own kernel layer (kernel/): READ_ONCE and WRITE_ONCE of
 * access.h, the barriers and RCU pointer operations of barrier.h, RCU
 * read-side sections and synchronize_rcu of rcu.c, spinlock.c's locks,
 * atomic.h's atomics and xchg/cmpxchg.  The same code the page-cache
 * model runs, so every litmus test also tests it.
 *
 * Ordering variants (_relaxed, _acquire, _release) run as the fully
 * ordered operation: stronger than LKMM asks, which can only hide an
 * outcome LKMM allows, never show one it forbids.
 */
#include "litmus/internal.h"
#include "litmus/cell.h"
#include "memory/graph.h"

#include <string.h>


/* The four orderings of one operation: fully ordered, _relaxed,
 * _acquire, _release (the same code; LKMM's flavour apart). */
#define ORD(name, n, lv, code)						\
	{ name, n, lv, code, LK_MB },					\
	{ name "_relaxed", n, lv, code, LK_ONCE },			\
	{ name "_acquire", n, lv, code, LK_ACQUIRE },			\
	{ name "_release", n, lv, code, LK_RELEASE }

static const struct lit_prim prims[] = {
	{ "READ_ONCE", 1, 1, P_READ_ONCE, 0 },
	{ "WRITE_ONCE", 2, 1, P_WRITE_ONCE, 0 },
	{ "smp_load_acquire", 1, 0, P_LOAD_ACQUIRE, 0 },
	{ "smp_store_release", 2, 0, P_STORE_RELEASE, 0 },
	{ "rcu_dereference", 1, 1, P_RCU_DEREF, 0 },
	{ "rcu_access_pointer", 1, 1, P_READ_ONCE, 0 },
	{ "rcu_assign_pointer", 2, 1, P_RCU_ASSIGN, 0 },
	{ "smp_mb", 0, 0, P_MB, 0 },
	{ "smp_rmb", 0, 0, P_RMB, 0 },
	{ "smp_wmb", 0, 0, P_WMB, 0 },
	{ "smp_mb__before_atomic", 0, 0, P_MB, GF_BEFORE_ATOMIC },
	{ "smp_mb__after_atomic", 0, 0, P_MB, GF_AFTER_ATOMIC },
	{ "smp_mb__after_spinlock", 0, 0, P_MB, GF_AFTER_SPINLOCK },
	{ "smp_mb__after_unlock_lock", 0, 0, P_MB, GF_AFTER_UNLOCK_LOCK },
	{ "barrier", 0, 0, P_BARRIER, 0 },
	{ "rcu_read_lock", 0, 0, P_RCU_LOCK, 0 },
	{ "rcu_read_unlock", 0, 0, P_RCU_UNLOCK, 0 },
	{ "rcu_read_lock_bh", 0, 0, P_RCU_LOCK, 0 },
	{ "rcu_read_unlock_bh", 0, 0, P_RCU_UNLOCK, 0 },
	{ "rcu_read_lock_sched", 0, 0, P_RCU_LOCK, 0 },
	{ "rcu_read_unlock_sched", 0, 0, P_RCU_UNLOCK, 0 },
	{ "synchronize_rcu", 0, 0, P_SYNC_RCU, 0 },
	{ "synchronize_rcu_expedited", 0, 0, P_SYNC_RCU, 0 },
	{ "synchronize_sched", 0, 0, P_SYNC_RCU, 0 },
	{ "spin_lock", 1, 0, P_SPIN_LOCK, 0 },
	{ "spin_unlock", 1, 0, P_SPIN_UNLOCK, 0 },
	{ "spin_trylock", 1, 0, P_SPIN_TRYLOCK, 0 },
	{ "spin_is_locked", 1, 0, P_SPIN_IS_LOCKED, 0 },
	ORD("xchg", 2, 0, P_XCHG),
	ORD("cmpxchg", 3, 0, P_CMPXCHG),
	{ "atomic_read", 1, 0, P_ATOMIC_READ, 0 },
	{ "atomic_set", 2, 0, P_ATOMIC_SET, 0 },
	{ "atomic_add", 2, 0, P_ATOMIC_ADD, 0 },
	{ "atomic_sub", 2, 0, P_ATOMIC_SUB, 0 },
	{ "atomic_inc", 1, 0, P_ATOMIC_INC, 0 },
	{ "atomic_dec", 1, 0, P_ATOMIC_DEC, 0 },
	ORD("atomic_add_return", 2, 0, P_ATOMIC_ADD_RETURN),
	ORD("atomic_sub_return", 2, 0, P_ATOMIC_SUB_RETURN),
	ORD("atomic_inc_return", 1, 0, P_ATOMIC_INC_RETURN),
	ORD("atomic_dec_return", 1, 0, P_ATOMIC_DEC_RETURN),
	ORD("atomic_fetch_add", 2, 0, P_ATOMIC_FETCH_ADD),
	ORD("atomic_fetch_sub", 2, 0, P_ATOMIC_FETCH_SUB),
	ORD("atomic_fetch_inc", 1, 0, P_ATOMIC_FETCH_INC),
	ORD("atomic_fetch_dec", 1, 0, P_ATOMIC_FETCH_DEC),
	{ "atomic_inc_and_test", 1, 0, P_ATOMIC_INC_AND_TEST, 0 },
	{ "atomic_dec_and_test", 1, 0, P_ATOMIC_DEC_AND_TEST, 0 },
	{ "atomic_sub_and_test", 2, 0, P_ATOMIC_SUB_AND_TEST, 0 },
	ORD("atomic_cmpxchg", 3, 0, P_ATOMIC_CMPXCHG),
	ORD("atomic_xchg", 2, 0, P_ATOMIC_XCHG),
	{ "atomic_add_unless", 3, 0, P_ATOMIC_ADD_UNLESS, 0 },
	{ "atomic_inc_not_zero", 1, 0, P_ATOMIC_INC_NOT_ZERO, 0 },
	{ "srcu_read_lock", 1, 0, P_SRCU_LOCK, 0 },
	{ "srcu_read_unlock", 2, 0, P_SRCU_UNLOCK, 0 },
	{ "synchronize_srcu", 1, 0, P_SYNC_SRCU, 0 },
	{ "synchronize_srcu_expedited", 1, 0, P_SYNC_SRCU, 0 },
	{ "smp_mb__after_srcu_read_unlock", 0, 0, P_MB, 0 },
};

int lit_prim_class(int code)
{
	switch (code) {
	case P_READ_ONCE: case P_RCU_DEREF: return LBC_LOAD;
	case P_WRITE_ONCE: return LBC_STORE;
	case P_RMB: return LBC_RMB;
	case P_WMB: return LBC_WMB;
	case P_RCU_UNLOCK: return LBC_RCU_UNLOCK;
	case P_RCU_LOCK: return LBC_RCU_LOCK;
	}
	return LBC_OTHER;
}

const struct lit_prim *lit_prim_find(const char *name)
{
	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
		if (!strcmp(prims[i].name, name))
			return &prims[i];
	return NULL;
}

/*
 * smp_load_acquire / smp_store_release: kernel/barrier.h has the same
 * accesses as rcu_dereference / rcu_assign_pointer (kinds acquire and
 * release); named here so traces say which primitive the test called.
 */
static intptr_t smp_load_acquire(intptr_t *p)
{
	intptr_t v;

	__kmem_prepare(p, PR_MP_LOAD);
	PR_ACQUIRE(p, "smp_load_acquire");
	kasan_check(p, sizeof(*p), 0);
	v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	__kmem_load(p, v, PR_MO_ACQUIRE);
	return v;
}

static void smp_store_release(intptr_t *p, intptr_t v)
{
	__kmem_prepare(p, PR_MP_STORE);
	PR_RELEASE(p, "smp_store_release");
	kasan_check(p, sizeof(*p), 1);
	__kmem_store(p, v, PR_MO_RELEASE,
		     __atomic_store_n(p, v, __ATOMIC_RELEASE));
}

static intptr_t lit_read_once(intptr_t *p)
{
	return READ_ONCE(*p);
}

static void lit_write_once(intptr_t *p, intptr_t v)
{
	WRITE_ONCE(*p, v);
}

static intptr_t lit_rcu_dereference(intptr_t *p)
{
	return rcu_dereference(*p);
}

static void lit_rcu_assign_pointer(intptr_t *p, intptr_t v)
{
	rcu_assign_pointer(*p, v);
}

static intptr_t lit_xchg(intptr_t *p, intptr_t v)
{
	return xchg(p, v);
}

static intptr_t lit_cmpxchg(intptr_t *p, intptr_t o, intptr_t n)
{
	return cmpxchg(p, o, n);
}

static void lit_spin_lock(spinlock_t *l)
{
	spin_lock(l);
}

static void lit_spin_unlock(spinlock_t *l)
{
	spin_unlock(l);
}

static int lit_spin_trylock(spinlock_t *l)
{
	return spin_trylock(l);
}

static int lit_spin_is_locked(spinlock_t *l)
{
	return spin_is_locked(l);
}

/*
 * A read-side section begins at a step of its own.  kernel/rcu.c's
 * rcu_read_lock is no yield point: called right after an access, it
 * would begin the section in the same step as that access, and no grace
 * period could begin between them -- "WRITE_ONCE(*x, 1);
 * rcu_read_unlock(); rcu_read_lock(); r = READ_ONCE(*y)" could never
 * see a synchronize_rcu that began after the store but before the
 * second section, which LKMM (and a real CPU) allow.  The yield point
 * lets the section begin as late as just before the access after it;
 * a section's end needs none (ending at once is the weaker side: a
 * grace period begun later waits for less).
 */
static void lit_rcu_read_lock(void)
{
	PR_YIELD("rcu_read_lock");
	rcu_read_lock();
}

static int lit_srcu_read_lock(struct srcu_struct *sp)
{
	PR_YIELD("srcu_read_lock");
	return srcu_read_lock(sp);
}

static void lit_smp_mb(void)
{
	smp_mb();
}

static void lit_smp_rmb(void)
{
	smp_rmb();
}

static void lit_smp_wmb(void)
{
	smp_wmb();
}

/* Which argument of primitive @idx names its location (atomic_add(i, v):
 * the second); -1 for the fences and RCU primitives, which have none. */
int lit_prim_loc_arg(int idx)
{
	switch (idx) {
	case P_ATOMIC_ADD: case P_ATOMIC_SUB: case P_ATOMIC_ADD_RETURN:
	case P_ATOMIC_SUB_RETURN: case P_ATOMIC_FETCH_ADD:
	case P_ATOMIC_FETCH_SUB: case P_ATOMIC_SUB_AND_TEST:
		return 1;
	case P_MB: case P_RMB: case P_WMB: case P_BARRIER: case P_RCU_LOCK:
	case P_RCU_UNLOCK: case P_SYNC_RCU:
		return -1;
	}
	return 0;
}

/* The atomic_t operations, one function each so sites name them. */
static int lit_atomic_read(atomic_t *v) { return atomic_read(v); }
static void lit_atomic_set(atomic_t *v, int i) { atomic_set(v, i); }
static void lit_atomic_add(atomic_t *v, int i) { atomic_add(i, v); }
static int lit_atomic_add_return(atomic_t *v, int i) { return atomic_add_return(i, v); }
static int lit_atomic_cmpxchg(atomic_t *v, int o, int n) { return atomic_cmpxchg(v, o, n); }
static int lit_atomic_xchg(atomic_t *v, int n) { return atomic_xchg(v, n); }
static int lit_atomic_add_unless(atomic_t *v, int a, int u) { return atomic_add_unless(v, a, u); }

static int returns_load(int idx);
static intptr_t call(struct litmus *l, int proc, const struct lit_expr *e,
		     const intptr_t *a, struct lit_cell *c);

intptr_t lit_prim_call(struct litmus *l, int proc, intptr_t *regs,
		       const struct lit_expr *e)
{
	intptr_t a[LIT_MAX_ARGS] = { 0 };
	uint32_t t[LIT_MAX_ARGS] = { 0 };
	struct lit_cell *c = NULL;
	int pos = -1;		/* the argument that is the location */
	intptr_t v;

	for (int i = 0; i < e->nargs; i++) {
		uint32_t saved = lit_dep_begin(proc);

		a[i] = lit_eval(l, proc, regs, e->args[i]);
		t[i] = lit_dep_end(proc, saved);
	}
	pos = lit_prim_loc_arg(e->idx);
	if (pos >= 0) {
		c = lit_cell_of(l, proc, a[pos]);
		/* An address dependency (interp.c); a store performed early
		 * gets it where it stands (reorder.c). */
		if (pr_mem_on && !lit_lb_now[proc])
			pr_mem_dep(t[pos]);
	}
	v = call(l, proc, e, a, c);
	/* The value a load returns is that of the value it read. */
	if (pr_mem_on && returns_load(e->idx))
		lit_dep_value(proc, pr_mem_last_time());
	return v;
}

int lit_prim_loads(int code)
{
	return returns_load(code);
}

void lit_prim_load_obj(int code, struct lit_cell *c, const void **obj,
		       unsigned *size)
{
	if (code == P_ATOMIC_READ) {
		*obj = &c->a.counter;
		*size = sizeof(c->a.counter);
	} else {
		*obj = &c->v;
		*size = sizeof(c->v);
	}
}

/* Primitives whose result is a value loaded from memory. */
static int returns_load(int idx)
{
	switch (idx) {
	case P_READ_ONCE: case P_LOAD_ACQUIRE: case P_RCU_DEREF:
	case P_ATOMIC_READ:
		return 1;
	}
	return 0;
}

static intptr_t call(struct litmus *l, int proc, const struct lit_expr *e,
		     const intptr_t *a, struct lit_cell *c)
{
	(void)l;
	(void)proc;
	switch (e->idx) {
	case P_READ_ONCE: return lit_read_once(&c->v);
	case P_WRITE_ONCE: lit_write_once(&c->v, a[1]); return 0;
	case P_LOAD_ACQUIRE: return smp_load_acquire(&c->v);
	case P_STORE_RELEASE: smp_store_release(&c->v, a[1]); return 0;
	case P_RCU_DEREF: return lit_rcu_dereference(&c->v);
	case P_RCU_ASSIGN: lit_rcu_assign_pointer(&c->v, a[1]); return 0;
	case P_MB: lit_smp_mb(); return 0;
	case P_RMB: lit_smp_rmb(); return 0;
	case P_WMB: lit_smp_wmb(); return 0;
	case P_BARRIER: barrier(); return 0;
	case P_RCU_LOCK: lit_rcu_read_lock(); return 0;
	case P_RCU_UNLOCK: rcu_read_unlock(); return 0;
	case P_SYNC_RCU: synchronize_rcu(); return 0;
	case P_SPIN_LOCK: lit_spin_lock(&c->lock); return 0;
	case P_SPIN_UNLOCK: lit_spin_unlock(&c->lock); return 0;
	case P_SPIN_TRYLOCK: return lit_spin_trylock(&c->lock);
	case P_SPIN_IS_LOCKED: return lit_spin_is_locked(&c->lock);
	case P_XCHG: return lit_xchg(&c->v, a[1]);
	case P_CMPXCHG: return lit_cmpxchg(&c->v, a[1], a[2]);
	case P_ATOMIC_READ: return lit_atomic_read(&c->a);
	case P_ATOMIC_SET: lit_atomic_set(&c->a, (int)a[1]); return 0;
	case P_ATOMIC_ADD: lit_atomic_add(&c->a, (int)a[0]); return 0;
	case P_ATOMIC_SUB: lit_atomic_add(&c->a, -(int)a[0]); return 0;
	case P_ATOMIC_INC: lit_atomic_add(&c->a, 1); return 0;
	case P_ATOMIC_DEC: lit_atomic_add(&c->a, -1); return 0;
	case P_ATOMIC_ADD_RETURN: return lit_atomic_add_return(&c->a, (int)a[0]);
	case P_ATOMIC_SUB_RETURN: return lit_atomic_add_return(&c->a, -(int)a[0]);
	case P_ATOMIC_INC_RETURN: return lit_atomic_add_return(&c->a, 1);
	case P_ATOMIC_DEC_RETURN: return lit_atomic_add_return(&c->a, -1);
	case P_ATOMIC_FETCH_ADD:
		return lit_atomic_add_return(&c->a, (int)a[0]) - (int)a[0];
	case P_ATOMIC_FETCH_SUB:
		return lit_atomic_add_return(&c->a, -(int)a[0]) + (int)a[0];
	case P_ATOMIC_FETCH_INC: return lit_atomic_add_return(&c->a, 1) - 1;
	case P_ATOMIC_FETCH_DEC: return lit_atomic_add_return(&c->a, -1) + 1;
	case P_ATOMIC_INC_AND_TEST: return lit_atomic_add_return(&c->a, 1) == 0;
	case P_ATOMIC_DEC_AND_TEST: return lit_atomic_add_return(&c->a, -1) == 0;
	case P_ATOMIC_SUB_AND_TEST:
		return lit_atomic_add_return(&c->a, -(int)a[0]) == 0;
	case P_ATOMIC_CMPXCHG:
		return lit_atomic_cmpxchg(&c->a, (int)a[1], (int)a[2]);
	case P_ATOMIC_XCHG: return lit_atomic_xchg(&c->a, (int)a[1]);
	case P_ATOMIC_ADD_UNLESS:
		return lit_atomic_add_unless(&c->a, (int)a[1], (int)a[2]);
	case P_ATOMIC_INC_NOT_ZERO: return lit_atomic_add_unless(&c->a, 1, 0);
	case P_SRCU_LOCK: return lit_srcu_read_lock(&c->srcu);
	case P_SRCU_UNLOCK: srcu_read_unlock(&c->srcu, (int)a[1]); return 0;
	case P_SYNC_SRCU: synchronize_srcu(&c->srcu); return 0;
	}
	return 0;
}
