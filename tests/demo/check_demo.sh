#!/usr/bin/env bash
# The demo's output: no build chatter (at most 20 lines on stderr), profile.json and
# trace.json written, a "next:" block last, and its host commands run (exit 0).
set -u
REPO=$1 BUILD=$2 WORK=$3
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the demo needs root"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
fail=0
check() { if [ "$2" != "$3" ]; then echo "FAIL $1: expected $2, got $3"; fail=1; else echo "ok   $1"; fi; }
bash "$REPO/scripts/demo.sh" "$BUILD" > out.txt 2> err.txt
check "the demo exits 0" 0 $?
n=$(wc -l < err.txt)
check "stderr is short (${n} lines, no build chatter)" yes "$([ "$n" -le 20 ] && echo yes || echo no)"
check "profile.json and trace.json written" yes "$([ -s profile.json ] && [ -s trace.json ] && echo yes || echo no)"
check "the summary is on stdout" yes "$(grep -q 'opscope summary' out.txt && echo yes || echo no)"
check "it ends with the next commands" yes "$(sed -n '/^next:/,$p' err.txt | grep -c opscope | grep -qv '^0$' && echo yes || echo no)"
# every next command that runs on the host (not the root's, not the diff that needs mine.json)
while IFS= read -r line; do
    cmd=${line%%#*}
    case "$cmd" in *"$BUILD/src/opscope"*mine.json*|*in-root.sh*|"") continue ;; esac
    eval "$cmd" > /dev/null 2> cmd.err
    check "next command runs: $cmd" 0 $?
done < <(sed -n '/^next:/,$p' err.txt | tail -n +2 | grep -v '^ *#')
exit $fail
