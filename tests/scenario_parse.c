/* tests/scenario_parse.c -- the scenario parser: a valid file's contents,
 * and a table of malformed inputs, each with the exact FILE:LINE:COL and
 * message it must be rejected with; plus a deterministic mutation fuzz
 * (no crash, every error well formed). */
#include "scenario/scenario.h"
#include "tap.h"

#include <stdint.h>
#include <string.h>

static const char valid[] =
	"# comment\n"
	"scenario demo\n"
	"protocol merged\n"
	"knobs no-recheck, spec-irq\n"
	"radix-shift 3\n"
	"pages 10\n"
	"init {\n"
	"    m0[1] dirty\n"
	"    v = m0[0]\n"
	"    swap[7]\n"
	"}\n"
	"cpu 0 {\n"
	"    r0 = find_get_page m0 0; put r0\n"
	"    loop 3 { r1 = readahead_probe m0 1 }\n"
	"    assert r1 == 1 \"cached\"\n"
	"}\n"
	"cpu 1 { r0 = shrink v }\n"
	"irq 1 count 2 { r0 = alloc_page; free_page r0 }\n"
	"acceptable 0:r0 != null && count(m0[1]) >= 1 \"found\"\n"
	"forbidden 1:r0 > 1 \"impossible\"\n"
	"expect pass\n"
	"explore strategy pct depth 4 runs 500 seed 9 max-steps 5000\n";

static void test_valid(void)
{
	struct scn_error e;
	struct scenario *s = scenario_parse("demo.scn", valid, strlen(valid), &e);

	ok(s != NULL, "a valid scenario parses (%s)", s ? "" : e.msg);
	if (!s)
		return;
	ok(!strcmp(s->name, "demo") && s->variant.protocol == PROTO_MERGED &&
	   s->variant.radix_map_shift == 3 && s->nr_pages == 10,
	   "header: name, protocol, radix shift, pages");
	ok(s->variant.knobs == (KNOB_NO_RECHECK | KNOB_SPEC_IRQ), "knobs");
	ok(s->ninit == 3 && s->nnames == 1 && !strcmp(s->names[0], "v") &&
	   s->init[0].flags == (1UL << 4), "init: three pages, one named, flags");
	ok(s->nr_cpus == 2 && s->nirqs == 1 && s->irq[0].cpu == 1 &&
	   s->irq[0].count == 2, "two cpus, one irq on cpu 1 delivered twice");
	ok(s->cpu[0].block.n == 4 && s->cpu[0].regtype[0] == SCN_T_PAGE &&
	   s->cpu[0].regtype[1] == SCN_T_INT, "cpu 0: four statements, typed registers");
	ok(s->noutcomes == 2 && s->outcome[1].cls == SCN_FORBIDDEN,
	   "two outcomes, classes");
	ok(s->expect_pass && !strcmp(s->explore.strategy, "pct") &&
	   s->explore.depth == 4 && s->explore.runs == 500 &&
	   s->explore.seed == 9 && s->explore.max_steps == 5000,
	   "expect and explore settings");
	scenario_free(s);
}

