//! `reading… 12,480 nodes` on standard error while a one-shot command's tree read runs, and
//! what it waits for while a target is not yet one element.

use std::sync::Arc;
use std::time::Duration;

/// `reading… 12,480 nodes` on standard error while a tree read runs for more than a second,
/// and, while a target is waited for past its first second, what for (`2 elements match
/// check-box "checkbutton": waiting for one to be told apart (3 s of 10 s; Ctrl-C stops)`),
/// refreshed four times a second, erased when the command is done.
pub struct ProgressLine {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ProgressLine {
    /// Shows `reads` (which the command's backend reports to: `Backend::report_reads`).
    pub fn start(reads: Arc<crate::backend::progress::ReadProgress>) -> ProgressLine {
        use std::sync::atomic::Ordering;
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut since: Option<std::time::Instant> = None;
            let mut shown = false;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                match reads.nodes() {
                    Some(n) => {
                        let t = *since.get_or_insert_with(std::time::Instant::now);
                        if t.elapsed() >= Duration::from_secs(1) {
                            eprint!(
                                "\rreading… {} nodes\x1b[K",
                                crate::model::group_digits(n as i64)
                            );
                            shown = true;
                        }
                    }
                    None => {
                        since = None;
                        // A wait for a target, after its first second.
                        if let Some(w) = reads
                            .waiting()
                            .filter(|w| w.since.elapsed() >= Duration::from_secs(1))
                        {
                            eprint!(
                                "\r{} ({} of {}; Ctrl-C stops)\x1b[K",
                                w.what,
                                crate::model::display::seconds(
                                    w.since.elapsed().as_millis() as u64 / 1000 * 1000
                                ),
                                crate::model::display::seconds(w.limit.as_millis() as u64)
                            );
                            shown = true;
                        }
                    }
                }
            }
            if shown {
                eprint!("\r\x1b[K");
            }
        });
        ProgressLine {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
