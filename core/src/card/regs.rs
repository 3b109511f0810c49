//! Register primitives shared by the decoders: hex text → bytes, bit fields numbered the way
//! the SD and eMMC specifications number them (the whole register as one big integer, bit 0
//! the least significant), and the CRC7 of CID/CSD (SD Physical Layer Simplified
//! Specification, "CRC7").

use serde::{Deserialize, Serialize};

/// Why register text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    /// Nothing but white space.
    #[error("the register is empty")]
    Empty,
    /// A character that is not a hex digit (after removing a `0x` prefix, white space and
    /// `:` separators).
    #[error("`{found}` is not a hex digit")]
    NotHex {
        /// The offending character.
        found: char,
    },
    /// The wrong number of digits for the register.
    #[error("{found} hex digits, expected {expected}")]
    WrongLength {
        /// Digits expected (32 for CID/CSD, 16 for SCR, 128 for SSR).
        expected: usize,
        /// Digits found.
        found: usize,
    },
}

/// Parses register text as sysfs (or a person) writes it: hex digits in either case, an
/// optional `0x`/`0X` prefix, surrounding white space and a trailing newline, and `:` or
/// white space between groups (`80000000:08000000:…`). Returns `bytes` bytes, most
/// significant first.
///
/// Errors: [`HexError`]. Never panics.
pub fn parse_hex(text: &str, bytes: usize) -> Result<Vec<u8>, HexError> {
    let t = text.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let mut nibbles = Vec::with_capacity(bytes * 2);
    for c in t.chars() {
        if c == ':' || c.is_whitespace() {
            continue;
        }
        let v = c.to_digit(16).ok_or(HexError::NotHex { found: c })?;
        // to_digit(16) returns at most 15, so the cast is exact.
        nibbles.push(v as u8);
    }
    if nibbles.is_empty() {
        return Err(HexError::Empty);
    }
    if nibbles.len() != bytes * 2 {
        return Err(HexError::WrongLength {
            expected: bytes * 2,
            found: nibbles.len(),
        });
    }
    Ok(nibbles.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

/// Parses a 16-byte register (CID, CSD). Also accepts 15 bytes (a reader that dropped the
/// CRC byte altogether); a `00` is appended then, as SDHCI hosts report it.
///
/// Errors: [`HexError`]. Never panics.
pub fn parse_128(text: &str) -> Result<[u8; 16], HexError> {
    let bytes = match parse_hex(text, 16) {
        Ok(b) => b,
        Err(HexError::WrongLength { found: 30, .. }) => {
            let mut b = parse_hex(text, 15)?;
            b.push(0);
            b
        }
        Err(e) => return Err(e),
    };
    let mut out = [0u8; 16];
    out.copy_from_slice(&bytes);
    Ok(out)
}

/// A register read as one big-endian integer: [`Bits::field`] takes bit positions as the
/// specifications give them (`[127:120]` is `field(127, 120)`).
#[derive(Debug, Clone, Copy)]
pub struct Bits<'a>(pub &'a [u8]);

impl Bits<'_> {
    /// Bit `i` (0 = least significant bit of the last byte); 0 beyond the register.
    pub fn bit(&self, i: usize) -> u64 {
        let n = self.0.len();
        if i / 8 >= n {
            return 0;
        }
        u64::from((self.0[n - 1 - i / 8] >> (i % 8)) & 1)
    }

    /// Bits `hi` down to `lo` inclusive (at most 64 of them) as a number. Bits beyond the
    /// register read as 0; `hi < lo` gives 0.
    pub fn field(&self, hi: usize, lo: usize) -> u64 {
        if hi < lo {
            return 0;
        }
        (lo..=hi.min(lo + 63))
            .rev()
            .fold(0u64, |acc, i| (acc << 1) | self.bit(i))
    }
}

/// CRC7 (polynomial x⁷ + x³ + 1, initial value 0) over `data`, as the SD and MMC
/// specifications define it for CID and CSD (over their first 15 bytes).
pub fn crc7(data: &[u8]) -> u8 {
    let mut crc: u8 = 0;
    for &byte in data {
        for bit in (0..8).rev() {
            let feedback = ((crc >> 6) & 1) ^ ((byte >> bit) & 1);
            crc = (crc << 1) & 0x7f;
            if feedback == 1 {
                crc ^= 0x09;
            }
        }
    }
    crc
}

/// What the last byte of a CID or CSD says. It depends on the host controller, not the card:
/// SDHCI hosts strip the CRC (`00`), SPI readers and some hosts deliver it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrcStatus {
    /// The last byte is CRC7 << 1 | 1: the register arrived intact.
    Ok,
    /// The CRC matches and the end bit reads 0 (e.g. STM32 hosts).
    OkEndBit0,
    /// The last byte is `00`: the host does not report the CRC.
    Absent,
    /// The last byte is `01`: only the end bit is reported.
    AbsentEndBitOnly,
    /// A CRC is present and does not match: the register may be corrupt or made up.
    Mismatch,
}

/// The [`CrcStatus`] of a 16-byte CID or CSD.
pub fn crc_status(reg: &[u8; 16]) -> CrcStatus {
    let crc = crc7(&reg[..15]);
    match reg[15] {
        0x00 => CrcStatus::Absent,
        0x01 => CrcStatus::AbsentEndBitOnly,
        b if b == (crc << 1) | 1 => CrcStatus::Ok,
        b if b == crc << 1 => CrcStatus::OkEndBit0,
        _ => CrcStatus::Mismatch,
    }
}

