# Sourced (". tools/debian.sh"), not run: what the scripts that install Debian packages and
# make Debian root file systems share — tools/package, tools/cross, tools/test-arch,
# tools/test-trixie, tools/test-pi and tools/armv6-cli. Each sets sudo ("" as root) before
# calling them.
#
#   debian_apt ARGS...            apt-get, non-interactive, waiting up to 10 min while another
#                                 apt or dpkg holds the lock ($sudo in front when it is set)
#   debian_add_arch ARCH          dpkg --add-architecture ARCH, waiting the same way
#   debian_installed PKG [VERSION]
#                                 whether PKG is installed (at VERSION, when given)
#   debian_mmdebstrap DIST DIR MMDEBSTRAP-OPTIONS...
#                                 mmdebstrap --quiet --mode=root of DIST into DIR from Debian's
#                                 three sources of DIST (main, -updates, -security; DIR may be
#                                 a tarball's name)
#   debian_extract ARCH DIST DIR PACKAGES
#                                 DIST's PACKAGES (space-separated) of ARCH unpacked into DIR
#                                 (--variant=extract, nothing of ARCH runs); three tries, DIR
#                                 emptied before each (a mirror that fails once fails the whole
#                                 unpacking)
#   debian_sysroot ARCH DIST DIR  DIST's libc6-dev, libgtk-4-dev, libadwaita-1-dev and
#                                 libsqlite3-dev of ARCH unpacked into DIR (--variant=extract,
#                                 nothing of ARCH runs), absolute links pointed into DIR
#   debian_root NAME DIST ARCH VARIANT PACKAGES
#                                 a root file system of DIST for ARCH (mmdebstrap VARIANT plus
#                                 PACKAGES, space-separated), made once and kept in
#                                 $AGNOSTICS_ROOTS (default /var/cache/agnostics/roots) as
#                                 NAME-DIST-ARCH-HASH (HASH of the variant and the packages, so
#                                 another list makes another root and the old one is removed);
#                                 prints its path
#   debian_chroot ROOT [--bind PATH]... [--] COMMAND...
#                                 runs COMMAND in ROOT, in a mount namespace of its own (the
#                                 mounts end with it): /proc, /sys, /dev (with /dev/pts and
#                                 /dev/shm), a fresh /tmp, the host's resolv.conf, and each PATH
#                                 bind-mounted at the same path inside
#
# The functions need root, except debian_apt (with sudo set) and debian_installed. Their
# variables start with _d so they do not touch the caller's.

debian_apt() {
    DEBIAN_FRONTEND=noninteractive ${sudo:-} apt-get -o DPkg::Lock::Timeout=600 "$@"
}

# dpkg --add-architecture ARCH, waiting (up to 10 minutes) while another dpkg holds its lock.
debian_add_arch() {
    _d_n=0
    until ${sudo:-} dpkg --add-architecture "$1"; do
        _d_n=$((_d_n + 1))
        [ "$_d_n" -lt 120 ] || return 1
        sleep 5
    done
}
debian_installed() {
    dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | grep -q "install ok installed ${2:-}"
}

debian_mmdebstrap() {
    _d_dist=$1
    _d_dir=$2
    shift 2
    ${sudo:-} mmdebstrap --quiet --mode=root "$@" "$_d_dist" "$_d_dir" \
        "deb http://deb.debian.org/debian $_d_dist main" \
        "deb http://deb.debian.org/debian $_d_dist-updates main" \
        "deb http://deb.debian.org/debian-security $_d_dist-security main"
}

debian_extract() {
    _d_arch=$1
    _d_dist=$2
    _d_dir=$3
    _d_packages=$(echo "$4" | tr ' ' ,)
    for _d_try in 1 2 3; do
        ${sudo:-} rm -rf "$_d_dir"
        debian_mmdebstrap "$_d_dist" "$_d_dir" --variant=extract --architectures="$_d_arch" \
            --include="$_d_packages" && return 0
        [ "$_d_try" = 3 ] && return 1
        sleep 10
    done
}

debian_sysroot() {
    _d_arch=$1
    _d_dist=$2
    _d_dir=$3
    ${sudo:-} rm -rf "$_d_dir"
    debian_mmdebstrap "$_d_dist" "$_d_dir" --variant=extract --architectures="$_d_arch" \
        --include=libc6-dev,libgtk-4-dev,libadwaita-1-dev,libsqlite3-dev
    # Absolute links (libfoo.so -> /lib/...) would point into this machine: into the sysroot.
    ${sudo:-} find "$_d_dir" -type l -lname '/*' | while read -r _d_link; do
        ${sudo:-} ln -sfn "$_d_dir$(readlink "$_d_link")" "$_d_link"
    done
    [ -e "$_d_dir/lib" ] || ${sudo:-} ln -s usr/lib "$_d_dir/lib"
}

debian_root() {
    _d_name=$1
    _d_dist=$2
    _d_arch=$3
    _d_variant=$4
    _d_packages=$(echo $5)
    _d_roots=${AGNOSTICS_ROOTS:-/var/cache/agnostics/roots}
    _d_hash=$(echo "$_d_variant $_d_packages" | sha256sum | cut -c1-12)
    _d_root=$_d_roots/$_d_name-$_d_dist-$_d_arch-$_d_hash
    if [ ! -f "$_d_root/.complete" ]; then
        mkdir -p "$_d_roots"
        for _d_old in "$_d_roots/$_d_name-$_d_dist-$_d_arch"-*; do
            [ -d "$_d_old" ] && rm -rf "$_d_old"
        done
        echo "debian_root: making a $_d_dist $_d_arch root ($_d_variant + $_d_packages) in $_d_root" >&2
        debian_mmdebstrap "$_d_dist" "$_d_root" --variant="$_d_variant" --architectures="$_d_arch" \
            ${_d_packages:+--include="$(echo "$_d_packages" | tr ' ' ,)"} >&2
        touch "$_d_root/.complete"
    fi
    echo "$_d_root"
}

debian_chroot() {
    _d_root=$1
    shift
    _d_binds=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --bind) _d_binds="$_d_binds $2"; shift 2 ;;
            --) shift; break ;;
            *) break ;;
        esac
    done
    # The script runs in the new namespace: "$0" the root, "$1" the paths, then the command.
    unshare --mount --propagation private sh -eu -c '
        root=$0
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs tmpfs "$root/tmp"
        [ -f /etc/resolv.conf ] && mount --bind /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
        for path in $1; do
            mkdir -p "$root$path"
            # Recursive: a file system mounted under the path (a loop ext4 of a test) is
            # seen inside too, not the empty folder beneath it.
            mount --rbind "$path" "$root$path"
        done
        shift
        exec chroot "$root" "$@"' "$_d_root" "$_d_binds" "$@"
}
