#!/usr/bin/env python3
"""Fails when a path named in ARCHITECTURE.md's "to change X, go to Y" tables does not exist.

  arch_paths.py REPO_ROOT

Every table whose header starts with "To change" is read; in its second column a token is a
path when it holds a '/' or ends in a source or document extension. A bare name (stats.c)
is in the folder of the path before it in the same cell; a capture room's table names paths
below src/ the same way. <placeholder> stands for any name (src/cli/<command>.c: at least
one file must match). Prints each missing path with its row, then a summary line.
"""
import glob
import os
import re
import sys

EXT = re.compile(r"\.(c|h|def|md|py|js|css|html|sh|cmake)$")
TOKEN = re.compile(r"[A-Za-z0-9_<>.*/-]+")


def cell_paths(cell):
    """The paths a "go to" cell names, bare names resolved against the one before."""
    out, folder = [], None
    for tok in TOKEN.findall(re.sub(r"\([^)]*\)", lambda m: " " + m.group(0)[1:-1] + " ", cell)):
        tok = tok.rstrip(".")
        if not tok.strip("/"):  # "reading / writing": a separator
            continue
        if "/" in tok:
            out.append(tok)
            folder = tok if tok.endswith("/") else os.path.dirname(tok) + "/"
        elif EXT.search(tok) and tok != "README.md":
            out.append((folder or "") + tok)
        elif tok == "README.md":
            out.append(tok)
    return out


def table_rows(text):
    """(what, go to) of every row of every "To change" table."""
    rows, inside = [], False
    for line in text.splitlines():
        if not line.startswith("|"):
            inside = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0].startswith("To change"):
            inside = True
        elif inside and not set(cells[0]) <= set("-: ") and len(cells) >= 2:
            rows.append((cells[0], "|".join(cells[1:])))
    return rows


def exists(root, path):
    pattern = re.sub(r"<[^>]*>", "*", path)
    return bool(glob.glob(os.path.join(root, pattern)))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 1
    root = sys.argv[1]
    rows = table_rows(open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8").read())
    missing, n = [], 0
    for what, cell in rows:
        for p in cell_paths(cell):
            n += 1
            if not exists(root, p):
                missing.append((p, what))
    for p, what in missing:
        print(f"FAIL {p} (row '{what}') does not exist")
    if len(rows) < 10 or n < 20:
        print(f"FAIL only {len(rows)} rows and {n} paths read: is the table still there?")
        return 1
    print(f"arch_paths: {'ok' if not missing else 'FAILED'} ({len(rows)} rows, {n} paths, "
          f"{len(missing)} missing)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
