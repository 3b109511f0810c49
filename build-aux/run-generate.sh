#!/bin/sh
# Runs the freshly built `agnostics-cli generate WHAT --out-dir OUTDIR` for meson
# (cli/meson.build). meson names the binary relative to the build directory without a "./",
# which the shell would look up in PATH; this runs that very file.
#
# usage: run-generate.sh BIN WHAT OUTDIR
set -eu
bin=$1
case "$bin" in
    */*) ;;
    *) bin="./$bin" ;;
esac
exec "$bin" generate "$2" --out-dir "$3"
