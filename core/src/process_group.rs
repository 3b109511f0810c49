//! Child processes that lead their own process group, so that one signal reaches everything
//! they started: fio and the job processes it forks, a test script and whatever it runs in
//! the background.
//!
//! The protocol, the same for both: start the child in a new group ([`ProcessGroup::spawn`]);
//! to stop it, SIGTERM (and SIGCONT, so that a stopped process acts on it) to the whole group,
//! then SIGKILL to the group once a grace period is over ([`Stopping`]); when the leader has
//! ended, SIGKILL whatever is left of its group until none of it lives or a deadline passes
//! ([`ProcessGroup::kill_members_until`]); reap the leader last ([`ProcessGroup::reap`]). The
//! leader is seen to end without being reaped ([`ProcessGroup::leader_ended`], `WNOWAIT`), so
//! its pid, which names the group, cannot be reused by another process while the group is
//! still being signalled.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{killpg, Signal};
use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;

/// How often [`ProcessGroup::stop`] looks whether the leader has ended.
const POLL: Duration = Duration::from_millis(50);
/// Pause between two rounds of SIGKILL to the rest of a group.
const KILL_ROUND: Duration = Duration::from_millis(5);

/// A running child that leads its own process group (group id = its pid).
#[derive(Debug)]
pub struct ProcessGroup {
    child: Child,
    id: Pid,
}

impl ProcessGroup {
    /// Spawns `command` as the leader of a new process group (`setpgid(0, 0)` in the child,
    /// after the command's own `pre_exec` hooks).
    ///
    /// Errors: those of [`Command::spawn`] (e.g. [`io::ErrorKind::NotFound`] for a missing
    /// program).
    pub fn spawn(command: &mut Command) -> io::Result<ProcessGroup> {
        let child = command.process_group(0).spawn()?;
        let id = Pid::from_raw(child.id() as i32);
        Ok(ProcessGroup { child, id })
    }

    /// The leader's pid, which is also the group's id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The leader, e.g. to take its pipes.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Sends `signal` to every process of the group; a group that is already gone is not an
    /// error.
    pub fn signal(&self, signal: Signal) {
        let _ = killpg(self.id, signal);
    }

    /// True once the leader has ended. It stays a zombie (`WNOWAIT`): its pid keeps naming
    /// the group until [`ProcessGroup::reap`].
    ///
    /// Errors: those of `waitid(2)` other than EINTR (e.g. ECHILD when the leader was reaped
    /// elsewhere).
    pub fn leader_ended(&self) -> Result<bool, Errno> {
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
        loop {
            match waitid(Id::Pid(self.id), flags) {
                Ok(WaitStatus::StillAlive) => return Ok(false),
                Ok(_) => return Ok(true),
                Err(Errno::EINTR) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The pids of the group's live (not zombie) processes other than the leader.
    pub fn live_members(&self) -> Vec<u32> {
        let leader = self.id();
        let mut members = live_group_members(leader);
        members.retain(|&p| p != leader);
        members
    }

    /// Sends SIGKILL to the group, again every few milliseconds, until no live process but
    /// the leader is left in it or `deadline` has passed (a process that cannot die at once,
    /// such as one in uninterruptible I/O, cannot hold the caller past it).
    pub fn kill_members_until(&self, deadline: Instant) {
        loop {
            self.signal(Signal::SIGKILL);
            if self.live_members().is_empty() || Instant::now() >= deadline {
                return;
            }
            std::thread::sleep(KILL_ROUND);
        }
    }

    /// Waits for the leader to end and reaps it; the group's id is free for reuse afterwards.
    ///
    /// Errors: those of [`Child::wait`].
    pub fn reap(mut self) -> io::Result<ExitStatus> {
        self.child.wait()
    }

    /// Stops the whole group and reaps the leader: SIGTERM and SIGCONT to the group; SIGKILL
    /// to the group when the leader has not ended `grace` later; once the leader has ended,
    /// SIGKILL to what is left of the group for at most another `grace`; then the reap, which
    /// waits for the leader however long it takes to die.
    ///
    /// Errors: those of [`Child::wait`].
    pub fn stop(self, grace: Duration) -> io::Result<ExitStatus> {
        let mut stopping = Stopping::start(&self, grace);
        // A wait error (the leader is not ours to wait for) ends the waiting, not the stop.
        while let Ok(false) = self.leader_ended() {
            let now = Instant::now();
            stopping.advance(&self, now);
            match stopping.next_deadline() {
                Some(at) => std::thread::sleep(at.saturating_duration_since(now).min(POLL)),
                // SIGKILL is sent: the reap waits for the leader's end.
                None => break,
            }
        }
        self.kill_members_until(deadline_after(grace));
        self.reap()
    }

    /// Kills the whole group at once (SIGKILL), for a child that would not act on SIGTERM;
    /// then as [`ProcessGroup::stop`] once SIGKILL is sent: what is left gets SIGKILL for at
    /// most `grace`, and the leader is reaped.
    ///
    /// Errors: those of [`Child::wait`].
    pub fn kill(self, grace: Duration) -> io::Result<ExitStatus> {
        self.kill_members_until(deadline_after(grace));
        self.reap()
    }
}

/// A stop in progress, for callers that watch the group in their own loop (reading its
/// output meanwhile): SIGTERM and SIGCONT have been sent; SIGKILL follows the grace.
#[derive(Debug, Clone, Copy)]
pub struct Stopping {
    kill_at: Option<Instant>,
    killed: bool,
}

impl Stopping {
    /// Sends SIGTERM, then SIGCONT (a stopped process, e.g. after SIGTTIN from reading the
    /// terminal, acts on the SIGTERM only once continued) to `group`; SIGKILL is due `grace`
    /// from now.
    pub fn start(group: &ProcessGroup, grace: Duration) -> Stopping {
        group.signal(Signal::SIGTERM);
        group.signal(Signal::SIGCONT);
        Stopping {
            kill_at: Instant::now().checked_add(grace),
            killed: false,
        }
    }

    /// Sends SIGKILL to `group` when it is due at `now` and was not sent yet.
    pub fn advance(&mut self, group: &ProcessGroup, now: Instant) {
        if !self.killed && self.kill_at.is_some_and(|at| now >= at) {
            group.signal(Signal::SIGKILL);
            self.killed = true;
        }
    }

    /// When SIGKILL is due, or `None` once it has been sent (or the grace is too long to
    /// reach).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.kill_at.filter(|_| !self.killed)
    }
}

/// `grace` from now, or far ahead when that cannot be represented.
fn deadline_after(grace: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(grace)
        .unwrap_or_else(|| now + Duration::from_secs(86_400))
}

/// The pids of the live (not zombie) processes whose process group is `pgid`, read from
/// `/proc/*/stat`. The runners use it to make sure a child leaves nothing behind; tests use
/// it to check that.
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| parse_stat(&stat))
                .is_some_and(|(state, pgrp)| pgrp == pgid && state != b'Z' && state != b'X')
        })
        .collect()
}

