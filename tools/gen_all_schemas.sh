#!/usr/bin/env bash
# Regenerate schemas/vllm/<version>.json for one or more vLLM releases.
#
#   tools/gen_all_schemas.sh                 # every bundled version (newest first)
#   tools/gen_all_schemas.sh 0.33.0 0.30.0   # just these
#
# For each version: a venv under $VLLM_ENVS/<version> (default /tmp/vllm-envs) with
# Python 3.11, the CPU build of torch (torch==2.13.0, which lies on this machine's disk;
# never let pip pull a CUDA torch), `pip install --no-deps vllm==<version>`, then the
# pure-Python dependencies from vLLM's own metadata (minus GPU/compiled extras), then
# whatever the import still asks for (one package per "No module named" error).
# Then tools/gen_vllm_schema.py runs inside that venv. Timings go to
# $VLLM_ENVS/timings.tsv (version, seconds for the venv, seconds for the generator, status).
# See tools/README.md.
set -uo pipefail

ROOT=${VLINT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
ENVS=${VLLM_ENVS:-/tmp/vllm-envs}
OUT=${VLLM_SCHEMA_OUT:-$ROOT/schemas/vllm}
PY=${PYTHON:-python3.11}
TORCH=${TORCH_SPEC:-torch==2.13.0}
mkdir -p "$ENVS" "$OUT"

DEFAULT_VERSIONS=(0.33.0 0.30.0 0.28.0 0.25.1 0.22.1 0.19.1 0.18.1 0.17.1 0.15.1 0.13.0
  0.11.2 0.10.2 0.10.0 0.9.2 0.8.5.post1 0.7.3 0.6.6.post1)
if [ $# -gt 0 ]; then VERSIONS=("$@"); else VERSIONS=("${DEFAULT_VERSIONS[@]}"); fi

# Requirements never installed: CUDA/compiled kernels, torch companions, Ray.
SKIP_RE='^(torch|torchvision|torchaudio|torchcodec|xformers|flashinfer.*|triton|ray|nvidia-.*|cupy.*|pynvvideocodec|tilelang|quack-kernels|tokenspeed-mla|humming-kernels|fastsafetensors|instanttensor|zentorch|deep[-_]gemm|flash[-_]attn|vllm[-_]flash[-_]attn|intel.*|bitsandbytes|numba|llvmlite|opencv-python-headless|nixl.*|apache-tvm-ffi|cuda-python|cuda-bindings|pynvml|nvidia-ml-py|outlines|mistral[-_]common|compressed[-_]tensors|depyf|gguf|xgrammar|llguidance|lm-format-enforcer|outlines[-_]core|pyarrow|datasets|scipy)$'

# Extra pins per version (old vLLM needs old transformers etc.).
extra_pins() {
  case "$1" in
    0.6.*|0.7.*) echo "transformers<4.50 tokenizers<0.22 numpy<2 pydantic<2.11 fastapi<0.116 openai<1.60 huggingface_hub<0.30 setuptools<80" ;;
    0.8.*) echo "transformers<4.52 numpy<2.3 pydantic<2.12 huggingface_hub<0.32 setuptools<80" ;;
    0.9.*) echo "transformers<4.54 numpy<2.3 pydantic<2.12 huggingface_hub<0.34 setuptools<80" ;;
    0.10.*) echo "transformers<4.57 pydantic<2.12 setuptools<80" ;;
    *) echo "" ;;
  esac
}

# Extra packages per version, installed after the requirements. 0.8.x puts a placeholder
# `triton` module into sys.modules when triton is missing, which torch 2.13's inductor then
# fails to import from (`cannot import name 'Config' from 'triton'`): a real (CPU-importable)
# triton avoids that.
extra_installs() {
  case "$1" in
    0.8.*) echo "triton" ;;
    *) echo "" ;;
  esac
}

# Modules replaced by empty stubs before importing vLLM (documented in tools/README.md).
stubs_for() {
  case "$1" in
    *) echo "" ;;
  esac
}

module_to_pkg() {
  case "$1" in
    openai_harmony) echo openai-harmony ;;
    cv2) echo opencv-python-headless ;;
    yaml) echo pyyaml ;;
    zmq) echo pyzmq ;;
    PIL) echo pillow ;;
    cpuinfo) echo py-cpuinfo ;;
    google) echo protobuf ;;
    pythonjsonlogger) echo python-json-logger ;;
    tvm_ffi) echo apache-tvm-ffi ;;
    lmformatenforcer) echo lm-format-enforcer ;;
    multipart) echo python-multipart ;;
    dateutil) echo python-dateutil ;;
    pkg_resources) echo "setuptools<80" ;;
    *) echo "${1//_/-}" ;;
  esac
}

