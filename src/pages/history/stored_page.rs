//! The page of one stored item, a run or a capacity check: a top line with the back button, the
//! item's title, **Save Report…** and the destructive **Forget …**, over the item's own view; and
//! what saving it says.

use adw::prelude::*;
use gtk::glib;
use gtk::subclass::prelude::*;

use super::layout::wrapping_top_bar;
use super::{HistoryPage, HistoryView};

/// The words and the actions of a stored item's page, all translated by the caller.
pub(super) struct StoredPage<'a> {
    /// The back button's tooltip ("Back to the drive").
    pub back_tooltip: &'a str,
    /// The item's title, kept by the caller to set per item.
    pub title: &'a gtk::Label,
    /// What **Save Report…** saves, as its tooltip.
    pub save_tooltip: &'a str,
    /// The forget button's label, with its mnemonic ("_Forget Run").
    pub forget_label: &'a str,
    /// What forgetting removes, as its tooltip.
    pub forget_tooltip: &'a str,
    /// What **Save Report…** does.
    pub on_save: fn(&HistoryView),
    /// What the forget button does (it asks first).
    pub on_forget: fn(&HistoryView),
}

impl HistoryView {
    /// Adds to the stack, as `name`, the page of one stored item showing `content` under the
    /// top line `words` describe. Returns **Save Report…** and the forget button.
    pub(super) fn build_stored_page(
        &self,
        name: HistoryPage,
        words: &StoredPage<'_>,
        content: &impl IsA<gtk::Widget>,
    ) -> [gtk::Button; 2] {
        let page = gtk::Box::new(gtk::Orientation::Vertical, 0);
        let save = gtk::Button::with_mnemonic(&agnostics_core::i18n::gettext("Save _Report…"));
        save.set_tooltip_text(Some(words.save_tooltip));
        let on_save = words.on_save;
        save.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| on_save(&view)
        ));
        let forget = gtk::Button::with_mnemonic(words.forget_label);
        forget.add_css_class("destructive-action");
        forget.set_tooltip_text(Some(words.forget_tooltip));
        let on_forget = words.on_forget;
        forget.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| on_forget(&view)
        ));
        let (bar, back) = wrapping_top_bar(words.back_tooltip, words.title, &[&save, &forget]);
        back.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                view.go_back();
            }
        ));
        page.append(&bar);
        page.append(&gtk::Separator::new(gtk::Orientation::Horizontal));
        page.append(content);
        self.imp().stack.add_named(&page, Some(name.name()));
        [save, forget]
    }

    /// After **Save Report…**'s dialog of a stored item: forgets the dialog, and toasts the
    /// file saved or why it could not be.
    pub(super) fn after_save(&self, result: Result<std::path::PathBuf, String>) {
        self.imp().chooser.replace(None);
        match result {
            Ok(path) => self.toast(&agnostics_core::i18n::fill(
                &agnostics_core::i18n::gettext("Saved {file}"),
                &[("file", &path.display())],
            )),
            Err(e) => self.toast(&e),
        }
    }
}
