#!/usr/bin/env python3
"""opscope top in a terminal during a real run: llama-server on the tiny model under
`opscope record` in the forky root (scripts/in-root.sh), 2 clients sending completions in a
loop from here, and `opscope top` (this build) in a tmux pane on the growing record log. Two
frames 3 s apart differ, both say the run is running, and both show the server's generation
tokens/s: within a factor of 2 of the rate the clients' own replies give over the window
(the sum of predicted_n of the replies that ended in the 10 s before the frame, 1 s earlier:
the log's lag; top --window 10). s takes the next sort column, space pauses and resumes, q quits top; the clients stop, the server is killed (SIGKILL), and
`opscope top --once` on the log it leaves has report's top 5 op groups and times (within 1%)
and, since the start, the replies' prompt tokens, their generated tokens but the last, and as
many requests as replies.

usage: live_tmux.py OPSCOPE REPO WORKDIR   (exit 77: no root, no tmux, or no capture library)"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import checklist  # noqa: E402

opscope, repo, work = sys.argv[1], sys.argv[2], sys.argv[3]
SKIP = 77
if os.getuid() != 0 or not shutil.which("tmux") or not shutil.which("unshare"):
    print("SKIP: needs root (the forky root) and tmux")
    sys.exit(SKIP)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def check(cond, what):
    """checklist's check; a passed one is printed too (the figures this run saw)."""
    if cond:
        print("ok    " + what, flush=True)
    return checklist.check(cond, what)


in_root = os.path.join(repo, "scripts", "in-root.sh")
r = subprocess.run([in_root, "--no-build", "test -s \"$OPSCOPE_PRELOAD\" && test -s /models/tiny-dense-f32.gguf"],
                   cwd=work, capture_output=True, text=True, timeout=300)
if r.returncode != 0:
    print("SKIP: the capture library or the tiny model is not in the root yet:", r.stderr.strip()[-300:])
    sys.exit(SKIP)

s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
log = os.path.join(work, "p.json")
server_cmd = ("exec \"$OPSCOPE_BIN\" record -o /host-cwd/p.json -- llama-server -m /models/tiny-dense-f32.gguf "
              "--parallel 2 -c 4096 -t 2 --host 127.0.0.1 --port %d --no-warmup --no-webui" % port)
srv = subprocess.Popen([in_root, "--no-build", server_cmd], cwd=work, start_new_session=True,
                       stdout=open(os.path.join(work, "server.log"), "wb"), stderr=subprocess.STDOUT)
base = "http://127.0.0.1:%d" % port
tmux = ["tmux", "-L", "opscope-top-test-%d" % os.getpid()]
replies = []  # (end time on this machine's monotonic clock, predicted_n, prompt_n)
N_PREDICT = 8  # short requests: the clients' rate is counted in whole replies
WINDOW = 10  # top's window and the clients' span: a reply is 0.8 tokens/s of it
stop = threading.Event()


