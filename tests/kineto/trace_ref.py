"""The Kineto checks' own reading of a trace, with the standard library alone (json with
Decimal numbers, no opscope code): the reference that check_kineto.py, check_busy.py and
check_cut.py hold opscope's figures against.

  ns(v)           microseconds (int, Decimal or numeric string) -> integer ns, half away from zero
                  (tests/lib/json_ref.py, as the JSON reading)
  load(path)      a trace's events (plain or .gz; an object's traceEvents or a list); raises
  load_trace(p)   the same, or None when P is not a trace (not JSON, no events)
  slices(events)  X events, plus B/E pairs matched per (pid, tid)
  union_len(iv)   the length of the union of (start, end) intervals (tests/lib/intervals.py)
  window(steps, gpu) the analysis window: the ProfilerStep# annotations' span, else the GPU
                  activities' span ({device: [(a, b)]}); (0, 0) when neither
  clip(iv, ws, we) the intervals cut to the window, empty ones dropped
  check(cond, what) a check: a failure is printed and kept in `failures` (the script's exit)
                  (tests/lib/checklist.py)
"""
import decimal
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402,F401  (the checks take them from here)
from intervals import union_len  # noqa: E402,F401
from json_ref import load_json, us_to_ns as ns  # noqa: E402,F401

D = decimal.Decimal


def load(path):
    d = load_json(path)
    return d["traceEvents"] if isinstance(d, dict) else d


def load_trace(path):
    try:
        d = load_json(path)
    except (OSError, ValueError, UnicodeDecodeError, ArithmeticError, RecursionError):
        return None
    if isinstance(d, dict) and isinstance(d.get("traceEvents"), list):
        return d["traceEvents"]
    if isinstance(d, list) and d and all(isinstance(e, dict) and "ph" in e for e in d):
        return d
    return None


def slices(events):
    """X events, plus B/E pairs matched per (pid, tid) as the Trace Event format defines."""
    stacks = {}
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        if ph == "X":
            yield e
        elif ph == "B" and "ts" in e:
            stacks.setdefault((e.get("pid"), e.get("tid")), []).append(e)
        elif ph == "E":
            st = stacks.get((e.get("pid"), e.get("tid")))
            if st:
                b = dict(st.pop())
                if "ts" in e:
                    b["dur"] = D(str(e["ts"])) - D(str(b["ts"]))
                yield b


def window(steps, gpu):
    """STEPS: (start, end) of the ProfilerStep# annotations; GPU: {device: [(start, end)]}."""
    if steps:
        return min(a for a, _ in steps), max(b for _, b in steps)
    if gpu:
        return min(a for v in gpu.values() for a, _ in v), max(b for v in gpu.values() for _, b in v)
    return 0, 0


def clip(iv, ws, we):
    return [(max(a, ws), min(b, we)) for a, b in iv if min(b, we) > max(a, ws)]
