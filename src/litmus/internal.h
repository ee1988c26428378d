/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the litmus room's files share: tokens, the syntax
 * tree of the process bodies, locations, the condition, and the parser's
 * state.
 */
#ifndef PAGERACE_LITMUS_INTERNAL_H
#define PAGERACE_LITMUS_INTERNAL_H

#include <setjmp.h>
#include <stdint.h>
#include "litmus/litmus.h"

#define LIT_MAX_PROCS	32	/* P0 .. P31: contexts (PR_MAX_CTX) */
#define LIT_MAX_LOCS	64	/* shared locations */
#define LIT_MAX_REGS	32	/* registers (and parameters) per process */
#define LIT_MAX_ARGS	4
#define LIT_MAX_OBS	64	/* values a final state records */
#define LIT_MAX_OUTCOMES (1 << 20)	/* distinct final states */
#define LIT_MAX_DEPTH	64	/* nesting of expressions and statements */
#define LIT_NAME	48

/* ---- tokens (lexer.c) ---- */
enum lit_tok { T_EOF, T_IDENT, T_NUM, T_PUNCT };

struct lit_token {
	enum lit_tok kind;
	char text[LIT_NAME];	/* identifier or punctuation */
	long long num;
	int line, col;
	size_t off, end;	/* byte offsets in the text: start, past the end */
};

struct lit_lexer {
	const char *name, *text;
	size_t len, pos;
	int line, col;
	int depth;		/* braces open: OCaml comments only at 0 */
	int init;		/* in the init block: OCaml comments there too */
	const char *result;	/* after "Result:" in a comment, or NULL */
	size_t result_len;
};

/* ---- locations ---- */
enum lit_loc_type { LOC_INT, LOC_ATOMIC, LOC_SPINLOCK, LOC_SRCU };

struct lit_loc {
	char name[LIT_NAME];
	enum lit_loc_type type;
	int init_kind;		/* 0 number, 1 address of location init_val */
	long long init_val;
};

/* A value as a final state records it: a number or a location's address. */
struct lit_val {
	int is_addr;
	long long v;		/* number, or location index */
};

/* ---- expressions and statements ---- */
enum lit_ex {
	EX_NUM, EX_REG, EX_LOC,	/* EX_LOC: the address of location idx */
	EX_UN, EX_BIN, EX_ASSIGN, EX_CALL, EX_DEREF, EX_COND,
};

struct lit_expr {
	enum lit_ex kind;
	int op;			/* EX_UN/EX_BIN: operator (a punct code) */
	int line, col;
	long long num;
	int idx;		/* register, location, or primitive */
	int nargs;
	struct lit_expr *a, *b, *c;
	struct lit_expr *args[LIT_MAX_ARGS];
};

enum lit_st { ST_EXPR, ST_IF, ST_BLOCK, ST_NOP };

/*
 * What a statement is to the load-buffering rules (reorder.c), set by
 * lit_lb_classify once a test is parsed.
 */
enum lit_lbc {
	LBC_OTHER = 0,		/* anything else: nothing moves past it */
	LBC_NOP,		/* nothing at all */
	LBC_PURE,		/* register arithmetic: "r = e", no access */
	LBC_LOAD,		/* "r = READ_ONCE(*a)", "r = *a", rcu_dereference */
	LBC_STORE,		/* "WRITE_ONCE(*a, v)", "*a = v" */
	LBC_RMB,		/* smp_rmb() (nothing passes it: reorder.c) */
	LBC_WMB,		/* smp_wmb(): stores against stores only */
	LBC_IF,			/* if/else on an access-free condition */
	LBC_RCU_UNLOCK,		/* rcu_read_unlock(): a store may move into
				 * the section (reorder.c, rule 4) */
	LBC_RCU_LOCK,		/* rcu_read_lock(): goes early with the
				 * store (reorder.c, rule 5) */
};

struct lit_stmt {
	enum lit_st kind;
	struct lit_expr *e;
	struct lit_stmt *then, *els;
	struct lit_stmt **body;
	int n;
	/* reorder.c: class, address and value (access-free expressions),
	 * the registers they read (bit r), the register it sets or -1 */
	uint8_t lbc;
	int8_t dreg;
	struct lit_expr *addr, *val;
	uint64_t areads, vreads;
};

