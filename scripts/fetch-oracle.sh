#!/usr/bin/env bash
# Fetches NVIDIA's sm_35 oracle tools (CUDA 11.8: nvdisasm, cuobjdump, ptxas, NVRTC)
# into .oracle/ (git-ignored). Idempotent: a second run with everything present does
# nothing. Nothing fetched here is ever committed.
#
#   .oracle/bin/{nvdisasm,cuobjdump,ptxas}   from Debian 12's non-free nvidia-cuda-toolkit
#   .oracle/lib/libnvrtc.so.11.2 (+ builtins) from PyPI nvidia-cuda-nvrtc-cu11==11.8.89
#
# A private apt configuration under .oracle/apt is used, so the machine's own apt
# sources are left untouched.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.oracle"
mkdir -p "$dest/bin" "$dest/lib"

say() { echo "fetch-oracle: $*" >&2; }
die() { echo "fetch-oracle: error: $*" >&2; exit 1; }

have_bins() { [ -x "$dest/bin/nvdisasm" ] && [ -x "$dest/bin/cuobjdump" ] && [ -x "$dest/bin/ptxas" ]; }
have_nvrtc() { [ -f "$dest/lib/libnvrtc.so.11.2" ]; }

if ! have_bins; then
  say "fetching nvidia-cuda-toolkit 11.8 from Debian non-free (about 84 MB)"
  apt_dir="$dest/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc/preferences.d" "$apt_dir/etc/sources.list.d"
  cat >"$apt_dir/etc/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm contrib non-free
SRC
  aptopts=(-o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
           -o "Dir::Etc::SourceParts=$apt_dir/etc/sources.list.d"
           -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
           -o "Dir::State::Lists=$apt_dir/lists"
           -o "Dir::Cache=$apt_dir/cache"
           -o "Debug::NoLocking=1"
           -o "APT::Get::List-Cleanup=0")
  apt-get "${aptopts[@]}" -qq update >/dev/null 2>"$apt_dir/update.log" \
    || die "cannot reach Debian's package archive (apt-get update failed; see $apt_dir/update.log)"
  ( cd "$apt_dir/cache/archives" && apt-get "${aptopts[@]}" -qq download nvidia-cuda-toolkit ) \
    >/dev/null 2>"$apt_dir/download.log" \
    || die "cannot download nvidia-cuda-toolkit from Debian non-free (see $apt_dir/download.log)"
  deb=$(ls "$apt_dir"/cache/archives/nvidia-cuda-toolkit_*.deb | head -n1)
  x="$apt_dir/x"
  rm -rf "$x"; mkdir -p "$x"
  dpkg-deb -x "$deb" "$x"
  for t in nvdisasm cuobjdump ptxas; do
    f=$(find "$x" -type f -name "$t" | head -n1)
    [ -n "$f" ] || die "$t not found in $deb"
    cp "$f" "$dest/bin/$t"; chmod +x "$dest/bin/$t"
  done
  rm -rf "$x" "$deb"
fi

if ! have_nvrtc; then
  say "fetching NVRTC 11.8 from PyPI (nvidia-cuda-nvrtc-cu11==11.8.89)"
  w="$dest/wheel"
  rm -rf "$w"; mkdir -p "$w"
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$w" "nvidia-cuda-nvrtc-cu11==11.8.89" \
    >"$dest/pip.log" 2>&1 || die "cannot download nvidia-cuda-nvrtc-cu11 from PyPI (see $dest/pip.log)"
  python3 - "$w" "$dest/lib" <<'PY'
import sys, zipfile, glob, os
w, out = sys.argv[1], sys.argv[2]
whl = glob.glob(os.path.join(w, "*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if "/lib/" in n and ".so" in n:
            p = os.path.join(out, os.path.basename(n))
            with open(p, "wb") as f:
                f.write(z.read(n))
PY
  rm -rf "$w"
  have_nvrtc || die "libnvrtc.so.11.2 missing from the wheel"
fi

"$dest/bin/nvdisasm" --version >/dev/null 2>&1 || die "nvdisasm does not run on this machine"
"$dest/bin/ptxas" --version >/dev/null 2>&1 || die "ptxas does not run on this machine"
say "ok: $dest/bin/{nvdisasm,cuobjdump,ptxas}, $dest/lib/libnvrtc.so.11.2"
