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

WHEELS=${VLLM_WHEELS:-}   # a folder of already downloaded vllm-<version>-*.whl (optional)
# Default: every release recorded in tools/vllm_releases.txt (tools/refresh_vllm_releases.py), newest first.
if [ $# -gt 0 ]; then
  VERSIONS=("$@")
else
  mapfile -t VERSIONS < <(grep -v '^#' "$ROOT/tools/vllm_releases.txt" | grep . | tac)
fi

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
    # vllm/_core_ext.py probes vllm._core_C with find_spec, then needs its ScalarType class
    0.6.0|0.6.1|0.6.1.*|0.6.2|0.6.3|0.6.3.*) echo "--hide vllm._core_C" ;;
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
ALWAYS_NODEPS="xgrammar llguidance apache-tvm-ffi gguf mistral-common lm-format-enforcer interegular pycountry cloudpickle"
NODEPS_RE='^(xgrammar|interegular|pycountry|compressed-tensors|depyf|outlines_core|outlines-core|lm-format-enforcer|mistral_common|mistral-common|llguidance|gguf|outlines)$'

# Installs use uv with one cache on the same disk as the venvs, linked by hardlink: torch and
# every pure-Python dependency exist once on disk however many venvs use them (what each venv
# sees is an ordinary install, so the parser is the same as with pip). The vLLM wheel itself
# is dropped from the cache after each install (it is the part that differs per release).
export UV_CACHE_DIR=${UV_CACHE_DIR:-$ENVS/.uv-cache}
export UV_LINK_MODE=${UV_LINK_MODE:-hardlink}
UV=${UV:-uv}
# torch: the local CPU wheel when it lies on disk (never a CUDA build from the index).
TORCH_WHEEL=$(ls /opt/wheels/torch-2.13.0+cpu-*.whl 2>/dev/null | head -1)
if [ -z "${TORCH_SPEC:-}" ] && [ -n "$TORCH_WHEEL" ]; then TORCH="torch @ file://$TORCH_WHEEL"; fi

uvpip() { "$UV" pip "$@"; }

setup_env() {
  local v=$1 venv=$ENVS/$1
  [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import vllm" 2>/dev/null && return 0
  rm -rf "$venv"
  "$UV" venv -q -p "$PY" "$venv" || return 1
  local py=$venv/bin/python cons=$venv/constraints.txt ovr=$venv/overrides.txt
  echo "$TORCH" >"$ovr"
  : >"$cons"
  for p in $(extra_pins "$v"); do echo "$p" >>"$cons"; done
  uvpip install -q -p "$py" "$TORCH" || return 1
  local wheel
  wheel=$(ls "$WHEELS"/vllm-"$v"-*.whl 2>/dev/null | head -1)
  uvpip install -q -p "$py" --no-deps "${wheel:-vllm==$v}" || return 1
  "$UV" cache clean -q vllm 2>/dev/null || true
  # vLLM's own requirements, minus the skip list, with markers evaluated by the installer;
  # the skipped ones vLLM imports at module level anyway (NODEPS_RE) go to nodeps.txt with
  # the release's own version spec and are installed without their dependencies.
  "$py" - "$SKIP_RE" "$NODEPS_RE" "$venv/nodeps.txt" >"$venv/reqs.txt" <<'PYEOF'
import re, sys
from importlib.metadata import distribution
skip, nodeps = re.compile(sys.argv[1], re.I), re.compile(sys.argv[2], re.I)
with open(sys.argv[3], "w") as nd:
    for req in distribution("vllm").requires or []:
        if "extra ==" in req:
            continue
        name = re.split(r"[\s\[<>=!~;(]", req, maxsplit=1)[0]
        if nodeps.match(name):
            print(req, file=nd)
        elif not skip.match(name):
            print(req)
PYEOF
  if ! uvpip install -q -p "$py" -c "$cons" --override "$ovr" -r "$venv/reqs.txt" 2>"$venv/pip-bulk.log"; then
    while IFS= read -r req; do
      uvpip install -q -p "$py" -c "$cons" --override "$ovr" "$req" 2>>"$venv/pip-each.log" || echo "skip: $req" >>"$venv/skipped.txt"
    done <"$venv/reqs.txt"
  fi
  while IFS= read -r req; do
    uvpip install -q -p "$py" --no-deps -c "$cons" "$req" 2>>"$venv/pip-each.log" \
      || uvpip install -q -p "$py" --no-deps "${req%%[<>=!~;[ (]*}" 2>>"$venv/pip-each.log" \
      || echo "skip: $req" >>"$venv/skipped.txt"
  done <"$venv/nodeps.txt"
  # imported at module level by most releases without being (all) listed: install up front
  # instead of discovering them one generator run at a time
  for p in $ALWAYS_NODEPS; do
    "$py" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('${p//-/_}') is None)" 2>/dev/null \
      || uvpip install -q -p "$py" --no-deps -c "$cons" "$p" 2>>"$venv/pip-each.log"
  done
  for p in $(extra_pins "$v") $(extra_installs "$v"); do
    uvpip install -q -p "$py" -c "$cons" --override "$ovr" "$p" 2>>"$venv/pip-each.log"
  done
}

