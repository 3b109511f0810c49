#!/bin/sh
# Checks that po/POTFILES.in lists exactly the files with translatable strings: Rust sources
# calling gettext(/ngettext(/pgettext(/gettext_noop( (outside // comments, fn definitions and
# tests/), GtkBuilder .ui files
# with translatable="yes", shell scripts in data/ calling $(gettext "…"), and the desktop entry
# and metainfo templates in data/.
#
# usage: check-potfiles.sh [SOURCE_ROOT]      (prints the expected list with --print)
set -eu

print=0
if [ "${1:-}" = "--print" ]; then print=1; shift; fi
root=${1:-$(dirname "$0")/..}
cd "$root"

expected=$(mktemp)
listed=$(mktemp)
trap 'rm -f "$expected" "$listed"' EXIT

{
    find core cli src -path '*/tests' -prune -o -type f -name '*.rs' -print |
        while read -r f; do
            if awk '/^[[:space:]]*\/\// { next } /fn[[:space:]]+([np]?gettext|gettext_noop)\(/ { next } /(^|[^[:alnum:]_])([np]?gettext|gettext_noop)\(/ { found = 1; exit } END { exit !found }' "$f"; then
                echo "$f"
            fi
        done
    find core cli src data -type f -name '*.ui' -print |
        while read -r f; do
            if grep -q 'translatable="yes"' "$f"; then echo "$f"; fi
        done
    find data -maxdepth 1 -type f -name '*.sh' -print |
        while read -r f; do
            if grep -q '$(gettext "' "$f"; then echo "$f"; fi
        done
    find data -maxdepth 1 -type f \( -name '*.desktop.in.in' -o -name '*.metainfo.xml.in.in' \) -print
} | LC_ALL=C sort >"$expected"

if [ "$print" = 1 ]; then cat "$expected"; exit 0; fi

grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' po/POTFILES.in | LC_ALL=C sort >"$listed"

if ! diff -u "$listed" "$expected"; then
    echo "po/POTFILES.in is out of date (- listed, + has translatable strings)." >&2
    echo "Fix: put the + files in, take the - files out, then run po/update.sh." >&2
    exit 1
fi
echo "po/POTFILES.in lists all $(wc -l <"$expected") files with translatable strings"
