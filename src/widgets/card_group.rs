//! The results page's **Card** (or **Drive**) group: what the device says about itself and
//! how that compares with what was measured (docs/design.md, "The card"). For SD cards and eMMC: the
//! manufacturer with its raw ID (shared IDs name every company the core's table gives), the
//! product name, the capacity, the manufacture date and the ratings the card claims; for USB
//! and NVMe drives: vendor, model, link speed and firmware. Then the card's warnings and the
//! findings (claims against measurements, figures the link cannot carry).
//!
//! A register can be missing (this kernel or reader does not expose it), all zeros (the card
//! reported nothing) or decoded: the rows say which, never a blank.

use adw::prelude::*;
use agnostics_core::card::claims::Outcome;
use agnostics_core::card::{self, CardInfo, Finding, RegisterState};
use agnostics_core::i18n::{fill, gettext, number};
use agnostics_core::target_dir::Transport;
use gtk::glib;

use super::results_rows::{advice_row, fact_row, group};

/// The group and its fact rows (title, value), the warnings and findings rows after them.
#[derive(Debug)]
pub struct CardGroup {
    /// The group to append to the page.
    pub group: adw::PreferencesGroup,
    /// The fact rows, in order.
    pub facts: Vec<adw::ActionRow>,
    /// The warning and finding rows, in order.
    pub notes: Vec<adw::ActionRow>,
}

/// The group for `card` (when identified) and `findings`; `None` when there is nothing to
/// say (an unidentified loop device with no findings).
pub fn card_group(card: Option<&CardInfo>, findings: &[Finding]) -> Option<CardGroup> {
    let facts: Vec<(String, String)> = card.map(card_facts).unwrap_or_default();
    let warnings = card.map(|c| c.warnings.as_slice()).unwrap_or_default();
    if facts.is_empty() && warnings.is_empty() && findings.is_empty() {
        return None;
    }
    let is_card = card.is_some_and(|c| matches!(c.kind, Transport::Sd | Transport::Emmc));
    let group = if is_card {
        group(
            &gettext("Card"),
            Some(&gettext(
                "What the card says about itself, and what it claims against what was measured.",
            )),
        )
    } else {
        group(&gettext("Drive"), None)
    };
    let mut out = CardGroup {
        group,
        facts: Vec::new(),
        notes: Vec::new(),
    };
    for (title, value) in facts {
        let row = fact_row(&title, &value);
        row.set_subtitle_lines(0);
        out.group.add(&row);
        out.facts.push(row);
    }
    for warning in warnings {
        let row = advice_row(warning, "agnostics-warning-symbolic");
        out.group.add(&row);
        out.notes.push(row);
    }
    for finding in findings {
        let icon = match finding {
            Finding::AppPerfClass { outcome, .. } | Finding::SpeedRating { outcome, .. }
                if *outcome == Outcome::Meets =>
            {
                "agnostics-check-symbolic"
            }
            _ => "agnostics-warning-symbolic",
        };
        let row = advice_row(&finding.text(), icon);
        out.group.add(&row);
        out.notes.push(row);
    }
    Some(out)
}

/// The fact rows for the device, titles and values.
pub fn card_facts(card: &CardInfo) -> Vec<(String, String)> {
    match card.kind {
        Transport::Sd | Transport::Emmc => sd_facts(card),
        _ => drive_facts(card),
    }
}

