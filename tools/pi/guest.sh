#!/bin/sh
# What tools/test-pi runs inside the emulated Raspberry Pi (as /autorun, under busybox sh).
# Each result goes to the console as a block: "@@AGN BEGIN name", the file in base64, "@@AGN END
# name", so that kernel messages and the console's line endings cannot change it; the host
# checks them (tools/pi/check.pl). /conf names the stage: STAGE=main (the card mounted: model,
# card, targets, runs) or STAGE=capacity (the card never mounted: card without /var/tmp,
# health, capacity on the whole device).
# shellcheck source=/dev/null
. /conf
CLI=/usr/bin/agnostics-cli
out=/tmp/agn
mkdir -p "$out"
export HOME=/root LANG=C.UTF-8
mkdir -p "$HOME"

emit() { # NAME FILE
    echo "@@AGN BEGIN $1"
    base64 "$2"
    echo "@@AGN END $1"
}
# Runs a command, keeping its stdout, stderr and exit status as NAME.out/.err/.rc.
keep() { # NAME COMMAND...
    name=$1
    shift
    echo "pi-guest: $*"
    "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo $? >"$out/$name.rc"
    for part in out err rc; do emit "$name.$part" "$out/$name.$part"; done
}

echo # the first line may carry the serial port's noise
uname -m >"$out/uname"
emit uname "$out/uname"
tr -d '\000' </proc/device-tree/model >"$out/model"
emit model "$out/model"
ls -l /dev/mmcblk0 /dev/mmcblk0p1 >"$out/dev" 2>&1
emit dev "$out/dev"

if [ "$STAGE" = main ]; then
    mount -t ext4 /dev/mmcblk0p1 /mnt/sd
    mkdir -p /mnt/sd/test
    # The system's /run has no lock folder (a small system without systemd): the first run
    # must make it, and no run may warn that it cannot tell whether the drive is shared.
    { [ -e /run/lock ] && echo "present" || echo "absent"; } >"$out/lock-before"
    emit lock-before "$out/lock-before"
    keep card "$CLI" card --json
    keep targets "$CLI" targets
    # The 32-bit package's app launcher (raspi0): on ARMv6 it says in words what runs here.
    [ -x /usr/bin/agnostics ] && keep launcher env -u DISPLAY -u WAYLAND_DISPLAY /usr/bin/agnostics
    keep native "$CLI" run --profile quick --runs 1 --no-history --json --target /mnt/sd/test
    stat -c '%A %u' /run/lock >"$out/lock-after" 2>&1
    emit lock-after "$out/lock-after"
    if [ "$FIO" = 1 ]; then
        keep fio "$CLI" run --profile quick --runs 1 --no-history --json --engine fio --target /mnt/sd/test
        # fio runs its hooks with system(): without /bin/sh they fail, and the error must
        # name the hook.
        mv /bin/sh /bin/sh.off
        keep fio-nosh "$CLI" run --profile quick --runs 1 --no-history --json --engine fio --target /mnt/sd/test
        mv /bin/sh.off /bin/sh
    fi
    umount /mnt/sd
else
    # Nothing mounted from the card, and no /var/tmp: card must still find the card.
    rm -rf /var/tmp
    keep card-unmounted "$CLI" card --json
    # health only looks: the sectors written to the card (/proc/diskstats) are the same after
    # it, and no file is made or changed anywhere: the files newer than a mark made before it
    # are the same list after it (the initramfs's files carry the host's dates, newer already).
    sync
    written() { awk '$3 == "mmcblk0" { print $10 }' /proc/diskstats; }
    newer() { # FILE: the files newer than the mark, sorted
        find / \( -path /proc -o -path /sys -o -path /dev -o -path "$out" \) -prune -o \
            -newer "$out/health-mark" -print 2>&1 | sort >"$1"
    }
    : >"$out/health-mark"
    before=$(written)
    newer "$out/health-newer-before"
    keep health-json "$CLI" health --device mmcblk0 --json
    keep health "$CLI" health --device mmcblk0
    sync
    echo "$before $(written)" >"$out/health-written"
    emit health-written "$out/health-written"
    newer "$out/health-newer-after"
    emit health-newer-before "$out/health-newer-before"
    emit health-newer-after "$out/health-newer-after"
    keep capacity "$CLI" capacity --device /dev/mmcblk0 --yes --no-history
fi
sync
echo "@@AGN DONE"
