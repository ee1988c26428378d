/* SPDX-License-Identifier: MIT */
/*
 * scenario.h - scenario files: a small language for page-cache workloads
 * (doc/scenario-format.md, pagerace-scenario(5)).
 *
 *	lexer.c    bytes -> tokens with line and column
 *	parser.c   tokens -> struct scenario (header, init, bodies, outcomes),
 *		   every error "FILE:LINE:COL: error: MESSAGE"
 *	ops.c      the operation registry: every model operation a body may
 *		   call, with its argument types, result and doc string
 *	interp.c   struct scenario -> struct pr_program: setup builds the
 *		   initial state, each CPU runs its body, finish checks
 *		   cleanliness and classifies the outcome
 *	diag.c     error rendering (line and caret), nearest-name hints
 *
 * Nothing here prints: errors are returned as text for cli/ to print.
 */
#ifndef PAGERACE_SCENARIO_H
#define PAGERACE_SCENARIO_H

#include <stddef.h>
#include <stdint.h>
#include "model/variant.h"
#include "runtime/run.h"

struct page;
struct address_space;

/* Limits: exceeding one is an error at the offending token. */
#define SCN_MAX_FILE		(1u << 20)	/* bytes */
#define SCN_MAX_CPUS		32	/* + the RCU daemon: PR_MAX_CTX */
#define SCN_MAX_IRQS		16
#define SCN_NREGS		16		/* r0 .. r15 per body */
#define SCN_MAX_NAMES		16		/* pages named in init */
#define SCN_MAX_INIT		64		/* init statements: one a page frame */
#define SCN_MAX_STMTS		4096		/* statements in all bodies */
#define SCN_MAX_NEST		8		/* loops inside loops */
#define SCN_MAX_DYNAMIC		1000		/* operations one run executes */
#define SCN_MAX_LOOP		1000		/* one loop's count */
#define SCN_MAX_EXPR		4096		/* expression nodes */
#define SCN_MAX_EXPR_DEPTH	32
#define SCN_MAX_OUTCOMES	64
#define SCN_MAX_GANG		16		/* pages per gang lookup */
#define SCN_MAX_INDEX		63		/* largest page index / swap entry */
#define SCN_NAME_LEN		48

/* The first error found: where, and what. */
struct scn_error {
	char file[256];
	int line, col;			/* 1-based; 0: no position */
	char msg[256];
	char text[256];			/* the offending line, for the caret */
};

/* Argument and value types of operations and expressions. */
enum scn_type {
	SCN_T_NONE,
	SCN_T_MAPPING,		/* m0 .. m3, swap */
	SCN_T_INDEX,		/* a page index or swap entry: 0 .. SCN_MAX_INDEX */
	SCN_T_COUNT,		/* a small count: 1 .. SCN_MAX_GANG */
	SCN_T_PAGE,		/* a register or init name holding a page */
	SCN_T_REF,		/* a page or a gang of pages */
	SCN_T_INT,		/* a number (results, expressions) */
	SCN_T_GANG,		/* the pages of a gang lookup */
	SCN_T_TAG,		/* a radix-tree tag: dirty or writeback */
};

/* Most arguments an operation takes. */
#define SCN_MAX_ARGS	4

/* Runtime value of a register or an init name. */
enum { SCN_V_REF = 1, SCN_V_LOCK = 2, SCN_V_HELD = 4 };
struct scn_value {
	enum scn_type type;	/* SCN_T_NONE (unset), _INT, _PAGE, _GANG */
	unsigned flags;		/* SCN_V_*: what the scenario still owns */
	long long i;
	struct page *page;	/* SCN_T_PAGE; NULL: null */
	struct page *gang[SCN_MAX_GANG];
	unsigned n;		/* SCN_T_GANG: pages in @gang */
	int line, col;		/* where it was last assigned */
};

struct scn_stmt;
struct scn_op_arg {
	enum scn_type type;
	struct address_space *mapping;	/* SCN_T_MAPPING (resolved at run) */
	int mapping_id;			/* 0..3, -1: swap */
	unsigned long n;		/* SCN_T_INDEX / SCN_T_COUNT */
	struct scn_value *v;		/* SCN_T_PAGE / SCN_T_REF */
	const char *vname;		/* "r0", "victim": for messages */
};

typedef void (*scn_op_fn)(const struct scn_stmt *s, struct scn_op_arg *a,
			  struct scn_value *out);

