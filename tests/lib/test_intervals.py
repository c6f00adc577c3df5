#!/usr/bin/env python3
"""lib.intervals: union_len and records_union against unions worked out by hand (below each case), and against a
unit-by-unit count of covered points on small random integer intervals."""
import decimal
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from intervals import records_union, union_len  # noqa: E402

failures = 0


def expect(got, want, what):
    global failures
    if got != want:
        failures += 1
        print("FAIL: %s: got %r, want %r" % (what, got, want))


expect(union_len([]), 0, "no intervals")
expect(union_len([(3, 3)]), 0, "one empty interval")
expect(union_len([(2, 7)]), 5, "one interval")
# [0,10) and [20,25): apart, 10 + 5
expect(union_len([(20, 25), (0, 10)]), 15, "two apart, out of order")
# [0,10) [5,12): overlap -> [0,12)
expect(union_len([(0, 10), (5, 12)]), 12, "overlapping")
# [0,10) [10,15): touching -> [0,15)
expect(union_len([(10, 15), (0, 10)]), 15, "touching")
# [0,100) holds [10,20) and [30,40); [150,160) apart: 100 + 10
expect(union_len([(10, 20), (0, 100), (30, 40), (150, 160)]), 110, "nested and apart")
# [1,4) [2,3) [3,6) [8,9) [8,9): [1,6) + [8,9) = 5 + 1
expect(union_len([(1, 4), (2, 3), (3, 6), (8, 9), (8, 9)]), 6, "chain and duplicate")
D = decimal.Decimal
# microseconds as Decimals: [0.5,1.25) [1,2) -> [0.5,2) = 1.5
expect(union_len([(D("1"), D("2")), (D("0.5"), D("1.25"))]), D("1.5"), "Decimal intervals")
expect(union_len(iter([(0, 4), (2, 6)])), 6, "a generator")
# records [100,150) [120,200) [300,310): 100 + 10
expect(records_union([{"start_ns": 300, "duration_ns": 10}, {"start_ns": 100, "duration_ns": 50},
                      {"start_ns": 120, "duration_ns": 80}]), 110, "records")
expect(records_union([]), 0, "no records")

rng = random.Random(7)
for case in range(200):
    iv = [(a, a + rng.randrange(0, 6)) for a in (rng.randrange(0, 40) for _ in range(rng.randrange(0, 8)))]
    covered = sum(1 for x in range(50) if any(s <= x < e for s, e in iv))
    expect(union_len(iv), covered, "random case %d %r" % (case, iv))

print("union_len: %d checks failed" % failures if failures else "union_len: all checks passed")
sys.exit(1 if failures else 0)