# Packages installed without their dependencies (they would pull a CUDA torch).
NODEPS_RE='^(xgrammar|compressed-tensors|depyf|outlines_core|outlines-core|lm-format-enforcer|mistral_common|mistral-common|llguidance|gguf|outlines)$'

setup_env() {
  local v=$1 venv=$ENVS/$1
  [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import vllm" 2>/dev/null && return 0
  rm -rf "$venv"
  "$PY" -m venv "$venv" || return 1
  "$venv/bin/pip" install -q "$TORCH" || return 1
  "$venv/bin/pip" install -q --no-deps "vllm==$v" || return 1
  local cons=$venv/constraints.txt
  echo "$TORCH" >"$cons"
  for p in $(extra_pins "$v"); do echo "$p" >>"$cons"; done
  # vLLM's own requirements, minus the skip list, with markers evaluated by pip.
  "$venv/bin/python" - "$SKIP_RE" >"$venv/reqs.txt" <<'EOF'
import re, sys
from importlib.metadata import distribution
skip = re.compile(sys.argv[1], re.I)
for req in distribution("vllm").requires or []:
    if "extra ==" in req:
        continue
    name = re.split(r"[\s\[<>=!~;(]", req, maxsplit=1)[0]
    if not skip.match(name):
        print(req)
EOF
  if ! "$venv/bin/pip" install -q -c "$cons" -r "$venv/reqs.txt" 2>"$venv/pip-bulk.log"; then
    while IFS= read -r req; do
      "$venv/bin/pip" install -q -c "$cons" "$req" 2>>"$venv/pip-each.log" || echo "skip: $req" >>"$venv/skipped.txt"
    done <"$venv/reqs.txt"
  fi
  for p in $(extra_pins "$v"); do "$venv/bin/pip" install -q -c "$cons" "$p" 2>>"$venv/pip-each.log"; done
  for p in $(extra_installs "$v"); do "$venv/bin/pip" install -q -c "$cons" "$p" 2>>"$venv/pip-each.log"; done
}

# Install what the generator's import still asks for, one module at a time.
fill_missing() {
  local v=$1 venv=$ENVS/$1 last="" out mod pkg flag
  for _ in $(seq 1 40); do
    out=$(cd "$ROOT" && VLLM_TARGET_DEVICE=cpu "$venv/bin/python" tools/gen_vllm_schema.py --stdout $(stubs_for "$v") 2>&1 >/dev/null)
    mod=$(grep -oP "No module named '\K[^'.]+" <<<"$out" | tail -1)
    # mistral_common and others say: requires "pycountry" to be installed
    [ -z "$mod" ] && mod=$(grep -oP 'requires "\K[A-Za-z0-9_.-]+(?=" to be installed)' <<<"$out" | tail -1)
    [ -z "$mod" ] && return 0
    [[ "$mod" == vllm* ]] && return 0
    if [ "$mod" == "$last" ]; then echo "stuck on module $mod" >&2; return 1; fi
    last=$mod
    pkg=$(module_to_pkg "$mod")
    flag=""
    [[ "$pkg" =~ $NODEPS_RE ]] && flag="--no-deps"
    echo "  + $pkg (for $mod)" >&2
    "$venv/bin/pip" install -q $flag -c "$venv/constraints.txt" "$pkg" 2>>"$venv/pip-each.log" || return 1
  done
}

for v in "${VERSIONS[@]}"; do
  echo "== vllm $v" >&2
  t0=$(date +%s)
  setup_env "$v" || { echo -e "$v\t$(($(date +%s) - t0))\t-\tenv-failed" >>"$ENVS/timings.tsv"; continue; }
  fill_missing "$v"
  t1=$(date +%s)
  # shellcheck disable=SC2046
  if (cd "$ROOT" && VLLM_TARGET_DEVICE=cpu "$ENVS/$v/bin/python" tools/gen_vllm_schema.py --out "$OUT" $(stubs_for "$v")); then
    status=ok
  else
    status=generator-failed
  fi
  t2=$(date +%s)
  echo -e "$v\t$((t1 - t0))\t$((t2 - t1))\t$status" >>"$ENVS/timings.tsv"
  echo "   $v: env $((t1 - t0))s, generator $((t2 - t1))s, $status" >&2
done
