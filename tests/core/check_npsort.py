#!/usr/bin/env python3
"""util/npsort.h against numpy itself: numpy.argsort(kind="quicksort") of int64 arrays, ties
included (random keys from small ranges, all equal, sorted, reversed, organ pipes, sizes around
the insertion-sort cut of 16) and an input that drives the quicksort into its heapsort
fallback (McIlroy's adversary, "A Killer Adversary for Quicksort", 1999, played against the
partition rule npsort.h describes), each order compared position by position.

usage: check_npsort.py NPSORT_DUMP
Skips (77) where numpy's argsort is not its portable introsort: numpy 1.25 or later on a CPU
with AVX-512, which dispatches to another sort.
"""
import random
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

version = tuple(int(x) for x in np.__version__.split(".")[:2])
flags = open("/proc/cpuinfo").read() if sys.platform.startswith("linux") else ""
if version >= (1, 25) and " avx512f" in flags:
    print("SKIP: numpy %s dispatches argsort to its AVX-512 sort on this CPU" % np.__version__)
    sys.exit(77)

failures = 0


def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what)
    failures += not ok


def adversary(n):
    """McIlroy's adversary against the partition rule of npsort.h: keys start as "gas"; a
    comparison of two gas keys freezes one to the next solid value, so that every pivot is
    the smallest solid key left. Returns the keys and whether the depth limit was reached."""
    gas, val, state = n, [n] * n, {"solid": 0, "cand": None, "heap": False}

    def less(x, y):
        if val[x] == gas and val[y] == gas:
            z = x if x == state["cand"] else y
            val[z] = state["solid"]
            state["solid"] += 1
        if val[x] == gas:
            state["cand"] = x
        elif val[y] == gas:
            state["cand"] = y
        return val[x] < val[y]

    t = list(range(n))
    pl, pr, stack, depth = 0, n - 1, [], 2 * (n.bit_length() - 1)
    while True:
        if depth < 0:
            state["heap"] = True  # numpy heapsorts this run: the keys that are left stay gas
        else:
            while pr - pl > 15:
                pm = pl + ((pr - pl) >> 1)
                if less(t[pm], t[pl]): t[pm], t[pl] = t[pl], t[pm]
                if less(t[pr], t[pm]): t[pr], t[pm] = t[pm], t[pr]
                if less(t[pm], t[pl]): t[pm], t[pl] = t[pl], t[pm]
                p = t[pm]
                pi, pj = pl, pr - 1
                t[pm], t[pj] = t[pj], t[pm]
                while True:
                    pi += 1
                    while less(t[pi], p): pi += 1
                    pj -= 1
                    while less(p, t[pj]): pj -= 1
                    if pi >= pj: break
                    t[pi], t[pj] = t[pj], t[pi]
                t[pi], t[pr - 1] = t[pr - 1], t[pi]
                depth -= 1
                if pi - pl < pr - pi:
                    stack.append((pi + 1, pr, depth)); pr = pi - 1
                else:
                    stack.append((pl, pi - 1, depth)); pl = pi + 1
        if not stack or state["heap"]:
            break
        pl, pr, depth = stack.pop()
    return val, state["heap"]


rng = random.Random(20261202)
cases = [("empty", []), ("one", [5])]
for n in (2, 3, 15, 16, 17, 18, 31, 33, 64, 100, 1000, 4097, 50000):
    for k in (1, 2, 3, 10, n):
        cases.append(("n=%d, keys in 0..%d" % (n, k - 1), [rng.randrange(k) for _ in range(n)]))
    cases.append(("n=%d sorted" % n, list(range(n))))
    cases.append(("n=%d reversed" % n, list(range(n, 0, -1))))
    cases.append(("n=%d organ pipe" % n, [min(i, n - i) for i in range(n)]))
    cases.append(("n=%d large keys with ties" % n, [(1 << 62) - rng.randrange(4) * 250 for _ in range(n)]))
killer, heap = adversary(3000)
check(heap, "the adversary's input of 3000 keys reaches the heapsort fallback")
cases.append(("McIlroy's adversary, n=3000", killer))
cases.append(("McIlroy's adversary, n=3000, keys halved (ties)", [x // 2 for x in killer]))

text = "".join("%d %s\n" % (len(v), " ".join(map(str, v))) for _, v in cases)
out = subprocess.run([sys.argv[1]], input=text, capture_output=True, text=True, check=True).stdout.split("\n")
for (what, v), line in zip(cases, out):
    want = np.argsort(np.array(v, dtype=np.int64), kind="quicksort").tolist()
    got = [int(x) for x in line.split()]
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
    check(got == want, "%s: numpy's order (%d keys%s)" % (what, len(v), "" if first is None else
          ", first difference at %d: %s, numpy %s" % (first, got[first:first + 5], want[first:first + 5])))
print("%d cases, numpy %s" % (len(cases), np.__version__))
sys.exit(1 if failures else 0)
