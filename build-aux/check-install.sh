#!/bin/sh
# Checks that `meson install --destdir D` put every file in place under PREFIX (D/usr/local
# for the default prefix; /usr for the installed package): binaries, profiles, desktop entry,
# metainfo, icons, catalogues, man pages and completions.
#
# usage: check-install.sh D/PREFIX
set -eu
prefix=$1
id=io.github.agnostics_rs.Agnostics
missing=0
for f in \
    bin/agnostics \
    bin/agnostics-cli \
    share/agnostics/sd_bench.fio \
    share/agnostics/profiles/standard.fio \
    share/agnostics/profiles/quick.fio \
    share/agnostics/profiles/qd1.fio \
    share/agnostics/profiles/matrix.fio \
    share/agnostics/profiles/sustained.fio \
    share/applications/$id.desktop \
    share/metainfo/$id.metainfo.xml \
    share/icons/hicolor/scalable/apps/$id.svg \
    share/icons/hicolor/symbolic/apps/$id-symbolic.svg \
    share/man/man1/agnostics.1 \
    share/man/man1/agnostics-cli.1 \
    share/man/man1/agnostics-cli-run.1 \
    share/man/man1/agnostics-cli-profiles.1 \
    share/bash-completion/completions/agnostics-cli \
    share/zsh/vendor-completions/_agnostics-cli \
    share/fish/vendor_completions.d/agnostics-cli.fish; do
    # A distribution package compresses the man pages (dh_compress).
    case "$f" in share/man/*) [ -s "$prefix/$f.gz" ] && continue ;; esac
    [ -s "$prefix/$f" ] || { echo "not installed: $prefix/$f" >&2; missing=1; }
done
for lang in $(grep -v -e '^#' -e '^$' "$(dirname "$0")/../po/LINGUAS"); do
    f=share/locale/$lang/LC_MESSAGES/agnostics.mo
    [ -s "$prefix/$f" ] || { echo "not installed: $prefix/$f" >&2; missing=1; }
done
for bin in agnostics agnostics-cli; do
    [ -x "$prefix/bin/$bin" ] || { echo "not executable: $prefix/bin/$bin" >&2; missing=1; }
done
[ "$missing" = 0 ] && echo "meson install: every file in place under $prefix"
exit "$missing"