# Run the generator; while the import reports `No module named …`, install that package (one at a
# time) and run it again. The successful run writes the schema, so the generator runs once per
# version when nothing is missing.
generate() {
  local v=$1 venv=$ENVS/$1 last="" out mod pkg flag
  for _ in $(seq 1 40); do
    # shellcheck disable=SC2046
    if out=$(cd "$ROOT" && VLLM_TARGET_DEVICE=cpu "$venv/bin/python" tools/gen_vllm_schema.py --out "$OUT" $(stubs_for "$v") 2>&1); then
      # a parser obtained by a fallback because vLLM's CLI could not import a module: install it, retry
      mod=$("$venv/bin/python" -c "import json, re, sys; x = json.load(open(sys.argv[1]))['x-vlint']
m = [re.search(r\"No module named '([^'.]+)\", r) for r in x['parser_fallback_reasons']]
print(next((g.group(1) for g in m if g), ''))" "$OUT/$v.json" 2>/dev/null)
      if [ -z "$mod" ]; then
        tail -1 <<<"$out" >&2
        return 0
      fi
      out="No module named '$mod'"
    fi
    mod=$(grep -oP "No module named '\K[^'.]+" <<<"$out" | tail -1)
    # mistral_common and others say: requires "pycountry" to be installed
    [ -z "$mod" ] && mod=$(grep -oP 'requires "\K[A-Za-z0-9_.-]+(?=" to be installed)' <<<"$out" | tail -1)
    if [ -z "$mod" ] || [[ "$mod" == vllm* ]] || [ "$mod" == "$last" ]; then
      tail -25 <<<"$out" >"$venv/generator-error.log"
      echo "   generator failed (see $venv/generator-error.log): $(tail -1 <<<"$out")" >&2
      return 1
    fi
    last=$mod
    pkg=$(module_to_pkg "$mod")
    flag=""
    [[ "$pkg" =~ $NODEPS_RE ]] && flag="--no-deps"
    echo "  + $pkg (for $mod)" >&2
    uvpip install -q -p "$venv/bin/python" $flag -c "$venv/constraints.txt" --override "$venv/overrides.txt" "$pkg" 2>>"$venv/pip-each.log" || return 1
  done
  return 1
}

free_gb() { df -Pk "$ENVS" | awk 'NR==2 {print int($4 / 1048576)}'; }
kept() { [ -f "$ENVS/KEEP" ] && grep -qxF "$1" "$ENVS/KEEP"; }
mark_ready() { grep -qxF "$1" "$ENVS/READY" 2>/dev/null || echo "$1" >>"$ENVS/READY"; }
remove_env() {
  rm -rf "${ENVS:?}/$1"
  [ -f "$ENVS/READY" ] && { grep -vxF "$1" "$ENVS/READY" >"$ENVS/READY.tmp"; mv "$ENVS/READY.tmp" "$ENVS/READY"; }
  echo "   removed env $1" >&2
}
# Delete generated environments not listed in KEEP (read afresh each time), oldest first,
# until $1 GB are free (or all such envs are gone).
prune_until() {
  local want=$1 e
  [ -f "$ENVS/READY" ] || return 0
  while IFS= read -r e; do
    [ "$(free_gb)" -ge "$want" ] && return 0
    [ -n "$e" ] && [ "$e" != "$CURRENT" ] && [ "$e" != "${GENERATING:-}" ] && ! kept "$e" && remove_env "$e"
  done <"$ENVS/READY"
}

# VLLM_ENVS_PRUNE=1: delete each env right after its schema is generated (unless in KEEP).
# Otherwise envs stay until the disk runs low: before each build at least MIN_FREE_GB + 5
# are made free by deleting envs not in KEEP.
MIN_FREE_GB=${MIN_FREE_GB:-15}
[ -f "$ENVS/timings.tsv" ] || echo -e "version\tenv_seconds\tgenerator_seconds\tstatus\tfree_gb\tdate" >"$ENVS/timings.tsv"
# The generator of one release (CPU) runs while the next release's environment is installed (disk
# and network); installs themselves stay one at a time (a missing-module install of the generator
# waits for nothing but is rare).
gen_and_record() {
  local v=$1 t0=$2 t1=$3 t2 status ts
  ts=$(date +%s)
  if generate "$v"; then
    status=ok
    mark_ready "$v"
  else
    status=generator-failed
  fi
  t2=$(date +%s)
  echo -e "$v\t$((t1 - t0))\t$((t2 - ts))\t$status\t$(free_gb)\t$(date -Is)" >>"$ENVS/timings.tsv"
  echo "   $v: env $((t1 - t0))s, generator $((t2 - ts))s, $status" >&2
  if [ "${VLLM_ENVS_PRUNE:-0}" = 1 ] && [ "$status" = ok ] && ! kept "$v"; then remove_env "$v"; fi
}

CURRENT=""
GEN_PID=""
GENERATING=""
for v in "${VERSIONS[@]}"; do
  echo "== vllm $v" >&2
  CURRENT=$v
  prune_until $((MIN_FREE_GB + 5))
  if [ "$(free_gb)" -lt $((MIN_FREE_GB + 3)) ] && [ ! -d "$ENVS/$v" ]; then
    echo -e "$v\t-\t-\tno-disk\t$(free_gb)\t$(date -Is)" >>"$ENVS/timings.tsv"
    continue
  fi
  t0=$(date +%s)
  if ! setup_env "$v"; then
    echo -e "$v\t$(($(date +%s) - t0))\t-\tenv-failed\t$(free_gb)\t$(date -Is)" >>"$ENVS/timings.tsv"
    continue
  fi
  t1=$(date +%s)
  [ -n "$GEN_PID" ] && wait "$GEN_PID"
  GENERATING=$v
  gen_and_record "$v" "$t0" "$t1" &
  GEN_PID=$!
done
[ -n "$GEN_PID" ] && wait "$GEN_PID"
