//! The one card command `health` sends: a CMD56 (`GEN_CMD`) read of one 512-byte block
//! through the MMC block driver's `MMC_IOC_CMD` ioctl (linux/mmc/ioctl.h), on a whole SD disk
//! (`/dev/mmcblkN`; the kernel refuses partitions and callers without `CAP_SYS_RAWIO`).
//!
//! Only reads: `write_flag` is 0 and the opcode is 56, always; the argument comes only from
//! a known report format ([`super::cmd56::Cmd56Format::argument`]). The command carries its
//! own timeouts (1 s for the command, 1 s for the data), and the caller stops waiting after
//! [`WAIT`] in case the host does not give up.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::cmd56::{Cmd56Format, BLOCK};

/// How long to wait for an answer before giving up on the card: 3 s.
pub const WAIT: Duration = Duration::from_secs(3);

/// `struct mmc_ioc_cmd` (linux/mmc/ioctl.h), 72 bytes.
#[repr(C)]
#[derive(Debug, Default)]
struct MmcIocCmd {
    write_flag: i32,
    is_acmd: i32,
    opcode: u32,
    arg: u32,
    response: [u32; 4],
    flags: u32,
    blksz: u32,
    blocks: u32,
    postsleep_min_us: u32,
    postsleep_max_us: u32,
    data_timeout_ns: u32,
    cmd_timeout_ms: u32,
    pad: u32,
    data_ptr: u64,
}

/// `MMC_BLOCK_MAJOR` (linux/major.h).
const MMC_BLOCK_MAJOR: u8 = 179;

nix::ioctl_readwrite!(mmc_ioc_cmd, MMC_BLOCK_MAJOR, 0, MmcIocCmd);

/// `SD_GEN_CMD`.
const GEN_CMD: u32 = 56;

/// `MMC_RSP_SPI_R1 | MMC_RSP_R1 | MMC_CMD_ADTC` (linux/mmc/core.h): an R1 answer (present,
/// CRC, opcode), SPI's R1, and an addressed data transfer.
const FLAGS: u32 = (1 << 7) | (1 | (1 << 2) | (1 << 4)) | (1 << 5);

/// Reads the report of `format` from the SD card at `device` (`/dev/mmcblkN`). Errors: the
/// system's, or no answer within [`WAIT`].
pub fn read_report(device: &Path, format: Cmd56Format) -> std::io::Result<[u8; BLOCK]> {
    let file = std::fs::File::open(device)?;
    let arg = format.argument();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(gen_cmd_read(&file, arg));
    });
    rx.recv_timeout(WAIT)
        .unwrap_or_else(|_| Err(std::io::Error::from_raw_os_error(libc::ETIMEDOUT)))
}

/// One CMD56 read with `arg` on the open disk `file`.
fn gen_cmd_read(file: &std::fs::File, arg: u32) -> std::io::Result<[u8; BLOCK]> {
    use std::os::fd::AsRawFd;
    let mut data = [0u8; BLOCK];
    let mut cmd = MmcIocCmd {
        write_flag: 0,
        opcode: GEN_CMD,
        arg,
        flags: FLAGS,
        blksz: BLOCK as u32,
        blocks: 1,
        data_timeout_ns: 1_000_000_000,
        cmd_timeout_ms: 1000,
        data_ptr: data.as_mut_ptr() as u64,
        ..MmcIocCmd::default()
    };
    // SAFETY: `cmd` is the kernel's struct, and `data_ptr` points at `data`, 512 bytes that
    // live until the call returns.
    unsafe { mmc_ioc_cmd(file.as_raw_fd(), &mut cmd) }.map_err(std::io::Error::from)?;
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_struct_and_request_are_the_kernels() {
        assert_eq!(std::mem::size_of::<MmcIocCmd>(), 72);
        // _IOWR(179, 0, struct mmc_ioc_cmd) as sdmon and mmc-utils use it: 0xc048b300.
        assert_eq!(
            nix::request_code_readwrite!(MMC_BLOCK_MAJOR, 0, 72) as u32,
            0xc048_b300
        );
        assert_eq!(FLAGS, 0xb5);
    }

    #[test]
    fn a_device_that_is_not_an_mmc_disk_is_refused_by_the_kernel() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("not-a-card");
        std::fs::write(&path, [0u8; 512]).unwrap();
        let e = read_report(&path, Cmd56Format::Sandisk).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOTTY), "{e}");
    }
}
