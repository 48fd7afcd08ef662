#!/usr/bin/env bash
# Packs what a GPU machine without a Rust toolchain needs to run scripts/gpu-check.sh: the
# release binary (dynamically linked: a static one cannot load OpenCL drivers), the C library and
# dynamic loader it was linked against, the OpenCL ICD loader (libOpenCL.so.1), a vendors folder
# naming NVIDIA's OpenCL driver, and the check script.
#
#   scripts/gpu-bundle.sh [DIR]          # default: target/gpu-bundle
#
# On the GPU machine, from the bundle folder:
#   ./gpu-check                          # runs scripts/gpu-check.sh with the carried binary
#   ./nqueens devices                    # any nqueens command, the same way
# The carried loader runs the binary with the carried libraries, so the machine's own C library
# does not matter; the driver (libnvidia-opencl.so.1) is the machine's. OCL_ICD_VENDORS is set to
# the carried vendors folder unless already set; add .icd files there for other drivers.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/gpu-bundle}
cargo build --release --quiet
rm -rf "$out"
mkdir -p "$out/lib" "$out/vendors" "$out/scripts"
cp target/release/nqueens "$out/lib/nqueens"
# Every shared library the binary links, and the loader itself.
loader=""
while read -r lib; do
    cp -L "$lib" "$out/lib/"
    case "$lib" in */ld-linux*) loader=$(basename "$lib") ;; esac
done < <(ldd target/release/nqueens | grep -o '/[^ ]*')
[ -n "$loader" ] || { echo "gpu-bundle: no dynamic loader in ldd's list" >&2; exit 1; }
opencl=$(ldconfig -p | awk '/libOpenCL\.so\.1 .*x86-64/ { print $NF; exit }')
[ -n "$opencl" ] || { echo "gpu-bundle: libOpenCL.so.1 not found (apt-get install ocl-icd-libopencl1)" >&2; exit 1; }
cp -L "$opencl" "$out/lib/libOpenCL.so.1"
echo libnvidia-opencl.so.1 >"$out/vendors/nvidia.icd"
cp scripts/gpu-check.sh "$out/scripts/"
cat >"$out/nqueens" <<EOF
#!/usr/bin/env bash
# nqueens through the carried loader and libraries (see gpu-bundle.sh).
here=\$(cd "\$(dirname "\$0")" && pwd)
export OCL_ICD_VENDORS=\${OCL_ICD_VENDORS:-\$here/vendors}
exec "\$here/lib/$loader" --library-path "\$here/lib" "\$here/lib/nqueens" "\$@"
EOF
cat >"$out/gpu-check" <<'EOF'
#!/usr/bin/env bash
# scripts/gpu-check.sh with the carried nqueens; results go to ./results/.
here=$(cd "$(dirname "$0")" && pwd)
export NQUEENS=$here/nqueens
exec "$here/scripts/gpu-check.sh" --out "$here/results/$(date -u +%F)-gpu" "$@"
EOF
chmod +x "$out/nqueens" "$out/gpu-check"
du -sh "$out" | sed 's/^/gpu-bundle: /'
