#!/usr/bin/env python3
"""Every output path honoured, and a capture that starts under a memory limit.

1. Odd outputs of `opscope record -o`, with the real llama-simple: a FIFO with a reader,
   `>(cat > f)`, `>(gzip > f.gz)`, `/dev/stdout > f`, `/dev/stdout | cat`: the program's exit
   status and its stdout are those of the plain run, and each output holds exactly one
   readable profile (json.loads of the whole, records all complete) within 5 s of the
   program's end. Checkpoints every 100 ms make a run long enough to have several: a stream
   gets none of them (before, each appended a whole document).
2. `GGML_PROFILE=FIFO` with a reader, no record: exit within 1 s of the plain run's time.
3. A FIFO nobody reads: the program is not held (exit within the bounded wait, 5 s, of the
   plain time), and the profile goes to a file elsewhere, which record names.
4. `rm -rf` of the output's folder mid-run: record never says a partial profile is there.
5. `ulimit -v 400000`: plain llama-completion passes; captured it passes too, or the capture
   says in one line that it cannot start under the limit (and the program still passes).
"""
import json
import os
import signal
import subprocess
import threading
import time

import e2e

e2e.guard_children()
e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("the opscope CLI is not built in the root")
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("outputs")
SIMPLE = ["llama-simple", "-m", m, "-n", "32", "Hello"]
ENV = e2e.env_for([], extra={"OPSCOPE_LIB": e2e.PRELOAD, "OPSCOPE_CHECKPOINT_MS": "100"})
LONG = ["llama-completion", "-m", m, "-p", "Hello", "-n", "100000", "-no-cnv", "--ignore-eos", "-t", "2",
        "--no-warmup"]


def sh_quote(cmd):
    return " ".join("'" + a.replace("'", "'\\''") + "'" for a in cmd)


def one_profile(data, what):
    """Checks DATA (bytes) is exactly one profile document; returns it or None."""
    try:
        p = json.loads(data)
    except ValueError as ex:
        docs = data.count(b'"profiler"')
        e2e.check(False, f"{what}: one readable profile ({ex}; {docs} documents, {len(data)} bytes)")
        return None
    recs = p.get("records", [])
    e2e.check(len(recs) > 0 and all(e2e.record_complete(r) for r in recs),
              f"{what}: exactly one readable profile, {len(recs)} records, all complete")
    return p


