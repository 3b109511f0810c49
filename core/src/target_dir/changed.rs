//! A folder whose drive changed since it was chosen: the drive was removed or unmounted, and
//! the folder is gone or now sits on another drive (a mount point left behind is an empty
//! folder on the disk below it). A test must not write there thinking it tests the drive.

use std::path::{Path, PathBuf};

use super::{inspect, TargetInfo};
use crate::i18n::{fill, gettext};

/// How the drive under a chosen folder changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriveChange {
    /// The folder cannot be reached any more.
    Gone {
        /// The folder.
        path: PathBuf,
    },
    /// The folder is on another filesystem or device than when it was chosen.
    Moved {
        /// The folder.
        path: PathBuf,
        /// The device it was on (kernel name, or the mount point without one).
        was: String,
        /// The device it is on now.
        now: String,
    },
}

impl DriveChange {
    /// What a person reads (translated): what happened, that nothing was written, what to do.
    pub fn text(&self) -> String {
        match self {
            DriveChange::Gone { path } => fill(
                &gettext(
                    "The folder {path} is gone: its drive was removed or unmounted. Nothing was \
                     written. Connect the drive again or choose another one.",
                ),
                &[("path", &path.display())],
            ),
            DriveChange::Moved { path, was, now } => fill(
                // Translators: {was} and {now} are kernel device names such as "mmcblk0".
                &gettext(
                    "The folder {path} is no longer on the drive it was on ({was}) but on {now}: \
                     that drive was removed or unmounted. Nothing was written. Connect the drive \
                     again or choose another one.",
                ),
                &[("path", &path.display()), ("was", was), ("now", now)],
            ),
        }
    }
}

/// Whether the drive under `before.path` changed since `before` was inspected: the folder
/// gone, or on another mount or device now. `None` when it is where it was.
pub fn drive_changed(before: &TargetInfo, sysfs_root: &Path) -> Option<DriveChange> {
    let path = before.path.clone();
    let Ok(now) = inspect(&path, sysfs_root) else {
        return Some(DriveChange::Gone { path });
    };
    let device = |i: &TargetInfo| match &i.device {
        Some(d) => (d.dev.clone(), d.name.clone()),
        None => (String::new(), i.mount_point.display().to_string()),
    };
    let (was_dev, was) = device(before);
    let (now_dev, now_name) = device(&now);
    if was_dev == now_dev && before.mount_point == now.mount_point {
        return None;
    }
    Some(DriveChange::Moved {
        path,
        was,
        now: now_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_that_stays_has_not_changed_and_a_removed_one_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let info = inspect(dir.path(), Path::new("/sys")).unwrap();
        assert_eq!(drive_changed(&info, Path::new("/sys")), None);
        let path = info.path.clone();
        drop(dir);
        let change = drive_changed(&info, Path::new("/sys")).expect("gone");
        assert_eq!(change, DriveChange::Gone { path: path.clone() });
        assert_eq!(
            change.text(),
            format!(
                "The folder {} is gone: its drive was removed or unmounted. Nothing was \
                 written. Connect the drive again or choose another one.",
                path.display()
            )
        );
    }

    #[test]
    fn a_folder_now_on_another_device_has_moved() {
        let dir = tempfile::tempdir().unwrap();
        let mut info = inspect(dir.path(), Path::new("/sys")).unwrap();
        info.mount_point = PathBuf::from("/media/card");
        if let Some(d) = &mut info.device {
            d.dev = "179:0".into();
            d.name = "mmcblk0".into();
        }
        let change = drive_changed(&info, Path::new("/sys")).expect("moved");
        assert!(
            matches!(&change, DriveChange::Moved { was, .. } if was == "mmcblk0" || was == "/media/card"),
            "{change:?}"
        );
        assert!(
            change.text().contains("Nothing was written"),
            "{}",
            change.text()
        );
    }
}
