#!/usr/bin/env python3
"""How the profiled program ended, said in every output.

A profile's capture.end (docs/formats.md) says how the program ended as far as the file
knows: "exit" and "signal" (caught, the profile written before the death) are whole;
"checkpoint" (the last write while it ran), "killed" and "crash" (record saw it die after
that write) are not: the capture did not see the end. Hand-written profiles of each kind,
and a real record log left by a killed run (tests/read/data/killed_run.oplog), read by
`report` into the console's first screen, --text, --json and the viewer: one line (the
console's and text report's "Ended:", the viewer's summary string) and one JSON member
(summary.end) for each profile the capture did not see end, the seconds between the last
write and the death worked out here from at_ns and died_ns; nothing but summary.end for a
whole profile; nothing at all for a profile that does not say.

Usage: ended.py OPSCOPE LOG WORKDIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "viewer"))
import viewer_data  # noqa: E402
from checks import check, done  # noqa: E402

BACKENDS = [{"id": 0, "name": "CPU", "device": "cpu", "device_type": 0}]
RECORDS = [{"type": 0, "name": "MUL_MAT", "backend_id": 0, "split_id": 0, "graph_id": g, "start_ns": 1_000 + 10_000 * g,
            "duration_ns": 4_000, "bytes": 1_024, "extra": None, "n_src": 1, "ne_src": [[256, 1, 1, 1]],
            "type_src": [0]} for g in range(4)]
AT, DIED = 1_000_000_000, 62_440_000_000  # the last write, and the death 61.44 s later
MISSING = "the capture did not see the end: records made after that write, if any, are missing"

# how -> (signal, complete, the sentence expected, worked out by hand from the rule in
# docs/metrics.md, "How the program ended")
CASES = {
    "killed": ("SIGKILL", False,
               f"llama-completion was killed by SIGKILL {(DIED - AT) / 1e9:.2f} s after the capture's last write; "
               + MISSING),
    "crash": ("SIGSEGV", False,
              f"llama-completion crashed with SIGSEGV {(DIED - AT) / 1e9:.2f} s after the capture's last write; "
              + MISSING),
    "checkpoint": (None, False, "llama-completion did not end before this write (a checkpoint made while it ran: it "
                                "was killed, crashed or is still running); " + MISSING),
    "signal": ("SIGTERM", True, "llama-completion ended by SIGTERM, which the capture caught: the profile was written "
                                "first and is whole"),
    "exit": (None, True, "llama-completion exited: the profile is whole"),
}


def first_screen(stdout):
    """The console's first screen: the lines between its first and third rule."""
    lines, rules = [], 0
    for ln in stdout.splitlines():
        if ln.startswith("====="):
            rules += 1
            if rules == 3:
                break
            continue
        if rules:
            lines.append(ln)
    return lines


def outputs(opscope, src, work, tag):
    """(exit status, stderr, first screen, text report, JSON summary, viewer data) of SRC."""
    out = {k: os.path.join(work, f"{tag}-out.{k}") for k in ("json", "txt", "html")}
    p = subprocess.run([opscope, "report", src, "--json", out["json"], "--text", out["txt"]], capture_output=True,
                       text=True, timeout=120)
    v = subprocess.run([opscope, "view", src, "-o", out["html"]], capture_output=True, text=True, timeout=120)
    try:
        with open(out["txt"]) as f:
            txt = f.read()
        with open(out["json"]) as f:
            summary = json.load(f)["summary"]
        with open(out["html"]) as f:
            data, _ = viewer_data.decode(f.read())
    except (OSError, ValueError) as e:
        check(False, f"{tag}: outputs written ({e}; report {p.returncode} {p.stderr!r}, view {v.returncode})")
        return None
    return p.returncode | v.returncode, p.stderr, first_screen(p.stdout), txt, summary, data


def ended_lines(lines):
    return [ln for ln in lines if ln.startswith(" Ended:")]


def check_case(opscope, work, how):
    sig, complete, text = CASES[how]
    end = {"how": how, "at_ns": AT}
    if sig:
        end["signal"] = sig
    if how in ("killed", "crash"):
        end["died_ns"] = DIED
    src = os.path.join(work, f"{how}.json")
    with open(src, "w") as f:
        json.dump({"profiler": "ggml", "version": 3, "backends": BACKENDS, "records": RECORDS,
                   "capture": {"program": "llama-completion", "pid": 4242, "end": end}}, f)
    got = outputs(opscope, src, work, how)
    if not got:
        return
    rc, _, screen, txt, summary, data = got
    check(rc == 0, f"{how}: report and view exit 0 ({rc})")
    want_line = [] if complete and how == "exit" else [f" Ended:{' ' * 9}{text}"]
    check(ended_lines(screen) == want_line, f"{how}: the console's first screen says {want_line} "
                                            f"({ended_lines(screen)})")
    want_txt = [] if complete and how == "exit" else [f" Ended:{' ' * 10}{text}"]
    check(ended_lines(txt.splitlines()) == want_txt, f"{how}: the text report says {want_txt} "
                                                     f"({ended_lines(txt.splitlines())})")
    want = {"how": how, "signal": sig, "complete": complete, "text": text}
    if how in ("killed", "crash"):
        want["after_last_write_ns"] = DIED - AT
    check(summary.get("end") == want, f"{how}: summary.end {summary.get('end')} == {want}")
    want_view = None if complete else text
    check(data.get("ended") == want_view, f"{how}: the viewer's data says {want_view!r} ({data.get('ended')!r})")


def main():
    opscope, log, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    for how in CASES:
        check_case(opscope, work, how)

    # a profile that does not say how the program ended: nothing said
    src = os.path.join(work, "plain.json")
    with open(src, "w") as f:
        json.dump({"profiler": "ggml", "version": 3, "backends": BACKENDS, "records": RECORDS}, f)
    got = outputs(opscope, src, work, "plain")
    if got:
        rc, _, screen, txt, summary, data = got
        check(rc == 0 and not ended_lines(screen) and not ended_lines(txt.splitlines()) and "end" not in summary
              and "ended" not in data, "no capture.end: no line, no summary.end, no viewer string")

    # a record log a killed run left, read directly: its END chunk says "checkpoint"
    got = outputs(opscope, log, work, "log")
    if got:
        rc, err, screen, txt, summary, data = got
        text = CASES["checkpoint"][2]
        check(rc == 0 and ended_lines(screen) == [f" Ended:{' ' * 9}{text}"],
              f"record log: the console's first screen says it ({ended_lines(screen)})")
        check(ended_lines(txt.splitlines()) == [f" Ended:{' ' * 10}{text}"], "record log: the text report says it")
        check(summary.get("end", {}).get("how") == "checkpoint" and summary["end"].get("complete") is False,
              f"record log: summary.end says a checkpoint, not complete ({summary.get('end')})")
        check(data.get("ended") == text, f"record log: the viewer's data says it ({data.get('ended')!r})")
        warn = [ln for ln in err.splitlines() if "warning" in ln]
        check(len(warn) == 1 and "later ones are missing" in warn[0],
              f"record log: report's one warning on stderr stays ({warn})")


main()
sys.exit(done("ended"))
