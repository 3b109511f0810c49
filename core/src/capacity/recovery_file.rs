//! A recovery file on disk, opened as if someone else had made it: the folder must belong to
//! the user running the check and be writable by no one else; the file is opened without
//! following a link and without blocking (a FIFO), then checked on the open descriptor (a
//! regular file of that user, mode 0600 at most, no larger than its own header says) before a
//! byte of its blocks is read. A running check holds its file locked (`flock`), so another
//! check sharing the folder leaves it alone.
//!
//! The format: the 8 bytes `AGNCAPRF`, a u32 (little-endian) length and a JSON header
//! ([`Header`]), then each saved block as its u64 address and 4096 bytes, then the SHA-256 of
//! everything before.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::pattern::{Block, BLOCK, BLOCK_U64};
use crate::i18n::{fill, gettext};

/// Saved blocks: each block's drive address (bytes) and its original 4 KiB.
pub type Saved = Vec<(u64, Box<Block>)>;

/// A card's identity and the check's key, as a recovery file records them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The disk's name when saved, e.g. `sdb` (for messages only).
    pub disk: String,
    /// Its `MAJ:MIN` when saved (for messages only).
    pub dev: String,
    /// Its size, bytes.
    pub size_bytes: u64,
    /// The card's CID as sysfs shows it (SD cards, eMMC); empty when none.
    pub cid: String,
    /// The probe blocks' addresses, bytes: read before the first write, never written.
    pub probes: Vec<u64>,
    /// The SHA-256 (hex) of the probe blocks' content.
    pub content: String,
    /// The check's key, written into each of its pattern blocks.
    pub key: u64,
    /// When the file was written, RFC 3339.
    pub created: String,
    /// Blocks saved.
    pub blocks: u32,
}

impl Header {
    /// The file's name, `<16 hex digits>.bin`.
    pub fn file_name(&self) -> String {
        let h = Sha256::digest(format!(
            "{}|{}|{}|{}",
            self.size_bytes, self.cid, self.content, self.key
        ));
        format!("{}.bin", crate::drive::identity::hex(&h[..8]))
    }
}

const MAGIC: &[u8; 8] = b"AGNCAPRF";
/// Refuse headers longer than this, bytes.
pub(crate) const MAX_HEADER: u32 = 64 * 1024;
/// Refuse files of more blocks than this: no plan has as many spots.
pub(crate) const MAX_BLOCKS: u32 = 1 << 16;

/// Why a recovery file was not used.
#[derive(Debug)]
pub(crate) enum Unusable {
    /// A running check holds it locked: it is that check's, and left alone.
    Running,
    /// It, or its folder, is not what this program writes (owner, mode, type, size, name,
    /// addresses): refused without being read. The sentence says what is wrong.
    Refused(String),
    /// It is this program's but not whole (torn, truncated, corrupt): its blocks cannot be
    /// read back. The header, when it could still be read.
    Torn(String, Option<Box<Header>>),
}

/// The folder `dir` may hold recovery files this user trusts: it belongs to the user running
/// the check and no one else can write to it. A missing folder is fine (nothing in it).
///
/// Errors: the sentence that says what is wrong.
pub(crate) fn check_dir(dir: &Path) -> Result<(), String> {
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    let me = nix::unistd::geteuid().as_raw();
    if !meta.is_dir() {
        return Err(fill(
            &gettext("{dir} is not a folder"),
            &[("dir", &dir.display())],
        ));
    }
    if meta.uid() != me {
        return Err(fill(
            &gettext(
                "the folder {dir} belongs to user {uid}, not to the user running the check ({me})",
            ),
            &[("dir", &dir.display()), ("uid", &meta.uid()), ("me", &me)],
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(fill(
            &gettext("other users can write to the folder {dir} (mode {mode})"),
            &[
                ("dir", &dir.display()),
                ("mode", &format!("{:o}", meta.mode() & 0o7777)),
            ],
        ));
    }
    Ok(())
}

/// Opens the recovery file `path` and checks it before reading: not a link, a regular file of
/// the user running the check, no group or other permissions. With `lock`, takes its `flock`
/// without waiting ([`Unusable::Running`] when a running check holds it).
pub(crate) fn open_checked(path: &Path, lock: bool) -> Result<File, Unusable> {
    let refused = |why: String| Unusable::Refused(format!("{}: {why}", path.display()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => refused(gettext("it is a symbolic link")),
            _ => refused(e.to_string()),
        })?;
    let meta = file.metadata().map_err(|e| refused(e.to_string()))?;
    if !meta.file_type().is_file() {
        return Err(refused(gettext("it is not a regular file")));
    }
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return Err(refused(fill(
            &gettext("it belongs to user {uid}, not to the user running the check ({me})"),
            &[("uid", &meta.uid()), ("me", &me)],
        )));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(refused(fill(
            &gettext("other users may read or write it (mode {mode})"),
            &[("mode", &format!("{:o}", meta.mode() & 0o7777))],
        )));
    }
    if lock {
        // SAFETY: plain syscall on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::EWOULDBLOCK) => Unusable::Running,
                _ => refused(e.to_string()),
            });
        }
    }
    Ok(file)
}

