#!/bin/sh
# The desktop app's launcher in the 32-bit (armhf) package, installed as /usr/bin/agnostics;
# the app itself is /usr/libexec/agnostics/agnostics. Debian's armhf, which the app is built
# for, is ARMv7: a Raspberry Pi Zero, Zero W or Pi 1 has an ARMv6 processor, on which the app
# would die on its first ARMv7 instruction with nothing but "Illegal instruction". There this
# launcher says in words, on the terminal and, started from the menu, in a window, that the
# app needs a Raspberry Pi 2 or later and that agnostics-cli (built for ARMv6 in this package)
# works here; it exits with status 1. Everywhere else it runs the app.
app=/usr/libexec/agnostics/agnostics
case "$(uname -m)" in
    armv[2-6]*) ;;
    *) exec "$app" "$@" ;;
esac

TEXTDOMAIN=agnostics
export TEXTDOMAIN
# Without gettext-base the message stays English.
command -v gettext >/dev/null 2>&1 || gettext() { printf '%s' "$1"; }
# shellcheck disable=SC1111 # the quotes around the command are the message's own
message=$(gettext "Agnostics needs a Raspberry Pi 2 or later: this Raspberry Pi (Zero, Zero W or 1) has an ARMv6 processor. agnostics-cli works here and tests the SD card the same way: type “agnostics-cli run” in a terminal.")
echo "agnostics: $message" >&2
# Started from the menu: no terminal to read it on, so a window says it.
if [ ! -t 2 ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    if command -v zenity >/dev/null 2>&1; then
        zenity --error --title=Agnostics --text="$message" 2>/dev/null
    elif command -v notify-send >/dev/null 2>&1; then
        notify-send Agnostics "$message" 2>/dev/null
    elif command -v xmessage >/dev/null 2>&1; then
        xmessage -center "$message" 2>/dev/null
    fi
fi
exit 1