/// (state, process group) from the text of `/proc/PID/stat`: `pid (comm) S ppid pgrp …`,
/// where comm may itself hold spaces and parentheses.
fn parse_stat(stat: &[u8]) -> Option<(u8, u32)> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(stat.get(close + 1..)?).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = *fields.next()?.as_bytes().first()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> ProcessGroup {
        ProcessGroup::spawn(Command::new("/bin/sh").arg("-c").arg(script)).expect("spawn sh")
    }

    #[test]
    fn stat_parsing_survives_odd_command_names() {
        assert_eq!(
            parse_stat(b"1234 (my (odd) prog) S 1 1230 1230 0 -1"),
            Some((b'S', 1230))
        );
        assert_eq!(parse_stat(b"garbage"), None);
    }

    #[test]
    fn own_process_group_is_found_in_proc() {
        let me = std::process::id();
        let pgid = nix::unistd::getpgrp().as_raw() as u32;
        assert!(live_group_members(pgid).contains(&me));
    }

    #[test]
    fn stop_ends_the_leader_and_its_background_children() {
        let group = sh("sleep 1000 & sleep 1000 & wait");
        let id = group.id();
        let start = Instant::now();
        while group.live_members().len() < 2 && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(group.live_members().len(), 2, "two sleeps in the group");
        let status = group.stop(Duration::from_secs(5)).expect("reaped");
        assert!(!status.success());
        assert!(live_group_members(id).is_empty());
    }

    #[test]
    fn a_group_that_ignores_sigterm_gets_sigkill_after_the_grace() {
        let group = sh("trap '' TERM; while :; do sleep 0.05; done");
        let id = group.id();
        let start = Instant::now();
        // Wait for the trap to be set: the shell is then in its loop with a sleep child.
        while group.live_members().is_empty() && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let status = group.stop(Duration::from_millis(300)).expect("reaped");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        assert!(live_group_members(id).is_empty());
    }

    #[test]
    fn kill_ends_the_group_at_once() {
        let group = sh("trap '' TERM; sleep 1000 & wait");
        let id = group.id();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            group.kill(Duration::from_secs(5)).expect("reaped").signal(),
            Some(libc::SIGKILL)
        );
        assert!(live_group_members(id).is_empty());
    }

    #[test]
    fn the_leader_is_seen_to_end_before_it_is_reaped() {
        let group = sh("exit 3");
        let start = Instant::now();
        while !group.leader_ended().expect("waitid") {
            assert!(start.elapsed() < Duration::from_secs(10), "sh never ended");
            std::thread::sleep(Duration::from_millis(5));
        }
        // Still a zombie: seen again, then reaped with its status.
        assert!(group.leader_ended().expect("waitid"));
        assert_eq!(group.reap().expect("reaped").code(), Some(3));
    }
}
