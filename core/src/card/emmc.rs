//! eMMC registers (JEDEC JESD84-B51, "CID register", "CSD register"): the CID has its own
//! layout — MID `[127:120]`, CBX `[113:112]`, OID `[111:104]` (one byte), PNM `[103:56]` (6 ASCII),
//! PRV `[55:48]`, PSN `[47:16]`, MDT `[15:8]` (month `[15:12]`, year code `[11:8]`) — and a CSD whose
//! C_SIZE of 0xFFF means the size lives in EXT_CSD.

use super::cid::{format_date, set_manufacturer, CidInfo, CidSource};
use super::manufacturers::Bus;
use super::regs::{ascii_or_hex, bcd_revision, bytes_as_text, crc_status, Bits, CrcStatus};

/// The fields of an eMMC CID, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmmcCid {
    /// Manufacturer ID (JEDEC).
    pub mid: u8,
    /// Device type: 0 removable card, 1 BGA (soldered), 2 PoP.
    pub cbx: u8,
    /// OEM/application ID (one byte).
    pub oid: u8,
    /// Linux' `oemid` for MMC: the 16 bits `[119:104]` (CBX byte and OID).
    pub oemid16: u16,
    /// Product name, six bytes.
    pub pnm: [u8; 6],
    /// Product revision, BCD `n.m`.
    pub prv: u8,
    /// Product serial number.
    pub psn: u32,
    /// Manufacture month `[15:12]`.
    pub month: u8,
    /// Year code `[11:8]`: 1997 + code, or 2013 + code (see [`year`]).
    pub year_code: u8,
    /// What the last byte says.
    pub crc: CrcStatus,
}

/// Decodes a 16-byte eMMC CID. Never panics.
#[allow(clippy::cast_possible_truncation)] // every field is masked to its width first
pub fn decode_cid(reg: &[u8; 16]) -> EmmcCid {
    let b = Bits(reg);
    let mut pnm = [0u8; 6];
    pnm.copy_from_slice(&reg[3..9]);
    EmmcCid {
        mid: reg[0],
        cbx: b.field(113, 112) as u8,
        oid: reg[2],
        oemid16: b.field(119, 104) as u16,
        pnm,
        prv: reg[9],
        psn: b.field(47, 16) as u32,
        month: b.field(15, 12) as u8,
        year_code: b.field(11, 8) as u8,
        crc: crc_status(reg),
    }
}

/// The manufacture year of an eMMC: 1997 + code; when EXT_CSD_REV ≥ 5 (eMMC 4.41 and later)
/// and that is before 2010, 2013 + code (JESD84-B451, the same rule as Linux). Without the
/// EXT_CSD revision the 1997 base is used.
pub fn year(year_code: u8, ext_csd_rev: Option<u8>) -> u16 {
    let y = 1997 + u16::from(year_code & 0xf);
    if ext_csd_rev.is_some_and(|r| r >= 5) && y < 2010 {
        y + 16
    } else {
        y
    }
}

impl EmmcCid {
    /// The report's view of this CID; `ext_csd_rev` from sysfs `rev` picks the year base.
    pub fn info(&self, ext_csd_rev: Option<u8>) -> CidInfo {
        let mut info = CidInfo {
            oid: Some(ascii_or_hex(&[self.oid])),
            pnm: Some(bytes_as_text(&self.pnm)),
            prv: Some(bcd_revision(self.prv)),
            psn: Some(self.psn),
            mdt: Some(format_date(year(self.year_code, ext_csd_rev), self.month)),
            cbx: Some(self.cbx),
            crc: Some(self.crc),
            source: CidSource::Register,
            ..CidInfo::default()
        };
        set_manufacturer(&mut info, Bus::Mmc, self.mid);
        info
    }

    /// The product name as Linux' `name` shows it: up to the first NUL.
    pub fn linux_name(&self) -> String {
        let end = self.pnm.iter().position(|&b| b == 0).unwrap_or(6);
        bytes_as_text(&self.pnm[..end])
    }

    /// True when the register looks like an eMMC CID rather than an SD CID: bits `[119:114]`
    /// are reserved (0) and the six-byte product name is printable. Used only when sysfs has
    /// no `type` file.
    pub fn looks_like_emmc(reg: &[u8; 16]) -> bool {
        reg[1] <= 0x02 && reg[3..9].iter().all(|b| (0x20..=0x7e).contains(b))
    }
}

