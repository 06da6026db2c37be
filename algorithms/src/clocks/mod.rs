//! Physical clock synchronization (Tanenbaum & van Steen §6.1, seed `000` §6.1.3; seed `003`).
//!
//! Every algorithm runs on the harness's per-node drifting clocks and corrects its software
//! clock only through [`Ctx::step_clock`] and [`Ctx::slew_clock`]: a clock that is behind is
//! stepped forward, a clock that is ahead is slewed back at the 500 ppm slew rate, never set
//! back ("time can never run backwards"). Promised properties: `bounded_skew` (after the
//! faults stop and a convergence time, see `sincro_checkers::bounded_skew`) and
//! `monotonic_clock`.

pub mod berkeley;
pub mod cristian;
pub mod ntp_peers;
pub mod rbs;
pub(crate) mod registered;
pub mod samples;

use serde::{Deserialize, Serialize};
use sincro_harness::clock::SLEW_RATE_PPB;
use sincro_harness::{Ctx, Process};

pub use samples::{Filter, Sample};

/// No workload: clock synchronization runs on its own timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoInput {}

/// A node's record of the corrections it made to its own clock (kept in stable storage, as
/// an OS kernel keeps its `adjtime` state across a daemon's restart).
///
/// `applied(now)` is the part already applied: steps at once, a slew at 500 ppm of elapsed
/// local time (the harness slews at 500 ppm of global time; the difference is ρ·500 ppm of the
/// slew's length, far below a microsecond). `now − applied(now)` is the node's *raw* clock: its
/// hardware clock, which is what filters and regressions must use so that the node's own
/// corrections do not look like drift.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Corrections {
    folded_ns: i64,
    /// (local time the slew started, amount)
    slew: Option<(i64, i64)>,
}

impl Corrections {
    /// Total correction applied by local time `now_ns`.
    pub fn applied(&self, now_ns: i64) -> i64 {
        self.folded_ns
            + self.slew.map_or(0, |(start, amount)| {
                let dt = (now_ns - start).max(0) as i128;
                let max = (dt * SLEW_RATE_PPB as i128 / 1_000_000_000) as i64;
                amount.clamp(-max, max)
            })
    }

    fn fold(&mut self, now_ns: i64) {
        self.folded_ns = self.applied(now_ns);
        self.slew = None;
    }
}

/// Node processes whose stable storage is their [`Corrections`].
pub trait Corrects: Process<Stable = Corrections> {}
impl<P: Process<Stable = Corrections>> Corrects for P {}

/// The raw (uncorrected) clock reading.
pub fn raw_now<P: Corrects>(ctx: &Ctx<'_, P>) -> i64 {
    let now = ctx.now();
    now - ctx.stable().applied(now)
}

/// Corrects the clock by `delta_ns`: forward by a step, backward by a slew (replacing an
/// unfinished one: the offset was measured on the clock as it is now). With `step_back`
/// (a buggy variant) a negative correction is a step too.
pub fn correct<P: Corrects>(ctx: &mut Ctx<'_, P>, delta_ns: i64, step_back: bool) {
    let now = ctx.now();
    let mut log = *ctx.stable();
    log.fold(now);
    if delta_ns > 0 || (step_back && delta_ns < 0) {
        ctx.step_clock(delta_ns);
        log.folded_ns += delta_ns;
    } else {
        // also a zero correction: it cancels what is left of a slew that is no longer needed
        ctx.slew_clock(delta_ns);
        if delta_ns != 0 {
            log.slew = Some((now, delta_ns));
        }
    }
    *ctx.stable_mut() = log;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_track_steps_and_slews() {
        let mut c = Corrections::default();
        c.fold(0);
        c.folded_ns += 10;
        c.fold(5);
        c.slew = Some((5, -1_000));
        assert_eq!(c.applied(5), 10);
        assert_eq!(c.applied(5 + 1_000_000), 10 - 500);
        assert_eq!(c.applied(5 + 10_000_000), 10 - 1_000);
    }
}
