#!/usr/bin/env python3
"""Per-rank summaries made by Dask's distributed scheduler combine into the job.

    dask_job.py OPSCOPE TRACES_DIR SUMMARIES_DIR [--workers 4]

A LocalCluster of WORKERS worker processes (one thread each) maps `opscope report TRACE --job
--json SUMMARIES_DIR/NAME.json` over the traces of TRACES_DIR, as a cluster's scheduler would
run it next to each rank's trace; only the summaries come back. Then `opscope report
SUMMARIES_DIR` must equal `opscope report TRACES_DIR`: the same JSON but `read_threads`, the
same console report but its first line (the read time). Run it where python3-distributed is
(the forky root). Exits 1 on any difference.
"""
import argparse
import json
import os
import subprocess
import sys


def summarise(opscope, trace, out_dir):
    """One rank, on a worker: its summary file, and the worker's pid."""
    name = os.path.basename(trace).split(".json")[0] + ".json"
    out = os.path.join(out_dir, name)
    subprocess.run([opscope, "report", trace, "--job", "--json", out, "-q"], check=True)
    return out, os.getpid()


def report(opscope, path):
    js = subprocess.run([opscope, "report", path, "--json", "-", "-q"], check=True, capture_output=True, text=True)
    con = subprocess.run([opscope, "report", path], check=True, capture_output=True, text=True)
    job = json.loads(js.stdout)["summary"]["job"]
    job.pop("read_threads", None)
    return job, con.stdout.split("\n")[1:]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("opscope")
    p.add_argument("traces")
    p.add_argument("summaries")
    p.add_argument("--workers", type=int, default=4)
    a = p.parse_args()
    from dask.distributed import Client, LocalCluster

    traces = sorted(os.path.join(a.traces, f) for f in os.listdir(a.traces) if ".json" in f)
    os.makedirs(a.summaries, exist_ok=True)
    with LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        workers = len(client.scheduler_info()["workers"])
        futures = client.map(summarise, [a.opscope] * len(traces), traces, [a.summaries] * len(traces), pure=False)
        done = client.gather(futures)
    pids = sorted({pid for _, pid in done})
    print("dask: %d worker processes; %d ranks summarised by workers %s" % (workers, len(done), pids))
    fails = 0
    if workers != a.workers or os.getpid() in pids:
        print("FAIL the summaries were not made by the cluster's %d worker processes" % a.workers)
        fails += 1
    job_t, con_t = report(a.opscope, a.traces)
    job_s, con_s = report(a.opscope, a.summaries)
    same_json = job_t == job_s
    same_con = con_t == con_s
    print("%s opscope report %s (JSON, %d ranks) == opscope report %s" % ("ok  " if same_json else "FAIL",
          a.summaries, len(job_s.get("ranks", [])), a.traces))
    print("%s the console reports are the same but their first line (%d lines)" % ("ok  " if same_con else "FAIL",
          len(con_t)))
    if not same_con:
        for x, y in zip(con_t, con_s):
            if x != y:
                print("  traces:    %s\n  summaries: %s" % (x, y))
                break
    fails += (not same_json) + (not same_con)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