def client(i):
    n = 0
    while not stop.is_set():
        body = {"prompt": "Client %d request %d: tell a story" % (i, n), "n_predict": N_PREDICT, "temperature": 0,
                "ignore_eos": True, "cache_prompt": False}
        req = urllib.request.Request(base + "/completion", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                out = json.loads(resp.read())
            replies.append((time.monotonic(), out["timings"]["predicted_n"], out["timings"]["prompt_n"]))
        except (OSError, KeyError, ValueError):
            time.sleep(0.2)
        n += 1


def comm(pid):
    try:
        return open("/proc/%d/comm" % pid).read().strip()
    except OSError:
        return ""


def descendants(root):
    """The pids under ROOT (children, their children...), from /proc."""
    kids = {}
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                st = open("/proc/%s/stat" % e).read()
                kids.setdefault(int(st.rsplit(")", 1)[1].split()[1]), []).append(int(e))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


def frame():
    # -J: a line the pane wrapped (a long path in the first line) comes back whole
    return subprocess.run(tmux + ["capture-pane", "-p", "-J", "-t", "top"], capture_output=True, text=True).stdout


def gen_rate(text):
    for line in text.splitlines():
        if line.startswith("tokens/s"):
            return float(line.split("generation")[1].split()[0])
    return None


def clients_rate(t_end, span=WINDOW, lag=1.0):
    """Generated tokens per second in the replies that ended in the SPAN s before T_END - LAG:
    top's window ends at the latest record in the log, which the capture appends every second."""
    return sum(r[1] for r in replies if t_end - lag - span < r[0] <= t_end - lag) / span


try:
    healthy = False
    for _ in range(240):
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as resp:
                healthy = resp.status == 200
        except OSError:
            pass
        if healthy or srv.poll() is not None:
            break
        time.sleep(0.5)
    if not check(healthy, "llama-server under opscope record becomes healthy"):
        raise SystemExit
    clients = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(2)]
    for t in clients:
        t.start()
    time.sleep(2)
    top_cmd = [opscope, "top", "--window", str(WINDOW), log]
    subprocess.run(tmux + ["new-session", "-d", "-s", "top", "-x", "150", "-y", "45"] + top_cmd, check=True)
    time.sleep(WINDOW + 2)  # the window fills
    f1, t1 = frame(), time.monotonic()
    time.sleep(3)
    f2, t2 = frame(), time.monotonic()
    open(os.path.join(work, "frame1.txt"), "w").write(f1)
    open(os.path.join(work, "frame2.txt"), "w").write(f2)
    print(f2)
    check(f1 != f2, "two frames 3 s apart differ")
    for f, t, name in ((f1, t1, "frame 1"), (f2, t2, "frame 2")):
        g, want = gen_rate(f), clients_rate(t)
        check(" running " in f, "%s says the run is running" % name)
        check(g is not None and want > 0 and want / 2 <= g <= want * 2,
              "%s: generation %s tokens/s, the clients' replies %.1f tokens/s over %d s" % (name, g, want, WINDOW))
        check("llama-server" in f and "MUL_MAT" in f, "%s names the program and its ops" % name)
    subprocess.run(tmux + ["send-keys", "-t", "top", "s"])
    time.sleep(1.5)
    check("sort: total" in frame(), "s takes the next sort column (total)")
    subprocess.run(tmux + ["send-keys", "-t", "top", " "])
    time.sleep(1.5)
    p1 = frame()
    time.sleep(2.5)
    p2 = frame()
    check("[paused]" in p1 and p1 == p2, "space pauses: the frame says so and stays as it was 2.5 s later")
    subprocess.run(tmux + ["send-keys", "-t", "top", " "])
    time.sleep(2.5)
    check("[paused]" not in frame() and frame() != p2, "space again: refreshing again")
    subprocess.run(tmux + ["send-keys", "-t", "top", "q"])
    time.sleep(1.5)
    alive = subprocess.run(tmux + ["has-session", "-t", "top"], capture_output=True).returncode == 0
    check(not alive, "q quits top")
    stop.set()  # the clients finish their requests; 2.5 s more and their batches are in the log
    for t in clients:
        t.join(timeout=60)
    time.sleep(2.5)
finally:
    stop.set()
    subprocess.run(tmux + ["kill-server"], capture_output=True)
    # the server killed (found among this test's own descendants, by pid): its log stays
    for pid in descendants(srv.pid):
        if comm(pid) == "llama-server":
            os.kill(pid, signal.SIGKILL)
    try:
        srv.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(srv.pid, signal.SIGKILL)
        srv.wait()

if os.path.exists(log):
    js = os.path.join(work, "summary.json")
    rr = subprocess.run([opscope, "report", log, "--json", js, "-q"], capture_output=True, text=True)
    rt = subprocess.run([opscope, "top", "--once", "--sort", "total", log], capture_output=True, text=True)
    if check(rr.returncode == 0 and rt.returncode == 0, "report and top --once read the killed run's log"):
        summ = json.load(open(js))
        want = sorted(summ["summary"]["ops"], key=lambda o: -o["total_ns"])[:5]
        rows = [ln.split() for ln in rt.stdout.split(" TYPE Backend")[1].splitlines()[1:6]]
        for o, row in zip(want, rows):
            got_ms = float(row[-3])
            check(" ".join(row[2:-6]) == o["display"] and abs(got_ms - o["total_ns"] / 1e6) <= 0.01 * o["total_ns"] / 1e6,
                  "top's %s %.3f ms = report's %.3f ms (1%%)" % (o["display"], got_ms, o["total_ns"] / 1e6))
        since = [ln for ln in rt.stdout.splitlines() if ln.startswith("tokens/s")][0].split("since start:")[1].split()
        prompt, gen = int(since[0]), int(since[2])
        # each reply's generated tokens but its last were decoded (the last may be too)
        want_gen, want_prompt = sum(r[1] - 1 for r in replies), sum(r[2] for r in replies)
        check(want_gen <= gen <= want_gen + len(replies),
              "generated since start %d: the %d replies' predicted_n - 1 (%d), or up to 1 more each"
              % (gen, len(replies), want_gen))
        check(prompt == want_prompt, "prompt tokens since start %d = the replies' prompt_n (%d; llama-server's "
              "warm-up left out)" % (prompt, want_prompt))
        seen = [ln for ln in rt.stdout.splitlines() if ln.startswith("requests")][0].split(",")[1].split()[0]
        check(int(seen) == len(replies), "requests seen %s = the clients' replies (%d)" % (seen, len(replies)))
print("%d failed" % len(checklist.failures))
sys.exit(1 if checklist.failures else 0)
