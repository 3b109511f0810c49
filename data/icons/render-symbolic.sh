#!/bin/sh
# Renders the app's symbolic icons (symbolic/*.svg, 16x16 drawings) into GTK's pre-rendered
# symbolic PNGs (NAME.symbolic.png, recoloured by GTK like the SVG) at the sizes the app draws
# them, so GTK never needs an SVG loader (librsvg) for them: not installed everywhere, and
# about 6.5 MiB of resident memory where it is. Needs gtk4-encode-symbolic-svg (Debian package
# libgtk-4-bin) and gdk-pixbuf's SVG loader (librsvg2-common). Run from anywhere after changing
# an SVG; the PNGs are committed. Prints the <file> lines for data/resources.gresource.xml.
# The application icon's PNGs (hicolor/NxN/apps, for the same reason) are made with
# rsvg-convert (librsvg2-bin) from hicolor/scalable/apps.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for size in 16 32 48 64; do
    mkdir -p "$here/symbolic/$size"
    for svg in "$here"/symbolic/*.svg; do
        gtk4-encode-symbolic-svg -o "$here/symbolic/$size" "$svg" "${size}x${size}"
    done
done
app=io.github.agnostics_rs.Agnostics
for size in 48 64 128; do
    mkdir -p "$here/hicolor/${size}x${size}/apps"
    rsvg-convert -w $size -h $size -o "$here/hicolor/${size}x${size}/apps/$app.png" \
        "$here/hicolor/scalable/apps/$app.svg"
    echo "    <file alias=\"icons/${size}x${size}/apps/$app.png\">data/icons/hicolor/${size}x${size}/apps/$app.png</file>"
done
for svg in "$here"/symbolic/*.svg; do
    name=$(basename "$svg" .svg)
    echo "    <file alias=\"icons/scalable/actions/$name.svg\">data/icons/symbolic/$name.svg</file>"
    for size in 16 32 48 64; do
        echo "    <file alias=\"icons/${size}x${size}/actions/$name.symbolic.png\">data/icons/symbolic/$size/$name.symbolic.png</file>"
    done
done
