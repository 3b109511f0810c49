//! Manufacturer IDs (the CID's MID byte). SD IDs are assigned by SD-3C LLC and eMMC IDs by
//! JEDEC, and neither list is public: the names here are those seen in public card dumps and
//! in the Linux and mmc-utils sources. Where one ID has been reported for several companies,
//! every name is given, with a note; the raw ID is always shown next to it, an unknown ID says
//! "unknown", and no ID is ever turned into a retail product.

use serde::{Deserialize, Serialize};

use crate::i18n::{fill, gettext, gettext_noop};

/// One table row: the names reported for an ID and, when they need one, a note.
struct Row {
    id: u8,
    names: &'static [&'static str],
    note: Option<&'static str>,
}

const fn row(id: u8, names: &'static [&'static str], note: Option<&'static str>) -> Row {
    Row { id, names, note }
}

/// SD card MIDs.
const SD: &[Row] = &[
    row(0x01, &["Panasonic"], None),
    row(0x02, &["Toshiba (Kioxia)", "Kingston", "Viking"], Some(gettext_noop("Toshiba's ID, also reported on Kingston and Viking cards"))),
    row(0x03, &["SanDisk (Western Digital)"], None),
    row(0x06, &["Ritek"], None),
    row(0x08, &["Silicon Power"], None),
    row(0x09, &["ATP"], None),
    row(0x13, &["Kingmax"], None),
    row(0x18, &["Infineon"], None),
    row(0x19, &["Dynacard"], None),
    row(0x1a, &["Power Quotient (PQI)"], None),
    row(0x1b, &["Samsung", "Transcend"], Some(gettext_noop("Samsung's ID, also reported for Transcend cards"))),
    row(0x1c, &["Transcend"], None),
    row(0x1d, &["ADATA", "Corsair"], Some(gettext_noop("also reported for Corsair cards"))),
    row(0x1e, &["Transcend"], None),
    row(0x1f, &["Kingston"], None),
    row(0x27, &["Phison"], Some(gettext_noop("a controller maker; seen on cards sold by PNY, Patriot, Delkin and others"))),
    row(0x28, &["Lexar", "Barun Electronics"], Some(gettext_noop("reported for both Lexar and Barun Electronics"))),
    row(0x30, &["SanDisk"], None),
    row(0x31, &["Silicon Power"], None),
    row(0x33, &["STMicroelectronics"], None),
    row(0x41, &["Kingston"], None),
    row(0x51, &["STEC"], None),
    row(0x5d, &["Swissbit"], None),
    row(0x61, &["Netlist"], None),
    row(0x63, &["Cactus Technologies"], None),
    row(0x6f, &["STMicroelectronics"], None),
    row(0x73, &["Bongiovi"], None),
    row(0x74, &["Transcend", "Jiaelec"], Some(gettext_noop("reported for both Transcend and Jiaelec"))),
    row(0x76, &["Patriot"], None),
    row(0x82, &["Sony", "Gobe", "Jiang Tay"], Some(gettext_noop("reported for Sony, Gobe and Jiang Tay cards"))),
    row(0x83, &["Netcom"], None),
    row(0x84, &["Strontium"], None),
    row(0x9c, &["Barun Electronics", "Sony", "Hikvision"], Some(gettext_noop("shared: which company depends on the OEM ID"))),
    row(0x9f, &["Kingston", "Texas Instruments"], Some(gettext_noop("OEM ID \"TI\" under this ID is seen on cards sold by Kingston, Silicon Power, Gigastone and others; some lists name Taishin"))),
    row(0xad, &["Longsys"], Some(gettext_noop("Longsys owns Lexar; seen on Lexar and Amazon Basics cards"))),
];

