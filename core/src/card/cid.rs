//! The SD card's Card IDentification register (SD Physical Layer Simplified Specification,
//! "CID register"): MID `[127:120]`, OID `[119:104]` (2 ASCII), PNM `[103:64]` (5 ASCII), PRV
//! `[63:56]` (BCD n.m), PSN `[55:24]`, reserved `[23:20]`, MDT `[19:8]` (year 2000 + `[19:12]`, month
//! `[11:8]`), CRC7 `[7:1]`, end bit `[0]`.
//!
//! [`CidInfo`] is what the card report shows, whether it comes from the register or, when
//! the register is not exposed, from the kernel's own `name`/`manfid`/`oemid`/`date`/`serial`.

use serde::{Deserialize, Serialize};

use super::manufacturers::{self, Bus, Manufacturer};
use super::regs::{ascii_or_hex, bcd_revision, bytes_as_text, crc_status, Bits, CrcStatus};

/// The fields of an SD CID, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SdCid {
    /// Manufacturer ID.
    pub mid: u8,
    /// OEM/application ID, two bytes (normally ASCII).
    pub oid: [u8; 2],
    /// Product name, five bytes (normally ASCII; kept byte for byte).
    pub pnm: [u8; 5],
    /// Product revision, BCD `n.m` (Linux `hwrev` = n, `fwrev` = m).
    pub prv: u8,
    /// Product serial number.
    pub psn: u32,
    /// The four reserved bits `[23:20]` (0 on conforming cards).
    pub reserved: u8,
    /// Manufacture year, 2000 + `[19:12]`.
    pub year: u16,
    /// Manufacture month `[11:8]`, 1…12 on conforming cards.
    pub month: u8,
    /// What the last byte says.
    pub crc: CrcStatus,
}

/// Decodes a 16-byte SD CID. Never panics; any bytes decode.
#[allow(clippy::cast_possible_truncation)] // every field is masked to its width first
pub fn decode(reg: &[u8; 16]) -> SdCid {
    let b = Bits(reg);
    let mut pnm = [0u8; 5];
    pnm.copy_from_slice(&reg[3..8]);
    SdCid {
        mid: reg[0],
        oid: [reg[1], reg[2]],
        pnm,
        prv: reg[8],
        psn: b.field(55, 24) as u32,
        reserved: b.field(23, 20) as u8,
        year: 2000 + b.field(19, 12) as u16,
        month: b.field(11, 8) as u8,
        crc: crc_status(reg),
    }
}

/// Where the identity came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CidSource {
    /// Decoded from the `cid` register.
    #[default]
    Register,
    /// Read from the kernel's `name`, `manfid`, `oemid`, `date`, `serial`, `hwrev`, `fwrev`
    /// (the register itself is not exposed).
    Sysfs,
}

/// The card's identity as the report shows it (JSON `cid`). Fields the source does not give
/// are null.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CidInfo {
    /// Manufacturer ID (the raw byte, always shown).
    pub mid: Option<u8>,
    /// The names reported for the ID joined with " / ", or "unknown". Never a retail model.
    pub manufacturer: Option<String>,
    /// True when the ID has been reported for more than one company.
    #[serde(default)]
    pub manufacturer_shared: bool,
    /// Why, when the ID needs explaining.
    #[serde(default)]
    pub manufacturer_note: Option<String>,
    /// OEM/application ID: its ASCII text when printable, else `0x` + hex (`0x0302`).
    pub oid: Option<String>,
    /// Product name, byte for byte (a NUL stays a NUL; trailing spaces stay).
    pub pnm: Option<String>,
    /// Product revision `n.m`, or `0x3a` when a nibble is not a decimal digit.
    pub prv: Option<String>,
    /// Product serial number.
    pub psn: Option<u32>,
    /// Manufacture date `YYYY-MM`.
    pub mdt: Option<String>,
    /// eMMC only: the card/BGA/PoP field CBX.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cbx: Option<u8>,
    /// The CRC verdict of the register (null when read from sysfs attributes).
    pub crc: Option<CrcStatus>,
    /// Register or sysfs attributes.
    pub source: CidSource,
}

/// Fills the manufacturer fields of `info` from `mid`.
pub fn set_manufacturer(info: &mut CidInfo, bus: Bus, mid: u8) {
    let m: Manufacturer = manufacturers::lookup(bus, mid);
    info.mid = Some(mid);
    info.manufacturer = Some(m.display_name());
    info.manufacturer_shared = m.shared;
    info.manufacturer_note = m.note;
}

/// `YYYY-MM`.
pub fn format_date(year: u16, month: u8) -> String {
    format!("{year:04}-{month:02}")
}

impl SdCid {
    /// The report's view of this CID.
    pub fn info(&self) -> CidInfo {
        let mut info = CidInfo {
            oid: Some(ascii_or_hex(&self.oid)),
            pnm: Some(bytes_as_text(&self.pnm)),
            prv: Some(bcd_revision(self.prv)),
            psn: Some(self.psn),
            mdt: Some(format_date(self.year, self.month)),
            crc: Some(self.crc),
            source: CidSource::Register,
            ..CidInfo::default()
        };
        set_manufacturer(&mut info, Bus::Sd, self.mid);
        info
    }

    /// The product name as Linux' `name` shows it: up to the first NUL.
    pub fn linux_name(&self) -> String {
        let end = self.pnm.iter().position(|&b| b == 0).unwrap_or(5);
        bytes_as_text(&self.pnm[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::super::regs::parse_128;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decodes_a_kingston_cid() {
        let c = decode(&parse_128("9f544953443634476136980065013b00").unwrap());
        assert_eq!((c.mid, &c.oid, &c.pnm), (0x9f, b"TI", b"SD64G"));
        assert_eq!(
            (c.prv, c.psn, c.year, c.month),
            (0x61, 0x3698_0065, 2019, 11)
        );
        let i = c.info();
        assert_eq!(i.prv.as_deref(), Some("6.1"));
        assert_eq!(i.mdt.as_deref(), Some("2019-11"));
        assert_eq!(
            i.manufacturer.as_deref(),
            Some("Kingston / Texas Instruments")
        );
        assert_eq!(i.crc, Some(CrcStatus::Absent));
    }

    #[test]
    fn non_ascii_oid_is_hex_and_pnm_keeps_its_bytes() {
        // Pretec: OID bytes 03 02, product name "1232 " with a trailing space.
        let c = decode(&parse_128("8803023132333220100000cea40071b9").unwrap());
        let i = c.info();
        assert_eq!(i.oid.as_deref(), Some("0x0302"));
        assert_eq!(i.pnm.as_deref(), Some("1232 "));
        assert_eq!(i.manufacturer.as_deref(), Some("unknown"));
        let mut reg = parse_128("9f544953443634476136980065013b00").unwrap();
        reg[5] = 0;
        let c = decode(&reg);
        assert_eq!(c.info().pnm.as_deref(), Some("SD\u{0}4G"));
        assert_eq!(c.linux_name(), "SD");
    }

    proptest! {
        #[test]
        fn any_cid_decodes(bytes in proptest::array::uniform16(any::<u8>())) {
            let c = decode(&bytes);
            let i = c.info();
            prop_assert!(i.mdt.is_some());
            prop_assert!(c.year >= 2000 && c.year <= 2255);
        }
    }
}
