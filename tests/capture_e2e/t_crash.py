#!/usr/bin/env python3
"""A profile survives the program's crash.

llama-completion under the capture, killed mid-run by SIGSEGV or SIGKILL (plain preload and
through `opscope record`): it dies exactly as it does without the capture (the same signal as
its parent sees it), and its profile, the last checkpoint the capture wrote while it ran, is
there: `opscope report` reads it (exit 0, one warning saying what may be missing) and it holds
every record of the graphs it has (the decode graphs all have the op count of a decode graph).
Through record, the profile also says how the program died (capture.end, from the wait
status), and record says it. A normal end says "exit" and reports without a warning.
GGML_PROFILE in a folder that does not exist is said at start, not after the run.
A killed run's profile is its record log, read directly: it still says what ran (the log's RUN
chunk), capture.argv equal to the command line and capture.models the model file with the
architecture of its GGUF header (python3-gguf's reader).
"""
import json
import os
import signal
import subprocess
import time

import e2e

e2e.guard_children()
e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("the opscope CLI is not built in the root")
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("crash")
LONG = ["llama-completion", "-m", m, "-p", "Hello", "-n", "100000", "-no-cnv", "--ignore-eos", "-t", "2",
        "--no-warmup"]
ENV = e2e.env_for([], extra={"OPSCOPE_LIB": e2e.PRELOAD})


def gguf_arch(path):
    import gguf
    field = gguf.GGUFReader(path).fields["general.architecture"]
    return bytes(field.parts[field.data[0]]).decode()


ARCH = gguf_arch(m)


def run_and_kill(cmd, env, sig, wait_s=2.5):
    """Starts CMD, waits until it generates and WAIT_S more seconds, sends SIG to the program
    (record's child when CMD is record). Returns (returncode, stderr)."""
    out = f"{d}/gen.out"
    pr = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=open(out, "wb"), stderr=subprocess.PIPE)
    try:
        t0 = time.monotonic()
        while os.path.getsize(out) < 200 and pr.poll() is None and time.monotonic() - t0 < 60:
            time.sleep(0.05)
        time.sleep(wait_s)
        kids = [p for p, _, pp in e2e.descendants(pr.pid) if pp == pr.pid]
        os.kill(kids[0] if cmd[0] == e2e.OPSCOPE and kids else pr.pid, sig)
        _, err = pr.communicate(timeout=30)
        return pr.returncode, err.decode("utf-8", "replace")
    finally:
        e2e.stop_children(pr)


def report(path):
    r = subprocess.run([e2e.OPSCOPE, "report", path, "--json", f"{d}/rep.json", "-q"], capture_output=True,
                       text=True, timeout=120)
    return r.returncode, r.stderr


def decode_counts(prof):
    """{graph id: op records} of graphs 1.. (the prompt graph 0 differs)."""
    n = {}
    for r in prof["records"]:
        if r.get("type") == 0 and r.get("graph_id", 0) >= 1:
            n[r["graph_id"]] = n.get(r["graph_id"], 0) + 1
    return n


# the reference: a normal end says "exit", reports without a warning
ok_path = f"{d}/ok.json"
rc, _, err = e2e.run(["llama-completion", "-m", m, "-p", "Hello", "-n", "8", "-no-cnv", "-t", "2", "--no-warmup"],
                     e2e.env_for([e2e.PRELOAD], profile=ok_path))
prof = e2e.load_checked(ok_path)
end = prof.get("capture", {}).get("end", {})
e2e.check(rc == 0 and end.get("how") == "exit", f"a normal run's profile ends with exit ({end})")
rrc, rerr = report(ok_path)
e2e.check(rrc == 0 and rerr == "", f"report of a complete profile: exit {rrc}, no warning ({rerr.strip()!r})")
per_graph = set(decode_counts(prof).values())
e2e.check(len(per_graph) == 1, f"decode graphs of a normal run have one op count ({per_graph})")

for sig in (signal.SIGSEGV, signal.SIGKILL):
    rc0, _ = run_and_kill(LONG, e2e.env_for([]), sig, wait_s=0.5)
    for how in ("preload", "record"):
        path = f"{d}/{how}-{sig.name}.json"
        if how == "preload":
            rc, err = run_and_kill(LONG, e2e.env_for([e2e.PRELOAD], profile=path), sig)
        else:
            rc, err = run_and_kill([e2e.OPSCOPE, "record", "-o", path, "--"] + LONG, ENV, sig)
        label = f"llama-completion ({how}) killed by {sig.name} mid-run"
        e2e.check(rc == rc0 == -sig, f"{label}: dies by {sig.name} as without the capture (rc {rc}, plain {rc0})")
        if not e2e.check(os.path.exists(path), f"{label}: its profile is there"):
            continue
        rrc, rerr = report(path)
        lines = rerr.strip().splitlines()
        e2e.check(rrc == 0 and len(lines) == 1 and "warning" in lines[0] and "missing" in lines[0],
                  f"{label}: report reads it, exit {rrc}, one warning ({rerr.strip()!r})")
        p = e2e.load_checked(path)
        counts = decode_counts(p)
        e2e.check(len(counts) >= 3 and set(counts.values()) == per_graph and
                  sorted(counts) == list(range(1, max(counts) + 1)),
                  f"{label}: graphs 1-{max(counts) if counts else None} all there, each with the ops of a decode graph")
        cap = p.get("capture", {})
        ran = (cap.get("argv"), [(x.get("path"), x.get("architecture")) for x in cap.get("models", [])])
        e2e.check(e2e.is_record_log(path) and ran == (LONG, [(m, ARCH)]),
                  f"{label}: its record log says what ran: the command line and the model's architecture "
                  f"({ran} vs {(LONG, [(m, ARCH)])})")
        end = cap.get("end", {})
        if how == "preload":
            e2e.check(end.get("how") == "checkpoint", f"{label}: the profile says it is a checkpoint ({end})")
        else:
            want = "killed" if sig == signal.SIGKILL else "crash"
            e2e.check(end.get("how") == want and end.get("signal") == sig.name and
                      end.get("died_ns", 0) > end.get("at_ns", 0) > 0,
                      f"{label}: the profile says it ended by {want} ({sig.name}) after its last write ({end})")
            e2e.check(f"llama-completion (pid " in err and sig.name in err and path in err,
                      f"{label}: record says how it died and where its profile is ({err.strip().splitlines()[-1:]})")
            e2e.check(sig.name in rerr, f"{label}: report's warning names the signal")

# A profile path that cannot be written is said at once, not after the run.
pr = subprocess.Popen(LONG, env=e2e.env_for([e2e.PRELOAD], profile="/nonexistent/x.json"), stdin=subprocess.DEVNULL,
                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
try:
    time.sleep(4)
    pr.send_signal(signal.SIGKILL)
    _, err = pr.communicate(timeout=30)
    err = err.decode("utf-8", "replace")
    e2e.check(err.count("cannot write the profile to /nonexistent/x.json") == 1,
              f"GGML_PROFILE in a missing folder: said once while the program runs ({err.count('nonexistent')} lines)")
finally:
    e2e.stop_children(pr)
e2e.finish()
