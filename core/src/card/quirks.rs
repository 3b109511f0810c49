//! SD cards whose cache the Linux kernel turns off by their CID (its quirk table,
//! `drivers/mmc/core/quirks.h`), and with it command queueing on Raspberry Pi kernels, which
//! queue commands only to a card with a working cache. Shipped as
//! `data/references/cqe-quirks.toml`, each entry with the kernel commit that added it.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::CidInfo;
use crate::i18n::{fill, gettext};

/// Why the kernel turns a card's cache off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuirkReason {
    /// The card never finishes a cache flush.
    CacheFlushNeverFinishes,
    /// The card never finishes a cache flush and never reports that it is ready to be
    /// powered off.
    CacheFlushAndPoweroffNotifyBroken,
}

/// One quirk entry: the card by its CID fields, why, and the kernel commit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CqeQuirk {
    /// The maker the kernel's comment names, e.g. `Kingston`.
    pub maker: String,
    /// The card the kernel's comment names, e.g. `Canvas Go! Plus`.
    pub card: String,
    /// CID manufacturer ID.
    pub mid: u8,
    /// CID OEM/application ID, the two bytes as one number (`0x5449` is `TI`).
    pub oid: u16,
    /// CID product name, compared up to its first NUL.
    pub pnm: String,
    /// Manufacture year.
    pub year: u16,
    /// Manufacture month, 1…12.
    pub month: u8,
    /// Why.
    pub reason: QuirkReason,
    /// The address of the kernel commit that added the entry.
    pub source: String,
    /// The commit: its id and subject.
    pub commit: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    quirks: Vec<CqeQuirk>,
}

const TEXT: &str = include_str!("../../../data/references/cqe-quirks.toml");

/// Every shipped entry. The file is checked by the tests; one that does not parse panics.
pub fn all() -> &'static [CqeQuirk] {
    static QUIRKS: OnceLock<Vec<CqeQuirk>> = OnceLock::new();
    QUIRKS.get_or_init(|| {
        toml::from_str::<File>(TEXT)
            .unwrap_or_else(|e| panic!("cqe-quirks.toml: {e}"))
            .quirks
    })
}

impl CqeQuirk {
    /// True when the card's identity is this entry's: manufacturer ID, OEM ID (as the report
    /// shows it: ASCII when printable, else `0x` + hex), product name up to its first NUL
    /// (trailing spaces kept, as the kernel compares) and manufacture `YYYY-MM`, all equal.
    pub fn matches(&self, cid: &CidInfo) -> bool {
        let oid = crate::card::regs::ascii_or_hex(&self.oid.to_be_bytes());
        let pnm = cid
            .pnm
            .as_deref()
            .map(|p| p.split('\0').next().unwrap_or(""));
        cid.mid == Some(self.mid)
            && cid.oid.as_deref() == Some(oid.as_str())
            && pnm == Some(self.pnm.as_str())
            && cid.mdt.as_deref()
                == Some(crate::card::cid::format_date(self.year, self.month).as_str())
    }

    /// The line beside the command-queueing line, translated: "Linux turns this card's cache
    /// off, and with it command queueing: its cache flush never finishes (Kingston Canvas Go!
    /// Plus made 2019-11; kernel commit c467c8f08185, <address>)".
    pub fn describe(&self) -> String {
        let reason = match self.reason {
            QuirkReason::CacheFlushNeverFinishes => gettext("its cache flush never finishes"),
            QuirkReason::CacheFlushAndPoweroffNotifyBroken => gettext(
                "its cache flush never finishes and it never says it is ready to be powered off",
            ),
        };
        let commit = self.commit.split(' ').next().unwrap_or(&self.commit);
        fill(
            // Translators: {reason} says what the card does wrong; {card} is a maker, a card
            // and its manufacture month; {commit} a Linux kernel commit id; {source} its
            // address.
            &gettext(
                "Linux turns this card's cache off, and with it command queueing: {reason} \
                 ({card}; kernel commit {commit}, {source})",
            ),
            &[
                ("reason", &reason),
                (
                    "card",
                    &format!(
                        "{} {} {}",
                        self.maker,
                        self.card,
                        crate::card::cid::format_date(self.year, self.month)
                    ),
                ),
                ("commit", &commit),
                ("source", &self.source),
            ],
        )
    }
}

/// The shipped entry the card `cid` matches, if any.
pub fn cqe_quirk(cid: &CidInfo) -> Option<&'static CqeQuirk> {
    all().iter().find(|q| q.matches(cid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::cid::decode;

    /// The CID of the Gigastone card the kernel commit cd068d51594d quotes in its message.
    const GIGASTONE: &str = "12345641535443002000000145016200";

    fn cid(hex: &str) -> CidInfo {
        let mut reg = [0u8; 16];
        for (i, b) in reg.iter_mut().enumerate() {
            *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
        }
        let mut info = decode(&reg).info();
        crate::card::cid::set_manufacturer(&mut info, crate::card::manufacturers::Bus::Sd, reg[0]);
        info
    }

    #[test]
    fn every_entry_parses_with_its_source() {
        assert_eq!(all().len(), 2);
        for q in all() {
            assert!(
                q.source.starts_with("https://git.kernel.org/"),
                "{}",
                q.source
            );
            let id = q.commit.split(' ').next().unwrap();
            assert!(q.source.ends_with(id), "{} {}", q.source, id);
            assert!((1..=12).contains(&q.month));
        }
    }

    #[test]
    fn the_card_the_kernel_commit_quotes_matches_and_others_do_not() {
        let q = cqe_quirk(&cid(GIGASTONE)).expect("the quoted CID matches");
        assert_eq!(
            (q.mid, q.pnm.as_str(), q.year, q.month),
            (0x12, "ASTC", 2022, 2)
        );
        assert!(q
            .describe()
            .contains("cd068d51594d9635bf6688fc78717572b78bce6a"));
        // The same card made in another month (01/2024, which the commit says works).
        assert_eq!(cqe_quirk(&cid("12345641535443002000000145018100")), None);
        // Another product name.
        assert_eq!(cqe_quirk(&cid("12345641535444002000000145016200")), None);
    }

    #[test]
    fn a_kingston_canvas_go_plus_of_november_2019_matches() {
        // MID 0x9F, OID "TI", PNM "SD64G", made 2019-11.
        let q = cqe_quirk(&cid("9f544953443634476100000001013b00")).unwrap();
        assert_eq!(q.maker, "Kingston");
        assert!(q.describe().contains("c467c8f08185"), "{}", q.describe());
    }
}
