//! Progress of a long table on standard error: every 5 s, what is being measured and how far
//! (`table search` at a million seeds spent minutes per row, `table omega --n 100` a minute,
//! with nothing on the screen but the title). The tables themselves go to standard output.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What is being measured now (empty: nothing to say).
static LABEL: Mutex<String> = Mutex::new(String::new());
/// Units done of [`TOTAL`].
static DONE: AtomicU64 = AtomicU64::new(0);
/// Units the current measurement takes.
static TOTAL: AtomicU64 = AtomicU64::new(0);

/// How often a line is printed.
const EVERY: Duration = Duration::from_secs(5);

/// A measurement of `total` units (runs, seeds) starts: `label` says which.
pub fn start(label: String, total: u64) {
    *LABEL.lock().expect("no poisoning") = label;
    DONE.store(0, Ordering::Relaxed);
    TOTAL.store(total, Ordering::Relaxed);
}

/// One unit of the current measurement is done.
pub fn tick() {
    DONE.fetch_add(1, Ordering::Relaxed);
}

/// The progress line, `[   10 s] label: done of total`; `None` before any measurement.
fn line(elapsed: Duration) -> Option<String> {
    let label = LABEL.lock().expect("no poisoning").clone();
    (!label.is_empty()).then(|| {
        format!(
            "[{:>5.0} s] {label}: {} of {}",
            elapsed.as_secs_f64(),
            DONE.load(Ordering::Relaxed),
            TOTAL.load(Ordering::Relaxed)
        )
    })
}

/// Runs `work`, printing the progress line on standard error every 5 s while it runs.
pub fn while_running<T>(work: impl FnOnce() -> T) -> T {
    let finished = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let started = Instant::now();
            let mut last = started;
            while !finished.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if last.elapsed() >= EVERY {
                    last = Instant::now();
                    if let Some(l) = line(started.elapsed()) {
                        eprintln!("{l}");
                    }
                }
            }
        });
        let out = work();
        finished.store(true, Ordering::Relaxed);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line names the measurement and counts its units.
    #[test]
    fn the_line_says_what_and_how_far() {
        start("search: a / b / random".into(), 7);
        tick();
        tick();
        assert_eq!(
            line(Duration::from_secs(12)).as_deref(),
            Some("[   12 s] search: a / b / random: 2 of 7")
        );
        assert_eq!(while_running(|| 3), 3);
    }
}
