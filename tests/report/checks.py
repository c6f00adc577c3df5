"""checks.py - what the Python report tests share (standard library only; each test imports
it from its own folder): check() prints an expectation's outcome and keeps the failures,
load() reads a JSON file, run() runs a command with its output captured, done() gives the
tally and the exit status."""
import json
import subprocess

failures = []
n_checks = 0
print_ok = True  # a test checking field by field in loops sets it False: failures only


def check(cond, what):
    """Prints "FAIL" (and, with print_ok, "ok") before WHAT; a failure is kept for done().
    Returns COND."""
    global n_checks
    n_checks += 1
    if print_ok or not cond:
        print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def load(path, **kw):
    """The JSON document in PATH (KW: json.load's, e.g. parse_float)."""
    with open(path) as f:
        return json.load(f, **kw)


def run(args, **kw):
    """ARGS run to their end, stdout and stderr captured (KW: subprocess.run's)."""
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def done(name):
    """Prints NAME and how many checks failed; returns the exit status (1 when any did)."""
    if failures:
        print(f"{name}: {len(failures)} of {n_checks} checks failed: " + "; ".join(failures[:5]))
        return 1
    print(f"{name}: all {n_checks} checks passed")
    return 0
