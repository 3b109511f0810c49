//! The window's pages as enums: the SD Card view's [`Page`]s and the view stack's [`Tab`]s.
//! The names in `window.ui` are mapped to them here and nowhere else.

/// A page of the SD Card view's stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// Choose a drive and a profile, **Run SD Card Test**.
    Ready,
    /// The test runs: progress, live figure, **Cancel**.
    Running,
    /// The verdicts, **Run Again**, **Copy Results**, **Save Report**.
    Results,
    /// The capacity check: its progress and **Cancel**, then its verdict and **Done**.
    Capacity,
}

impl Page {
    /// Every page, in the stack's order.
    pub const ALL: [Page; 4] = [Page::Ready, Page::Running, Page::Results, Page::Capacity];

    /// The page's name in `window.ui`.
    pub fn name(self) -> &'static str {
        match self {
            Page::Ready => "ready",
            Page::Running => "running",
            Page::Results => "results",
            Page::Capacity => "capacity",
        }
    }

    /// The page named `name` in `window.ui`, if there is one.
    pub fn from_name(name: &str) -> Option<Page> {
        Page::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// A view of the window's view stack (a tab of the header's switcher).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The SD card test (its [`Page`]s).
    SdCard,
    /// **All Tests**: the SD card test and the test scripts.
    AllTests,
    /// The drives tested and their runs.
    History,
}

impl Tab {
    /// Every tab, in the switcher's order.
    pub const ALL: [Tab; 3] = [Tab::SdCard, Tab::AllTests, Tab::History];

    /// The view's name in `window.ui`.
    pub fn name(self) -> &'static str {
        match self {
            Tab::SdCard => "sd",
            Tab::AllTests => "tests",
            Tab::History => "history",
        }
    }

    /// The view named `name` in `window.ui`, if there is one.
    pub fn from_name(name: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_both_ways() {
        for page in Page::ALL {
            assert_eq!(Page::from_name(page.name()), Some(page));
        }
        for tab in Tab::ALL {
            assert_eq!(Tab::from_name(tab.name()), Some(tab));
        }
        assert_eq!(Page::from_name("sd"), None);
        assert_eq!(Tab::from_name("ready"), None);
    }

    #[test]
    fn every_name_is_in_the_window_template() {
        let ui = include_str!("window.ui");
        for name in Page::ALL
            .iter()
            .map(|p| p.name())
            .chain(Tab::ALL.iter().map(|t| t.name()))
        {
            let property = format!("<property name=\"name\">{name}</property>");
            assert!(ui.contains(&property), "{name} is not in window.ui");
        }
    }
}
