cd /host-cwd
ls -la /tmp/p.json; head -c 300 /tmp/err.txt; $OPSCOPE_BIN report /tmp/p.json 2>&1 | head -12