/// Reads the open recovery file `file` (at `path`): its header and saved blocks. The size is
/// checked against the header before the blocks are read; every address must be a multiple
/// of 4 KiB inside the device the header names, and the file's name must be the header's.
pub(crate) fn read(file: &mut File, path: &Path) -> Result<(Header, Saved), Unusable> {
    let refused = |why: &str| Unusable::Refused(format!("{}: {why}", path.display()));
    let len = file.metadata().map_err(|e| refused(&e.to_string()))?.len();
    let largest = 12 + u64::from(MAX_HEADER) + u64::from(MAX_BLOCKS) * (8 + BLOCK_U64) + 32;
    if len > largest {
        return Err(refused(&gettext("it is larger than any recovery file")));
    }
    let mut start = vec![0u8; 12];
    let torn = |why: &str, h: Option<&Header>| {
        Unusable::Torn(
            format!("{}: {why}", path.display()),
            h.cloned().map(Box::new),
        )
    };
    file.read_exact(&mut start)
        .map_err(|_| torn(&gettext("not a recovery file"), None))?;
    if &start[..8] != MAGIC {
        return Err(torn(&gettext("not a recovery file"), None));
    }
    let hlen = u32::from_le_bytes(start[8..12].try_into().expect("4 bytes"));
    if hlen > MAX_HEADER || 12 + u64::from(hlen) > len {
        return Err(torn(&gettext("its header is too long"), None));
    }
    let mut json = vec![0u8; hlen as usize];
    file.read_exact(&mut json)
        .map_err(|e| torn(&e.to_string(), None))?;
    let header: Header = serde_json::from_slice(&json).map_err(|e| torn(&e.to_string(), None))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    if name.as_deref() != Some(header.file_name().as_str()) {
        return Err(refused(&gettext(
            "its name is not the one its header gives",
        )));
    }
    if header.blocks > MAX_BLOCKS || u64::from(header.blocks) * BLOCK_U64 > header.size_bytes {
        return Err(refused(&gettext(
            "it says it holds more blocks than any check saves",
        )));
    }
    let whole = 12 + u64::from(hlen) + u64::from(header.blocks) * (8 + BLOCK_U64) + 32;
    if len > whole {
        return Err(refused(&gettext("it is larger than its header says")));
    }
    if len < whole {
        return Err(torn(
            &gettext("it is shorter than its header says"),
            Some(&header),
        ));
    }
    let mut rest = Vec::with_capacity((whole - 12 - u64::from(hlen)) as usize);
    file.read_to_end(&mut rest)
        .map_err(|e| torn(&e.to_string(), Some(&header)))?;
    let mut sum = Sha256::new();
    sum.update(&start);
    sum.update(&json);
    let (blocks, tail) = rest.split_at(rest.len().saturating_sub(32));
    sum.update(blocks);
    if sum.finalize()[..] != *tail || blocks.len() % (8 + BLOCK) != 0 {
        return Err(torn(&gettext("its checksum does not match"), Some(&header)));
    }
    let mut saved = Vec::with_capacity(header.blocks as usize);
    for c in blocks.chunks_exact(8 + BLOCK) {
        let address = u64::from_le_bytes(c[..8].try_into().expect("8 bytes"));
        if address % BLOCK_U64 != 0 || address.saturating_add(BLOCK_U64) > header.size_bytes {
            return Err(refused(&gettext(
                "an address in it is not a block of the device",
            )));
        }
        let mut b = Block::zeroed();
        b.0.copy_from_slice(&c[8..]);
        saved.push((address, b));
    }
    Ok((header, saved))
}

/// The bytes of a recovery file of `header` holding `saved`.
fn encode(header: &Header, saved: &[(u64, Box<Block>)]) -> io::Result<Vec<u8>> {
    let json = serde_json::to_vec(header).map_err(io::Error::other)?;
    let mut body = Vec::with_capacity(12 + json.len() + saved.len() * (8 + BLOCK) + 32);
    body.extend_from_slice(MAGIC);
    body.extend_from_slice(&(json.len() as u32).to_le_bytes());
    body.extend_from_slice(&json);
    for (address, block) in saved {
        body.extend_from_slice(&address.to_le_bytes());
        body.extend_from_slice(&block.0);
    }
    let sum = Sha256::digest(&body);
    body.extend_from_slice(&sum);
    Ok(body)
}

/// Writes `header` (its `blocks` set to `saved`'s length) and `saved` as `dir/<its name>`,
/// durably: a temporary name (mode 0600), fsync, rename over any file of that name, fsync of
/// the folder (made 0700 when missing). With `keep_locked`, the file comes back open and
/// `flock`ed: the running check's own.
///
/// Errors: the file system's; `AlreadyExists` with `fresh` when a file of that name exists.
pub(crate) fn write(
    dir: &Path,
    header: &Header,
    saved: &[(u64, Box<Block>)],
    fresh: bool,
) -> io::Result<(PathBuf, File)> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let mut header = header.clone();
    header.blocks = saved.len() as u32;
    let path = dir.join(header.file_name());
    if fresh && std::fs::symlink_metadata(&path).is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists", path.display()),
        ));
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        header.file_name(),
        std::process::id()
    ));
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)?;
    // SAFETY: plain syscall on a descriptor we own; a new file nobody else has open.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    let written = encode(&header, saved)
        .and_then(|body| file.write_all(&body))
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    File::open(dir)?.sync_all()?;
    Ok((path, file))
}

/// Removes the recovery file `path` and makes the removal durable.
pub(crate) fn remove(path: &Path) -> io::Result<()> {
    std::fs::remove_file(path)?;
    if let Some(parent) = path.parent() {
        File::open(parent)?.sync_all()?;
    }
    Ok(())
}
