"""tools/quality/live_vs_pesq.py's rank statistics on hand-made cases
(suite quality, test quality-live-vs-pesq-ranks): the calls themselves
are a measurement (docs/elements.md, "donar-quality"), not a test.

Usage: test_live_vs_pesq.py SOURCE_ROOT"""

import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "tools", "quality"))
import live_vs_pesq as lv  # noqa: E402

failed = 0


def check(what, got, want):
    global failed
    ok = got == want if not isinstance(want, float) else \
        got is not None and abs(got - want) < 1e-12
    print("%s %s: %r (want %r)" % ("ok" if ok else "not ok", what, got, want))
    failed += not ok


check("ranks", lv.ranks([3.0, 1.0, 2.0]), [3.0, 1.0, 2.0])
# 2 and 2 share ranks 2 and 3: 2.5 each.
check("ranks with a tie", lv.ranks([1, 2, 2, 3]), [1.0, 2.5, 2.5, 4.0])
check("spearman, same order", lv.spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1.0)
check("spearman, reversed", lv.spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)
# One swap of neighbours in 4: 1 - 6 * (1 + 1) / (4 * (16 - 1)) = 0.8.
check("spearman, one swap", lv.spearman([1, 2, 3, 4], [1, 3, 2, 4]), 0.8)
check("spearman, a constant", lv.spearman([1, 2, 3], [5, 5, 5]), None)
check("spearman, one call", lv.spearman([1], [2]), None)
# (0,1) and (0,2) agree, (1,2) disagree.
check("pairs", lv.pairs([1, 2, 3], [1, 3, 2]), (2, 1, 0))
# 1 = 1 in x: tied; the two others agree.
check("pairs with a tie", lv.pairs([1, 1, 2], [1, 2, 3]), (2, 0, 1))
sys.exit(1 if failed else 0)
