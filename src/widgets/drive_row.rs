//! The drive chooser: the engine's list of writable mounted filesystems
//! ([`agnostics_core::target_dir::list`]), each shown the way a person knows it ("SD card ·
//! mmcblk0 · /media/pi/CARD · ext4 · 21.3 GB free"), wrapped rather than cut, with the default target (docs/design.md, "Where the test runs")
//! or the folder given with `--target` selected.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::target_dir::TargetInfo;
use gtk::glib;

use crate::format::target_info_label;

/// One entry of the chooser: the folder the test file goes in and how the drive is named.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveChoice {
    /// The folder to test in.
    pub dir: PathBuf,
    /// The drive as people know it.
    pub label: String,
    /// What the engine found out about the folder; `None` when it could not be inspected
    /// (the test's pre-flight then says why).
    pub info: Option<TargetInfo>,
}

impl DriveChoice {
    /// The choice for `dir`, named from `info` or, without it, as a plain folder.
    pub fn new(dir: PathBuf, info: Option<TargetInfo>) -> DriveChoice {
        let label = match &info {
            Some(info) => target_info_label(info),
            None => fill(&gettext("Folder · {path}"), &[("path", &dir.display())]),
        };
        DriveChoice { dir, label, info }
    }
}

/// The chooser's entries and the one to select: every listed filesystem, with `preferred`
/// (the default target or `--target`) standing in for the filesystem it is on, or added first
/// when it is on none of them.
pub fn choices(
    list: Vec<TargetInfo>,
    preferred: &Path,
    preferred_info: Option<TargetInfo>,
) -> (Vec<DriveChoice>, usize) {
    let mut out: Vec<DriveChoice> = list
        .into_iter()
        .map(|info| DriveChoice::new(info.path.clone(), Some(info)))
        .collect();
    let same_fs = |c: &DriveChoice| match (&c.info, &preferred_info) {
        (Some(a), Some(b)) => a.mount_point == b.mount_point,
        _ => c.dir == preferred,
    };
    if let Some(index) = out.iter().position(same_fs) {
        out[index].dir = preferred.to_path_buf();
        if let Some(info) = preferred_info {
            out[index].label = target_info_label(&info);
            out[index].info = Some(info);
        }
        (out, index)
    } else {
        out.insert(0, DriveChoice::new(preferred.to_path_buf(), preferred_info));
        (out, 0)
    }
}

/// The popup list's entries of a combo row over a [`gtk::StringList`]: each entry's whole
/// text, wrapped (at a space, or inside a long path) rather than cut, so that a drive's mount
/// point and free space are never lost, with a check mark on the chosen one in the popup of
/// the row `popup` (`None`: the row's display of the chosen entry). Each entry is named by its text for
/// screen readers (GTK 4.8 leaves a list item's name empty).
pub(crate) fn wrapping_factory(popup: Option<&adw::ComboRow>) -> gtk::SignalListItemFactory {
    let factory = gtk::SignalListItemFactory::new();
    let row = popup.map(|r| r.downgrade());
    factory.connect_setup(move |_, item| {
        let Some(item) = item.downcast_ref::<gtk::ListItem>() else {
            return;
        };
        // The popup's entries wrap; the choice shown in the row keeps its whole width (wrapped
        // between any two characters it showed "標準テ" in Japanese, "Sch-" in German).
        let label = gtk::Label::builder()
            .xalign(0.0)
            .hexpand(row.is_some())
            .wrap(row.is_some())
            .wrap_mode(gtk::pango::WrapMode::WordChar)
            .max_width_chars(48)
            .build();
        let entry = gtk::Box::new(gtk::Orientation::Horizontal, 6);
        entry.append(&label);
        item.set_child(Some(&entry));
        let Some(row) = row.as_ref().and_then(|r| r.upgrade()) else {
            return;
        };
        // The check mark follows the row's choice (as libadwaita's own entries do), not the
        // popup's keyboard focus.
        let check = gtk::Image::builder()
            .icon_name("agnostics-check-symbolic")
            .accessible_role(gtk::AccessibleRole::Presentation)
            .build();
        entry.append(&check);
        let item = item.downgrade();
        row.connect_selected_item_notify(move |row| {
            if let Some(item) = item.upgrade() {
                show_check(row, &item);
            }
        });
    });
    let row = popup.map(|r| r.downgrade());
    factory.connect_bind(move |_, item| {
        let Some(item) = item.downcast_ref::<gtk::ListItem>() else {
            return;
        };
        let text = item
            .item()
            .and_downcast::<gtk::StringObject>()
            .map(|s| s.string().to_string())
            .unwrap_or_default();
        let Some(entry) = item.child() else { return };
        if let Some(label) = entry.first_child().and_downcast::<gtk::Label>() {
            label.set_label(&text);
        }
        crate::a11y::name_list_item(item, &text);
        if let Some(row) = row.as_ref().and_then(|r| r.upgrade()) {
            show_check(&row, item);
        }
    });
    factory
}

