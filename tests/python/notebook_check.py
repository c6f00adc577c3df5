#!/usr/bin/env python3
"""notebook_check.py REPO: runs docs/hta.ipynb with nbclient (Debian's python3-nbclient and
python3-ipykernel; the kernel finds this interpreter's opscope, the venv's installed copy) and
checks the text of its cells tagged "check" against HTA's figures for the job's two ranks
(HTA run on tests/job/traces with include_last_profiler_step=True and HTA_DISABLE_NS_ROUNDING=1)
and this script's own count of the launches in rank 1's trace. Exit 77 (skipped) without
nbclient.
"""
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checklist import check, failures  # noqa: E402

try:
    import nbclient
    import nbformat
except ImportError:
    print("SKIP: nbclient or nbformat not installed (python3-nbclient)")
    sys.exit(77)

# HTA's figures (see above): get_temporal_breakdown rows (rank, idle, compute, non-compute,
# kernel time in us, idle, compute, non-compute %), get_comm_comp_overlap, and
# get_idle_time_breakdown(ranks=[1]) (stream, category, idle time in us, ratio)
HTA_TEMPORAL = [[0, 675191.0, 210320.0, 337336.0, 1222847.0, 55.21, 17.2, 27.59],
                [1, 651136.0, 271973.0, 308077.0, 1231186.0, 52.89, 22.09, 25.02]]
HTA_OVERLAP = [[0, 14.95], [1, 19.93]]
HTA_IDLE_RANK1 = [[23, "host_wait", 1222526.0, 1.0], [23, "kernel_wait", 134.0, 0.0], [23, "other", 30.0, 0.0],
                  [25, "host_wait", 556447.0, 0.86], [25, "kernel_wait", 17.0, 0.0], [25, "other", 91823.0, 0.14],
                  [7, "host_wait", 407794.0, 0.44], [7, "kernel_wait", 3475.0, 0.0], [7, "other", 524657.0, 0.56],
                  [84, "host_wait", 715850.0, 0.92], [84, "other", 62586.0, 0.08], [203, "host_wait", 559033.0, 1.0],
                  [203, "other", 0.0, 0.0]]


def rows_of(text):
    """The table text's rows after its header, as lists of words (numbers as floats)."""
    out = []
    for line in text.strip().splitlines()[1:]:
        row = []
        for w in line.split():
            try:
                row.append(float(w))
            except ValueError:
                row.append(w)
        out.append(row)
    return out


def own_launches(path):
    """Rank 1's GPU activities launched by cudaLaunchKernel(ExC), cudaMemcpyAsync or
    cudaMemsetAsync, joined by correlation id, and those with a delay over 100 us."""
    ev = json.load(gzip.open(path))["traceEvents"]
    calls = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime" and e.get("name") in
             ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync")}
    delays = [e["ts"] - calls[c]["ts"] - calls[c]["dur"] for e in ev
              if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
              and (c := e.get("args", {}).get("correlation")) in calls]
    return len(delays), sum(1 for d in delays if d > 100)


def main():
    repo = sys.argv[1]
    nb = nbformat.read(os.path.join(repo, "docs", "hta.ipynb"), as_version=4)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # the kernel's debugger note
    # the kernel is Debian's python3 kernel: it finds this interpreter's opscope (the venv's
    # installed copy, its library beside it) through PYTHONPATH
    import opscope
    here = os.path.dirname(os.path.dirname(os.path.abspath(opscope.__file__)))
    os.environ["PYTHONPATH"] = os.pathsep.join([here] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    os.environ["OPSCOPE_JOB_TRACES"] = os.path.join(repo, "tests", "job", "traces")
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.join(repo, "docs")}})
    client.execute()
    texts = [("".join(o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream"), c)
             for c in nb.cells if c.cell_type == "code" and "check" in c.get("metadata", {}).get("tags", [])]
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    check(not errors, "the notebook ran without an error: %s" % errors[:1])
    check(len(texts) == 6, "6 checked cells, %d" % len(texts))
    job, bound, temporal, overlap, idle, launches = (t for t, _ in texts)
    check("ranks=2" in job.splitlines()[0], "the job has 2 ranks: %s" % job.splitlines()[:1])
    check(bound.startswith("bound: ") and "on rank" in bound, "the bound line: %s" % bound)
    check(rows_of(temporal) == HTA_TEMPORAL, "temporal %s, HTA %s" % (rows_of(temporal), HTA_TEMPORAL))
    check(rows_of(overlap) == HTA_OVERLAP, "overlap %s, HTA %s" % (rows_of(overlap), HTA_OVERLAP))
    got = sorted(r[1:] for r in rows_of(idle))
    check(got == sorted(HTA_IDLE_RANK1), "idle of rank 1 %s, HTA %s" % (got, sorted(HTA_IDLE_RANK1)))
    n, late = own_launches(os.path.join(repo, "tests", "job", "traces", "sampled_rank-1.json.gz"))
    want = "%d launches; launch delay over 100 us: %d" % (n, late)
    check(launches.strip() == want, "launches %r, own %r" % (launches.strip(), want))
    print("notebook: %d cells run, %d checked" % (len(nb.cells), len(texts)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
