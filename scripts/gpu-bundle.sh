#!/usr/bin/env bash
# Packs what a GPU machine without a Rust toolchain needs to run scripts/gpu-check.sh: the
# release binary (dynamically linked: a static one cannot load OpenCL drivers), the C library and
# dynamic loader it was linked against (with the rest of that C library's family that drivers
# link: libpthread, libdl, librt), the OpenCL ICD loader (libOpenCL.so.1) and the check script.
#
#   scripts/gpu-bundle.sh [--binary FILE] [DIR]    # default DIR: target/gpu-bundle
#
# --binary FILE  pack FILE instead of running `cargo build --release` first (CI passes the
#                target/release/nqueens that `cargo test --release` built: `cargo build` would
#                rebuild it, since the dev-dependencies change the features of a few crates)
#
# On the GPU machine, from anywhere:
#   DIR/gpu-check [OPTIONS]      # scripts/gpu-check.sh with the carried binary (see its --help)
#   DIR/nqueens devices          # any nqueens command, the same way
#
# Both source DIR/lib/env.sh, which sets up at every run, on the machine that runs them:
# - the library path the carried loader gets: DIR/lib first, so the carried C library is the
#   one the binary and every library it loads run with (the machine's programs keep theirs:
#   LD_LIBRARY_PATH itself is not changed); then the machine's LD_LIBRARY_PATH; then the folders
#   where OpenCL drivers are put (see env.sh). The machine's OpenCL driver is therefore loaded
#   with the carried C library: it works when the driver needs no newer C library than the
#   carried one (the build machine's; NVIDIA's driver libraries are built to run on old
#   distributions), and when it needs one the loader refuses it; `gpu-check` then writes why
#   (diagnose.txt: each driver's dependencies as the carried loader resolves them).
# - OCL_ICD_VENDORS (unless it is set): DIR/vendors, whose nvidia.icd names NVIDIA's OpenCL
#   driver (libnvidia-opencl.so.1) by its full path when a folder of that library path holds it,
#   else by ldconfig's cache, else by its bare name.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="" out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) [ $# -ge 2 ] || { echo "gpu-bundle: --binary needs a file" >&2; exit 2; }
                  binary=$2; shift 2 ;;
        -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "gpu-bundle: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) [ -z "$out" ] || { echo "gpu-bundle: one folder only (see --help)" >&2; exit 2; }
           out=$1; shift ;;
    esac
done
out=${out:-target/gpu-bundle}
if [ -z "$binary" ]; then
    cargo build --release --quiet
    binary=target/release/nqueens
fi
[ -x "$binary" ] || { echo "gpu-bundle: $binary is not an executable file" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/lib" "$out/vendors" "$out/scripts"
cp "$binary" "$out/lib/nqueens"
# Every shared library the binary links, and the loader itself.
loader="" libc=""
while read -r lib; do
    cp -L "$lib" "$out/lib/"
    case "$lib" in
        */ld-linux*) loader=$(basename "$lib") ;;
        */libc.so.6) libc=$lib ;;
    esac
done < <(ldd "$binary" | grep -o '/[^ ]*')
[ -n "$loader" ] || { echo "gpu-bundle: no dynamic loader in ldd's list" >&2; exit 1; }
[ -n "$libc" ] || { echo "gpu-bundle: no libc.so.6 in ldd's list" >&2; exit 1; }
# The parts of the same C library that drivers link and the binary does not (since glibc 2.34
# they are empty stubs, but a driver asks for them by name, and the machine's copies belong to
# the machine's C library).
for lib in libpthread.so.0 libdl.so.2 librt.so.1 libm.so.6; do
    [ -e "$out/lib/$lib" ] || [ ! -e "$(dirname "$libc")/$lib" ] || cp -L "$(dirname "$libc")/$lib" "$out/lib/"
done
opencl=$(ldconfig -p | awk '/libOpenCL\.so\.1 .*x86-64/ { print $NF; exit }')
[ -n "$opencl" ] || { echo "gpu-bundle: libOpenCL.so.1 not found (apt-get install ocl-icd-libopencl1)" >&2; exit 1; }
cp -L "$opencl" "$out/lib/libOpenCL.so.1"
cp scripts/gpu-check.sh "$out/scripts/"
{
    echo "built: $(date -u +%FT%TZ) on $(uname -n)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src Cargo.toml Cargo.lock 2>/dev/null || echo ' (with uncommitted changes to src)')"
    echo "binary: $("$binary" --version)"
    echo "C library: $("$out/lib/$loader" --version | head -1)"
    echo "OpenCL loader: $opencl"
} >"$out/BUILD.txt"