struct lit_proc {
	char regname[LIT_MAX_REGS][LIT_NAME];
	int nregs;
	/* initial values: parameters hold their location's address */
	struct lit_val reginit[LIT_MAX_REGS];
	struct lit_stmt *body;
	int line;
};

/* ---- the condition ---- */
enum lit_cx { CX_TRUE, CX_FALSE, CX_EQ, CX_NE, CX_AND, CX_OR, CX_NOT };

/* An operand: a register of a process, a location's value, or a constant. */
struct lit_operand {
	int kind;		/* 0 constant, 1 register, 2 location value */
	struct lit_val val;	/* constant */
	int proc, reg;		/* register */
	int loc;		/* location */
	int obs;		/* index into the final state (kinds 1, 2) */
};

struct lit_cond {
	enum lit_cx kind;
	struct lit_operand l, r;
	struct lit_cond *a, *b;
};

/* What a final state records: registers and locations, in this order. */
struct lit_obs {
	int is_reg;
	int proc, reg, loc;
};

struct lit_outcome {
	struct lit_val v[LIT_MAX_OBS];
	uint64_t count;
	int holds;
};

struct litmus {
	char *file;
	char name[128];
	char result[64];
	enum lit_expect expect;
	int datarace;
	enum lit_quant quant;
	char *cond_text;
	struct lit_cond *cond, *filter;
	struct lit_loc loc[LIT_MAX_LOCS];
	int nlocs;
	struct lit_proc proc[LIT_MAX_PROCS];
	int nprocs;
	struct lit_obs obs[LIT_MAX_OBS];
	int nobs;
	/* every node, for freeing */
	void **alloc;
	size_t nalloc, capalloc;
	/* the outcome set, sorted by value vector */
	struct lit_outcome *out;
	size_t nout, capout;
	uint64_t runs, hits, filtered;
};

/* ---- parsing ---- */
struct lit_parser {
	struct litmus *l;
	struct lit_lexer lx;
	struct lit_token tok, peek;
	int has_peek;
	struct lit_error *err;
	jmp_buf fail;
	int proc;		/* process being parsed, -1: none */
	struct lit_reginit *ri;	/* the init block's register values */
	size_t nri;
	int depth;
	size_t last_end;	/* end of the token before tok */
};

void lit_lex_init(struct lit_lexer *lx, const char *name, const char *text,
		  size_t len, size_t start, int line);
/* The next token; -1 with a message in @msg on a bad character. */
int lit_lex_next(struct lit_lexer *lx, struct lit_token *t, char *msg,
		 size_t msglen);

/* tokens.c: the token stream, errors and allocation of every part. */
void lit_next(struct lit_parser *p);
const struct lit_token *lit_peek(struct lit_parser *p);
int lit_is(const struct lit_token *t, const char *punct);
int lit_is_ident(const struct lit_token *t, const char *word);
void lit_expect(struct lit_parser *p, const char *punct);
__attribute__((noreturn, format(printf, 3, 4)))
void lit_fail_at(struct lit_parser *p, const struct lit_token *t,
		 const char *fmt, ...);
__attribute__((noreturn))
void lit_unsupported(struct lit_parser *p, const struct lit_token *t,
		     const char *construct);
void *lit_alloc(struct lit_parser *p, size_t size);
/* Fill @p's error at @line/@col (the line copied for the caret). */
void lit_set_error(struct lit_parser *p, int line, int col, const char *msg);

/* Is @t the start of a type name; parse one ("intptr_t **"). */
int lit_is_type(struct lit_parser *p, const struct lit_token *t);
/* Returns the number of '*'s; *@type the location type it names. */
int lit_parse_type(struct lit_parser *p, enum lit_loc_type *type);

int lit_loc_find(const struct litmus *l, const char *name);
int lit_loc_add(struct lit_parser *p, const struct lit_token *at,
		const char *name, enum lit_loc_type type);
int lit_reg_find(const struct lit_proc *pr, const char *name);
int lit_reg_add(struct lit_parser *p, const struct lit_token *at,
		struct lit_proc *pr, const char *name);