/// eMMC MIDs (JEDEC).
const MMC: &[Row] = &[
    row(
        0x02,
        &["SanDisk", "Kingston"],
        Some(gettext_noop("reported for both SanDisk and Kingston")),
    ),
    row(0x11, &["Toshiba (Kioxia)"], None),
    row(0x13, &["Micron"], None),
    row(0x15, &["Samsung"], None),
    row(0x37, &["Kingmax"], None),
    row(0x44, &["ATP"], None),
    row(0x45, &["SanDisk (Western Digital)"], None),
    row(0x70, &["Kingston"], None),
    row(0x88, &["Foresee (Longsys)"], None),
    row(0x90, &["SK hynix"], None),
    row(0xd6, &["Foresee (Longsys)"], None),
    row(0xf4, &["Biwin"], None),
    row(0xfe, &["Micron (Numonyx)"], None),
];

/// Which table to look in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bus {
    /// SD cards (SD-3C assignments).
    Sd,
    /// eMMC (JEDEC assignments).
    Mmc,
}

/// What is known of a manufacturer ID.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Manufacturer {
    /// The raw ID, e.g. 0x1b.
    pub mid: u8,
    /// The names reported for it; empty when unknown.
    pub names: Vec<String>,
    /// True when the ID has been reported for more than one company.
    pub shared: bool,
    /// Why, when the ID needs an explanation (shared IDs, 0x00).
    pub note: Option<String>,
}

impl Manufacturer {
    /// The names joined with " / ", or "unknown".
    pub fn display_name(&self) -> String {
        if self.names.is_empty() {
            // Translators: a card manufacturer ID that is not in the table.
            gettext("unknown")
        } else {
            self.names.join(" / ")
        }
    }

    /// For people: `Samsung / Transcend (ID 0x1B)`, `unknown (ID 0x12)`.
    pub fn label(&self) -> String {
        fill(
            &gettext("{names} (ID 0x{mid})"),
            &[
                ("names", &self.display_name()),
                ("mid", &format!("{:02X}", self.mid)),
            ],
        )
    }
}

/// Looks up `mid` in the SD or eMMC table. Unknown IDs give no names; 0x00, which no
/// manufacturer is assigned, says so in its note.
pub fn lookup(bus: Bus, mid: u8) -> Manufacturer {
    let table = match bus {
        Bus::Sd => SD,
        Bus::Mmc => MMC,
    };
    match table.iter().find(|r| r.id == mid) {
        Some(r) => Manufacturer {
            mid,
            names: r.names.iter().map(|n| (*n).to_owned()).collect(),
            shared: r.names.len() > 1,
            note: r.note.map(gettext),
        },
        None if mid == 0 && bus == Bus::Sd => Manufacturer {
            mid,
            names: Vec::new(),
            shared: false,
            note: Some(gettext("0x00 is not assigned to any manufacturer; it is seen on no-name and counterfeit cards")),
        },
        None => Manufacturer {
            mid,
            ..Manufacturer::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_ids_name_every_company() {
        let m = lookup(Bus::Sd, 0x1b);
        assert_eq!(m.names, ["Samsung", "Transcend"]);
        assert!(m.shared);
        assert_eq!(m.label(), "Samsung / Transcend (ID 0x1B)");
        assert!(lookup(Bus::Sd, 0x9f).shared);
        assert_eq!(lookup(Bus::Sd, 0x27).names, ["Phison"]);
    }

    #[test]
    fn unknown_ids_say_unknown_with_the_raw_id() {
        let m = lookup(Bus::Sd, 0x12);
        assert!(m.names.is_empty());
        assert_eq!(m.label(), "unknown (ID 0x12)");
        assert!(lookup(Bus::Sd, 0).note.is_some());
    }

    #[test]
    fn emmc_ids_have_their_own_table() {
        assert_eq!(lookup(Bus::Mmc, 0x15).names, ["Samsung"]);
        assert_eq!(lookup(Bus::Sd, 0x15).names, Vec::<String>::new());
        assert_eq!(lookup(Bus::Mmc, 0x45).names, ["SanDisk (Western Digital)"]);
    }

    #[test]
    fn tables_have_no_duplicate_ids() {
        for t in [SD, MMC] {
            let mut ids: Vec<u8> = t.iter().map(|r| r.id).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), t.len());
        }
    }
}
