//! What this process has used so far: CPU time by `getrusage(2)` and peak resident memory by
//! `/proc/self/status`. For the app's benchmark probe, which makes no system call itself.

/// Whose CPU time: the calling thread's or the whole process's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// The calling thread (`RUSAGE_THREAD`).
    Thread,
    /// The whole process, every thread (`RUSAGE_SELF`).
    Process,
}

/// User + system CPU time of `who` so far, seconds (f64); 0 when `getrusage` fails.
pub fn cpu_seconds(who: Who) -> f64 {
    let who = match who {
        Who::Thread => libc::RUSAGE_THREAD,
        Who::Process => libc::RUSAGE_SELF,
    };
    // SAFETY: getrusage writes a plain struct; zeroed is a valid initial value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage.
    if unsafe { libc::getrusage(who, &mut usage) } != 0 {
        return 0.0;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The process's peak resident set size so far (`VmHWM` of `/proc/self/status`), KiB; 0 when
/// unknown.
pub fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix("VmHWM:")
                    .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            })
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_that_ran_has_used_memory_and_its_time_grows() {
        assert!(peak_rss_kib() > 0);
        let before = cpu_seconds(Who::Process);
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(cpu_seconds(Who::Process) >= before);
        assert!(cpu_seconds(Who::Thread) <= cpu_seconds(Who::Process));
    }
}