/* body.c: a process body from its '{' through its '}'. */
struct lit_stmt *lit_parse_block(struct lit_parser *p);

/* cond.c: the final condition and locations/filter clauses. */
void lit_parse_final(struct lit_parser *p);
int lit_cond_eval(const struct lit_cond *c, const struct lit_val *state);
int lit_val_cmp(const struct lit_val *a, const struct lit_val *b);
void lit_val_text(const struct litmus *l, const struct lit_val *v, char *buf,
		  size_t len);

/* prims.c: the kernel primitives a body may call, by code. */
enum lit_prim_code {
	P_READ_ONCE, P_WRITE_ONCE, P_LOAD_ACQUIRE, P_STORE_RELEASE,
	P_RCU_DEREF, P_RCU_ASSIGN, P_MB, P_RMB, P_WMB, P_BARRIER,
	P_RCU_LOCK, P_RCU_UNLOCK, P_SYNC_RCU,
	P_SPIN_LOCK, P_SPIN_UNLOCK, P_SPIN_TRYLOCK, P_SPIN_IS_LOCKED,
	P_XCHG, P_CMPXCHG,
	P_ATOMIC_READ, P_ATOMIC_SET, P_ATOMIC_ADD, P_ATOMIC_SUB,
	P_ATOMIC_INC, P_ATOMIC_DEC, P_ATOMIC_ADD_RETURN, P_ATOMIC_SUB_RETURN,
	P_ATOMIC_INC_RETURN, P_ATOMIC_DEC_RETURN, P_ATOMIC_FETCH_ADD,
	P_ATOMIC_FETCH_SUB, P_ATOMIC_FETCH_INC, P_ATOMIC_FETCH_DEC,
	P_ATOMIC_INC_AND_TEST, P_ATOMIC_DEC_AND_TEST, P_ATOMIC_SUB_AND_TEST,
	P_ATOMIC_CMPXCHG, P_ATOMIC_XCHG, P_ATOMIC_ADD_UNLESS,
	P_ATOMIC_INC_NOT_ZERO, P_SRCU_LOCK, P_SRCU_UNLOCK, P_SYNC_SRCU,
};

/* A primitive's flavour under LKMM (lit_expr.op of its call): the
 * ordering of an RMW (linux-kernel.def's {mb}, {once}, {acquire},
 * {release}), or for smp_mb__before_atomic and friends their fence
 * (memory/graph.h, enum ge_fence; 0 is GF_MB). */
enum lit_lk { LK_MB = 0, LK_ONCE, LK_ACQUIRE, LK_RELEASE };

struct lit_prim {
	const char *name;
	int nargs;
	int lvalue;		/* first argument is an lvalue (READ_ONCE(*x)) */
	int code;		/* enum lit_prim_code */
	int lk;			/* enum lit_lk, or a fence's ge_fence */
};
const struct lit_prim *lit_prim_find(const char *name);
/* What primitive @code is to reorder.c: LBC_LOAD (a relaxed load),
 * LBC_STORE (a relaxed store), LBC_RMB, LBC_WMB, else LBC_OTHER. */
int lit_prim_class(int code);

/* interp.c */
intptr_t lit_eval(struct litmus *l, int proc, intptr_t *regs,
		  const struct lit_expr *e);
/*
 * interp.c: address dependencies under weak.  begin: start collecting
 * the memory times an expression's value is computed from (returns what
 * end needs); end: their maximum, also added to the enclosing one's;
 * value: a loaded value of time @t flows into the current expression.
 */
uint32_t lit_dep_begin(int proc);
uint32_t lit_dep_end(int proc, uint32_t saved);
void lit_dep_value(int proc, uint32_t t);
/* prims.c: perform primitive @e (a call) with evaluated arguments. */
intptr_t lit_prim_call(struct litmus *l, int proc, intptr_t *regs,
		       const struct lit_expr *e);
/* interp.c: a location's cell from an address value (fails the run). */
struct lit_cell;
struct lit_cell *lit_cell_of(struct litmus *l, int proc, intptr_t addr);

