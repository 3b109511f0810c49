//! The SD card's Card-Specific Data register (SD Physical Layer Simplified Specification,
//! "CSD Register"): CSD_STRUCTURE `[127:126]` picks the layout.
//!
//! - v1.0 (standard capacity): READ_BL_LEN `[83:80]`, C_SIZE `[73:62]`, C_SIZE_MULT `[49:47]`;
//!   capacity = (C_SIZE + 1) << (C_SIZE_MULT + 2) << READ_BL_LEN.
//! - v2.0 (SDHC/SDXC): C_SIZE `[69:48]`; capacity = (C_SIZE + 1) × 512 KiB.
//! - v3.0 (SDUC): C_SIZE `[75:48]`; same formula.
//!
//! Also TRAN_SPEED `[103:96]`, CCC `[95:84]`, PERM_WRITE_PROTECT `[13]`, TMP_WRITE_PROTECT `[12]`.

use serde::{Deserialize, Serialize};

use super::regs::{crc_status, Bits, CrcStatus};

/// A decoded SD CSD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Csd {
    /// CSD_STRUCTURE: 0 = v1.0, 1 = v2.0, 2 = v3.0, 3 = reserved.
    pub structure: u8,
    /// `1.0`, `2.0`, `3.0` or `reserved`.
    pub version: String,
    /// TRAN_SPEED, raw (0x32 = 25 MHz default speed, 0x5a = 50 MHz high speed).
    pub tran_speed: u8,
    /// Card command classes supported, a bit per class.
    pub ccc: u16,
    /// READ_BL_LEN: the block length is 2^READ_BL_LEN bytes (9…11 in v1.0; 9 otherwise).
    pub read_bl_len: u8,
    /// C_SIZE of this layout.
    pub c_size: u32,
    /// C_SIZE_MULT (v1.0 only).
    pub c_size_mult: Option<u8>,
    /// User-area capacity in bytes; `None` for the reserved structure.
    pub capacity_bytes: Option<u64>,
    /// PERM_WRITE_PROTECT: the card is permanently read-only.
    pub perm_write_protect: bool,
    /// TMP_WRITE_PROTECT: the card is temporarily read-only.
    pub tmp_write_protect: bool,
    /// What the last byte says.
    pub crc: CrcStatus,
}

/// Decodes a 16-byte SD CSD. Never panics; a reserved structure decodes without capacity.
#[allow(clippy::cast_possible_truncation)] // every field is masked to its width first
pub fn decode(reg: &[u8; 16]) -> Csd {
    let b = Bits(reg);
    let structure = b.field(127, 126) as u8;
    let read_bl_len = b.field(83, 80) as u8;
    let (version, c_size, c_size_mult, capacity_bytes) = match structure {
        0 => {
            let c_size = b.field(73, 62) as u32;
            let mult = b.field(49, 47) as u8;
            // At most 2^12 << 9 << 15 = 2^36: no overflow.
            let cap = (u64::from(c_size) + 1) << (u32::from(mult) + 2) << u32::from(read_bl_len);
            ("1.0", c_size, Some(mult), Some(cap))
        }
        1 => {
            let c_size = b.field(69, 48) as u32;
            (
                "2.0",
                c_size,
                None,
                Some((u64::from(c_size) + 1) * 512 * 1024),
            )
        }
        2 => {
            let c_size = b.field(75, 48) as u32;
            (
                "3.0",
                c_size,
                None,
                Some((u64::from(c_size) + 1) * 512 * 1024),
            )
        }
        _ => ("reserved", 0, None, None),
    };
    Csd {
        structure,
        version: version.to_owned(),
        tran_speed: reg[3],
        ccc: b.field(95, 84) as u16,
        read_bl_len,
        c_size,
        c_size_mult,
        capacity_bytes,
        perm_write_protect: b.bit(13) == 1,
        tmp_write_protect: b.bit(12) == 1,
        crc: crc_status(reg),
    }
}

#[cfg(test)]
mod tests {
    use super::super::regs::parse_128;
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn v2_capacity_of_a_64_gb_card() {
        let c = decode(&parse_128("400e00325b590001cfff7f800a400000").unwrap());
        assert_eq!((c.structure, c.version.as_str()), (1, "2.0"));
        assert_eq!(c.c_size, 118_783);
        assert_eq!(c.capacity_bytes, Some(62_277_025_792));
        assert_eq!(c.tran_speed, 0x32);
        assert_eq!(c.ccc, 0x5b5);
        assert_eq!(c.read_bl_len, 9);
        assert_eq!(c.crc, CrcStatus::Absent);
        assert!(!c.perm_write_protect && !c.tmp_write_protect);
    }

    #[test]
    fn v1_capacity_with_a_1024_byte_block() {
        // A 2 GB card: READ_BL_LEN = 10 (1024-byte blocks), the case the 2 GB limit of v1
        // needs; CRC present with the end bit reported as 0.
        let c = decode(&parse_128("002600325f5a83aefefbcfff928040de").unwrap());
        assert_eq!((c.structure, c.read_bl_len), (0, 10));
        assert_eq!(c.capacity_bytes, Some(1_977_614_336));
        assert_eq!(c.crc, CrcStatus::OkEndBit0);
    }

    #[test]
    fn v1_from_the_spec_formula() {
        // Hand-built v1.0 CSD: READ_BL_LEN 11 (2048), C_SIZE 4095, C_SIZE_MULT 7 → the 4 GB
        // maximum of the v1 layout: 4096 × 512 × 2048 bytes.
        let mut reg = [0u8; 16];
        reg[5] = 0x0b; // READ_BL_LEN [83:80]
        reg[6] = 0x03; // C_SIZE [73:72]
        reg[7] = 0xff; // C_SIZE [71:64]
        reg[8] = 0xc0; // C_SIZE [63:62]
        reg[9] = 0x03; // C_SIZE_MULT [49:48]
        reg[10] = 0x80; // C_SIZE_MULT [47]
        let c = decode(&reg);
        assert_eq!((c.c_size, c.c_size_mult), (4095, Some(7)));
        assert_eq!(c.capacity_bytes, Some(4096 * 512 * 2048));
        // A READ_BL_LEN of 15 (reserved) still decodes without overflow.
        reg[5] = 0x0f;
        assert_eq!(decode(&reg).capacity_bytes, Some(4096u64 * 512 * 32768));
    }

    #[test]
    fn v3_and_reserved_structures() {
        let mut reg = [0u8; 16];
        reg[0] = 0x80; // CSD_STRUCTURE 2
        reg[6] = 0x0f; // C_SIZE [75:72]
        let c = decode(&reg);
        assert_eq!(c.version, "3.0");
        assert_eq!(c.c_size, 0x0f << 24);
        assert_eq!(c.capacity_bytes, Some(((0x0f_u64 << 24) + 1) * 512 * 1024));
        reg[0] = 0xc0;
        assert_eq!(decode(&reg).capacity_bytes, None);
    }

    #[test]
    fn write_protect_bits() {
        let mut reg = parse_128("400e00325b590001cfff7f800a400000").unwrap();
        reg[14] |= 0x30;
        let c = decode(&reg);
        assert!(c.perm_write_protect && c.tmp_write_protect);
    }

    proptest! {
        #[test]
        fn any_csd_decodes(bytes in proptest::array::uniform16(any::<u8>())) {
            let c = decode(&bytes);
            prop_assert_eq!(c.capacity_bytes.is_some(), c.structure < 3);
        }
    }
}
