#!/bin/sh
# Builds agnostics (the desktop app) and agnostics-cli with cargo and copies them into meson's
# build directory. Called by meson.build with APP_ID, LOCALEDIR, PKGDATADIR, VERSION and
# CARGO_TARGET_DIR in the environment.
#
# usage: cargo-build.sh CARGO MANIFEST TARGET_DIR release|debug OUTDIR
set -eu

cargo=$1
manifest=$2
target_dir=$3
profile=$4
outdir=$5

case "$profile" in
    release) flag="--release" ;;
    debug) flag="" ;;
    *) echo "cargo-build.sh: unknown profile '$profile' (release or debug)" >&2; exit 2 ;;
esac

# --locked: build exactly what Cargo.lock records, as a distribution package must.
# shellcheck disable=SC2086 # $flag is empty or one word
"$cargo" build $flag --locked \
    --manifest-path "$manifest" \
    --target-dir "$target_dir" \
    -p agnostics -p agnostics-cli --bins

for bin in agnostics agnostics-cli; do
    cp "$target_dir/$profile/$bin" "$outdir/$bin.tmp"
    mv -f "$outdir/$bin.tmp" "$outdir/$bin"
done