/// Shows the check mark of a popup entry (its box's last child) when it is `row`'s choice.
fn show_check(row: &adw::ComboRow, item: &gtk::ListItem) {
    let chosen = item.item().is_some() && row.selected_item() == item.item();
    if let Some(check) = item.child().and_then(|entry| entry.last_child()) {
        if check.is::<gtk::Image>() {
            check.set_opacity(if chosen { 1.0 } else { 0.0 });
        }
    }
}

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct DriveRow {
        pub choices: RefCell<Vec<DriveChoice>>,
        pub model: gtk::StringList,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for DriveRow {
        const NAME: &'static str = "AgnosticsDriveRow";
        type Type = super::DriveRow;
        type ParentType = adw::ComboRow;
    }

    impl ObjectImpl for DriveRow {
        fn constructed(&self) {
            self.parent_constructed();
            let obj = self.obj();
            obj.set_model(Some(&self.model));
            obj.set_use_subtitle(true);
            // The chosen drive in full, wrapped: its path is what tells drives apart.
            obj.set_subtitle_lines(0);
            obj.set_factory(Some(&wrapping_factory(None)));
            obj.set_list_factory(Some(&wrapping_factory(Some(obj.upcast_ref()))));
            obj.set_title(&gettext("_Drive to test"));
            obj.set_use_underline(true);
            obj.set_loading();
        }
    }

    impl WidgetImpl for DriveRow {}
    impl ListBoxRowImpl for DriveRow {}
    impl PreferencesRowImpl for DriveRow {}
    impl ActionRowImpl for DriveRow {}
    impl ComboRowImpl for DriveRow {}
}

glib::wrapper! {
    /// A combo row listing the drives that can be tested.
    pub struct DriveRow(ObjectSubclass<imp::DriveRow>)
        @extends adw::ComboRow, adw::ActionRow, adw::PreferencesRow, gtk::ListBoxRow, gtk::Widget,
        @implements gtk::Actionable, gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for DriveRow {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl DriveRow {
    /// An empty chooser, waiting for the list of drives.
    pub fn new() -> DriveRow {
        DriveRow::default()
    }

    /// Shows that the list of drives is being made; the row cannot be used meanwhile.
    pub fn set_loading(&self) {
        let imp = self.imp();
        imp.choices.borrow_mut().clear();
        let n = imp.model.n_items();
        imp.model
            .splice(0, n, &[gettext("Looking for drives…").as_str()]);
        self.set_sensitive(false);
    }

    /// Fills the chooser and selects entry `selected`.
    pub fn set_choices(&self, choices: Vec<DriveChoice>, selected: usize) {
        let imp = self.imp();
        let labels: Vec<&str> = choices.iter().map(|c| c.label.as_str()).collect();
        let n = imp.model.n_items();
        // The labels first, so that selection notifications see the new choices.
        *imp.choices.borrow_mut() = choices.clone();
        imp.model.splice(0, n, &labels);
        self.set_selected(selected.min(choices.len().saturating_sub(1)) as u32);
        self.set_sensitive(!choices.is_empty());
    }

    /// Adds a folder the user picked and selects it (or selects it if already listed).
    pub fn add_folder(&self, dir: PathBuf, info: Option<TargetInfo>) {
        let mut choices = self.choices();
        let index = match choices.iter().position(|c| c.dir == dir) {
            Some(index) => index,
            None => {
                choices.push(DriveChoice::new(dir, info));
                choices.len() - 1
            }
        };
        self.set_choices(choices, index);
    }

    /// Every entry.
    pub fn choices(&self) -> Vec<DriveChoice> {
        self.imp().choices.borrow().clone()
    }

    /// The selected entry, `None` while loading.
    pub fn selected_choice(&self) -> Option<DriveChoice> {
        self.imp()
            .choices
            .borrow()
            .get(self.selected() as usize)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agnostics_core::target_dir::Transport;

    fn info(path: &str, mount: &str, transport: Transport) -> TargetInfo {
        TargetInfo {
            path: path.into(),
            fs_type: "ext4".into(),
            mount_point: mount.into(),
            device: None,
            transport,
            free_bytes: 2_000_000_000,
            total_bytes: 4_000_000_000,
            read_only: false,
            mount_options: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn default_folder_stands_in_for_its_filesystem() {
        let list = vec![
            info("/media/pi/CARD", "/media/pi/CARD", Transport::Sd),
            info("/", "/", Transport::Usb),
        ];
        let (choices, selected) = choices(
            list,
            Path::new("/var/tmp"),
            Some(info("/var/tmp", "/", Transport::Usb)),
        );
        assert_eq!(choices.len(), 2);
        assert_eq!(selected, 1);
        assert_eq!(choices[1].dir, Path::new("/var/tmp"));
        assert!(choices[0].label.starts_with("SD card · "));
    }

    #[test]
    fn a_folder_on_no_listed_filesystem_comes_first() {
        let (choices, selected) = choices(vec![], Path::new("/srv/test"), None);
        assert_eq!(selected, 0);
        assert_eq!(choices[0].label, "Folder · /srv/test");
    }
}