fn sd_facts(card: &CardInfo) -> Vec<(String, String)> {
    let mut facts = Vec::new();
    let cid = card.cid.as_ref();
    let manufacturer = match cid.and_then(|c| c.mid.map(|mid| (c, mid))) {
        Some((c, mid)) => {
            let names = c.manufacturer.clone().unwrap_or_else(|| gettext("unknown"));
            let mut text = fill(
                // Translators: a card maker and its raw manufacturer ID, e.g. "SanDisk (0x03)".
                &gettext("{maker} (0x{id})"),
                &[("maker", &names), ("id", &format!("{mid:02X}"))],
            );
            if let Some(note) = &c.manufacturer_note {
                text.push('\n');
                text.push_str(note);
            }
            text
        }
        None => register_text(card.registers.cid),
    };
    facts.push((gettext("Manufacturer"), manufacturer));
    let product = cid.and_then(|c| c.pnm.as_deref()).map(printable);
    let product = match (product, cid.and_then(|c| c.prv.as_deref())) {
        (Some(p), Some(rev)) => fill(
            &gettext("{product}, revision {rev}"),
            &[("product", &p), ("rev", &rev)],
        ),
        (Some(p), None) => p,
        (None, _) => card
            .model
            .as_deref()
            .map(printable)
            .unwrap_or_else(|| register_text(card.registers.cid)),
    };
    facts.push((gettext("Product name"), product));
    if let Some(bytes) = card.capacity_bytes.or(card.size_bytes) {
        facts.push((gettext("Capacity"), capacity(bytes)));
    }
    let date = cid
        .and_then(|c| c.mdt.as_deref())
        .map(month_year)
        .unwrap_or_else(|| register_text(card.registers.cid));
    facts.push((gettext("Manufactured"), date));
    if cid.is_some_and(|c| c.source == card::cid::CidSource::Sysfs) {
        facts.push((
            gettext("Identity"),
            gettext("From the kernel's readings: this reader does not expose the card's identification register"),
        ));
    }
    if card.kind == Transport::Sd {
        facts.push((gettext("Ratings the card claims"), claims_text(card)));
    }
    if let Some(link) = &card.link {
        facts.push((gettext("Link"), card::link::describe(link)));
    }
    host_facts(card, &mut facts);
    facts
}

/// What only the host's own interfaces tell: command queueing (and, on an SD card without
/// it, that A2 is not graded), each partition against the erase size, an eMMC's wear.
fn host_facts(card: &CardInfo, facts: &mut Vec<(String, String)>) {
    if let Some(q) = &card.command_queueing {
        let mut text = q.describe();
        if card.a2_not_graded_reason().is_some() {
            text.push('\n');
            text.push_str(&match q.state {
                card::QueueingState::Off => {
                    gettext("A2 is not graded: this host runs the card like an A1 card")
                }
                _ => gettext("A2 is not graded: A2 figures need command queueing"),
            });
        }
        if let Some(quirk) = card
            .cid
            .as_ref()
            .and_then(agnostics_core::references::cqe_quirk)
        {
            text.push('\n');
            text.push_str(&quirk.describe());
        }
        facts.push((gettext("Command queueing"), text));
    }
    if !card.partitions.is_empty() {
        let lines: Vec<String> = card
            .partitions
            .iter()
            .map(card::PartitionAlignment::describe)
            .collect();
        facts.push((gettext("Partitions"), lines.join("\n")));
    }
    if let Some(w) = &card.emmc_wear {
        facts.push((gettext("eMMC wear"), w.describe()));
    }
}

/// The claimed Speed Class, UHS grade, Video Speed Class and Application Performance Class,
/// or why there are none.
fn claims_text(card: &CardInfo) -> String {
    let Some(ssr) = &card.ssr else {
        return register_text(card.registers.ssr);
    };
    let mut parts = Vec::new();
    if let Some(c) = ssr.speed_class.filter(|c| *c > 0) {
        parts.push(fill(&gettext("Speed Class {class}"), &[("class", &c)]));
    }
    if let Some(u) = ssr.uhs_grade.filter(|u| *u > 0) {
        parts.push(fill(&gettext("UHS Speed Grade U{grade}"), &[("grade", &u)]));
    }
    if let Some(v) = ssr.video_class.filter(|v| *v > 0) {
        parts.push(fill(
            &gettext("Video Speed Class V{class}"),
            &[("class", &v)],
        ));
    }
    if let Some(a) = &ssr.app_perf_class {
        parts.push(fill(
            &gettext("Application Performance Class {class}"),
            &[("class", a)],
        ));
    }
    if parts.is_empty() {
        gettext("The card reports none")
    } else {
        parts.join(", ")
    }
}

/// Why a register gives no value: not exposed, all zeros, unreadable.
fn register_text(state: RegisterState) -> String {
    match state {
        RegisterState::Missing => gettext("Not exposed by this reader"),
        RegisterState::AllZero => gettext("The card reports none (its register is all zeros)"),
        RegisterState::Invalid => gettext("Unreadable"),
        // Decoded, yet the field has no value.
        RegisterState::Decoded => gettext("Unknown"),
    }
}

