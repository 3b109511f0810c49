//! The fake drive ([`agnostics_testkit::FakeDrive`]) on this machine's kernel: FUSE, loop
//! devices, ext4 and the cgroup throttle.

use agnostics_testkit::{Behaviour, FAKE_BLOCK};

/// Which blocks a lossy drive loses depends on the seed and on nothing else.
fn lossy_blocks_are_deterministic() {
    let lossy = Behaviour::Lossy {
        seed: 7,
        lost_per_million: 100_000,
    };
    let lost = lossy.lost_blocks(64 << 20);
    assert_eq!(lost, lossy.lost_blocks(64 << 20));
    let total = (64 << 20) / FAKE_BLOCK;
    assert!(lost.len() as u64 > total / 20 && (lost.len() as u64) < total / 5);
}

agnostics_testkit::main!(lossy_blocks_are_deterministic);