def wait_file(path, done, limit=5.0):
    """Seconds until DONE(path) is true (polled), or None after LIMIT s."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        if done(path):
            return time.monotonic() - t0
        time.sleep(0.02)
    return None


def parses(path, opener=open):
    try:
        with opener(path, "rb") as f:
            json.loads(f.read())
        return True
    except (OSError, ValueError, EOFError):
        return False


def timed(cmd, env, shell=False):
    t0 = time.monotonic()
    r = subprocess.run(cmd, env=env, capture_output=True, timeout=300, shell=shell, executable="/bin/bash"
                       if shell else None)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace"), time.monotonic() - t0


plain_rc, plain_out, _, plain_s = timed(SIMPLE, ENV)
e2e.check(plain_rc == 0 and len(plain_out) > 0, f"plain llama-simple: exit 0, {len(plain_out)} bytes of stdout")
e2e.note(f"note  plain llama-simple: {plain_s:.2f} s")
REC = [e2e.OPSCOPE, "record"]

# ---- 1. -o FIFO with a reader ----
fifo = f"{d}/p.fifo"
os.mkfifo(fifo)
reader = subprocess.Popen(["sh", "-c", f"cat {fifo} > {d}/fifo.data"])
rc, out, err, _ = timed(REC + ["-o", fifo, "--"] + SIMPLE, ENV)
t_end = time.monotonic()
try:
    reader.wait(timeout=5)
    lag = time.monotonic() - t_end
except subprocess.TimeoutExpired:
    reader.kill()
    lag = None
e2e.check(rc == plain_rc and out == plain_out, f"-o FIFO: exit {rc} and stdout as plain ({plain_rc})")
e2e.check(lag is not None, f"-o FIFO: the reader has its profile within 5 s of the end ({lag})")
one_profile(open(f"{d}/fifo.data", "rb").read(), "-o FIFO")
e2e.check("cannot write" not in err, f"-o FIFO: no write failure said ({err[-300:]!r})")


# ---- 1. process substitutions and /dev/stdout, through bash ----
def bash_case(tag, line, target, opener=open):
    """Runs LINE in bash (the record's stdout to TAG.out), then waits for TARGET to parse."""
    rc, _, err, _ = timed(["bash", "-c", line], ENV)
    t_end = time.monotonic()
    lag = wait_file(target, lambda p: parses(p, opener))
    out = open(f"{d}/{tag}.out", "rb").read() if os.path.exists(f"{d}/{tag}.out") else b""
    return rc, out, err, lag, t_end


cmd = sh_quote(REC)
simple = sh_quote(SIMPLE)
rc, out, err, lag, _ = bash_case("cat", f"{cmd} -o >(cat > {d}/subst.json) -- {simple} > {d}/cat.out",
                                 f"{d}/subst.json")
e2e.check(rc == plain_rc and out == plain_out, f"-o >(cat > f): exit {rc} and stdout as plain")
e2e.check(lag is not None, f"-o >(cat > f): one profile within 5 s of the end ({lag})")
time.sleep(0.3)  # anything a second document would add
one_profile(open(f"{d}/subst.json", "rb").read(), "-o >(cat > f)")

import gzip  # noqa: E402

rc, out, err, lag, _ = bash_case("gz", f"{cmd} -o >(gzip > {d}/subst.json.gz) -- {simple} > {d}/gz.out",
                                 f"{d}/subst.json.gz", gzip.open)
e2e.check(rc == plain_rc and out == plain_out, f"-o >(gzip > f.gz): exit {rc} and stdout as plain")
e2e.check(lag is not None, f"-o >(gzip > f.gz): one profile within 5 s of the end ({lag})")
time.sleep(0.3)
one_profile(gzip.open(f"{d}/subst.json.gz").read(), "-o >(gzip > f.gz)")


# -o p.json.gz: a file, gzip by name, atomically (checkpoints too)
rc, out, err, _ = timed(REC + ["-o", f"{d}/named.json.gz", "--"] + SIMPLE, ENV)
e2e.check(rc == plain_rc and out == plain_out, f"-o p.json.gz: exit {rc} and stdout as plain")
try:
    one_profile(gzip.open(f"{d}/named.json.gz").read(), "-o p.json.gz (gzip by name)")
except OSError as ex:
    e2e.check(False, f"-o p.json.gz is gzip ({ex})")
rc, out, err, _ = timed([e2e.OPSCOPE, "report", f"{d}/named.json.gz"], ENV)
e2e.check(rc == 0 and b"Total records" in out, f"opscope report reads p.json.gz (exit {rc})")


def split_stdout(data, what):
    """DATA = the program's own stdout, then the profile: checks the first is the plain run's."""
    e2e.check(data.startswith(plain_out), f"{what}: the program's own output is kept, first ({len(plain_out)} bytes)")
    return data[len(plain_out):]


rc, out, err, _, _ = bash_case("stdout", f"{cmd} -o /dev/stdout -- {simple} > {d}/stdout.out", f"{d}/stdout.out")
e2e.check(rc == plain_rc, f"-o /dev/stdout > f: exit {rc} as plain")
st = os.lstat("/dev/stdout")
e2e.check(os.path.islink("/dev/stdout"), f"/dev/stdout is still a link ({st.st_mode:o})")
one_profile(split_stdout(out, "-o /dev/stdout > f"), "-o /dev/stdout > f")
rc, out, err, _, _ = bash_case("pipe", f"{cmd} -o /dev/stdout -- {simple} | cat > {d}/pipe.out", f"{d}/pipe.out")
e2e.check(rc == 0, f"-o /dev/stdout | cat: exit {rc}")
one_profile(split_stdout(out, "-o /dev/stdout | cat"), "-o /dev/stdout | cat")

# ---- 2. GGML_PROFILE=FIFO with a reader, no record ----
fifo2 = f"{d}/env.fifo"
os.mkfifo(fifo2)
reader = subprocess.Popen(["sh", "-c", f"cat {fifo2} > {d}/env.data"])
env = e2e.env_for([e2e.PRELOAD], profile=fifo2, extra={"OPSCOPE_CHECKPOINT_MS": "100"})
rc, out, err, cap_s = timed(SIMPLE, env)
reader.wait(timeout=10)
e2e.check(rc == 0 and out == plain_out, f"GGML_PROFILE=FIFO: exit {rc} and stdout as plain")
e2e.check(cap_s < plain_s + 1.0, f"GGML_PROFILE=FIFO: exit within 1 s of plain ({cap_s:.2f} s vs {plain_s:.2f} s)")
one_profile(open(f"{d}/env.data", "rb").read(), "GGML_PROFILE=FIFO")

# ---- 3. a FIFO nobody reads ----
fifo3 = f"{d}/alone.fifo"
os.mkfifo(fifo3)
tmp = e2e.outdir("outputs-tmp")
rc, out, err, cap_s = timed(REC + ["-o", fifo3, "--"] + SIMPLE, dict(ENV, TMPDIR=tmp))
e2e.check(rc == plain_rc and out == plain_out, f"-o FIFO without a reader: exit {rc} and stdout as plain")
e2e.check(cap_s < plain_s + 5.0 + 2.0, f"-o FIFO without a reader: not held past the 5 s wait ({cap_s:.2f} s)")
alt = [f for f in os.listdir(tmp) if f.startswith("opscope-profile.")]
e2e.check(len(alt) == 1 and f"written to {tmp}/{alt[0]} instead" in err and "no reader" in err,
          f"-o FIFO without a reader: the profile is kept elsewhere and record says where ({alt}, {err[-300:]!r})")
if alt:
    one_profile(open(f"{tmp}/{alt[0]}", "rb").read(), "the profile kept elsewhere")

# ---- 4. the output's folder removed mid-run ----
gone = e2e.outdir("outputs-gone")
pr = subprocess.Popen(REC + ["-o", f"{gone}/p.json", "--"] + LONG, env=ENV, stdout=subprocess.DEVNULL,
                      stderr=subprocess.PIPE)
e2e.check(wait_file(f"{gone}/p.json", os.path.exists, 60) is not None, "a checkpoint reached the folder")
time.sleep(0.5)
subprocess.run(["rm", "-rf", gone])
time.sleep(0.5)
pr.send_signal(signal.SIGTERM)
_, err = pr.communicate(timeout=60)
err = err.decode("utf-8", "replace")
e2e.check("partial profile is there" not in err and "partial profile is at its path" not in err,
          f"folder removed: record claims no partial profile there ({err[-400:]!r})")
e2e.check("folder was removed" in err, f"folder removed: record says the folder was removed ({err[-600:]!r})")

# ---- 5. ulimit -v 400000 ----
UL = ["llama-completion", "-m", m, "-p", "Hello", "-n", "16", "-no-cnv", "--no-warmup"]


def limited(kb, env, prefix=()):
    r = subprocess.run(["bash", "-c", f"ulimit -v {kb}; exec {sh_quote(list(prefix) + UL)}"], env=env,
                       capture_output=True, timeout=300)
    return r.returncode, r.stderr.decode("utf-8", "replace")


# The limit: 400000 KB where plain passes under it, else the least limit (2 MB steps) under
# which plain passes here (its need depends on the cores: threads): the capture must start
# wherever the plain program does.
limit = 400000
while limited(limit, ENV)[0] != 0 and limit < 600000:
    limit += 2048
rc, _ = limited(limit, ENV)
e2e.check(rc == 0, f"ulimit -v {limit}: plain llama-completion passes (exit {rc})")
WARN = "of address space is left under the limit"
for tag, env, prefix, prof in (
        ("record", ENV, (e2e.OPSCOPE, "record", "-o", f"{d}/ulimit-rec.json", "--"), f"{d}/ulimit-rec.json"),
        ("GGML_PROFILE", e2e.env_for([e2e.PRELOAD], profile=f"{d}/ulimit.json"), (), f"{d}/ulimit.json")):
    rc, err = limited(limit, env, prefix)
    said = err.count(WARN)
    e2e.note(f"note  ulimit -v {limit} under {tag}: exit {rc}, warning lines {said}")
    e2e.check(rc == 0 or said == 1,
              f"ulimit -v {limit} under {tag}: the program passes, or one line says the capture cannot fit "
              f"(exit {rc}, {said} warnings; {err[-300:]!r})")
    e2e.check(said <= 1, f"ulimit -v {limit} under {tag}: at most one warning ({said})")
    e2e.check(rc != 0 or os.path.exists(prof), f"ulimit -v {limit} under {tag}: a profile when it passes")

e2e.finish()
