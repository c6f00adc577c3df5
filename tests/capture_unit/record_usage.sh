#!/usr/bin/env bash
# `opscope record` argument handling (no ggml needed): usage errors exit 1 with one line,
# --help exits 0, a missing library is reported, and with a library present the command's
# exit status comes back and the environment it sees is set up as documented.
set -u
OPSCOPE=$1
WORK=$2
HAVE_LIB=${3:-1} # 0: this build has no capture library (no ggml headers at configure time)
mkdir -p "$WORK"
fail=0
check() { # name expected actual
    if [ "$2" != "$3" ]; then echo "FAIL $1: expected $2, got $3"; fail=1; else echo "ok   $1"; fi
}
"$OPSCOPE" record --help >/dev/null; check "--help exits 0" 0 $?
"$OPSCOPE" record >/dev/null 2>&1; check "no command exits 1" 1 $?
"$OPSCOPE" record --format xml -- true >/dev/null 2>&1; check "bad format exits 1" 1 $?
"$OPSCOPE" record -o >/dev/null 2>&1; check "-o without a file exits 1" 1 $?
"$OPSCOPE" record --bogus -- true >/dev/null 2>&1; check "unknown option exits 1" 1 $?
"$OPSCOPE" record --gpu-timing some -- true >/dev/null 2>&1; check "bad --gpu-timing exits 1" 1 $?
"$OPSCOPE" record --gpu-timing >/dev/null 2>&1; check "--gpu-timing without a mode exits 1" 1 $?
"$OPSCOPE" record --format summary -o x.json -- true >/dev/null 2>&1; check "summary with -o exits 1" 1 $?
OPSCOPE_LIB=/nonexistent/libopscope-ggml.so "$OPSCOPE" record -- true 2>"$WORK/err.txt"
check "missing OPSCOPE_LIB exits 1" 1 $?
grep -q "OPSCOPE_LIB" "$WORK/err.txt"; check "missing library is named" 0 $?
if [ "$HAVE_LIB" = 0 ]; then
    # A build without ggml: record says why it has no library and the way out.
    env -u OPSCOPE_LIB "$OPSCOPE" record -- true 2>"$WORK/err.txt"
    check "record in a build without the capture library exits 1" 1 $?
    grep -q "ggml's headers" "$WORK/err.txt" && grep -q "libggml-dev" "$WORK/err.txt" &&
        grep -q "scripts/in-root.sh" "$WORK/err.txt"
    check "and says why (no ggml headers) and the way out (the forky root)" 0 $?
fi
# A stand-in library (any file): the command runs with our environment and its status returns.
: > "$WORK/libopscope-ggml.so"
cd "$WORK"
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -o out.json -- \
    env -u LD_PRELOAD sh -c 'echo "$GGML_PROFILE|$OPSCOPE_FORMAT" > seen.txt; exit 7' 2>/dev/null
check "command's exit status returned" 7 $?
check "GGML_PROFILE is the absolute output path" "$WORK/out.json|json" "$(cat seen.txt)"
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= OPSCOPE_GPU_TIMING= "$OPSCOPE" record --gpu-timing all -o out.json -- \
    env -u LD_PRELOAD sh -c 'echo "$OPSCOPE_GPU_TIMING" > seen.txt' 2>/dev/null
check "--gpu-timing all sets OPSCOPE_GPU_TIMING" "all" "$(cat seen.txt)"
OPSCOPE_LIB="$WORK/libopscope-ggml.so" "$OPSCOPE" record -- /nonexistent-command 2>/dev/null
check "missing command exits 127" 127 $?
printf 'echo hi\n' > "$WORK/not-executable.sh"
chmod 644 "$WORK/not-executable.sh"
OPSCOPE_LIB="$WORK/libopscope-ggml.so" "$OPSCOPE" record -- "$WORK/not-executable.sh" 2>/dev/null
check "command found but not executable exits 126 (as sh)" 126 $?
# An output that cannot be created: refused before the command runs.
rm -f ran.txt
OPSCOPE_LIB="$WORK/libopscope-ggml.so" "$OPSCOPE" record -o /nonexistent/dir/p.json -- \
    sh -c 'echo ran > ran.txt' 2>"$WORK/err.txt"
