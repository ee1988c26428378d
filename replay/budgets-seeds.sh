#!/bin/sh
# replay/budgets-seeds.sh -- replay/budgets.sh for seeds 1..20 (make
# regtest): every failing scenario finds its bug for at least 19 of them,
# its control and every clean scenario find nothing for any of them.
BUDGET_SEEDS="1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"
export BUDGET_SEEDS
exec "${SHELL:-/bin/sh}" "${top_srcdir:-.}/replay/budgets.sh"
