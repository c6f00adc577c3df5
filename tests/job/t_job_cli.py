#!/usr/bin/env python3
"""`opscope report` of a job from the command line: a folder and a list give the same job, one
thread and several give the same figures, ranks come from distributedInfo else the file name,
options that do not apply are usage errors, and a bad trace fails the job with no JSON left.

  t_job_cli.py OPSCOPE TRACES_DIR   (TRACES_DIR: tests/job/traces, HTA's two ranks)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def check(cond, what):
    print("ok  " if cond else "FAIL", what)
    if not cond:
        FAILS.append(what)


def run(*args):
    return subprocess.run([OPSCOPE, "report", *args], capture_output=True, text=True)


def job_json(*args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "j.json")
        p = run(*args, "--json", out, "-q")
        if p.returncode:
            print(p.stderr)
            return None
        with open(out) as f:
            j = json.load(f)["summary"]["job"]
        j.pop("read_threads")
        for r in j["ranks"]:
            r["trace"] = os.path.basename(r["trace"])
        return j


def tiny_trace(path, start):
    """A trace with no distributedInfo: two kernels and their launches."""
    ev = []
    for i in range(2):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": start + 10 * i, "dur": 2, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7,
                   "ts": start + 10 * i + 5, "dur": 4, "args": {"correlation": i + 1}})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)


def main():
    global OPSCOPE
    OPSCOPE, traces = sys.argv[1], sys.argv[2]
    files = sorted(os.path.join(traces, f) for f in os.listdir(traces) if f.endswith(".json.gz"))
    by_dir, by_list = job_json(traces), job_json(*files)
    check(by_dir is not None and by_dir == by_list, "a folder and its list of traces give the same job")
    check(by_dir == job_json(traces, "--threads", "1"), "--threads 1 gives the same figures")
    check([r["rank"] for r in by_dir["ranks"]] == [0, 1], "ranks 0 and 1 from distributedInfo")
    p = run(traces)
    check(p.returncode == 0 and p.stdout.startswith("Job: 2 ranks"), "console starts with the job line")
    check(p.stdout.find("Bound by:") < p.stdout.find("Per rank"), "what bounds the job comes before the tables")
    with tempfile.TemporaryDirectory() as tmp:
        tiny_trace(os.path.join(tmp, "worker-5.json"), 1000)
        tiny_trace(os.path.join(tmp, "worker-2.json"), 1003)
        with open(os.path.join(tmp, "notes.txt"), "w") as f:
            f.write("not a trace\n")
        j = job_json(tmp)
        check(j is not None and [r["rank"] for r in j["ranks"]] == [2, 5], "ranks from file names, *.txt skipped")
        check(j is not None and j["ranks"][0]["launch_delay_p50_ns"] == 5000, "tiny trace launch delay 5 us")
        for args, what in (([tmp, "--chrome-trace", os.path.join(tmp, "x.json")], "--chrome-trace"),
                           ([files[0], "-"], "stdin as a rank"),
                           ([files[0], "--threads", "2"], "--threads with one trace"),
                           ([tmp, "--threads", "0"], "--threads 0")):
            check(run(*args).returncode == 1, "usage error: " + what)
        with open(os.path.join(tmp, "rank-9.json"), "w") as f:
            f.write('{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1,')
        out = os.path.join(tmp, "out.json")
        p = run(tmp, "--json", out)
        check(p.returncode == 2 and "rank-9.json" in p.stderr, "a bad trace: exit 2 naming it")
        check(not os.path.exists(out), "no JSON left behind")
        os.remove(os.path.join(tmp, "rank-9.json"))
        with open(os.path.join(tmp, "ggml.json"), "w") as f:
            f.write('{"profiler": "ggml", "version": 2, "backends": [], "records": []}')
        p = run(tmp)
        check(p.returncode == 2 and "ggml.json: no trace events" in p.stderr, "a ggml profile in a job: exit 2")
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        check(run(empty).returncode == 2, "an empty folder: exit 2")
    check("--threads N " in run("--help").stdout, "--help lists --threads")
    # summaries made one rank at a time (--job) combine into the job the traces make together
    kt = os.path.join(os.path.dirname(os.path.abspath(traces)), "..", "kineto", "traces")
    gpu = files + [os.path.join(kt, f) for f in ("a100_ddp_train_rank0.json.gz", "amd_mi250_minitoy_train.json.gz")]
    with tempfile.TemporaryDirectory() as tmp:
        sums = []
        for i, f in enumerate(gpu):
            out = os.path.join(tmp, "s%d.json" % i)
            p = run(f, "--job", "--json", out, "-q")
            check(p.returncode == 0, "--job --json of %s" % os.path.basename(f))
            sums.append(out)
        whole, parts = job_json(*gpu), job_json(*sums)
        check(whole is not None and whole == parts, "per-rank summaries combine into the same JSON")
        mixed = job_json(sums[0], *gpu[1:])
        check(mixed == whole, "a summary and traces mixed: the same job")
        a, b = run(*gpu), run(*sums)
        check(a.stdout.split("\n", 1)[1] == b.stdout.split("\n", 1)[1], "the same console tables")
        with open(sums[1], "r+") as f:
            f.truncate(100)
        p = run(sums[0], sums[1])
        check(p.returncode == 2 and "s1.json" in p.stderr, "a broken summary: exit 2 naming it")
    # diff of two jobs: ranks matched by number, each side's figures as its own report gives them
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one")
        os.mkdir(one)
        p = run(files[1], "--job", "--json", os.path.join(one, "rank1.json"), "-q")
        out = os.path.join(tmp, "d.json")
        p = subprocess.run([OPSCOPE, "diff", traces, one, "--json", out], capture_output=True, text=True)
        check(p.returncode == 0 and p.stdout.startswith("Job diff:"), "diff DIR_A DIR_B: exit %d" % p.returncode)
        with open(out) as f:
            d = json.load(f)["job_diff"]
        whole = {r["rank"]: r for r in by_dir["ranks"]}
        check([r["rank"] for r in d["ranks"]] == [0, 1], "diff: ranks 0 and 1")
        check(d["ranks"][0]["new"] is None and d["ranks"][0]["base"]["step_median_ns"] == whole[0]["step_median_ns"],
              "diff: rank 0 only in BASE, its step as the job's")
        check(d["ranks"][1]["new"]["overlap_pct"] == whole[1]["overlap_pct"] == d["ranks"][1]["base"]["overlap_pct"],
              "diff: rank 1 the same on both sides")
        check(d["base"]["median_step_ns"] == by_dir["median_step_ns"], "diff: BASE's median step")
        p = subprocess.run([OPSCOPE, "diff", traces, one, "--text", os.path.join(tmp, "t.txt")], capture_output=True)
        check(p.returncode == 1, "diff of jobs with --text: usage error")
    print("%d failed" % len(FAILS) if FAILS else "all passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
