//! Thin wrappers over the descriptor-relative system calls the test file and the sweep use
//! (`openat`, `mkdirat`, `unlinkat`, `fstatat` without following symlinks, `flock`,
//! `readdir`), each returning `io::Result`, plus the small stat predicates.

use std::ffi::{CStr, CString, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

pub(super) fn cname(name: &str) -> CString {
    CString::new(name).expect("the program's names have no NUL")
}

pub(super) fn cpath(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))
}

pub(super) fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Opens a user-given directory path (symlinks in it followed: the user chose it).
pub(super) fn open_path_dir(dir: &Path) -> io::Result<OwnedFd> {
    let path = cpath(dir)?;
    // SAFETY: a valid C string; the result is a new descriptor we own.
    let fd = check(unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    })?;
    // SAFETY: `fd` was just opened and is owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

pub(super) fn open_run_dir_fd(target: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    openat(
        target,
        name,
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        0,
    )
}

/// Opens the directory just made and proves it is ours: a directory owned by our euid, set
/// to mode 0700, with the same device and inode as the name in `target` now.
pub(super) fn open_run_dir(target: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    let fd = open_run_dir_fd(target, name)?;
    let meta = fstat(fd.as_fd())?;
    if !is_dir(&meta) || meta.st_uid != nix::unistd::geteuid().as_raw() {
        return Err(io::Error::other(
            "the program's new folder was replaced by someone else's",
        ));
    }
    // The umask may have taken bits away; never more than 0700 is asked for.
    // SAFETY: plain syscall on a descriptor we own.
    check(unsafe { libc::fchmod(fd.as_raw_fd(), 0o700) })?;
    let meta = fstat(fd.as_fd())?;
    let named = fstatat(target, name)?;
    if meta.st_mode & 0o7777 != 0o700 || identity(&named) != identity(&meta) {
        return Err(io::Error::other(
            "the program's new folder was replaced by someone else's",
        ));
    }
    Ok(fd)
}

pub(super) fn openat(
    dir: BorrowedFd<'_>,
    name: &CStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    // SAFETY: a valid descriptor and C string; the result is a new descriptor we own.
    let fd = check(unsafe {
        libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, mode as libc::c_uint)
    })?;
    // SAFETY: `fd` was just opened and is owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Creates `name` in `dir`: O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, read-write, mode 0600.
pub(super) fn create_in(dir: BorrowedFd<'_>, name: &str) -> io::Result<OwnedFd> {
    create_in_as(dir, name, libc::O_RDWR)
}

/// Creates `name` in `dir` (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0600) opened with
/// `access` (`O_RDONLY` or `O_RDWR`).
pub(super) fn create_in_as(
    dir: BorrowedFd<'_>,
    name: &str,
    access: libc::c_int,
) -> io::Result<OwnedFd> {
    openat(
        dir,
        &cname(name),
        access | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        0o600,
    )
}

pub(super) fn mkdirat(dir: BorrowedFd<'_>, name: &CStr, mode: libc::mode_t) -> io::Result<()> {
    // SAFETY: a valid descriptor and C string.
    check(unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), mode) }).map(drop)
}

pub(super) fn unlinkat(dir: BorrowedFd<'_>, name: &CStr, flags: libc::c_int) -> io::Result<()> {
    // SAFETY: a valid descriptor and C string.
    check(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), flags) }).map(drop)
}

pub(super) fn flock(fd: BorrowedFd<'_>, op: libc::c_int) -> io::Result<()> {
    // SAFETY: plain syscall on a valid descriptor.
    check(unsafe { libc::flock(fd.as_raw_fd(), op) }).map(drop)
}

// The 64-bit stat: on 32-bit targets plain `stat` has a 32-bit st_size and st_ino, and
// fstat fails with EOVERFLOW on a file of 2 GiB or more or an inode number past 2^32 (XFS,
// btrfs).
pub(super) type Stat = libc::stat64;

pub(super) fn fstat(fd: BorrowedFd<'_>) -> io::Result<Stat> {
    // SAFETY: `st` is written by the kernel before it is read.
    let mut st: Stat = unsafe { std::mem::zeroed() };
    check(unsafe { libc::fstat64(fd.as_raw_fd(), &mut st) })?;
    Ok(st)
}

/// `lstat` of `name` in `dir` (AT_SYMLINK_NOFOLLOW).
pub(super) fn fstatat(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Stat> {
    // SAFETY: `st` is written by the kernel before it is read.
    let mut st: Stat = unsafe { std::mem::zeroed() };
    check(unsafe {
        libc::fstatat64(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })?;
    Ok(st)
}

// `dev_t` and `ino_t` are narrower than 64 bits on some 32-bit targets.
#[allow(clippy::unnecessary_cast)]
pub(super) fn identity(st: &Stat) -> (u64, u64) {
    (st.st_dev as u64, st.st_ino as u64)
}

pub(super) fn is_reg(st: &Stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFREG
}

pub(super) fn is_dir(st: &Stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFDIR
}

/// The names in the directory open at `dir` (without `.` and `..`).
pub(super) fn list_names(dir: BorrowedFd<'_>) -> io::Result<Vec<OsString>> {
    let dup = dir.try_clone_to_owned()?;
    // A fresh open of "." so that the directory offset is our own.
    let fd = openat(
        dup.as_fd(),
        c".",
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        0,
    )?;
    // SAFETY: fdopendir takes over `fd` (released from OwnedFd); closedir closes it.
    let stream = unsafe { libc::fdopendir(std::os::fd::IntoRawFd::into_raw_fd(fd)) };
    if stream.is_null() {
        return Err(io::Error::last_os_error());
    }
    let mut names = Vec::new();
    loop {
        // SAFETY: `stream` is a valid DIR*; errno is reset to tell the end from an error.
        unsafe { *libc::__errno_location() = 0 };
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            let errno = io::Error::last_os_error();
            unsafe { libc::closedir(stream) };
            if errno.raw_os_error().unwrap_or(0) != 0 {
                return Err(errno);
            }
            break;
        }
        // SAFETY: d_name is a NUL-terminated array inside the entry.
        let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) };
        let bytes = name.to_bytes();
        if bytes != b"." && bytes != b".." {
            names.push(OsString::from_vec(bytes.to_vec()));
        }
    }
    Ok(names)
}

/// The contents of `name` in `dir` when it is a small regular file (no symlink followed).
pub(super) fn read_small(dir: BorrowedFd<'_>, name: &str) -> Option<String> {
    let fd = openat(
        dir,
        &cname(name),
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK,
        0,
    )
    .ok()?;
    if !is_reg(&fstat(fd.as_fd()).ok()?) {
        return None;
    }
    let mut text = String::new();
    File::from(fd).take(256).read_to_string(&mut text).ok()?;
    Some(text)
}
