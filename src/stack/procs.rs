//! The processes of a session, from `/proc`, and stopping them without ever signalling a
//! process that is not one of them.
//!
//! A process is named by its pid *and* its start time (`/proc/PID/stat`'s 22nd field): a pid
//! can be handed to a new process once the old one is reaped, the pair cannot. A signal goes
//! through a pidfd opened first and checked against the start time, so it reaches the process
//! that was looked at or none. The session's own children are reaped only by the session,
//! so their pids cannot change hands while it holds them; `treeglass session` is also the
//! *child subreaper* of everything below it (`PR_SET_CHILD_SUBREAPER`), so a process left
//! behind when its parent exits (a daemon that double-forked, what CMD left running) becomes
//! its child, not init's, and is found and stopped at the end.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rustix::process::{Pid, PidfdFlags, Signal, WaitOptions};

/// One process as `/proc/PID/stat` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    pub ppid: i32,
    /// `R`, `S`, `D`, `Z` (exited, not yet reaped), `X`, …
    pub state: char,
    /// Clock ticks after boot when it started: with the pid, its identity.
    pub start: u64,
}

impl Proc {
    /// Whether it has exited (a zombie counts: it runs no more).
    pub fn exited(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// This process's pid.
pub fn me() -> i32 {
    rustix::process::getpid().as_raw_nonzero().get()
}

/// Makes this process the reaper of its orphaned descendants.
pub fn become_subreaper() -> std::io::Result<()> {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
        .map_err(std::io::Error::from)
}

/// Parses a `/proc/PID/stat` line. The command name (field 2) is in parentheses and may hold
/// anything, parentheses and blanks included: the fields after it start after the *last* `)`.
pub fn parse_stat(line: &str) -> Option<Proc> {
    let (head, rest) = line.rsplit_once(')')?;
    let pid = head.split_once(" (")?.0.trim().parse().ok()?;
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    // fields[0] is field 3 (state): field N is fields[N - 3].
    Some(Proc {
        pid,
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// Process `pid` now, if there is one.
pub fn stat(pid: i32) -> Option<Proc> {
    let line = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&line)
}

/// Every process on the system.
pub fn all() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(stat)
        .collect()
}

/// Every descendant of `root` in `table`, children before their parents (deepest first), so
/// that a parent still there can reap them.
pub fn descendants(root: i32, table: &[Proc]) -> Vec<Proc> {
    let mut kids: HashMap<i32, Vec<Proc>> = HashMap::new();
    for p in table {
        kids.entry(p.ppid).or_default().push(*p);
    }
    let mut out = Vec::new();
    // Iterative depth-first walk: (process, whether its children were pushed).
    let mut stack: Vec<(Proc, bool)> = kids
        .get(&root)
        .map(|k| k.iter().map(|p| (*p, false)).collect())
        .unwrap_or_default();
    while let Some((p, expanded)) = stack.pop() {
        if expanded || !kids.contains_key(&p.pid) {
            out.push(p);
            continue;
        }
        stack.push((p, true));
        if let Some(k) = kids.get(&p.pid) {
            // A pid cannot be its own ancestor, but a table read while processes come and go
            // is not a snapshot: never walk back into what is already on the way.
            stack.extend(
                k.iter()
                    .filter(|c| c.pid != root && !out.iter().any(|o| o.pid == c.pid))
                    .map(|c| (*c, false)),
            );
        }
    }
    out
}

/// Whether `p` is still the process it was and has not exited.
pub fn running(p: &Proc) -> bool {
    stat(p.pid).is_some_and(|now| now.start == p.start && !now.exited())
}

/// Sends `sig` to `p` if it is still that process (same pid and start time). False when it
/// is gone, or the pid now names another process.
pub fn signal(p: &Proc, sig: Signal) -> bool {
    let Some(pid) = Pid::from_raw(p.pid) else {
        return false;
    };
    let Ok(fd) = rustix::process::pidfd_open(pid, PidfdFlags::empty()) else {
        return false;
    };
    // The pidfd holds whatever process had the pid when it was opened: check that it is ours.
    if stat(p.pid).is_none_or(|now| now.start != p.start) {
        return false;
    }
    rustix::process::pidfd_send_signal(&fd, sig).is_ok()
}

/// Sends `sig` to the direct child `pid` (not yet reaped, so the pid is still its own).
pub fn signal_child(pid: u32, sig: Signal) {
    if let Some(pid) = Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// Reaps `p` if it is an exited child of this process (one adopted as an orphan); true when
/// it was reaped or is gone already.
pub fn reap(p: &Proc) -> bool {
    let Some(now) = stat(p.pid) else {
        return true;
    };
    if now.start != p.start {
        return true;
    }
    if now.ppid != me() || !now.exited() {
        return false;
    }
    match Pid::from_raw(p.pid) {
        Some(pid) => rustix::process::waitpid(Some(pid), WaitOptions::NOHANG)
            .map(|r| r.is_some())
            .unwrap_or(true),
        None => true,
    }
}

/// Zombies among this process's children that are none of `known` (adopted orphans that
/// exited), reaped. Returns how many.
pub fn reap_orphans(known: &[u32]) -> usize {
    let me = me();
    all()
        .iter()
        .filter(|p| p.ppid == me && p.exited() && !known.contains(&(p.pid as u32)))
        .filter(|p| reap(p))
        .count()
}

/// Signals every process of `victims` with SIGTERM, waits up to `grace` for them to exit
/// (reaping those that are this process's children), then sends SIGKILL to the rest and
/// waits up to a second more. Returns the ones that ignored SIGTERM.
pub async fn stop_all(victims: &[Proc], grace: Duration) -> Vec<Proc> {
    if victims.is_empty() {
        return Vec::new();
    }
    for p in victims {
        signal(p, Signal::TERM);
    }
    if wait_exited(victims, grace).await {
        return Vec::new();
    }
    let stubborn: Vec<Proc> = victims.iter().copied().filter(running).collect();
    for p in &stubborn {
        signal(p, Signal::KILL);
    }
    wait_exited(&stubborn, Duration::from_secs(1)).await;
    stubborn
}

/// Waits until every process of `procs` has exited (reaping the ones that are this process's
/// children); false when some still run after `timeout`.
pub async fn wait_exited(procs: &[Proc], timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        let mut all_gone = true;
        for p in procs {
            reap(p);
            if running(p) {
                all_gone = false;
            }
        }
        if all_gone {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_after_the_last_parenthesis() {
        let line = "4242 (we (ird) name) S 17 4242 4242 0 -1 4194560 120 0 0 0 1 2 0 0 20 0 1 0 \
                    987654 12345 300 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0";
        assert_eq!(
            parse_stat(line),
            Some(Proc {
                pid: 4242,
                ppid: 17,
                state: 'S',
                start: 987654
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn this_process_is_found_with_its_parent() {
        let me = stat(super::me()).expect("this process in /proc");
        assert_eq!(me.pid, super::me());
        assert!(!me.exited());
        assert!(all().iter().any(|p| p.pid == me.ppid));
    }

    #[test]
    fn descendants_come_deepest_first() {
        let p = |pid, ppid| Proc {
            pid,
            ppid,
            state: 'S',
            start: 1,
        };
        let table = [
            p(1, 0),
            p(10, 1),
            p(11, 10),
            p(12, 11),
            p(13, 10),
            p(20, 1),
            p(30, 2),
        ];
        let d: Vec<i32> = descendants(10, &table).iter().map(|p| p.pid).collect();
        assert_eq!(d.len(), 3, "{d:?}");
        let at = |pid| d.iter().position(|&x| x == pid).expect("listed");
        assert!(at(12) < at(11), "{d:?}");
        assert!(d.contains(&13));
        assert!(descendants(30, &table).is_empty());
    }
}
