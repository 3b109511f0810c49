//! A check's drive lock ([`crate::drive_lock`]), taken so that it cannot be used against the
//! person checking: a lock path that is not a regular file (a FIFO, a link, a folder) is said,
//! not swallowed; a refusal names the process that holds the lock where the system tells; and
//! in device mode, which opens the device for itself alone (`O_EXCL`), a lock of another
//! user's process is noted and not obeyed.

use std::path::Path;

use super::{CapacityError, Event};
use crate::drive_lock::{Drive, DriveLock, Holder};
use crate::i18n::{fill, gettext};

/// Takes the locks of `drives` in `dir`. Lock files that cannot be used are said as
/// [`Event::Note`]s; the check goes on.
///
/// Errors: [`CapacityError::Busy`] when another check or test holds a lock on a drive: any
/// process in mounted mode; in device mode (`device`) a process of root or of this user
/// (another user's is noted), or an unnamed holder of a lock file of root or this user.
pub(crate) fn take(
    dir: &Path,
    drives: &[Drive],
    device: bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<DriveLock, CapacityError> {
    let (lock, errors) = DriveLock::take(dir, drives);
    for e in &errors {
        on_event(Event::Note(fill(
            // Translators: {error} names the lock file and what is wrong with it.
            &gettext(
                "warning: the drive's lock cannot be taken ({error}), so another test of it at \
                 the same time would not be seen; if no test of this program made what is at \
                 that path, remove it.",
            ),
            &[("error", e)],
        )));
    }
    let Some((drive, owner, holders)) = lock.shared_by() else {
        return Ok(lock);
    };
    let me = nix::unistd::geteuid().as_raw();
    let trusted = |uid: u32| uid == 0 || uid == me;
    let busy = |h: Option<&Holder>| CapacityError::Busy {
        disk: drive.name.clone(),
        by: h.map(by_text).unwrap_or_default(),
    };
    if !device {
        return Err(busy(holders.first()));
    }
    if let Some(h) = holders.iter().find(|h| trusted(h.uid)) {
        return Err(busy(Some(h)));
    }
    if holders.is_empty() && trusted(owner) {
        return Err(busy(None));
    }
    let path = dir.join(drive.file_name());
    for h in holders.iter().filter(|h| !trusted(h.uid)) {
        on_event(Event::Note(ignored_text(&path, h.uid, Some(h))));
    }
    if holders.is_empty() {
        on_event(Event::Note(ignored_text(&path, owner, None)));
    }
    Ok(lock)
}

/// ` (process 4242, agnostics-cli)`: who holds the lock, for [`CapacityError::Busy`].
fn by_text(h: &Holder) -> String {
    fill(
        &gettext(" (process {pid}, {command})"),
        &[("pid", &h.pid), ("command", &h.command)],
    )
}

/// The note of a lock held by another user's process, not obeyed.
fn ignored_text(path: &Path, uid: u32, h: Option<&Holder>) -> String {
    let who = match h {
        Some(h) => fill(
            &gettext("user {uid}'s process {pid} ({command})"),
            &[("uid", &uid), ("pid", &h.pid), ("command", &h.command)],
        ),
        None => fill(&gettext("a process of user {uid}"), &[("uid", &uid)]),
    };
    fill(
        &gettext(
            "note: {who} holds the lock {path}; it is not obeyed, because the device is opened \
             for this check alone.",
        ),
        &[("who", &who), ("path", &path.display())],
    )
}
