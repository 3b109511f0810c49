//! The ready page's drive facts kept true while it is shown: the chooser follows the kernel's
//! mount table ([`MountWatch`]: a drive mounted after launch appears, a removed one goes) and
//! the free space of the drives listed (looked at again every few seconds while the page is
//! shown, and each time it is shown), and the chosen drive's pre-flight checks run again on
//! what is true now, so that **Run** is on or off for the drive as it is.

use std::path::PathBuf;
use std::time::Duration;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::target_dir::{self, MountWatch, TargetInfo};
use gtk::{gio, glib};

use super::ReadyView;
use crate::widgets::drive_row::DriveChoice;

/// How often the drives' free space is looked at again while the page is shown.
const FREE_SPACE_EVERY: Duration = Duration::from_secs(3);

impl ReadyView {
    /// Starts following the mount table, and the free space while the page is mapped.
    pub(super) fn follow_drives(&self) {
        if let Ok(watch) = MountWatch::open() {
            let source = glib_unix::unix_fd_add_local(
                watch.raw_fd(),
                glib::IOCondition::PRI | glib::IOCondition::ERR,
                glib::clone!(
                    #[weak(rename_to = view)]
                    self,
                    #[upgrade_or]
                    glib::ControlFlow::Break,
                    move |_, _| {
                        view.refresh_drives();
                        glib::ControlFlow::Continue
                    }
                ),
            );
            let imp = self.imp();
            imp.mount_watch.replace(Some(watch));
            imp.mount_source.replace(Some(source));
        }
        self.connect_map(|view| {
            view.refresh_drives();
            let source = glib::timeout_add_local(
                FREE_SPACE_EVERY,
                glib::clone!(
                    #[weak]
                    view,
                    #[upgrade_or]
                    glib::ControlFlow::Break,
                    move || {
                        view.refresh_drives();
                        glib::ControlFlow::Continue
                    }
                ),
            );
            if let Some(old) = view.imp().free_space_timer.replace(Some(source)) {
                old.remove();
            }
        });
        self.connect_unmap(|view| {
            if let Some(source) = view.imp().free_space_timer.take() {
                source.remove();
            }
        });
    }

    /// Stops following the drives (the page is going away).
    pub(super) fn stop_following_drives(&self) {
        let imp = self.imp();
        for source in [imp.mount_source.take(), imp.free_space_timer.take()]
            .into_iter()
            .flatten()
        {
            source.remove();
        }
        imp.mount_watch.replace(None);
    }

    /// Lists the drives again on a helper thread, keeping the choices whose drive is still
    /// there (their free space now), adding drives mounted since and dropping removed ones;
    /// the chooser is changed only when what it shows changed. A removed chosen drive is said
    /// so, and the default folder chosen instead. Nothing while a listing is being made.
    pub fn refresh_drives(&self) {
        let imp = self.imp();
        if !imp.drives_loaded.get() || imp.refreshing.get() {
            return;
        }
        imp.refreshing.set(true);
        let generation = imp.drives_generation.get();
        let old = imp.drive_row.choices();
        let chosen = imp.drive_row.selected_choice();
        let sysfs = self.sysfs_root();
        let listing = gio::spawn_blocking(move || {
            let listed = target_dir::list(&sysfs);
            let fallback = target_dir::default_target(&sysfs);
            let fallback_info = target_dir::inspect(&fallback, &sysfs).ok();
            let kept: Vec<DriveChoice> = old
                .into_iter()
                .filter_map(|c| still_there(c, &sysfs))
                .collect();
            let mount = fallback_info.as_ref().map(|i| i.mount_point.clone());
            let list = merge(kept, listed, (fallback, fallback_info));
            let default = list
                .iter()
                .position(|c| c.info.as_ref().map(|i| &i.mount_point) == mount.as_ref())
                .unwrap_or(0);
            (list, default)
        });
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = view)]
            self,
            async move {
                let result = listing.await;
                let imp = view.imp();
                imp.refreshing.set(false);
                let Ok((list, default)) = result else { return };
                if imp.drives_generation.get() != generation || !imp.drives_loaded.get() {
                    return;
                }
                view.show_refreshed(list, default, chosen);
            }
        ));
    }

    /// Shows the list of drives made by [`ReadyView::refresh_drives`], `chosen` kept chosen
    /// when it is in it, else the entry `default` (the default folder's drive) chosen.
    fn show_refreshed(&self, list: Vec<DriveChoice>, default: usize, chosen: Option<DriveChoice>) {
        let imp = self.imp();
        let index = chosen
            .as_ref()
            .and_then(|c| list.iter().position(|n| n.dir == c.dir));
        let shown: Vec<(PathBuf, String)> = imp
            .drive_row
            .choices()
            .into_iter()
            .map(|c| (c.dir, c.label))
            .collect();
        let fresh: Vec<(PathBuf, String)> = list
            .iter()
            .map(|c| (c.dir.clone(), c.label.clone()))
            .collect();
        if shown != fresh {
            // The same choice kept: the chooser refilled without the page's reaction to a
            // new choice (no flicker of Run while it is looked at again).
            imp.keeping_choice.set(index.is_some());
            imp.drive_row.set_choices(list, index.unwrap_or(default));
            imp.keeping_choice.set(false);
            if let (None, Some(gone)) = (index, chosen.as_ref()) {
                self.emit_toast(&fill(
                    &gettext("{drive} is no longer connected"),
                    &[("drive", &gone.label)],
                ));
            }
            self.update_folder_label();
            self.update_drive_warning();
            self.emit_by_name::<()>("listed", &[]);
        }
        self.recheck_target();
    }
}

/// `choice` with its drive's facts now, when its folder is still on the drive it was on (the
/// same mount and device); `None` when that drive was removed or unmounted (the folder left
/// behind is on another disk) or the folder is gone.
fn still_there(choice: DriveChoice, sysfs: &std::path::Path) -> Option<DriveChoice> {
    let before = choice.info.as_ref()?;
    let now = target_dir::inspect(&choice.dir, sysfs).ok()?;
    let disk = |i: &TargetInfo| i.device.as_ref().map(|d| d.disk.clone());
    (now.mount_point == before.mount_point && disk(&now) == disk(before))
        .then(|| DriveChoice::new(choice.dir, Some(now)))
}

/// The chooser's entries: the choices `kept` from before (in their order, each standing for
/// its filesystem), then each filesystem of `listed` none of them is on; when none is kept,
/// the default folder `fallback` (with what inspecting it found) stands for its filesystem.
fn merge(
    kept: Vec<DriveChoice>,
    listed: Vec<TargetInfo>,
    fallback: (PathBuf, Option<TargetInfo>),
) -> Vec<DriveChoice> {
    let mount_of = |c: &DriveChoice| c.info.as_ref().map(|i| i.mount_point.clone());
    if kept.is_empty() {
        return crate::widgets::drive_row::choices(listed, &fallback.0, fallback.1).0;
    }
    let mut out = kept;
    for info in listed {
        if !out
            .iter()
            .any(|c| mount_of(c).as_ref() == Some(&info.mount_point))
        {
            out.push(DriveChoice::new(info.path.clone(), Some(info)));
        }
    }
    out
}