/* interp.c: an access-free expression's value now (reorder.c); -1 if
 * it cannot be computed without failing. */
int lit_eval_pure(int proc, const struct lit_expr *e, intptr_t *out);
/* interp.c: is @addr a location's address (what "&x" evaluates to)? */
int lit_is_location(const struct litmus *l, intptr_t addr);
/* interp.c: the dependency collector's value saved by lit_dep_begin. */
void lit_dep_restore(int proc, uint32_t saved);
/* interp.c: run one statement of @proc (reorder.c runs a store early). */
void lit_exec(struct litmus *l, int proc, const struct lit_stmt *s);

/*
 * reorder.c: load buffering under weak.  Before a load statement a
 * process performs the later stores that LKMM's preserved program order
 * does not keep after it (the rules are there).
 */
void lit_lb_classify(struct litmus *l);
/* Every run (setup): on under weak only; forget what moved. */
void lit_lb_reset(struct litmus *l);
/* Is load buffering on in this run? */
extern int lit_lb_on;
/* Set while @proc performs a store early: its address dependency is
 * applied later, where it stands (lit_lb_skip). */
extern uint8_t lit_lb_now[LIT_MAX_PROCS];
/* Statement @i of @blk is a load statement: perform early what may go. */
void lit_lb_early(struct litmus *l, int proc, const struct lit_stmt *blk,
		  int i);
/* Was @s performed early (then skip it, once)? */
int lit_lb_skip(int proc, const struct lit_stmt *s);
/* interp.c: the memory time register @r's value was computed from. */
uint32_t lit_reg_time(int proc, int r);

/* interp.c: "0:r0=1; x=2", a state as the condition reads it. */
void litmus_state_text(const struct litmus *l, const struct lit_val *st,
		       char *buf, size_t len);

/* interp.c: the process context @ctx runs, -1 if none. */
int lit_proc_of_ctx(int ctx);
/* interp.c: a constant or a location's address as the program sees it. */
intptr_t lit_val_value(const struct lit_val *v);
/* interp.c: location @loc's address as the program sees it; a value as
 * a final state records it (an address becomes its location). */
intptr_t lit_loc_address(int loc);
int lit_binop(int op, intptr_t a, intptr_t b, intptr_t *out);
int lit_prim_loc_arg(int idx);
struct lit_val lit_canonical(const struct litmus *l, intptr_t v);
/* prims.c: does primitive @code return the value it loads?  What it
 * loads at cell @c (the field and its size)? */
int lit_prim_loads(int code);
void lit_prim_load_obj(int code, struct lit_cell *c, const void **obj,
		       unsigned *size);
/* interp.c: does @e load one value, at an access-free address? */
int lit_direct_load(const struct lit_expr *e);
/* interp.c: the cell at location address @addr, NULL if none. */
struct lit_cell *lit_cell_at(const struct litmus *l, intptr_t addr);
/* reorder.c: no memory access in @e (registers, constants, addresses). */
int lit_access_free(const struct lit_expr *e);
/*
 * witness.c: the register process P's next access loads into, while it
 * is one the condition wants a value of (-1 otherwise); does the
 * condition want a value of register @reg of @proc?
 */
extern int8_t lit_wit_reg[LIT_MAX_PROCS];
int lit_wit_wants(int proc, int reg);
/* Every run (setup); process @proc performed wanted load @e. */
void lit_wit_reset(const struct litmus *l);
void lit_wit_done(int proc, const struct lit_expr *e);
/* Process @proc performed statement @s (a store the scorer counts). */
void lit_wit_stored(int proc, const struct lit_stmt *s);
/* Would the condition accept @v in register @reg of @proc (wanted)? */
int lit_wit_good(int proc, int reg, intptr_t v);
/*
 * interp.c: the goal search (litmus_goal): processes cut this run, a
 * process being cut once a wanted register got a value the condition
 * rejects.
 */
extern int lit_goal_on;
extern uint8_t lit_cut[LIT_MAX_PROCS];

/* outcome.c */
void lit_outcome_record(struct litmus *l, const struct lit_val *state,
			int holds);

#endif /* PAGERACE_LITMUS_INTERNAL_H */
