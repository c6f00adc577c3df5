"""CUPTI counters per operator (`opscope report --json`: summary.kineto.cupti_counters,
docs/kineto.md "CUPTI counters per operator") against this script's own reading of the trace
(trace_ref.py, the standard library only) and against Holistic Trace Analysis' figures on the
same file (HTA's tests/data/cupti_profiler, copied as hta/cupti_profiler.json.gz).

The reference: the cuda_profiler_range events sorted by start pair with the cudaLaunchKernel*
calls sorted by start; a range's operator stack is the cpu_op slices on the call's thread that
hold the call whole ([s, e] inside [S, E]), outermost first. A copy of the trace with one launch
left out pairs nothing (attributed false, no group), and a trace without ranges has no member.

usage: check_cupti.py OPSCOPE HTA_DIR WORK_DIR
"""
import gzip
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_ref import check, failures, load, slices, ns  # noqa: E402

# HTA 0.5 (TraceAnalysis(trace_dir=...).get_cupti_counter_data_with_operators()[0], with
# HTA_DISABLE_NS_ROUNDING=1) on tests/data/cupti_profiler: 77 rows; its test's row 5 (by ts)
# is fft2d_r2c_32x32 with fadd 86114304 under aten::conv2d / aten::cudnn_convolution; the
# rows per (top, bottom) op and their ffma sums from the same table (groupby ... .sum()).
HTA_ROWS = 77
HTA_ROW5 = ("fft2d_r2c_32x32", 86114304, "aten::conv2d", "aten::cudnn_convolution")
HTA_GROUPS = {("aten::adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d"): 2,
              ("aten::conv2d", "aten::add_"): 10, ("aten::conv2d", "aten::cudnn_convolution"): 28,
              ("aten::dropout", "aten::native_dropout"): 4, ("aten::linear", "aten::addmm"): 12,
              ("aten::max_pool2d", "aten::max_pool2d_with_indices"): 6, ("aten::rand", "aten::uniform_"): 1,
              ("aten::relu_", "aten::clamp_min_"): 14}
FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
HTA_FFMA_BY_BOTTOM = {"aten::_adaptive_avg_pool2d": 20146616, "aten::add_": 124157952,
                      "aten::addmm": 15067250688, "aten::clamp_min_": 0,
                      "aten::cudnn_convolution": 23887265792, "aten::max_pool2d_with_indices": 0,
                      "aten::native_dropout": 4816896, "aten::uniform_": 38731776}
