/* SPDX-License-Identifier: MIT */
/*
 * parse.h - the parser's internals, shared by parser.c (files, headers,
 * init, bodies) and expr.c (conditions and their types).
 */
#ifndef PAGERACE_SCENARIO_PARSE_H
#define PAGERACE_SCENARIO_PARSE_H

#include <setjmp.h>
#include "scenario/scenario.h"

struct parser {
	struct scn_lexer lx;
	struct scn_token tok;		/* the current token */
	struct scenario *s;
	struct scn_error *err;
	jmp_buf fail;
	int depth;			/* expression nesting */
	int dynamic;			/* operations a run executes, at most */
};

/* Record the error at @line:@col and unwind to scenario_parse. */
__attribute__((noreturn, format(printf, 4, 5)))
void scn_fail_at(struct parser *p, int line, int col, const char *fmt, ...);
#define scn_fail(p, ...) scn_fail_at((p), (p)->tok.line, (p)->tok.col, __VA_ARGS__)

void scn_advance(struct parser *p);
/* The current token, quoted for a message ("'foo'", "end of line"). */
const char *scn_found(const struct parser *p, char *buf, size_t len);

/* Token helpers: each fails with a message naming what was expected. */
long long scn_number(struct parser *p, long long lo, long long hi,
		     const char *what);
void scn_ident(struct parser *p, const char *what, char *out, size_t len);
void scn_string(struct parser *p, const char *what, char *out, size_t len);
void scn_end_stmt(struct parser *p, const char *after);
void scn_skip_blank(struct parser *p);
void scn_open_brace(struct parser *p, const char *what);
/* A header line given twice is an error naming the first. */
void scn_once(struct parser *p, int *seen_line, const char *key,
	      const struct scn_token *t);

/* header.c: header lines and the init block. */
void scn_parse_protocol(struct parser *p);
void scn_parse_memory(struct parser *p);
void scn_parse_knobs(struct parser *p);
void scn_parse_expect(struct parser *p);
void scn_parse_explore(struct parser *p);
void scn_parse_init(struct parser *p, int *seen);

/* m0..m3 -> 0..3, swap -> -1; else an error with a suggestion. */
int scn_parse_mapping(struct parser *p);
/* "r0".."r15" -> 0..15, -1 if @name is not register-shaped. */
int scn_reg_index(struct parser *p, const char *name);
/* Index of init name @name, or -1. */
int scn_name_index(const struct scenario *s, const char *name);

/*
 * Parse a condition; @body is the CPU or irq body it appears in (its own
 * registers are "rN"), NULL in an outcome (registers are "CPU:rN").
 * Returns the root node index.  Type-checking of outcome conditions waits
 * for scn_check_outcome, when every body is known.
 */
int scn_parse_cond(struct parser *p, struct scn_body *body);
void scn_check_cond(struct parser *p, int root, struct scn_body *body);

#endif /* PAGERACE_SCENARIO_PARSE_H */