/// The eMMC CSD fields this program uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmmcCsd {
    /// CSD_STRUCTURE `[127:126]`.
    pub structure: u8,
    /// SPEC_VERS `[125:122]` (4 = version 4.x and later, which have an EXT_CSD).
    pub spec_vers: u8,
    /// READ_BL_LEN `[83:80]`.
    pub read_bl_len: u8,
    /// C_SIZE `[73:62]`; 0xFFF means the size is in EXT_CSD SEC_COUNT.
    pub c_size: u16,
    /// C_SIZE_MULT `[49:47]`.
    pub c_size_mult: u8,
    /// (C_SIZE + 1) << (C_SIZE_MULT + 2) << READ_BL_LEN; `None` when C_SIZE is 0xFFF.
    pub capacity_bytes: Option<u64>,
    /// What the last byte says.
    pub crc: CrcStatus,
}

/// Decodes a 16-byte eMMC CSD. Never panics.
#[allow(clippy::cast_possible_truncation)] // every field is masked to its width first
pub fn decode_csd(reg: &[u8; 16]) -> EmmcCsd {
    let b = Bits(reg);
    let c_size = b.field(73, 62) as u16;
    let c_size_mult = b.field(49, 47) as u8;
    let read_bl_len = b.field(83, 80) as u8;
    let capacity_bytes = (c_size != 0xfff)
        .then(|| (u64::from(c_size) + 1) << (u32::from(c_size_mult) + 2) << u32::from(read_bl_len));
    EmmcCsd {
        structure: b.field(127, 126) as u8,
        spec_vers: b.field(125, 122) as u8,
        read_bl_len,
        c_size,
        c_size_mult,
        capacity_bytes,
        crc: crc_status(reg),
    }
}

#[cfg(test)]
mod tests {
    use super::super::regs::parse_128;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decodes_a_samsung_emmc_with_the_2013_year_base() {
        let reg = parse_128("1501004d384731474303dc0db061506f").unwrap();
        assert!(EmmcCid::looks_like_emmc(&reg));
        let c = decode_cid(&reg);
        assert_eq!((c.mid, c.cbx, c.oid, c.oemid16), (0x15, 1, 0, 0x0100));
        assert_eq!(&c.pnm, b"M8G1GC");
        let i = c.info(Some(6));
        assert_eq!(i.prv.as_deref(), Some("0.3"));
        assert_eq!(i.psn, Some(0xdc0d_b061));
        assert_eq!(i.mdt.as_deref(), Some("2013-05"));
        assert_eq!(i.oid.as_deref(), Some("0x00"));
        assert_eq!(i.manufacturer.as_deref(), Some("Samsung"));
        assert_eq!(i.crc, Some(CrcStatus::Ok));
        // An old kernel without the revision would say 1997.
        assert_eq!(c.info(None).mdt.as_deref(), Some("1997-05"));
    }

    #[test]
    fn year_rule() {
        assert_eq!(year(15, None), 2012);
        assert_eq!(year(15, Some(8)), 2012);
        assert_eq!(year(0, Some(5)), 2013);
        assert_eq!(year(0, Some(4)), 1997);
        assert_eq!(year(12, Some(7)), 2009 + 16);
    }

    #[test]
    fn csd_with_c_size_fff_has_no_capacity() {
        let csd = decode_csd(&parse_128("d02701320f5903fff6dbffef8e40400d").unwrap());
        assert_eq!(csd.c_size, 0xfff);
        assert_eq!(csd.capacity_bytes, None);
        assert_eq!(csd.crc, CrcStatus::Ok);
        assert_eq!(csd.structure, 3);
    }

    #[test]
    fn sd_cids_do_not_look_like_emmc() {
        // OID "TI" and Pretec's OID 0x0302: neither has the reserved bits clear.
        assert!(!EmmcCid::looks_like_emmc(
            &parse_128("9f544953443634476136980065013b00").unwrap()
        ));
        assert!(!EmmcCid::looks_like_emmc(
            &parse_128("8803023132333220100000cea40071b9").unwrap()
        ));
    }

    proptest! {
        #[test]
        fn any_emmc_register_decodes(bytes in proptest::array::uniform16(any::<u8>()), rev in proptest::option::of(any::<u8>())) {
            let c = decode_cid(&bytes);
            let _ = c.info(rev);
            let _ = EmmcCid::looks_like_emmc(&bytes);
            let _ = decode_csd(&bytes);
        }
    }
}
