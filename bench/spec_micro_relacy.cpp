// SPDX-License-Identifier: MIT
//
// spec_micro_relacy.cpp - the cover letter's first race as a micro test
// for Relacy (Debian's relacy-dev), the twin of spec_micro_pagerace.c:
// the same page (count and PG_free in one word, so the final put_page
// frees in one atomic step), the same two speculative getters and remover,
// 3 threads, every access seq_cst.  relacy/relacy.hpp with rl::atomic
// (relacy_std.hpp does not compile with libstdc++ 12).
//
// Prints runs/s on the fixed protocol and runs to the first detection of
// v1 (no PageFree test) for 20 seeds under Relacy's random scheduler.  Its
// random scheduler seeds iteration i with i, so "seed s" starts the
// iterations at 1 + s * 10^7.  Usage: spec_micro_relacy [SCALE]
//                                      spec_micro_relacy --rate RUNS
// (runs/s of the fixed protocol under the random scheduler only, for
// bench/peer_ratio.sh).  put_page is a load and a compare-and-swap loop on
// both sides (spec_micro_pagerace.c says why).

#include <relacy/relacy.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

static const int FREE = 0x10000;
static bool v1;

struct spec_test : rl::test_suite<spec_test, 3>
{
	rl::atomic<int> state, slot;

	void before()
	{
		state($).store(1, rl::mo_seq_cst);
		slot($).store(1, rl::mo_seq_cst);
	}

	void put_page()
	{
		int old = state($).load(rl::mo_seq_cst), nw;

		do {
			nw = old - 1;
			if ((nw & 0xffff) == 0) {
				RL_ASSERT(!(nw & FREE));	// double free
				nw |= FREE;
			}
		} while (!state($).compare_exchange_strong(old, nw,
							   rl::mo_seq_cst));
	}

	void getter()
	{
		int p = slot($).load(rl::mo_seq_cst), old;

		if (!p)
			return;
		old = state($).fetch_add(1, rl::mo_seq_cst);	// get_page_testone
		if ((old & 0xffff) == 0) {
			state($).fetch_sub(1, rl::mo_seq_cst);	// __put_page
			return;
		}
		if (!v1 && (state($).load(rl::mo_seq_cst) & FREE)) {
			state($).fetch_sub(1, rl::mo_seq_cst);
			return;
		}
		if (slot($).load(rl::mo_seq_cst) != p) {
			put_page();
			return;
		}
		RL_ASSERT(!(state($).load(rl::mo_seq_cst) & FREE));
		put_page();
	}

	void thread(unsigned idx)
	{
		if (idx == 2) {
			slot($).store(0, rl::mo_seq_cst);
			put_page();
		} else {
			getter();
		}
	}
};

static double now()
{
	return std::chrono::duration<double>(
		std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
	unsigned long n = 2000000;
	std::ostringstream sink;

	if (argc == 3 && std::string(argv[1]) == "--rate") {
		rl::test_params p;
		p.search_type = rl::random_scheduler_type;
		p.iteration_count = std::strtoul(argv[2], 0, 10);
		p.output_stream = &sink;
		p.progress_stream = &sink;
		v1 = false;
		double t0 = now();
		bool ok = rl::simulate<spec_test>(p);
		double dt = now() - t0;
		std::printf("runs/s %.0f failures %d\n",
			    p.iteration_count / dt, ok ? 0 : 1);
		return ok ? 0 : 1;
	}
	if (argc > 1)
		n = (unsigned long)(atof(argv[1]) * (double)n);

	{
		rl::test_params p;
		p.search_type = rl::random_scheduler_type;
		p.iteration_count = n;
		p.output_stream = &sink;
		p.progress_stream = &sink;
		v1 = false;
		double t0 = now();
		bool ok = rl::simulate<spec_test>(p);
		double dt = now() - t0;
		std::printf("relacy   fixed random    : %lu runs in %.3f s, %.0f runs/s, %s\n",
			    n, dt, n / dt, ok ? "0 failures" : "FAILED");
	}

	unsigned long found[20];
	int missed = 0;
	for (int s = 1; s <= 20; s++) {
		rl::test_params p;
		unsigned long start = 1 + (unsigned long)s * 10000000UL;
		std::ostringstream st;

		st << start;
		p.search_type = rl::random_scheduler_type;
		p.initial_state = st.str().c_str();
		p.iteration_count = start + 1000000;
		p.output_stream = &sink;
		p.progress_stream = &sink;
		p.output_history = true;	// no second, history-collecting pass
		v1 = true;
		if (rl::simulate<spec_test>(p)) {
			missed++;
			found[s - 1] = 1000001;
		} else {
			found[s - 1] = (unsigned long)(p.stop_iteration - start + 1);
		}
		sink.str("");
	}
	std::sort(found, found + 20);
	std::printf("relacy   v1    random    : runs to detection over 20 seeds: median %lu, min %lu, max %lu%s\n",
		    found[9], found[0], found[19],
		    missed ? " (some seeds never found it)" : "");

	// Systematic: full search and context bound 4, the fixed protocol
	// proven (iterations to exhaustion) and v1 found (iterations to it).
	for (int bug = 0; bug <= 1; bug++)
		for (int full = 1; full >= 0; full--) {
			rl::test_params p;

			p.search_type = full ? rl::fair_full_search_scheduler_type
					     : rl::fair_context_bound_scheduler_type;
			p.context_bound = 4;
			p.iteration_count = 100000000;
			p.output_stream = &sink;
			p.progress_stream = &sink;
			p.output_history = true;
			v1 = bug != 0;
			double t0 = now();
			bool ok = rl::simulate<spec_test>(p);
			double dt = now() - t0;
			std::printf("relacy   %-5s %-12s: %s after %llu iterations, %.3f s\n",
				    bug ? "v1" : "fixed",
				    full ? "full search" : "ctx bound 4",
				    ok ? (bug ? "NOT FOUND" : "clean, exhausted")
				       : (bug ? "found" : "FAILED"),
				    (unsigned long long)p.stop_iteration, dt);
			sink.str("");
		}
	return 0;
}
