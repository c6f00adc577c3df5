set -e
cd /host-cwd
gcc -std=c11 -O2 -shared -fPIC /opscope/tests/capture_e2e/watchalloc.c -o /tmp/wa.so
rm -f /tmp/wa.log.* /tmp/p.json
export OPSCOPE_TEST_ALLOCLOG=/tmp/wa.log OPSCOPE_CHECKPOINT_MS=50
LD_PRELOAD=/tmp/wa.so $OPSCOPE_BIN record -o /tmp/p.json -- llama-completion -m /models/tiny-dense-f32.gguf -p "The quick brown fox" -n 64 --temp 0 -t 2 --ignore-eos -no-cnv --no-warmup >/dev/null 2>/tmp/err.txt || tail -5 /tmp/err.txt
for f in /tmp/wa.log.*; do echo "== $f"; grep -c -- "^--" $f || true; grep calls $f; done
cat $(grep -l "^calls [1-9]" /tmp/wa.log.* | head -1) | head -150
L=$(grep -l "^calls [1-9]" /tmp/wa.log.* | head -1)
python3 - "$L" "$OPSCOPE_PRELOAD" <<'PY'
import sys,re,subprocess,collections
txt=open(sys.argv[1]).read().split("-- ")[1:]
c=collections.Counter()
for b in txt:
    offs=re.findall(r"libopscope-ggml.so\(\+(0x[0-9a-f]+)\)",b)
    what=b.split("\n")[0]
    if not offs: continue
    r=subprocess.run(["addr2line","-f","-s","-e",sys.argv[2]]+[hex(int(o,16)-1) for o in offs],capture_output=True,text=True).stdout.split("\n")
    fn=[r[i] for i in range(0,len(r)-1,2)]
    c[what+": "+" < ".join(fn[:6])]+=1
for k,v in c.most_common(): print(v,k)
PY
