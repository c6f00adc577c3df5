#!/usr/bin/env python3
"""`opscope record` gives back the command's exit status, and a killed run says so everywhere.

1. Whatever became of the profile, record's exit status is the command's (as the plain
   command's, run here): a full disk (a 16 KiB tmpfs filled to its last block), a folder
   removed during the run, a command that exits 3, one killed by SIGTERM; each missing profile
   is ONE line on stderr naming the program, the path and the errno text (os.strerror, not
   opscope's). --strict and OPSCOPE_STRICT=1 turn a 0 with a missing profile into 2, and leave
   3 and SIGTERM alone. A disk without a free inode is not refused before the run (the
   command runs, its status given back). A read-only place is refused before the run (exit 2, the command not
   run); a bad option is a usage error (1). A full $TMPDIR does not silence record: the
   profile is still listed with its program.
2. llama-completion -i --ignore-eos killed by SIGKILL after its last token (waiting in read(0)
   for the next line, found in /proc/PID/syscall): record dies by SIGKILL; its record log, read directly,
   holds every graph nodecount (an independent shim) saw computed, and the console's first
   screen, --text, --json (summary.end) and the viewer each say in one line that it was killed
   by SIGKILL and that the capture did not see the end.
"""
import errno
import json
import os
import re
import signal
import subprocess
import sys
import time

import e2e

sys.path.insert(0, os.path.join(e2e.HERE, "..", "viewer"))
import viewer_data  # noqa: E402

e2e.guard_children()
e2e.need_preload()
if not e2e.OPSCOPE:
    e2e.skip("the opscope CLI is not built in the root")
m = e2e.model("tiny-dense-f32")
d = e2e.outdir("exit")
ENV = e2e.env_for([], extra={"OPSCOPE_LIB": e2e.PRELOAD})
SHORT = ["llama-completion", "-m", m, "-p", "Hello", "-n", "8", "-no-cnv", "-t", "2", "--no-warmup"]
LONG = ["llama-completion", "-m", m, "-p", "Hello", "-n", "100000", "-no-cnv", "--ignore-eos", "-t", "2",
        "--no-warmup"]
ENOSPC, ENOENT, EROFS = os.strerror(errno.ENOSPC), os.strerror(errno.ENOENT), os.strerror(errno.EROFS)


def sh_quote(cmd):
    return " ".join("'" + a.replace("'", "'\\''") + "'" for a in cmd)


def record(args, cmd, env=None, timeout=300):
    return e2e.run([e2e.OPSCOPE, "record"] + args + ["--"] + cmd, env or ENV, timeout=timeout)


def ours(err):
    """The lines opscope (record or the capture) wrote on stderr."""
    return [ln for ln in err.splitlines() if ln.startswith("opscope")]


def cannot_write(path, why):
    return re.compile(rf"opscope record: cannot write the profile of llama-completion \(pid \d+\) to "
                      rf"{re.escape(path)}: .*{re.escape(why)}$")