/// How a register fared: the state the card JSON reports for each register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegisterState {
    /// The file is absent: this kernel, reader or device does not expose the register.
    #[default]
    Missing,
    /// Every bit is 0: the card reported nothing.
    AllZero,
    /// The text could not be read as the register (bad hex, wrong length).
    Invalid,
    /// Decoded.
    Decoded,
}

/// Text that is printable ASCII is returned as it is; otherwise `0x` and the bytes in hex.
pub fn ascii_or_hex(bytes: &[u8]) -> String {
    if !bytes.is_empty() && bytes.iter().all(|b| (0x20..=0x7e).contains(b)) {
        bytes.iter().map(|&b| char::from(b)).collect()
    } else {
        let mut s = String::from("0x");
        for b in bytes {
            s.push_str(&format!("{b:02x}"));
        }
        s
    }
}

/// Bytes as characters, byte for byte (a NUL stays a NUL; bytes above 0x7f map to U+0080…
/// U+00FF), as the CID's product name is reported.
pub fn bytes_as_text(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// A BCD revision byte as `n.m`; `0x3a` when a nibble is not a decimal digit.
pub fn bcd_revision(byte: u8) -> String {
    let (n, m) = (byte >> 4, byte & 0xf);
    if n <= 9 && m <= 9 {
        format!("{n}.{m}")
    } else {
        format!("0x{byte:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_sysfs_and_human_notations() {
        let want = vec![0x9f, 0x54, 0x49, 0x53];
        for text in [
            "9f544953",
            "9F544953\n",
            "0x9f544953",
            "0X9F544953",
            " 9f54:4953 ",
            "9f 54 49 53",
        ] {
            assert_eq!(parse_hex(text, 4), Ok(want.clone()), "{text:?}");
        }
    }

    #[test]
    fn refuses_bad_text() {
        assert_eq!(parse_hex("", 4), Err(HexError::Empty));
        assert_eq!(parse_hex("0x\n", 4), Err(HexError::Empty));
        assert_eq!(
            parse_hex("9f54495", 4),
            Err(HexError::WrongLength {
                expected: 8,
                found: 7
            })
        );
        assert_eq!(
            parse_hex("9f54495g", 4),
            Err(HexError::NotHex { found: 'g' })
        );
        assert_eq!(
            parse_hex("9f5449é3", 4),
            Err(HexError::NotHex { found: 'é' })
        );
    }

    #[test]
    fn a_cid_without_its_crc_byte_is_accepted() {
        let r = parse_128("9f544953443634476136980065013b").unwrap();
        assert_eq!(r[15], 0);
        assert_eq!(r[14], 0x3b);
    }

    #[test]
    fn fields_follow_spec_bit_numbering() {
        let cid = parse_128("9f544953443634476136980065013b00").unwrap();
        let b = Bits(&cid);
        assert_eq!(b.field(127, 120), 0x9f);
        assert_eq!(b.field(119, 104), 0x5449);
        assert_eq!(b.field(19, 8), 0x13b);
        assert_eq!(b.field(200, 190), 0);
        assert_eq!(b.field(3, 7), 0);
    }

    #[test]
    fn crc7_matches_published_cids() {
        // Same card, two hosts: one strips the CRC, one reports it with end bit 0.
        let stripped = parse_128("9f544953443634476136980065013b00").unwrap();
        let stm32 = parse_128("9f544953443634476136980065013b7e").unwrap();
        assert_eq!(crc7(&stripped[..15]), 0x3f);
        assert_eq!(crc_status(&stripped), CrcStatus::Absent);
        assert_eq!(crc_status(&stm32), CrcStatus::OkEndBit0);
        // An SPI reader delivers CRC and end bit.
        let spi = parse_128("035344534331364780ecf4c851011b85").unwrap();
        assert_eq!(crc_status(&spi), CrcStatus::Ok);
        let mut bad = spi;
        bad[3] ^= 1;
        assert_eq!(crc_status(&bad), CrcStatus::Mismatch);
        let mut end_only = stripped;
        end_only[15] = 1;
        assert_eq!(crc_status(&end_only), CrcStatus::AbsentEndBitOnly);
    }

    #[test]
    fn text_helpers() {
        assert_eq!(ascii_or_hex(b"TI"), "TI");
        assert_eq!(ascii_or_hex(&[3, 2]), "0x0302");
        assert_eq!(ascii_or_hex(&[0]), "0x00");
        assert_eq!(bytes_as_text(b"SD\0G "), "SD\0G ");
        assert_eq!(bcd_revision(0x61), "6.1");
        assert_eq!(bcd_revision(0x3a), "0x3a");
    }

    proptest! {
        #[test]
        fn parse_hex_never_panics(text in "\\PC*", n in 0usize..80) {
            let _ = parse_hex(&text, n);
            let _ = parse_128(&text);
        }

        #[test]
        fn parse_hex_round_trips(bytes in proptest::collection::vec(any::<u8>(), 1..70), upper: bool) {
            let mut text: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            if upper { text = text.to_uppercase(); }
            text.push('\n');
            prop_assert_eq!(parse_hex(&text, bytes.len()), Ok(bytes));
        }

        #[test]
        fn bit_fields_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..70), hi in 0usize..600, lo in 0usize..600) {
            let _ = Bits(&bytes).field(hi, lo);
            let _ = crc7(&bytes);
        }
    }
}