HTA_TOTALS = {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 964651656, FFMA: 39142369720,
              "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": 275791872,
              "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 430063616}


def report(opscope, trace, out):
    p = subprocess.run([opscope, "report", trace, "-q", "--json", out], capture_output=True, text=True)
    check(p.returncode == 0, f"report {trace}: exit {p.returncode}: {p.stderr.strip()}")
    with open(out) as f:
        return json.load(f)["summary"].get("kineto", {})


def reference(events):
    evs = list(slices(events))
    ranges = sorted((e for e in evs if e.get("cat") == "cuda_profiler_range"), key=lambda e: ns(e["ts"]))
    calls = sorted((e for e in evs if e.get("cat") == "cuda_runtime" and e["name"].startswith("cudaLaunchKernel")),
                   key=lambda e: ns(e["ts"]))
    ops = [e for e in evs if e.get("cat") == "cpu_op"]
    rows = []
    for i, r in enumerate(ranges):
        stack = []
        if len(calls) == len(ranges):
            c = calls[i]
            cs, ce = ns(c["ts"]), ns(c["ts"]) + ns(c.get("dur", 0))
            around = [o for o in ops if (o["pid"], o["tid"]) == (c["pid"], c["tid"])
                      and ns(o["ts"]) <= cs and ce <= ns(o["ts"]) + ns(o["dur"])]
            around.sort(key=lambda o: (ns(o["ts"]), -ns(o["dur"])))
            stack = [o["name"] for o in around]
        ctr = {k: v for k, v in r["args"].items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        rows.append((r["name"], ns(r["ts"]), stack, ctr))
    return rows, len(calls)


def check_trace(opscope, trace, work):
    k = report(opscope, trace, os.path.join(work, "cupti.json"))
    c = k.get("cupti_counters")
    check(c is not None, "kineto.cupti_counters is written")
    if c is None:
        return None
    rows, n_calls = reference(load(trace))
    check(c["kernels"] == len(rows) and c["launches"] == n_calls,
          f"kernels {c['kernels']} launches {c['launches']} (reference {len(rows)}, {n_calls})")
    check(c["attributed"] == (len(rows) == n_calls), f"attributed {c['attributed']}")
    check(len(c["rows"]) == len(rows), f"{len(c['rows'])} rows (reference {len(rows)})")
    for got, (name, ts, stack, ctr) in zip(c["rows"], rows):
        want_stack = stack if c["attributed"] else []
        check(got["name"] == name and got["start_ns"] == ts, f"row {name[:40]} at {ts}")
        check(got["op_stack"] == want_stack, f"{name[:40]}: stack {got['op_stack']} != {want_stack}")
        check(got["counters"] == ctr, f"{name[:40]}: counters")
    for key, total in c["counters"].items():
        check(total == sum(r[3].get(key, 0) for r in rows), f"total of {key}")
    return c


def main():
    opscope, hta, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(hta, "cupti_profiler.json.gz")
    c = check_trace(opscope, trace, work)
    if c is not None:  # HTA's own figures
        check(len(c["rows"]) == HTA_ROWS, f"rows {len(c['rows'])} (HTA {HTA_ROWS})")
        r5 = c["rows"][5]
        got5 = (HTA_ROW5[0] if HTA_ROW5[0] in r5["name"] else r5["name"],
                r5["counters"]["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"],
                r5["top_level_op"], r5["bottom_level_op"])
        check(got5 == HTA_ROW5, f"row 5 {got5} (HTA {HTA_ROW5})")
        groups = {(g["top_level_op"], g["bottom_level_op"]): g["kernels"] for g in c["by_op"]}
        check(groups == HTA_GROUPS, f"groups {groups} (HTA {HTA_GROUPS})")
        by_bottom = {}
        for g in c["by_op"]:
            by_bottom[g["bottom_level_op"]] = by_bottom.get(g["bottom_level_op"], 0) + g["counters"][FFMA]
        check(by_bottom == HTA_FFMA_BY_BOTTOM, f"ffma by bottom op {by_bottom}")
        for key, v in HTA_TOTALS.items():
            check(c["counters"][key] == v, f"total {key} {c['counters'][key]} (HTA {v})")
        # HTA's FLOP weights: 2 per fma, 1 else
        check(c["sass_flops"] == 964651656 + 2 * 39142369720 + 2 * 275791872 + 430063616, "SASS FLOPs")
    # one launch fewer: nothing attributed (HTA: no table)
    with gzip.open(trace, "rt") as f:
        d = json.load(f)
    ev = d["traceEvents"]
    drop = next(i for i, e in enumerate(ev) if e.get("cat") == "cuda_runtime" and e.get("name") == "cudaLaunchKernel")
    del ev[drop]
    cut = os.path.join(work, "one_launch_fewer.json")
    with open(cut, "w") as f:
        json.dump(d, f)
    c2 = check_trace(opscope, cut, work)
    check(c2 is not None and not c2["attributed"] and c2["by_op"] == [], "one launch fewer: not attributed")
    # a trace without ranges: no member
    plain = os.path.join(os.path.dirname(hta), "traces", "a100_alexnet_fwd.json.gz")
    check("cupti_counters" not in report(opscope, plain, os.path.join(work, "plain.json")), "no ranges: no member")
    print("check_cupti: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
