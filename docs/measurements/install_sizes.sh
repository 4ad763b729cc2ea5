#!/usr/bin/env bash
# Install size and time of pairlab and its extras, each in a fresh venv without system site
# packages, the pip cache warmed by a first install: bash docs/measurements/install_sizes.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
cd "$work"
for extra in base figures notebook gui; do
  spec="$repo"; [ "$extra" != base ] && spec="$repo[$extra]"
  python -m venv "v-$extra" && "v-$extra/bin/pip" install -q "$spec" >/dev/null 2>&1   # warm the cache
  rm -rf "v-$extra" && python -m venv "v-$extra"
  empty=$(du -sm "v-$extra" | cut -f1)
  start=$(date +%s.%N)
  "v-$extra/bin/pip" install -q "$spec" >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "$extra: $(echo "$end - $start" | bc) s, $(( $(du -sm "v-$extra" | cut -f1) - empty )) MB"
done
rm -rf "$work"