fn drive_facts(card: &CardInfo) -> Vec<(String, String)> {
    let mut facts = Vec::new();
    if let Some(usb) = &card.usb {
        let vendor = usb.manufacturer.as_deref().or(usb.vendor.as_deref());
        if let Some(vendor) = vendor {
            facts.push((gettext("Vendor"), printable(vendor)));
        }
        let model = usb.product.as_deref().or(usb.model.as_deref());
        if let Some(model) = model.or(card.model.as_deref()) {
            facts.push((gettext("Model"), printable(model)));
        }
        if let Some(id) = &usb.id {
            facts.push((gettext("USB ID"), id.clone()));
        }
        let speed = match (&usb.usb_version, usb.speed_mbit) {
            (Some(v), Some(s)) => Some(fill(
                &gettext("USB {version}, {speed} Mbit/s"),
                &[("version", v), ("speed", &number(s, 0))],
            )),
            (None, Some(s)) => Some(fill(
                &gettext("{speed} Mbit/s"),
                &[("speed", &number(s, 0))],
            )),
            (Some(v), None) => Some(fill(&gettext("USB {version}"), &[("version", v)])),
            (None, None) => None,
        };
        if let Some(speed) = speed {
            facts.push((gettext("Speed"), speed));
        }
    } else if let Some(nvme) = &card.nvme {
        if let Some(model) = nvme.model.as_deref().or(card.model.as_deref()) {
            facts.push((gettext("Model"), printable(model)));
        }
        if let Some(fw) = &nvme.firmware_rev {
            facts.push((gettext("Firmware"), printable(fw)));
        }
    } else if let Some(model) = &card.model {
        facts.push((gettext("Model"), printable(model)));
    }
    if let Some(bytes) = card.size_bytes {
        facts.push((gettext("Capacity"), capacity(bytes)));
    }
    if let Some(link) = &card.link {
        facts.push((gettext("Link"), card::link::describe(link)));
    }
    facts
}

/// "62.3 GB (62277025792 bytes)": SI gigabytes, as labels count them, and the exact figure.
pub fn capacity(bytes: u64) -> String {
    fill(
        &gettext("{gb} GB ({bytes} bytes)"),
        &[
            ("gb", &number(bytes as f64 / agnostics_core::units::GB, 1)),
            ("bytes", &bytes),
        ],
    )
}

/// "2019-11" as the locale writes a month, e.g. "November 2019"; the text as it is when it is
/// not a date.
pub fn month_year(mdt: &str) -> String {
    let parsed = mdt.split_once('-').and_then(|(y, m)| {
        let (y, m) = (y.parse::<i32>().ok()?, m.parse::<i32>().ok()?);
        glib::DateTime::from_utc(y, m, 1, 0, 0, 0.0).ok()
    });
    parsed
        .and_then(|d| d.format("%B %Y").ok())
        .map(|s| s.to_string())
        .unwrap_or_else(|| mdt.to_owned())
}

/// Text from a register shown as it is, but with control characters (a NUL in a product name)
/// escaped and trailing NULs and spaces removed.
pub fn printable(text: &str) -> String {
    text.trim_end_matches(['\0', ' '])
        .chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_shows_gb_and_exact_bytes() {
        assert_eq!(capacity(62_277_025_792), "62.3 GB (62277025792 bytes)");
    }

    #[test]
    fn product_names_show_nuls_escaped() {
        assert_eq!(printable("SD\0G\0\0"), "SD\\u{0}G");
        assert_eq!(printable("SU08G"), "SU08G");
    }

    #[test]
    fn dates_read_as_month_and_year() {
        assert_eq!(month_year("2019-11"), "November 2019");
        assert_eq!(month_year("2019-13"), "2019-13");
    }

    #[test]
    fn registers_not_exposed_and_all_zero_read_differently() {
        let missing = CardInfo {
            kind: Transport::Sd,
            ..CardInfo::default()
        };
        let mut zero = missing.clone();
        zero.registers.ssr = RegisterState::AllZero;
        assert_eq!(claims_text(&missing), "Not exposed by this reader");
        assert_ne!(claims_text(&zero), claims_text(&missing));
        assert!(claims_text(&zero).starts_with("The card reports none"));
    }
}