struct scn_op {
	const char *name;
	int nargs;
	enum scn_type arg[SCN_MAX_ARGS];
	const char *argnames;		/* "MAPPING INDEX", for docs */
	enum scn_type result;		/* SCN_T_NONE, _INT, _PAGE, _GANG */
	int must_assign;		/* result carries a reference or lock */
	int file_only;			/* its MAPPING may not be swap */
	const char *doc;
	scn_op_fn fn;
};

/* The registry (ops.c). */
const struct scn_op *scn_op_find(const char *name);
const struct scn_op *scn_op_at(size_t i);	/* NULL past the end */
const char *scn_type_name(enum scn_type t);
/*
 * Fail the run with kind "scenario", message "LINE:COL: what": a body
 * misused what it holds.  Not a verdict on the model: explore reports it
 * as FILE:LINE:COL: error: and exits 2 (scenario_error_verdict).
 */
__attribute__((noreturn, format(printf, 2, 3)))
void scn_runtime_error(const struct scn_stmt *s, const char *fmt, ...);
/* The verdict kind of scn_runtime_error (and of a body's leak). */
#define SCN_ERROR_KIND	"scenario"


/* Expressions (assert conditions and outcomes). */
enum scn_expr_kind {
	SCN_E_INT, SCN_E_NULL, SCN_E_REG, SCN_E_NAME, SCN_E_SLOT,
	SCN_E_FUNC, SCN_E_NRPAGES, SCN_E_NRFREE,
	SCN_E_NOT, SCN_E_AND, SCN_E_OR, SCN_E_CMP,
};
enum scn_cmp { SCN_EQ, SCN_NE, SCN_LT, SCN_LE, SCN_GT, SCN_GE };
enum scn_func { SCN_F_COUNT, SCN_F_INDEX, SCN_F_CACHED, SCN_F_DIRTY,
		SCN_F_LOCKED, SCN_F_UPTODATE, SCN_F_FREE };

struct scn_expr {
	enum scn_expr_kind kind;
	enum scn_type type;		/* SCN_T_INT or SCN_T_PAGE */
	long long i;			/* INT value, CMP op, FUNC id */
	int cpu, reg;			/* REG: cpu (-1: own body), register */
	int name;			/* NAME: init name index */
	int mapping_id;			/* SLOT, NRPAGES */
	unsigned long index;		/* SLOT */
	int a, b;			/* operand node indexes, -1: none */
	int line, col;			/* where it starts */
};

enum scn_stmt_kind { SCN_S_OP, SCN_S_LOOP, SCN_S_ASSERT };

/* A block's statements are siblings in the pool, linked by ->next. */
struct scn_block {
	int first;			/* pool index, -1: empty */
	int n;
};

struct scn_stmt {
	enum scn_stmt_kind kind;
	int line, col;
	int next;			/* next sibling in the pool, -1: last */
	const struct scn_op *op;	/* SCN_S_OP */
	int dst;			/* register, -1: none */
	struct scn_op_arg arg[SCN_MAX_ARGS];	/* parsed: mapping_id, n; name or reg */
	int arg_reg[SCN_MAX_ARGS];	/* register index, -1: not a register */
	int arg_name[SCN_MAX_ARGS];	/* init name index, -1: not a name */
	unsigned long count;		/* SCN_S_LOOP */
	struct scn_block body;		/* SCN_S_LOOP */
	int cond;			/* SCN_S_ASSERT: expression index */
	char desc[128];			/* SCN_S_ASSERT: optional text */
};

struct scn_body {
	int line;
	int cpu;			/* the CPU it runs on */
	int count;			/* irq: deliveries at most */
	char name[SCN_NAME_LEN];	/* "cpu0", "irq0" */
	struct scn_block block;
	enum scn_type regtype[SCN_NREGS];	/* static type, by text order */
	struct scn_value regs[SCN_NREGS];	/* runtime */
	struct scenario *scn;
};

enum scn_init_kind { SCN_I_CACHE, SCN_I_SWAP, SCN_I_LOOSE };

struct scn_init {
	enum scn_init_kind kind;
	int line, col;
	int mapping_id;
	unsigned long index;		/* index or swap entry */
	unsigned long flags;		/* PG_* bits to set */
	int name;			/* init name index, -1: unnamed */
};

enum scn_class { SCN_ACCEPTABLE, SCN_INTERESTING, SCN_FORBIDDEN };

struct scn_outcome {
	enum scn_class cls;
	int line;
	int cond;
	char desc[160];
	uint64_t seen;			/* runs classified here (this process) */
};

