#!/bin/sh
# Regenerates po/agnostics.pot from the files in po/POTFILES.in and merges it into every
# catalogue in po/LINGUAS (msgmerge: new strings come in empty, changed ones marked fuzzy).
# Then translate what is empty or fuzzy and remove the fuzzy marks.
#
#   po/update.sh           regenerate the template and merge the catalogues
#   po/update.sh --check   change nothing; fail when the template is out of date with the
#                          sources, or a catalogue has an untranslated or fuzzy string
#                          (a meson test)
#
# Rust files are read as C, after rust-for-xgettext.pl has given them C's spelling of Rust's
# strings; .ui, .desktop and metainfo files are read by their own rules.
set -eu

po=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$po")
domain=agnostics
version=$(sed -n "s/^ *version: '\([^']*\)',/\1/p" "$root/meson.build" | head -n 1)

check=0
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    *) echo "usage: po/update.sh [--check]" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The template, from scratch.
extract() {
    out=$1
    grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$po/POTFILES.in" >"$tmp/all"
    grep '\.rs$' "$tmp/all" >"$tmp/rust" || true
    grep -v '\.rs$' "$tmp/all" >"$tmp/other" || true
    common="--from-code=UTF-8 --add-comments=Translators --package-name=$domain
        --package-version=$version --copyright-holder=The_Agnostics_developers
        --msgid-bugs-address=https://github.com/agnostics-rs/agnostics/issues
        --output=$out"
    : >"$out"
    # xgettext reads Rust as C: give it C's spelling of the same strings (lifetimes, string
    # continuations, raw strings; see rust-for-xgettext.pl), line for line.
    while read -r f; do
        mkdir -p "$tmp/src/$(dirname "$f")"
        perl "$po/rust-for-xgettext.pl" <"$root/$f" >"$tmp/src/$f"
    done <"$tmp/rust"
    # shellcheck disable=SC2086 # $common is a list of options without spaces in them
    xgettext $common --language=C \
        --keyword=gettext --keyword=ngettext:1,2 --keyword=pgettext:1c,2 --keyword=gettext_noop \
        --directory="$tmp/src" --files-from="$tmp/rust"
    # shellcheck disable=SC2086
    xgettext $common --join-existing --directory="$root" --files-from="$tmp/other"
    sed -i -e '1s/.*/# Translations of Agnostics (Raspberry Pi Diagnostics, rewritten in Rust)./' \
        -e 's/The_Agnostics_developers/The Agnostics developers/' "$out"
}

languages() {
    grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$po/LINGUAS"
}

if [ "$check" = 0 ]; then
    # Keep the old template when only its creation date would change (no churn in git).
    extract "$tmp/new.pot"
    if ! [ -f "$po/$domain.pot" ] ||
        ! diff -q -I '^"POT-Creation-Date:' "$tmp/new.pot" "$po/$domain.pot" >/dev/null; then
        cp "$tmp/new.pot" "$po/$domain.pot"
    fi
    for lang in $(languages); do
        if [ -f "$po/$lang.po" ]; then
            msgmerge --quiet --update --backup=none --previous "$po/$lang.po" "$po/$domain.pot"
        else
            msginit --no-translator --locale="$lang.UTF-8" --input="$po/$domain.pot" \
                --output-file="$po/$lang.po"
        fi
        msgattrib --no-obsolete --output-file="$po/$lang.po" "$po/$lang.po"
        printf '%s: ' "$lang"
        msgfmt --statistics --output-file=/dev/null "$po/$lang.po" 2>&1
    done
    exit 0
fi

status=0
extract "$tmp/fresh.pot"
# The same strings both ways: none new in the sources, none gone from them.
if ! msgcmp --use-untranslated "$tmp/fresh.pot" "$po/$domain.pot" >"$tmp/log1" 2>&1 ||
    ! msgcmp --use-untranslated "$po/$domain.pot" "$tmp/fresh.pot" >"$tmp/log2" 2>&1; then
    cat "$tmp/log1" "$tmp/log2" >&2
    echo "po/$domain.pot is out of date with the sources: run po/update.sh and translate." >&2
    status=1
fi
for lang in $(languages); do
    # Every string of the template translated, none fuzzy.
    if ! msgcmp "$po/$lang.po" "$po/$domain.pot" >"$tmp/log" 2>&1; then
        cat "$tmp/log" >&2
        echo "po/$lang.po lacks translations (above): run po/update.sh and translate." >&2
        status=1
    fi
    fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$po/$lang.po" | grep -c '^msgid ' || true)
    if [ "$fuzzy" -gt 0 ]; then
        echo "po/$lang.po has $((fuzzy - 1)) fuzzy strings: check them and remove the fuzzy marks." >&2
        status=1
    fi
done
[ "$status" = 0 ] && echo "po/$domain.pot is current and all $(languages | wc -l) catalogues are complete"
exit "$status"