def mount_tmpfs(path, opts):
    os.makedirs(path, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", path], check=True)


def fill(path):
    """Writes PATH/fill until the file system has no block left."""
    fd = os.open(os.path.join(path, "fill"), os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while os.write(fd, b"\0" * 512) > 0:
            pass
    except OSError as ex:
        if ex.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)


plain_short = e2e.run(SHORT, ENV)[0]
plain_three = subprocess.run(["sh", "-c", f"{sh_quote(SHORT)} >/dev/null 2>&1; exit 3"]).returncode
plain_term = subprocess.run(["sh", "-c", "kill -TERM $$"]).returncode
e2e.check((plain_short, plain_three, plain_term) == (0, 3, -signal.SIGTERM),
          f"plain: llama-completion exits 0, the script 3, the other dies by SIGTERM "
          f"({plain_short}, {plain_three}, {plain_term})")

# ---- 1. the exit status, whatever became of the profile ----
full = f"{d}/full"
mount_tmpfs(full, "size=16k")
try:
    fill(full)
    st = os.statvfs(full)
    e2e.check(st.f_bavail == 0, f"the tmpfs is full ({st.f_bavail} blocks free)")
    p = f"{full}/p.json"
    for strict, want in (([], 0), (["--strict"], 2)):
        rc, _, err = record(strict + ["-o", p], ["true"])
        e2e.check(rc == want and len(err.strip().splitlines()) == 1,
                  f"full disk, record {' '.join(strict)} -- true: exit {rc} (want {want}), one line ({err.strip()!r})")
    cases = ((["-o", p], SHORT, ENV, plain_short),
             (["--strict", "-o", p], SHORT, ENV, 2),
             (["-o", p], SHORT, dict(ENV, OPSCOPE_STRICT="1"), 2),
             (["-o", p], ["sh", "-c", f"{sh_quote(SHORT)} >/dev/null 2>&1; exit 3"], ENV, plain_three),
             (["--strict", "-o", p], ["sh", "-c", f"{sh_quote(SHORT)} >/dev/null 2>&1; exit 3"], ENV, plain_three))
    for args, cmd, env, want in cases:
        rc, _, err = record(args, cmd, env=env)
        lines = ours(err)
        label = (f"full disk, record {' '.join(args[:-2])}{' OPSCOPE_STRICT=1' if 'OPSCOPE_STRICT' in env else ''}"
                 f" -- {'a script that exits 3' if cmd[0] == 'sh' else 'llama-completion'}")
        e2e.check(rc == want and len(lines) == 1 and cannot_write(p, ENOSPC).match(lines[0]) is not None,
                  f"{label}: exit {rc} (want {want}), one line naming the program, {p} and '{ENOSPC}' ({lines})")
        e2e.check(os.listdir(full) == ["fill"], f"{label}: nothing left on the full disk ({os.listdir(full)})")

    # SIGTERM to record while the command runs on the full disk: it dies by SIGTERM, --strict or not
    for strict in ([], ["--strict"]):
        out = f"{d}/term.out"
        pr = subprocess.Popen([e2e.OPSCOPE, "record"] + strict + ["-o", p, "--"] + LONG, env=ENV,
                              stdin=subprocess.DEVNULL, stdout=open(out, "wb"), stderr=subprocess.PIPE)
        try:
            t0 = time.monotonic()
            while os.path.getsize(out) < 200 and pr.poll() is None and time.monotonic() - t0 < 60:
                time.sleep(0.05)
            pr.send_signal(signal.SIGTERM)
            _, err = pr.communicate(timeout=60)
        finally:
            e2e.stop_children(pr)
        lines = ours(err.decode("utf-8", "replace"))
        e2e.check(pr.returncode == -signal.SIGTERM and len(lines) == 1 and cannot_write(p, ENOSPC).match(lines[0]),
                  f"full disk, record {' '.join(strict)} of llama-completion sent SIGTERM: dies by SIGTERM "
                  f"(rc {pr.returncode}), one line ({lines})")

    # a full $TMPDIR: the run directory goes elsewhere, record still names the profile's program
    t = f"{d}/t.json"
    rc, _, err = record(["--strict", "-o", t], SHORT, env=dict(ENV, TMPDIR=full))
    e2e.check(rc == 0 and re.search(rf"profile written to {re.escape(t)} \(llama-completion, pid \d+, \d+ records\)",
                                    err) is not None and os.path.exists(t),
              f"a full $TMPDIR: exit {rc}, the profile listed with its program ({ours(err)})")
finally:
    subprocess.run(["umount", "-l", full])
    os.rmdir(full)  # outdir() of the next run removes files only

# no inode left: not even the check's empty temporary file can be made, and still the
# command runs (a full disk is not refused before the run) and gives back its status
ino = f"{d}/ino"
mount_tmpfs(ino, "size=64k,nr_inodes=4")
try:
    made = 0
    try:
        while True:
            open(f"{ino}/f{made}", "w").close()
            made += 1
    except OSError as ex:
        e2e.check(ex.errno == errno.ENOSPC, f"the tmpfs' inodes are used up after {made} files ({ex})")
    for strict, want in (([], plain_short), (["--strict"], 2)):
        rc, _, err = record(strict + ["-o", f"{ino}/p.json"], SHORT)
        lines = ours(err)
        e2e.check(rc == want and len(lines) == 1 and cannot_write(f"{ino}/p.json", ENOSPC).match(lines[0]) is not None,
                  f"no inode left, record {' '.join(strict)}: the command ran, exit {rc} (want {want}), one line "
                  f"({lines})")
finally:
    subprocess.run(["umount", "-l", ino])
    os.rmdir(ino)

# a folder removed during the run
gone = f"{d}/gone"
for strict, want in (([], plain_short), (["--strict"], 2)):
    os.makedirs(gone, exist_ok=True)
    x = f"{gone}/x.json"
    rc, _, err = record(strict + ["-o", x], ["sh", "-c", f"rm -r '{gone}' && {sh_quote(SHORT)}"])
    lines = ours(err)
    e2e.check(rc == want and len(lines) == 1 and cannot_write(x, ENOENT).match(lines[0]) is not None,
              f"the folder removed during the run, record {' '.join(strict)}: exit {rc} (want {want}), one line "
              f"({lines})")

# a read-only place: refused before the run, the command not run
ro = f"{d}/ro"
mount_tmpfs(ro, "ro,size=64k")
try:
    rc, out, err = record(["-o", f"{ro}/p.json"], ["echo", "ran"])
    e2e.check(rc == 2 and out == b"" and ours(err) == [f"opscope record: cannot write {ro}/p.json: {EROFS}"],
              f"a read-only place: refused before the run (exit {rc}, output {out!r}, {ours(err)})")
finally:
    subprocess.run(["umount", "-l", ro])
    os.rmdir(ro)

# the command's own status when the profile is fine, and record's usage errors
rc, _, _ = record(["-o", f"{d}/three.json"], ["sh", "-c", "exit 3"])
e2e.check(rc == plain_three, f"record -- a command that exits 3: exit {rc}")
rc, _, _ = record(["--strict", "-o", f"{d}/term.json"], ["sh", "-c", "kill -TERM $$"])
e2e.check(rc == plain_term, f"record --strict -- a command killed by SIGTERM: dies by SIGTERM too (rc {rc})")
rc, _, err = record(["--bogus"], ["true"])
e2e.check(rc == 1 and "unknown option '--bogus'" in err, f"a bad option: usage error, exit {rc}")


# ---- 2. killed by SIGKILL after its last token ----
def waiting_for_input(pid):
    """Whether PID's main thread waits in read(0, ...): llama-completion -i after its tokens."""
    try:
        with open(f"/proc/{pid}/syscall") as f:
            fields = f.read().split()
    except OSError:
        return False
    return len(fields) > 2 and fields[0] == "0" and int(fields[1], 16) == 0


nc = e2e.nodecount_lib(d)
counts = f"{d}/counts-kill.txt"
k = f"{d}/k.json"
INTERACTIVE = ["llama-completion", "-m", m, "-p", "Hello", "-n", "16", "-i", "--ignore-eos", "-t", "2", "--no-warmup"]
env = dict(ENV, LD_PRELOAD=nc, OPSCOPE_TEST_NODECOUNT=counts)
pr = subprocess.Popen([e2e.OPSCOPE, "record", "-o", k, "--"] + INTERACTIVE, env=env, stdin=subprocess.PIPE,
                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
try:
    t0 = time.monotonic()
    kids = []
    while pr.poll() is None and time.monotonic() - t0 < 120:
        kids = [p for p, _, pp in e2e.descendants(pr.pid) if pp == pr.pid]
        if kids and waiting_for_input(kids[0]):
            break
        time.sleep(0.1)
    idle = bool(kids) and waiting_for_input(kids[0])
    time.sleep(2.5)  # the next checkpoint (every second) writes the last token's records
    if kids:
        os.kill(kids[0], signal.SIGKILL)
    _, err = pr.communicate(timeout=60)
    err = err.decode("utf-8", "replace")
finally:
    e2e.stop_children(pr)
e2e.check(idle and pr.returncode == -signal.SIGKILL,
          f"llama-completion -i killed by SIGKILL while it waits for input after its tokens: record dies by "
          f"SIGKILL (rc {pr.returncode}, waiting: {idle})")
said = re.findall(r"llama-completion \(pid \d+\) was killed by SIGKILL; its profile (\S+) holds the (\d+) records",
                  err)
e2e.check(said and said[0][0] == k, f"record says it was killed and where its profile is ({ours(err)})")
if os.path.exists(k):
    e2e.check(e2e.is_record_log(k), "the killed run's profile is its record log (read directly below)")
    n_graphs = len(e2e.read_counts(counts))
    prof = e2e.load_checked(k)
    graphs = {r.get("graph_id") for r in e2e.op_records(prof)}
    e2e.check(n_graphs >= 16 and len(graphs) == n_graphs and said and len(prof["records"]) == int(said[0][1]),
              f"the record log holds every graph nodecount saw ({len(graphs)} == {n_graphs}) and the records "
              f"record named ({len(prof['records'])})")
    out = {x: f"{d}/k-out.{x}" for x in ("json", "txt", "html")}
    rep = subprocess.run([e2e.OPSCOPE, "report", k, "--json", out["json"], "--text", out["txt"]],
                         capture_output=True, text=True, timeout=120)
    view = subprocess.run([e2e.OPSCOPE, "view", k, "-o", out["html"]], capture_output=True, text=True, timeout=120)
    killed = re.compile(r"llama-completion was killed by SIGKILL (\d+\.\d\d) s after the capture's last write; the "
                        r"capture did not see the end: records made after that write, if any, are missing$")
    screen = rep.stdout.split("=" * 80)[2] if rep.stdout.count("=" * 80) >= 3 else ""
    lines = [ln for ln in screen.splitlines() if ln.startswith(" Ended:")]
    e2e.check(rep.returncode == 0 and len(lines) == 1 and killed.search(lines[0]) is not None,
              f"report's first screen says it in one line ({lines})")
    with open(out["txt"]) as f:
        lines = [ln for ln in f.read().splitlines() if ln.startswith(" Ended:")]
    e2e.check(len(lines) == 1 and killed.search(lines[0]) is not None, f"--text says it in one line ({lines})")
    with open(out["json"]) as f:
        end = json.load(f)["summary"].get("end", {})
    cap_end = prof.get("capture", {}).get("end", {})
    e2e.check(end.get("how") == "killed" and end.get("signal") == "SIGKILL" and end.get("complete") is False and
              end.get("after_last_write_ns") == cap_end.get("died_ns", 0) - cap_end.get("at_ns", 0) > 1e9 and
              killed.search(end.get("text", "")) is not None,
              f"--json: summary.end says killed by SIGKILL, not complete, after the last write ({end}, {cap_end})")
    with open(out["html"]) as f:
        data, _ = viewer_data.decode(f.read())
    e2e.check(view.returncode == 0 and killed.search(data.get("ended", "")) is not None,
              f"view: the page's summary says it ({data.get('ended')!r})")
e2e.finish()
