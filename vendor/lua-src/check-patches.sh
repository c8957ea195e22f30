#!/usr/bin/env bash
# The vendored lua-src crate is the crates.io crate plus agentbox's patch series. This script
# keeps the two in step (see PATCHES.md):
#
#   check-patches.sh [check]
#       Fetch the pristine crate (the version vendor/lua-src/Cargo.toml names) from crates.io,
#       apply patches/*.patch in order and compare the result with vendor/lua-src. Exits 1,
#       naming the difference, if they differ. Needs cargo, patch and diff.
#   check-patches.sh unpack DIR [VERSION]
#       Make DIR a git repository holding the pristine crate (tagged `pristine`) and one commit
#       per patch, to change the series with git: amend or fixup a patch's commit, or add one
#       (its subject starts with the patch's name and a colon, e.g. "hash-size: ..."). With
#       VERSION, the series is then rebased onto that version of lua-src (resolve conflicts
#       as in any rebase). Needs git too.
#   check-patches.sh pack DIR
#       Write DIR's commits after `pristine` as patches/NNNN-name.patch and its tree as the
#       vendored crate, then check.
#
# Only the crate's manifest, licence, readme, build logic (src/) and the Lua 5.4 sources are
# vendored; PATCHES.md, patches/ and this script are agentbox's own.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
patches="$here/patches"
own=(PATCHES.md patches check-patches.sh)
temps=()
trap 'rm -rf "${temps[@]}"' EXIT

die() {
  echo "check-patches: $*" >&2
  exit 1
}

scratch() {
  local dir
  dir="$(mktemp -d)"
  temps+=("$dir")
  echo "$dir"
}

vendored_version() {
  sed -n 's/^version = "\(.*\)"$/\1/p' "$here/Cargo.toml" | head -n 1
}

# Downloads lua-src VERSION the ordinary way (a throwaway package that depends on it, outside
# the repository) and prints the folder cargo unpacked it to.
fetch_pristine() {
  local version="$1" probe manifest
  probe="$(scratch)"
  mkdir "$probe/src"
  : >"$probe/src/lib.rs"
  cat >"$probe/Cargo.toml" <<EOF
[package]
name = "lua-src-probe"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
lua-src = "=$version"

[workspace]
EOF
  (cd "$probe" && cargo fetch --quiet) || die "cannot fetch lua-src $version from crates.io"
  manifest="$(cd "$probe" && cargo metadata --format-version 1 --offline |
    grep -o "\"manifest_path\":\"[^\"]*lua-src-$version/Cargo.toml\"" | head -n 1 |
    sed 's/^"manifest_path":"//; s/"$//')"
  [ -n "$manifest" ] || die "cargo fetched lua-src $version but did not say where"
  dirname "$manifest"
}

# Copies the vendored part of the crate at $1 into $2.
copy_kept() {
  local from="$1" to="$2" lua
  lua="$(cd "$from" && ls -d lua-5.4.*)"
  [ "$(echo "$lua" | wc -l)" -eq 1 ] || die "expected one lua-5.4.* folder in $from, found: $lua"
  mkdir -p "$to"
  cp "$from/Cargo.toml" "$from/LICENSE" "$from/README.md" "$to/"
  cp -R "$from/src" "$from/$lua" "$to/"
}

check() {
  local version pristine expected p excludes=()
  version="$(vendored_version)"
  [ -n "$version" ] || die "no version in $here/Cargo.toml"
  pristine="$(fetch_pristine "$version")"
  expected="$(scratch)/lua-src"
  copy_kept "$pristine" "$expected"
  for p in "$patches"/*.patch; do
    [ -e "$p" ] || die "no patches in $patches"
    patch -p1 --fuzz=0 --quiet --no-backup-if-mismatch --reject-file=- -d "$expected" -i "$p" ||
      die "$(basename "$p") does not apply to lua-src $version plus the patches before it"
  done
  for p in "${own[@]}"; do excludes+=(-x "$p"); done
  if ! diff -ru "${excludes[@]}" "$expected" "$here" >"$expected.diff"; then
    cat "$expected.diff"
    die "vendor/lua-src differs from lua-src $version plus vendor/lua-src/patches (the diff" \
      "above: - is what the series gives, + the vendored tree). Change the C sources through the" \
      "series: see vendor/lua-src/PATCHES.md, or run $0 unpack DIR."
  fi
  echo "vendor/lua-src is lua-src $version plus the $(ls "$patches"/*.patch | wc -l) patches in vendor/lua-src/patches"
}

git_in() {
  git -C "$1" -c user.name=agentbox -c user.email=agentbox@invalid -c commit.gpgsign=false "${@:2}"
}

unpack() {
  local dir="$1" to="${2:-}" version
  [ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  version="$(vendored_version)"
  mkdir -p "$dir"
  git_in "$dir" init --quiet
  copy_kept "$(fetch_pristine "$version")" "$dir"
  git_in "$dir" add -A
  git_in "$dir" commit --quiet -m "lua-src $version as published on crates.io"
  git_in "$dir" tag pristine
  git_in "$dir" am --quiet --keep --keep-cr "$patches"/*.patch
  echo "$dir: lua-src $version (tag pristine) and $(ls "$patches"/*.patch | wc -l) patch commits"
  if [ -n "$to" ] && [ "$to" != "$version" ]; then
    local base
    base="$(git_in "$dir" rev-parse pristine)"
    git_in "$dir" checkout --quiet -b upstream pristine
    git_in "$dir" rm --quiet -r .
    copy_kept "$(fetch_pristine "$to")" "$dir"
    git_in "$dir" add -A
    git_in "$dir" commit --quiet -m "lua-src $to as published on crates.io"
    git_in "$dir" tag -f pristine >/dev/null
    git_in "$dir" checkout --quiet -
    echo "rebasing the patches onto lua-src $to; on a conflict, resolve it and git rebase --continue"
    git_in "$dir" rebase --onto pristine "$base"
  fi
}

pack() {
  local dir="$1" out n=0 f name
  git_in "$dir" rev-parse --verify --quiet pristine >/dev/null || die "$dir has no tag pristine"
  [ -z "$(git_in "$dir" status --porcelain)" ] || die "$dir has uncommitted changes"
  out="$(scratch)"
  git_in "$dir" format-patch --quiet --zero-commit --no-signature --no-stat --full-index --keep-subject \
    -o "$out" pristine..HEAD
  rm -f "$patches"/*.patch
  mkdir -p "$patches"
  for f in "$out"/*.patch; do
    n=$((n + 1))
    name="$(sed -n 's/^Subject: \([A-Za-z0-9-]*\):.*/\1/p' "$f" | head -n 1)"
    [ -n "$name" ] || die "the subject of $(basename "$f") does not start with a name and a colon"
    cp "$f" "$patches/$(printf '%04d' "$n")-$name.patch"
  done
  rm -rf "$here/Cargo.toml" "$here/LICENSE" "$here/README.md" "$here/src" "$here"/lua-5.4.*
  git_in "$dir" archive HEAD | tar -x -m -C "$here"
  echo "wrote $n patches and the vendored tree from $dir"
  check
}

case "${1:-check}" in
  check) check ;;
  unpack) [ $# -ge 2 ] || die "usage: $0 unpack DIR [VERSION]"; unpack "$2" "${3:-}" ;;
  pack) [ $# -eq 2 ] || die "usage: $0 pack DIR"; pack "$2" ;;
  *) die "usage: $0 [check] | unpack DIR [VERSION] | pack DIR" ;;
esac
