#!/bin/sh
# Builds agnostics (the desktop app) and agnostics-cli with cargo and copies them into meson's
# build directory. Called by meson.build with APP_ID, LOCALEDIR, PKGDATADIR, VERSION and
# CARGO_TARGET_DIR in the environment.
#
# usage: cargo-build.sh CARGO MANIFEST TARGET_DIR release|debug OUTDIR [RUST_TARGET [--generator]]
#
# RUST_TARGET (a Rust target triple, e.g. aarch64-unknown-linux-gnu) cross-compiles: cargo gets
# `--target RUST_TARGET` and puts the binaries in TARGET_DIR/RUST_TARGET/PROFILE; the linker,
# C compiler and pkg-config for that target come from the environment (debian/rules sets
# them). --generator also builds agnostics-cli for the build machine, as
# OUTDIR/agnostics-cli-build: the man pages and shell completions are written by running
# agnostics-cli, and a cross-compiled one cannot run here. It is built with `--target` set to
# the build machine's own triple, so that it shares the build scripts and proc-macros of the
# cross build (cargo's host artifacts) instead of rebuilding them with other flags.
set -eu

cargo=$1
manifest=$2
target_dir=$3
profile=$4
outdir=$5
rust_target=${6:-}
generator=${7:-}

case "$profile" in
    release) flag="--release" ;;
    debug) flag="" ;;
    *) echo "cargo-build.sh: unknown profile '$profile' (release or debug)" >&2; exit 2 ;;
esac
case "$generator" in
    "" | --generator) ;;
    *) echo "cargo-build.sh: unknown option '$generator' (--generator)" >&2; exit 2 ;;
esac
if [ -n "$generator" ] && [ -z "$rust_target" ]; then
    echo "cargo-build.sh: --generator is for a cross build (give RUST_TARGET)" >&2
    exit 2
fi

# --locked: build exactly what Cargo.lock records, as a distribution package must.
# shellcheck disable=SC2086 # $flag is empty or one word
"$cargo" build $flag --locked \
    --manifest-path "$manifest" \
    --target-dir "$target_dir" \
    ${rust_target:+--target "$rust_target"} \
    -p agnostics -p agnostics-cli --bins

bindir=$target_dir/${rust_target:+$rust_target/}$profile
for bin in agnostics agnostics-cli; do
    cp "$bindir/$bin" "$outdir/$bin.tmp"
    mv -f "$outdir/$bin.tmp" "$outdir/$bin"
done

if [ -n "$generator" ]; then
    rustc=${RUSTC:-rustc}
    build_target=$("$rustc" -vV | sed -n 's/^host: //p')
    [ -n "$build_target" ] || { echo "cargo-build.sh: '$rustc -vV' names no host triple" >&2; exit 1; }
    # shellcheck disable=SC2086 # $flag is empty or one word
    "$cargo" build $flag --locked \
        --manifest-path "$manifest" \
        --target-dir "$target_dir" \
        --target "$build_target" \
        -p agnostics-cli --bin agnostics-cli
    cp "$target_dir/$build_target/$profile/agnostics-cli" "$outdir/agnostics-cli-build.tmp"
    mv -f "$outdir/agnostics-cli-build.tmp" "$outdir/agnostics-cli-build"
fi
