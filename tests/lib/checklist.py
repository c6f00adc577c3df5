"""checklist.py - the quiet check of the Python tests that print their failures only (the
diff, refuse, view-progress and Kineto checks; tests/report/checks.py prints every check):

  check(cond, what)  COND; when false, "FAIL: WHAT" printed and WHAT kept in `failures`
  failures           the failed checks' texts, in order (the script's exit status)
"""

failures = []


def check(cond, what):
    """Returns COND; when it is false prints "FAIL: WHAT" and appends WHAT to `failures`."""
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond
