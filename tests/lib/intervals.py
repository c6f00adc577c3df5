"""Interval arithmetic of the Python tests' own reference figures (standard library only; each
test folder puts tests/lib on sys.path, as tests/capture_e2e does inside the forky root, where
the repository is /opscope).

  union_len(iv)       the length of the union of (start, end) intervals, in any order; 0 for none
  records_union(rs)   the same of profile records' [start_ns, start_ns + duration_ns)
"""


def union_len(intervals):
    """The length of the union of (start, end) INTERVALS (ints, Decimals: any ordered numbers
    that subtract; an interval that starts where the previous ends joins it). 0 when empty."""
    total, cs, ce = 0, None, None
    for s, e in sorted(intervals):
        if ce is None or s > ce:
            if ce is not None:
                total += ce - cs
            cs, ce = s, e
        else:
            ce = max(ce, e)
    return total + (ce - cs if ce is not None else 0)


def records_union(records):
    """The length of the union of the profile RECORDS' [start_ns, start_ns + duration_ns)
    (a graph's wall: its own work, not its span)."""
    return union_len((r["start_ns"], r["start_ns"] + r["duration_ns"]) for r in records)