check "unwritable output exits 2" 2 $?
check "the command did not run" no "$([ -e ran.txt ] && echo yes || echo no)"
grep -q "cannot write /nonexistent/dir/p.json: No such file or directory" "$WORK/err.txt"
check "the path and the reason are said" 0 $?
# SIGTERM sent to record reaches the command, and record dies by it (bash's wait: 128 + 15).
start=$(date +%s%N)
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -- env -u LD_PRELOAD sleep 5 2>/dev/null &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
check "record killed by SIGTERM dies by SIGTERM" 143 $?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "and the command ended with it (within 2 s, took ${ms} ms)" yes "$([ $ms -lt 2000 ] && echo yes || echo no)"
# The command's death by a signal is repeated.
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -- env -u LD_PRELOAD sh -c 'kill -USR1 $$' 2>/dev/null
check "a command killed by SIGUSR1: record dies by SIGUSR1" $((128 + 10)) $?
# A background job of a script starts with SIGINT ignored (bash, no job control). The program
# itself would install its handler again (llama-completion does) and stop on `kill -INT`: so
# must it under record, which passes SIGINT on and says the signal came in ignored.
HANDLER='import signal, sys, time
signal.signal(signal.SIGINT, lambda *a: sys.exit(130))
signal.signal(signal.SIGABRT, lambda *a: sys.exit(3))
print("ready", flush=True)
time.sleep(10)'
# Python's start can take seconds on a loaded machine (13 s through a pyenv shim at load 10): a
# signal sent before it handles SIGINT finds the shell of the shim ignoring it. Up to 120 s.
wait_ready() { for _ in $(seq 1 2400); do grep -q ready ready.txt 2>/dev/null && break; sleep 0.05; done; }
bg_sigint() { # the command line of a background job, SIGINT sent once it is ready
    rm -f ready.txt
    "$@" > ready.txt 2>>bg.err &
    local pid=$! t0
    wait_ready
    t0=$(date +%s%N)
    kill -INT $pid
    wait $pid
    echo "$? $(( ($(date +%s%N) - t0) / 1000000 ))"
}
: > bg.err
read -r plain_rc _ <<<"$(bg_sigint python3 -c "$HANDLER")"
read -r rec_rc ms <<<"$(bg_sigint env OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -- \
    env -u LD_PRELOAD python3 -c "$HANDLER")"
check "SIGINT to a background job: the program alone exits" 130 "$plain_rc"
check "SIGINT to a background record: the program stops as without record" 130 "$rec_rc"
check "and within 2 s (took ${ms} ms)" yes "$([ "${ms:-9999}" -lt 2000 ] && echo yes || echo no)"
grep -q "SIGINT came in ignored" bg.err; check "record says SIGINT was ignored when it started" 0 $?
# SIGABRT sent to record reaches the command (which here handles it and exits 3).
rm -f ready.txt
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -- env -u LD_PRELOAD python3 -c "$HANDLER" \
    > ready.txt 2>/dev/null &
pid=$!
wait_ready
kill -ABRT $pid
wait $pid
check "SIGABRT to record is passed on to the command" 3 $?
# Two records of one output at once keep both profiles: the later one writes the first free
# name beside it (never an earlier run's file) and says so before its command runs.
rm -f same*.json release # the first record holds the output until the test creates release
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -o same.json -- \
    env -u LD_PRELOAD sh -c 'i=0; while [ ! -e release ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i+1)); done
                            echo first > "$GGML_PROFILE"' 2>/dev/null &
pid=$!
for _ in $(seq 1 2400); do grep -qx "$pid" .same.json.opscope-lock 2>/dev/null && break; sleep 0.05; done
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -o same.json -- \
    env -u LD_PRELOAD sh -c 'echo second > "$GGML_PROFILE"' 2>"$WORK/err.txt"
check "a second record of the same output runs its command" 0 $?
grep -q "same.json is being recorded by another opscope record (pid $pid); this one writes $WORK/same-2.json" \
    "$WORK/err.txt"
check "and says which name it writes instead, and which record holds the output" 0 $?
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -o same.json -- \
    env -u LD_PRELOAD sh -c 'echo third > "$GGML_PROFILE"' 2>"$WORK/err.txt"
grep -q "this one writes $WORK/same-3.json" "$WORK/err.txt"
check "a third one, while same-2.json is on disk, writes same-3.json" 0 $?
touch release
wait $pid
check "the first record goes on" 0 $?
check "every record kept its profile" "first second third" \
    "$(cat same.json same-2.json same-3.json 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -o same.json -- \
    env -u LD_PRELOAD sh -c 'echo later > "$GGML_PROFILE"' 2>"$WORK/err.txt"
check "once it ended, the output is free again" "later" "$(cat same.json)"
# A descendant the command leaves running (sh -c 'prog &'): named, never "no graph was computed".
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -o bg.json -- \
    env -u LD_PRELOAD sh -c 'sleep 3 >/dev/null 2>&1 &' 2>"$WORK/err.txt"
check "record of a command that leaves a process running exits 0" 0 $?
# the background job is a forked sh until it execs sleep: record may see either name
grep -qE "(sleep|sh) \(pid [0-9]*\), started by the command, is still running" "$WORK/err.txt"
check "the process still running is named" 0 $?
grep -q "no ggml graph was computed" "$WORK/err.txt"
check "and record does not say that no graph was computed" 1 $?
# Our lines start on a fresh line, also after the command's unfinished last line.
OPSCOPE_LIB="$WORK/libopscope-ggml.so" LD_PRELOAD= "$OPSCOPE" record -o nl.json -- \
    env -u LD_PRELOAD sh -c 'printf "partial line" >&2' 2>"$WORK/err.txt"
grep -qx "partial line" "$WORK/err.txt" && grep -q "^opscope record: " "$WORK/err.txt"
check "record's line starts after the command's unfinished one" 0 $?
exit $fail