static const struct {
	const char *text;
	int line, col;
	const char *msg;	/* a substring of the message */
} bad[] = {
	{ "", 1, 1, "no cpu bodies" },
	{ "cpu 0 { }\nprotocl v2\n", 2, 1, "unknown keyword 'protocl' (did you mean 'protocol'?)" },
	{ "protocol v3\ncpu 0 { }\n", 1, 10, "unknown protocol 'v3' (did you mean 'v2'?)" },
	{ "knobs spec-fre-check\ncpu 0 { }\n", 1, 7, "did you mean 'spec-free-check'?" },
	{ "cpu 0 {\n  r0 = find_get_pgae m0 0\n}\n", 2, 8, "unknown operation 'find_get_pgae' (did you mean 'find_get_page'?)" },
	{ "cpu 0 {\n  r0 = find_get_page m9 0\n}\n", 2, 22, "unknown mapping 'm9'" },
	{ "cpu 0 {\n  r0 = find_get_page m0 64\n}\n", 2, 25, "an index must be from 0 to 63" },
	{ "cpu 0 {\n  find_get_page m0 1\n}\n", 2, 3, "must be released" },
	{ "cpu 0 {\n  put r3\n}\n", 2, 7, "r3 is not set before this line" },
	{ "cpu 0 {\n  r0 = alloc_page\n  r0 = readahead_probe m0 1\n}\n", 3, 3, "r0 holds a page elsewhere" },
	{ "cpu 0 {\n  r16 = alloc_page\n}\n", 2, 3, "no register r16" },
	{ "cpu 0 {\n  r0 = find_get_page m0 0 7\n}\n", 2, 27, "too many arguments" },
	{ "cpu 0 {\n  r0 = find_get_page m0\n}\n", 2, 24, "find_get_page needs 2 arguments" },
	{ "cpu 0 {\n  r0 = add_to_page_cache swap 1\n}\n", 2, 26, "works on m0..m3" },
	{ "cpu 0 {\n  loop 0 { }\n}\n", 2, 8, "a loop count must be from 1 to 1000" },
	{ "cpu 0 {\n  loop 1000 { loop 2 { drain_local_pages } }\n}\n", 2, 15, "more than 1000 operations" },
	{ "cpu 0 {\n", 1, 7, "'{' is never closed" },
	{ "cpu 1 { }\n", 1, 1, "cpu 1 without cpu 0" },
	{ "cpu 0 { }\ncpu 0 { }\n", 2, 1, "cpu 0 has two bodies" },
	{ "cpu 0 { }\ncpus 2\n", 2, 1, "cpus says 2 but the file has 1" },
	{ "cpu 0 { }\nirq 1 { }\n", 2, 1, "irq on cpu 1, which has no body" },
	{ "init {\n  m0[0]\n  m0[0]\n}\ncpu 0 { }\n", 3, 3, "that slot already holds a page (line 2)" },
	{ "init {\n  m0[0] dirt\n}\ncpu 0 { }\n", 2, 9, "unknown page flag 'dirt' (did you mean 'dirty'?)" },
	{ "init {\n  page\n}\ncpu 0 { }\n", 2, 3, "a loose page needs a name" },
	{ "pages 1\ninit {\n  m0[0]\n  m0[1]\n}\ncpu 0 { }\n", 4, 3, "needs 2 pages but the scenario has 1" },
	{ "init { victm = m0[0] }\ncpu 0 { r0 = shrink victim }\n", 2, 21, "unknown page 'victim' (did you mean 'victm'?)" },
	{ "cpu 0 { r0 = alloc_page; free_page r0 }\nacceptable r0 == null \"x\"\n", 2, 12, "which CPU's r0?" },
	{ "cpu 0 { r0 = alloc_page; free_page r0 }\nacceptable 0:r1 == null \"x\"\n", 2, 12, "cpu0 never sets r1" },
	{ "cpu 0 { r0 = alloc_page; free_page r0 }\nacceptable 0:r0 < null \"x\"\n", 2, 17, "pages compare with == and != only" },
	{ "cpu 0 { r0 = alloc_page; free_page r0 }\nacceptable 0:r0 == 1 \"x\"\n", 2, 17, "cannot compare a page with a number" },
	{ "cpu 0 { r0 = alloc_page; free_page r0 }\nacceptable 0:r0 != null\n", 2, 24, "description in double quotes" },
	{ "cpu 0 { }\nexpect bad-lokup\n", 2, 8, "unknown verdict kind 'bad-lokup' (did you mean 'bad-lookup'?)" },
	{ "cpu 0 { }\nexplore strategy bfs\n", 2, 18, "unknown strategy 'bfs'" },
	{ "cpu 0 { }\nexplore rnus 5\n", 2, 9, "did you mean 'runs'?" },
	{ "cpu 0 { }\nsummary \"unterminated\n", 2, 9, "unterminated string" },
	{ "cpu 0 { } \x01\n", 1, 11, "unexpected control byte 0x01" },
	{ "cpu 0 { }\n# caf\xc3\xa9\n\xc3\n", 3, 1, "unexpected byte 0xc3" },
	{ "cpu 0 { }\nradix-shift 99999999999999999999\n", 2, 13, "number out of range" },
	{ "cpu 0 { }\nprotocol v2\nprotocol v2\n", 3, 1, "'protocol' given twice (first on line 2)" },
	{ "cpu 0 { r0 = find_get_page m0 0 put r0 }\n", 1, 33, "too many arguments" },
	{ "cpu 0 { assert ((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))) }\n", 1, 48, "nested too deeply" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct scn_error e;
		struct scenario *s;
		char buf[1024];

		s = scenario_parse("t.scn", bad[i].text, strlen(bad[i].text), &e);
		scn_error_format(&e, buf, sizeof(buf));
		if (!ok(!s && e.line == bad[i].line && e.col == bad[i].col &&
			strstr(e.msg, bad[i].msg),
			"malformed #%zu: t.scn:%d:%d: %s", i, bad[i].line,
			bad[i].col, bad[i].msg))
			diag("got: %s", buf);
		scenario_free(s);
	}
}

static void test_format(void)
{
	struct scn_error e;
	char buf[1024];
	const char *t = "cpu 0 {\n\tr0 = find_get_pge m0 0\n}\n";

	ok(!scenario_parse("f.scn", t, strlen(t), &e), "tab-indented error");
	scn_error_format(&e, buf, sizeof(buf));
	ok(!strcmp(buf, "f.scn:2:7: error: unknown operation 'find_get_pge' (did you mean 'find_get_page'?)\n"
		   " \tr0 = find_get_pge m0 0\n \t     ^\n"),
	   "FILE:LINE:COL: error: message, the line, a caret under the column");
	if (strstr(buf, "\n") == NULL)
		diag("%s", buf);
}

/* Deterministic mutations of the valid text: nothing crashes, and every
 * rejection is well formed. */
static void test_fuzz(void)
{
	uint64_t x = 88172645463325252ULL;
	size_t len = strlen(valid), parsed = 0, malformed = 0;
	char buf[sizeof(valid) + 16];

	for (int i = 0; i < 20000; i++) {
		struct scn_error e;
		struct scenario *s;
		size_t n = len;

		memcpy(buf, valid, len);
		for (int k = 0; k < 1 + i % 4; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			size_t at = (size_t)(x % n);
			switch ((x >> 32) % 3) {
			case 0: buf[at] = (char)(x >> 40); break;
			case 1: memmove(buf + at, buf + at + 1, n - at - 1); n--; break;
			default: buf[at] = "{}[]();:=!<>\"# \n0r"[(x >> 44) % 18]; break;
			}
		}
		s = scenario_parse("fz.scn", buf, n, &e);
		if (s)
			parsed++;
		else if (e.line < 1 || e.col < 1 || !e.msg[0])
			malformed++;
		scenario_free(s);
	}
	diag("fuzz: 20000 mutants, %zu still parse", parsed);
	ok(malformed == 0, "fuzz: every rejection has a line, a column and a message");
}

int main(void)
{
	test_valid();
	test_bad();
	test_format();
	test_fuzz();
	return done_testing();
}