{
    echo '# shellcheck shell=bash'
    printf 'nq_loader=%q\n' "$loader"
    cat <<'EOF'
# Sourced by the bundle's nqueens and gpu-check (written by scripts/gpu-bundle.sh), with $bundle
# the bundle folder. Exports:
#   NQUEENS_BUNDLE         the bundle folder
#   NQUEENS_BUNDLE_LOADER  the carried dynamic loader
#   NQUEENS_BUNDLE_PATH    the library path the loader gets: $bundle/lib first (the carried C
#                          library must be the one every library runs with: a second C library
#                          in one process crashes it), then LD_LIBRARY_PATH, then the driver
#                          folders below that exist
#   OCL_ICD_VENDORS        unless set: $bundle/vendors, its nvidia.icd written now
# LD_LIBRARY_PATH is left as it is: the machine's own programs (bash, grep) must not get the
# carried C library.
export NQUEENS_BUNDLE=${bundle:?}
export NQUEENS_BUNDLE_LOADER=$bundle/lib/$nq_loader
# Where OpenCL drivers are, after LD_LIBRARY_PATH, in this order:
# - /usr/local/nvidia/lib64, /usr/local/nvidia/lib: where NVIDIA's device plugins for containers
#   (Kubernetes, GKE) mount the driver of the host, usually reachable only through
#   LD_LIBRARY_PATH; first, because that copy matches the host's kernel module, while a copy in
#   the image's own folders may be a stale package;
# - /usr/lib/x86_64-linux-gnu (Debian, Ubuntu) and /usr/lib64 (Red Hat, SUSE): where the NVIDIA
#   container toolkit and the driver packages put it.
# Not /usr/local/cuda/lib64: the CUDA toolkit holds no OpenCL driver there (its libOpenCL.so.1 is
# an ICD loader, and ours comes first), and its compat folder's libcuda is meant to be chosen
# deliberately (through LD_LIBRARY_PATH).
nq_driver_dirs=(/usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64)
nq_path=$bundle/lib
IFS=: read -ra nq_dirs <<<"${LD_LIBRARY_PATH:-}"
for nq_d in "${nq_dirs[@]}" "${nq_driver_dirs[@]}"; do
    # An empty entry would mean the current folder; the driver folders only when they exist.
    [ -n "$nq_d" ] || continue
    case " ${nq_driver_dirs[*]} " in *" $nq_d "*) [ -d "$nq_d" ] || continue ;; esac
    case ":$nq_path:" in *":$nq_d:"*) continue ;; esac
    nq_path=$nq_path:$nq_d
done
export NQUEENS_BUNDLE_PATH=$nq_path

# The full path of the first 64-bit copy of library $1 in the folders of NQUEENS_BUNDLE_PATH
# after the carried ones, else of ldconfig's cache; nothing when neither has one.
nq_find_lib() {
    local d f
    local -a dirs
    IFS=: read -ra dirs <<<"$NQUEENS_BUNDLE_PATH"
    for d in "${dirs[@]:1}"; do
        f=$d/$1
        # ELF class at byte 4: 02 is 64-bit (a lib folder may hold 32-bit copies).
        if [ -f "$f" ] && [ "$(od -An -tx1 -j4 -N1 "$f" 2>/dev/null | tr -d ' ')" = 02 ]; then
            case "$f" in /*) ;; *) f=$(cd "$d" && pwd)/$1 ;; esac
            echo "$f"
            return
        fi
    done
    { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true; } |
        awk -v n="$1" '$1 == n && /x86-64/ { print $NF; exit }'
}

if [ -z "${OCL_ICD_VENDORS:-}" ]; then
    nq_vendors=$bundle/vendors
    if ! { mkdir -p "$nq_vendors" && [ -w "$nq_vendors" ]; } 2>/dev/null; then
        nq_vendors=$(mktemp -d "${TMPDIR:-/tmp}/nqueens-vendors.XXXXXX")
    fi
    nq_icd=$(nq_find_lib libnvidia-opencl.so.1)
    # Written aside and renamed: a run beside this one reads a whole file (the loader reads only
    # names ending in .icd).
    echo "${nq_icd:-libnvidia-opencl.so.1}" >"$nq_vendors/.nvidia.icd.$$"
    mv -f "$nq_vendors/.nvidia.icd.$$" "$nq_vendors/nvidia.icd"
    export OCL_ICD_VENDORS=$nq_vendors
fi
EOF
} >"$out/lib/env.sh"

cat >"$out/nqueens" <<'EOF'
#!/usr/bin/env bash
# nqueens through the carried loader and libraries (see lib/env.sh).
bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$bundle/lib/env.sh"
exec "$NQUEENS_BUNDLE_LOADER" --library-path "$NQUEENS_BUNDLE_PATH" "$bundle/lib/nqueens" "$@"
EOF
cat >"$out/gpu-check" <<'EOF'
#!/usr/bin/env bash
# scripts/gpu-check.sh with the carried nqueens (see lib/env.sh); results under ./results/
# unless --out says where.
bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$bundle/lib/env.sh"
export NQUEENS=$bundle/nqueens
exec "$bundle/scripts/gpu-check.sh" "$@"
EOF
chmod +x "$out/nqueens" "$out/gpu-check"
size=$(du -sk "$out" | cut -f1)
echo "gpu-bundle: $out, $((size / 1024)) MiB"
# What a device run can carry (docs/GPU.md).
if [ "$size" -gt $((64 * 1024)) ]; then
    echo "gpu-bundle: warning: over the 64 MiB a device run carries" >&2
fi
