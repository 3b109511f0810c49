#!/bin/sh
# Checks that the version is the same everywhere it is written: meson.build's project(),
# the cargo workspace (Cargo.toml) and the newest <release> of the AppStream metainfo.
#
# usage: check-versions.sh SOURCE_ROOT MESON_VERSION
set -eu
root=$1
meson_version=$2

cargo_version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$root/Cargo.toml")
metainfo="$root/data/io.github.agnostics_rs.Agnostics.metainfo.xml.in.in"
release_version=$(sed -n 's/.*<release [^>]*version="\([^"]*\)".*/\1/p' "$metainfo" | head -n 1)

status=0
if [ "$cargo_version" != "$meson_version" ]; then
    echo "Cargo.toml says $cargo_version, meson.build says $meson_version" >&2
    status=1
fi
if [ "$release_version" != "$meson_version" ]; then
    echo "the newest <release> in $metainfo is $release_version, meson.build says $meson_version" >&2
    status=1
fi
[ "$status" = 0 ] && echo "version $meson_version everywhere"
exit "$status"
