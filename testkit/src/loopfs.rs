//! A small ext4 filesystem on a loop device, mounted for a test.

use std::path::PathBuf;
use std::process::Command;

use crate::{run, scratch_dir};

/// How to make a [`LoopFs`]: its size, mount options and reserved blocks.
#[derive(Debug, Clone)]
pub struct LoopFsBuilder {
    size_mib: u64,
    options: Option<String>,
    reserved_percent: Option<u8>,
    sector_size: Option<u32>,
    block_size: Option<u32>,
}

impl LoopFsBuilder {
    /// Formats with ext4 blocks of `bytes` (`mkfs.ext4 -b`: 1024, 2048 or 4096); without,
    /// mkfs' choice for the size (1024 below 512 MiB).
    pub fn block_size(mut self, bytes: u32) -> LoopFsBuilder {
        self.block_size = Some(bytes);
        self
    }

    /// Gives the loop device logical sectors of `bytes` (`losetup --sector-size`, such as
    /// 4096, as many USB drives and some cards have); without, 512.
    pub fn sector_size(mut self, bytes: u32) -> LoopFsBuilder {
        self.sector_size = Some(bytes);
        self
    }

    /// Mounts with these `-o` options (such as `"ro"` or `"rw"`); without, `mount`'s defaults.
    pub fn options(mut self, options: &str) -> LoopFsBuilder {
        self.options = Some(options.to_owned());
        self
    }

    /// Reserves no blocks for root (`mkfs.ext4 -m 0`), so that the free space statvfs reports
    /// to everyone is the whole filesystem's; without, mkfs' default (5 %).
    pub fn no_reserved_blocks(mut self) -> LoopFsBuilder {
        self.reserved_percent = Some(0);
        self
    }

    /// Makes the image, attaches it, formats and mounts it. Needs root.
    ///
    /// # Panics
    /// When a step fails (with the command's stderr); what was set up so far is undone.
    pub fn mount(self) -> LoopFs {
        let holder = scratch_dir();
        let image = holder.path().join("disk.img");
        let mount = holder.path().join("mnt");
        std::fs::create_dir(&mount).unwrap_or_else(|e| panic!("{}: {e}", mount.display()));
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(self.size_mib << 20))
            .unwrap_or_else(|e| panic!("{}: {e}", image.display()));
        let mut fs = LoopFs {
            image: image.clone(),
            device: String::new(),
            mount: mount.clone(),
            holder: Some(holder),
            mounted: false,
        };
        let mut losetup = Command::new("losetup");
        losetup.args(["--direct-io=on", "-f", "--show"]);
        if let Some(bytes) = self.sector_size {
            losetup.args(["--sector-size", &bytes.to_string()]);
        }
        fs.device = run(losetup.arg(&image));
        let mut mkfs = Command::new("mkfs.ext4");
        mkfs.args(["-q", "-F"]);
        if let Some(percent) = self.reserved_percent {
            mkfs.args(["-m", &percent.to_string()]);
        }
        if let Some(bytes) = self.block_size {
            mkfs.args(["-b", &bytes.to_string()]);
        }
        // Initialise the inode tables and journal now: no ext4lazyinit writes in the background
        // of a measurement.
        mkfs.args(["-E", "lazy_itable_init=0,lazy_journal_init=0", &fs.device]);
        run(&mut mkfs);
        let mut mount_cmd = Command::new("mount");
        if let Some(options) = &self.options {
            mount_cmd.args(["-o", options]);
        }
        run(mount_cmd.arg(&fs.device).arg(&mount));
        fs.mounted = true;
        fs
    }
}

/// An ext4 filesystem in an image file (in a scratch folder on disk) on a loop device with
/// direct I/O on, mounted on a folder next to the image. Torn down in reverse order on drop:
/// unmount (lazily if busy), detach, remove the image and the folder.
#[derive(Debug)]
pub struct LoopFs {
    /// The image file.
    pub image: PathBuf,
    /// The loop device, `/dev/loopN`.
    pub device: String,
    /// The mount point.
    pub mount: PathBuf,
    holder: Option<tempfile::TempDir>,
    mounted: bool,
}

impl LoopFs {
    /// A filesystem of `size_mib` MiB, mounted with `mount`'s defaults and mkfs' default
    /// reserved blocks. Needs root.
    ///
    /// # Panics
    /// As [`LoopFsBuilder::mount`].
    pub fn new(size_mib: u64) -> LoopFs {
        LoopFs::builder(size_mib).mount()
    }

    /// A builder for a filesystem of `size_mib` MiB with other options.
    pub fn builder(size_mib: u64) -> LoopFsBuilder {
        LoopFsBuilder {
            size_mib,
            options: None,
            reserved_percent: None,
            sector_size: None,
            block_size: None,
        }
    }

    /// The loop device's `MAJ:MIN`, as cgroup files and `/dev/block` name it.
    ///
    /// # Panics
    /// When the device node cannot be read.
    pub fn maj_min(&self) -> String {
        use std::os::unix::fs::MetadataExt;
        let rdev = std::fs::metadata(&self.device)
            .unwrap_or_else(|e| panic!("{}: {e}", self.device))
            .rdev();
        format!("{}:{}", libc::major(rdev), libc::minor(rdev))
    }

    /// The loop device's kernel name, `loopN` (as in `/sys/block`).
    pub fn loop_name(&self) -> String {
        self.device.trim_start_matches("/dev/").to_owned()
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        if self.mounted {
            drop(crate::Mounted(self.mount.clone()));
        }
        if !self.device.is_empty() {
            let _ = Command::new("losetup").arg("-d").arg(&self.device).status();
        }
        let _ = std::fs::remove_file(&self.image);
        drop(self.holder.take());
    }
}
