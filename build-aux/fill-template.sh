#!/bin/sh
# Writes template IN to OUT with @app_id@ and @icon@ replaced by APP_ID (always rewriting OUT,
# so that what depends on it is rebuilt; see data/meson.build).
#
# usage: fill-template.sh IN OUT APP_ID
set -eu
sed -e "s|@app_id@|$3|g" -e "s|@icon@|$3|g" "$1" >"$2.tmp"
mv -f "$2.tmp" "$2"
