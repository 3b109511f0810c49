//! A box that lays its children out in a row and starts a new row when the next child does not
//! fit (GTK 4.8 and libadwaita 1.2 have no breakpoints, and a GtkFlowBox adds a focusable item
//! around each child): a row of buttons that stays usable from 800 px down to 360 px wide.
//!
//! Each child takes its natural width when it fits on the row, else a row of its own at the
//! box's width; the room left on a row goes to its children that expand horizontally, or
//! centres the row when none does. Children are placed in the order added; hidden children take
//! no room. Its narrowest width is its widest child's minimum.

use gtk::glib;
use gtk::prelude::*;
use gtk::subclass::prelude::*;

/// Pixels between two children of a row, and between two rows.
const SPACING: i32 = 12;
const ROW_SPACING: i32 = 6;

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct WrapBox;

    #[glib::object_subclass]
    impl ObjectSubclass for WrapBox {
        const NAME: &'static str = "AgnosticsWrapBox";
        type Type = super::WrapBox;
        type ParentType = gtk::Widget;
    }

    impl ObjectImpl for WrapBox {
        fn dispose(&self) {
            while let Some(child) = self.obj().first_child() {
                child.unparent();
            }
        }
    }

    impl WidgetImpl for WrapBox {
        fn request_mode(&self) -> gtk::SizeRequestMode {
            gtk::SizeRequestMode::HeightForWidth
        }

        fn measure(&self, orientation: gtk::Orientation, for_size: i32) -> (i32, i32, i32, i32) {
            let children = self.obj().shown_children();
            if orientation == gtk::Orientation::Horizontal {
                let widths = children.iter().map(|c| c.measure(orientation, -1));
                let (min, natural) = widths.fold((0, 0), |(min, nat), (m, n, _, _)| {
                    (min.max(m), if nat == 0 { n } else { nat + SPACING + n })
                });
                return (min, natural, -1, -1);
            }
            let width = if for_size < 0 { i32::MAX } else { for_size };
            let height = rows(&children, width)
                .iter()
                .map(|row| row.height)
                .reduce(|a, b| a + ROW_SPACING + b)
                .unwrap_or(0);
            (height, height, -1, -1)
        }

        fn size_allocate(&self, width: i32, _height: i32, _baseline: i32) {
            let children = self.obj().shown_children();
            let mut y = 0;
            for row in rows(&children, width) {
                let used: i32 =
                    row.widths.iter().sum::<i32>() + SPACING * (row.children.len() as i32 - 1);
                let extra = (width - used).max(0);
                let expanding = row
                    .children
                    .iter()
                    .filter(|c| c.compute_expand(gtk::Orientation::Horizontal))
                    .count() as i32;
                let mut x = if expanding == 0 { extra / 2 } else { 0 };
                for (child, w) in row.children.iter().zip(&row.widths) {
                    let mut w = *w;
                    if expanding > 0 && child.compute_expand(gtk::Orientation::Horizontal) {
                        w += extra / expanding;
                    }
                    child.size_allocate(&gtk::Allocation::new(x, y, w, row.height), -1);
                    x += w + SPACING;
                }
                y += row.height + ROW_SPACING;
            }
        }
    }
}

glib::wrapper! {
    /// Children in rows, a new row when the next child does not fit (see the module's docs).
    pub struct WrapBox(ObjectSubclass<imp::WrapBox>)
        @extends gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for WrapBox {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl WrapBox {
    /// An empty box.
    pub fn new() -> WrapBox {
        WrapBox::default()
    }

    /// Adds `child` after the others.
    pub fn append(&self, child: &impl IsA<gtk::Widget>) {
        child.set_parent(self);
    }

    /// Takes `child` out (nothing when it is not one of this box's).
    pub fn remove(&self, child: &impl IsA<gtk::Widget>) {
        if child.parent().as_ref() == Some(self.upcast_ref()) {
            child.unparent();
        }
    }

    fn shown_children(&self) -> Vec<gtk::Widget> {
        let mut found = Vec::new();
        let mut child = self.first_child();
        while let Some(c) = child {
            if c.should_layout() {
                found.push(c.clone());
            }
            child = c.next_sibling();
        }
        found
    }
}

/// One row of the layout: its children, the width each takes and the row's height.
struct Row {
    children: Vec<gtk::Widget>,
    widths: Vec<i32>,
    height: i32,
}

/// Breaks `children` into rows of at most `width` pixels: each child at its natural width,
/// or (wider than the box) at the box's width, not below its minimum.
fn rows(children: &[gtk::Widget], width: i32) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let mut used = 0;
    for child in children {
        let (min, natural, _, _) = child.measure(gtk::Orientation::Horizontal, -1);
        let w = natural.min(width).max(min);
        let fits = rows
            .last()
            .is_some_and(|row| !row.children.is_empty() && used + SPACING + w <= width);
        if fits {
            used += SPACING + w;
        } else {
            rows.push(Row {
                children: Vec::new(),
                widths: Vec::new(),
                height: 0,
            });
            used = w;
        }
        let row = rows.last_mut().expect("a row");
        row.children.push(child.clone());
        row.widths.push(w);
    }
    for row in &mut rows {
        row.height = row
            .children
            .iter()
            .zip(&row.widths)
            .map(|(c, w)| c.measure(gtk::Orientation::Vertical, *w).0)
            .max()
            .unwrap_or(0);
    }
    rows
}