/* Exploration defaults: each set only if the file names it. */
struct scn_explore {
	char strategy[SCN_NAME_LEN];		/* "" : not set */
	uint64_t runs, seed, max_steps, pct_steps;	/* 0: not set */
	int depth;			/* 0: not set */
	int has_seed;
	int bound, has_bound;		/* dfs's preemption bound */
};

struct scenario {
	char file[256];
	char name[SCN_NAME_LEN];
	char summary[160];
	struct pr_variant variant;
	int has_protocol, has_knobs, has_shift;
	int memory, has_memory;		/* "memory weak": memory/memory.h */
	int nr_cpus;
	unsigned long nr_pages;
	int clean;			/* run model_finish (default 1) */
	char expect[SCN_NAME_LEN];		/* verdict kind expected; "" : none */
	int expect_pass;		/* "expect pass" */
	struct scn_explore explore;

	struct scn_init init[SCN_MAX_INIT];
	int ninit;
	char names[SCN_MAX_NAMES][SCN_NAME_LEN];
	struct scn_value namev[SCN_MAX_NAMES];	/* runtime */
	int nnames;

	struct scn_body cpu[SCN_MAX_CPUS];
	struct scn_body irq[SCN_MAX_IRQS];
	int nirqs;

	struct scn_expr *expr;
	int nexpr;
	struct scn_outcome outcome[SCN_MAX_OUTCOMES];
	int noutcomes;
	uint64_t unclassified;		/* runs matching no outcome */

	struct scn_stmt *stmt;		/* all statements, in one pool */
	int nstmts, stmt_cap;
	int expr_cap;
};

/*
 * Parse @len bytes of @text (no NUL needed) named @file.  Returns a new
 * scenario, or NULL with @err filled (its line and caret included).  Never
 * crashes on any input; memory is proportional to the input.
 */
struct scenario *scenario_parse(const char *file, const char *text,
				size_t len, struct scn_error *err);

/*
 * Statically, at parse time (lint.c): in each body's straight-line code
 * (loops run twice), a register assigned a reference while it still holds
 * one, a put of a register already put, a body ending with a reference it
 * took.  0, or -1 with @err filled.
 */
int scenario_lint(const struct scenario *s, const char *text, size_t len,
		  struct scn_error *err);
void scenario_free(struct scenario *s);

/* Read a whole file (at most SCN_MAX_FILE bytes); NULL + @err on failure. */
char *scenario_read_file(const char *path, size_t *len, struct scn_error *err);

/* "FILE:LINE:COL: error: MSG\n LINE\n    ^\n" into @buf. */
void scn_error_format(const struct scn_error *e, char *buf, size_t len);

/* The program that runs @s (interp.c); @s must outlive it. */
void scenario_program(struct scenario *s, struct pr_program *out);

/* Set the model variant to the scenario's protocol, knobs and shift. */
void scenario_apply_variant(const struct scenario *s);

/* Outcome counts of the runs so far, reset by scenario_reset_stats. */
void scenario_reset_stats(struct scenario *s);

/* Nearest of @n candidates to @word (edit distance), or NULL if none close. */
const char *scn_nearest(const char *word, const char *const *cand, size_t n);

/* Internal: the lexer. */
enum scn_tok {
	SCN_TK_EOF, SCN_TK_NL, SCN_TK_IDENT, SCN_TK_NUM, SCN_TK_STR,
	SCN_TK_LBRACE, SCN_TK_RBRACE, SCN_TK_LBRACK, SCN_TK_RBRACK,
	SCN_TK_LPAREN, SCN_TK_RPAREN, SCN_TK_ASSIGN, SCN_TK_COLON,
	SCN_TK_COMMA, SCN_TK_SEMI, SCN_TK_EQ, SCN_TK_NE, SCN_TK_LT,
	SCN_TK_LE, SCN_TK_GT, SCN_TK_GE, SCN_TK_AND, SCN_TK_OR, SCN_TK_NOT,
	SCN_TK_ERROR,
};

struct scn_token {
	enum scn_tok kind;
	int line, col;
	long long num;
	char text[256];			/* IDENT / STR contents; ERROR message */
};

struct scn_lexer {
	const char *file;
	const char *buf;
	size_t len, pos;
	int line;
	size_t line_start;
};

void scn_lex_init(struct scn_lexer *lx, const char *file, const char *buf,
		  size_t len);
void scn_lex_next(struct scn_lexer *lx, struct scn_token *t);
const char *scn_tok_name(enum scn_tok k);
/* Copy line @line of the lexer's input (no newline) into @out. */
void scn_lex_line(const struct scn_lexer *lx, int line, char *out, size_t len);

#endif /* PAGERACE_SCENARIO_H */
