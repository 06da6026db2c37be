//! Per-node clocks.
//!
//! A node's **hardware clock** runs at `1 + drift` of global time from an initial offset; the
//! fault plan can change its drift or make it jump (forward or backward). The **software
//! clock** the algorithm reads is the hardware clock plus the algorithm's own adjustments:
//! steps (instant, may go backwards) and slews (a pending correction applied gradually at a
//! bounded rate, so the clock never goes backwards).
//!
//! All arithmetic is integer (nanoseconds, drift in parts per billion), so it is exact and
//! identical on every machine.

use serde::{Deserialize, Serialize};

/// Maximum slew rate: 500 ppm, as NTP's `adjtime`.
pub const SLEW_RATE_PPB: i64 = 500_000;

const BILLION: i128 = 1_000_000_000;

/// Nanoseconds [`SoftClock::global_time_at`] steps from its Newton step before it searches.
const SETTLE_STEPS: usize = 3;

/// Ceiling division for a non-negative numerator and a positive divisor.
fn ceil_div(a: i128, b: i128) -> i128 {
    (a + b - 1) / b
}

/// `ceil(short_ns · 1e9 / rate_ppb)` for `short_ns > 0` and `rate_ppb > 0`: the global time a
/// clock at `rate_ppb` takes to gain `short_ns`. In `i64` when the product fits (every
/// deadline under 9.2 s away: a timer's usual case, on the hot path of every run), else in
/// `i128`; the same exact result either way.
#[inline]
fn ceil_div_ns(short_ns: i128, rate_ppb: i64) -> i128 {
    debug_assert!(short_ns > 0 && rate_ppb > 0);
    match i64::try_from(short_ns)
        .ok()
        .and_then(|s| s.checked_mul(BILLION as i64))
        .and_then(|p| p.checked_add(rate_ppb - 1))
    {
        Some(p) => i128::from(p / rate_ppb),
        None => ceil_div(short_ns * BILLION, i128::from(rate_ppb)),
    }
}

/// The hardware clock of one node: piecewise linear in global time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HwClock {
    /// Global time (ns) of the last discontinuity (start, jump or drift change).
    pub base_t_ns: u64,
    /// Hardware reading (ns) at `base_t_ns`.
    pub base_local_ns: i64,
    /// Drift in parts per billion: the clock advances `1 + drift_ppb / 1e9` per global ns.
    pub drift_ppb: i64,
}

impl HwClock {
    /// A clock reading `offset_ns` at global time 0, drifting by `drift_ppb`.
    pub fn new(offset_ns: i64, drift_ppb: i64) -> Self {
        HwClock {
            base_t_ns: 0,
            base_local_ns: offset_ns,
            drift_ppb,
        }
    }

    /// Reading at global time `t_ns` (`t_ns >= base_t_ns`).
    #[inline]
    pub fn read(&self, t_ns: u64) -> i64 {
        let dt = t_ns.saturating_sub(self.base_t_ns);
        let dt_i = i64::try_from(dt).unwrap_or(i64::MAX);
        if self.drift_ppb == 0 {
            return self.base_local_ns.saturating_add(dt_i);
        }
        // i64 arithmetic when it cannot overflow (the common case), i128 otherwise: the same
        // exact result either way.
        let drift = match (dt as i64).checked_mul(self.drift_ppb) {
            Some(p) if dt <= i64::MAX as u64 => p / BILLION as i64,
            _ => (dt as i128 * self.drift_ppb as i128 / BILLION)
                .clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        };
        // Saturating: times from a scenario are bounded (`MAX_TIME_MS`), so this only guards
        // against wrap-around when an algorithm's own steps are absurd.
        self.base_local_ns
            .saturating_add(dt_i)
            .saturating_add(drift)
    }

    /// Rebase at `t_ns` so later changes start from the current reading.
    fn rebase(&mut self, t_ns: u64) {
        self.base_local_ns = self.read(t_ns);
        self.base_t_ns = t_ns;
    }
}

/// A gradual correction in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Slew {
    start_t_ns: u64,
    delta_ns: i64,
}

impl Slew {
    fn applied(&self, t_ns: u64) -> i64 {
        let dt = t_ns.saturating_sub(self.start_t_ns) as i128;
        let max = (dt * SLEW_RATE_PPB as i128 / BILLION) as i64;
        if self.delta_ns >= 0 {
            self.delta_ns.min(max)
        } else {
            self.delta_ns.max(-max)
        }
    }
    fn end_t_ns(&self) -> u64 {
        let need = self.delta_ns.unsigned_abs() as i128;
        let dt = ceil_div(need * BILLION, SLEW_RATE_PPB as i128);
        self.start_t_ns
            .saturating_add(u64::try_from(dt).unwrap_or(u64::MAX))
    }
}

/// A node's software clock: hardware clock plus the algorithm's steps and slew.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SoftClock {
    /// The hardware clock underneath.
    pub hw: HwClock,
    step_ns: i64,
    slew: Option<Slew>,
}

impl SoftClock {
    /// A software clock over `hw` with no adjustment.
    pub fn new(hw: HwClock) -> Self {
        SoftClock {
            hw,
            step_ns: 0,
            slew: None,
        }
    }

    /// This clock without the last `steps_ns` of steps: what it read before them, at the
    /// instant they were made (see `after_callback`: the events of a callback's operations
    /// before its step read the clock without it).
    pub(crate) fn before_steps(&self, steps_ns: i64) -> SoftClock {
        SoftClock {
            step_ns: self.step_ns.saturating_sub(steps_ns),
            ..self.clone()
        }
    }

    /// [`SoftClock::before_steps`] taken back by `delta_ns` of them, one step at a time.
    pub(crate) fn redo_step(&mut self, delta_ns: i64) {
        self.step_ns = self.step_ns.saturating_add(delta_ns);
    }

    /// The software clock reading at global time `t_ns`.
    pub fn read(&self, t_ns: u64) -> i64 {
        let slew = self.slew.as_ref().map_or(0, |s| s.applied(t_ns));
        self.hw
            .read(t_ns)
            .saturating_add(self.step_ns)
            .saturating_add(slew)
    }

    /// Steps the software clock by `delta_ns` at `t_ns` (may go backwards).
    pub fn step(&mut self, t_ns: u64, delta_ns: i64) {
        self.fold_slew(t_ns);
        self.step_ns = self.step_ns.saturating_add(delta_ns);
    }

    /// Starts slewing by `delta_ns` from `t_ns`, replacing any unfinished slew (as `adjtime`).
    pub fn slew(&mut self, t_ns: u64, delta_ns: i64) {
        self.fold_slew(t_ns);
        if delta_ns != 0 {
            self.slew = Some(Slew {
                start_t_ns: t_ns,
                delta_ns,
            });
        }
    }

    /// The part of a slew still to be applied at `t_ns`.
    pub fn slew_pending_ns(&self, t_ns: u64) -> i64 {
        self.slew
            .as_ref()
            .map_or(0, |s| s.delta_ns - s.applied(t_ns))
    }

    fn fold_slew(&mut self, t_ns: u64) {
        if let Some(s) = self.slew.take() {
            self.step_ns = self.step_ns.saturating_add(s.applied(t_ns));
        }
    }

    /// The hardware clock jumps by `delta_ns` at `t_ns` (a fault).
    pub fn hw_jump(&mut self, t_ns: u64, delta_ns: i64) {
        self.hw.rebase(t_ns);
        self.hw.base_local_ns = self.hw.base_local_ns.saturating_add(delta_ns);
    }

    /// The hardware drift becomes `drift_ppb` from `t_ns` (a fault).
    pub fn set_drift(&mut self, t_ns: u64, drift_ppb: i64) {
        self.hw.rebase(t_ns);
        self.hw.drift_ppb = drift_ppb;
    }

    /// The earliest global time `>= now_t_ns` at which the software clock reads at least
    /// `local_ns`, assuming no further discontinuity (the engine reschedules on one).
    pub fn global_time_at(&self, now_t_ns: u64, local_ns: i64) -> u64 {
        let cur = self.read(now_t_ns);
        if cur >= local_ns {
            return now_t_ns;
        }
        // One Newton step from `now` (the search's first) lands on the answer or next to it:
        // the earliest instant is the one the reading reaches `local_ns` at while the instant
        // before it does not, since the reading is monotone between discontinuities (when the
        // drift cannot make it run backwards: always, within the validated drift range). Two
        // to four reads settle it ([`SoftClock::settle`]), where the search took six to ten
        // (7 % of a guided campaign of an election algorithm, which resets a timer at every
        // heartbeat).
        if self.hw.drift_ppb > SLEW_RATE_PPB - BILLION as i64 {
            let rate_ppb =
                (BILLION as i64 + self.hw.drift_ppb + self.slew_rate_ppb_at(now_t_ns)).max(1);
            let dt = ceil_div_ns(local_ns as i128 - cur as i128, rate_ppb).max(1);
            let hi = now_t_ns.saturating_add(dt.min(u64::MAX as i128) as u64);
            if hi > now_t_ns {
                if let Some(t) = self.settle(now_t_ns, local_ns, hi) {
                    return t;
                }
            }
        }
        self.search_time_at(now_t_ns, local_ns)
    }

    /// The earliest instant past `now_t_ns` whose reading reaches `local_ns`, found by
    /// stepping a nanosecond at a time from `t` (`> now_t_ns`), at most [`SETTLE_STEPS`]
    /// steps: the Newton step's rounding leaves it one or two nanoseconds off. `None` when
    /// it is further.
    fn settle(&self, now_t_ns: u64, local_ns: i64, mut t: u64) -> Option<u64> {
        let mut at_t = self.read(t);
        for _ in 0..SETTLE_STEPS {
            if at_t >= local_ns {
                // Reached: the earliest unless the instant before reaches it too.
                if t - 1 == now_t_ns {
                    return Some(t);
                }
                let before = self.read(t - 1);
                if before < local_ns {
                    return Some(t);
                }
                t -= 1;
                at_t = before;
            } else {
                // Short of it: the next instant is the earliest if it reaches it.
                t = t.checked_add(1)?;
                at_t = self.read(t);
                if at_t >= local_ns {
                    return Some(t);
                }
            }
        }
        None
    }

    /// [`SoftClock::global_time_at`] by search: Newton steps, then a gallop back and a
    /// bisection (the reading at `now_t_ns` is short of `local_ns`).
    fn search_time_at(&self, now_t_ns: u64, local_ns: i64) -> u64 {
        // Newton-like steps on the piecewise-linear reading give an instant at or past the
        // target (`hi`); the last instant known to be short of it is `lo`.
        let (mut lo, mut hi) = (now_t_ns, now_t_ns);
        for _ in 0..64 {
            let cur = self.read(hi);
            if cur >= local_ns {
                break;
            }
            lo = hi;
            let rate_ppb = (BILLION as i64 + self.hw.drift_ppb + self.slew_rate_ppb_at(hi)).max(1);
            let dt = ceil_div_ns(local_ns as i128 - cur as i128, rate_ppb).max(1);
            hi = hi.saturating_add(dt.min(u64::MAX as i128) as u64);
        }
        // The steps overshoot by a few ns at most (rounding), so gallop back from `hi` to a
        // short instant first: a few reads, not a bisection of the whole last step (the
        // reading is monotone between discontinuities).
        let mut back = 1;
        while hi - lo > back {
            let probe = hi - back;
            if self.read(probe) >= local_ns {
                hi = probe;
                back = back.saturating_mul(2);
            } else {
                lo = probe;
                break;
            }
        }
        // Then bisect to the earliest instant.
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.read(mid) >= local_ns {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    fn slew_rate_ppb_at(&self, t_ns: u64) -> i64 {
        match &self.slew {
            Some(s) if t_ns < s.end_t_ns() => SLEW_RATE_PPB * s.delta_ns.signum(),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_i64_deadline_division_is_the_i128_one() {
        let shorts = [
            1i128,
            2,
            999,
            1_000_000_007,
            9_223_372_036,
            9_223_372_037,
            1 << 40,
            1 << 62,
        ];
        let rates = [
            1i64,
            7,
            999_900_000,
            1_000_000_000,
            1_000_500_000,
            2_000_000_000,
        ];
        for &s in &shorts {
            for &r in &rates {
                assert_eq!(
                    ceil_div_ns(s, r),
                    ceil_div(s * BILLION, r as i128),
                    "{s} {r}"
                );
            }
        }
    }

    #[test]
    fn drift_accumulates_two_rho_dt() {
        // Two clocks at +/-100 ppm diverge by 2*rho*dt = 200 us after 1 s.
        let a = SoftClock::new(HwClock::new(0, 100_000));
        let b = SoftClock::new(HwClock::new(0, -100_000));
        let t = 1_000_000_000;
        assert_eq!(a.read(t) - b.read(t), 200_000);
    }

    #[test]
    fn slew_is_monotonic_and_completes() {
        let mut c = SoftClock::new(HwClock::new(0, 0));
        c.slew(0, -1_000_000); // slow down by 1 ms at 500 ppm: takes 2 s
        let mut last = i64::MIN;
        for k in 0..100 {
            let t = k * 50_000_000;
            let r = c.read(t);
            assert!(r >= last, "slewing never goes backwards");
            last = r;
        }
        let t = 3_000_000_000u64;
        assert_eq!(c.read(t), t as i64 - 1_000_000);
        assert_eq!(c.slew_pending_ns(t), 0);
    }

    #[test]
    fn step_backwards_and_jumps() {
        let mut c = SoftClock::new(HwClock::new(5, 0));
        c.step(10, -7);
        assert_eq!(c.read(10), 8);
        c.hw_jump(20, 1000);
        assert_eq!(c.read(20), 1018);
    }

    #[test]
    fn inverse_reaches_target() {
        let mut c = SoftClock::new(HwClock::new(-3_000, 250_000));
        c.slew(100, 40_000);
        for target in [0i64, 1, 999, 123_456_789] {
            let t = c.global_time_at(0, target);
            assert!(c.read(t) >= target);
            assert!(
                t == 0 || c.read(t - 1) < target,
                "earliest instant for {target}"
            );
        }
    }

    #[test]
    fn inverse_is_the_earliest_instant_on_drifting_slewing_clocks() {
        // Against the definition: the instant reads at least the target, the one before it
        // (if not now) does not. Drifts up to ±500 ppm, slews of both signs running or done.
        let mut rng = crate::SimRng::new(11);
        for _ in 0..2_000 {
            let drift_ppb = rng.range_u64(0, 1_000_000) as i64 - 500_000;
            let mut c = SoftClock::new(HwClock::new(rng.range_u64(0, 1 << 40) as i64, drift_ppb));
            let slew_at = rng.range_u64(0, 1 << 30);
            c.slew(slew_at, rng.range_u64(0, 20_000_000) as i64 - 10_000_000);
            let now = rng.range_u64(0, 1 << 31);
            let target = c.read(now) + rng.range_u64(0, 1 << 32) as i64 - (1 << 20);
            let t = c.global_time_at(now, target);
            assert!(t >= now && c.read(t) >= target, "reaches {target}");
            assert!(t == now || c.read(t - 1) < target, "earliest for {target}");
        }
    }

    #[test]
    fn the_checked_newton_step_gives_the_search_result() {
        // The fast path and the search it skips agree on every clock the engine can hold:
        // drifts from −100 % to +100 %, slews running, done or not yet begun, steps and jumps,
        // targets near and far (the fast path is taken, or it falls back).
        let mut rng = crate::SimRng::new(7);
        let (mut fast, mut total) = (0, 0);
        for _ in 0..20_000 {
            let drift_ppb = match rng.index(4) {
                0 => 0,
                1 => rng.range_u64(0, 1_000_000) as i64 - 500_000,
                2 => rng.range_u64(0, 2_000_000_000) as i64 - 1_000_000_000,
                _ => [-999_999_999, -999_500_000, -999_499_999, 1_000_000_000][rng.index(4)],
            };
            let mut c = SoftClock::new(HwClock::new(rng.range_u64(0, 1 << 40) as i64, drift_ppb));
            if rng.chance(0.5) {
                c.slew(
                    rng.range_u64(0, 1 << 30),
                    rng.range_u64(0, 20_000_000) as i64 - 10_000_000,
                );
            }
            if rng.chance(0.3) {
                c.step(
                    rng.range_u64(0, 1 << 30),
                    rng.range_u64(0, 1 << 20) as i64 - (1 << 19),
                );
            }
            let now = rng.range_u64(0, 1 << 31);
            let ahead = match rng.index(3) {
                0 => rng.range_u64(1, 10) as i64,
                1 => rng.range_u64(1, 1 << 24) as i64,
                _ => rng.range_u64(1, 1 << 40) as i64,
            };
            let target = c.read(now).saturating_add(ahead);
            let searched = c.search_time_at(now, target);
            assert_eq!(
                c.global_time_at(now, target),
                searched,
                "{c:?} {now} {target}"
            );
            total += 1;
            fast += usize::from(
                c.read(searched) >= target && searched > now && c.read(searched - 1) < target,
            );
        }
        assert!(
            fast > total / 2,
            "the cases are mostly well-defined ones: {fast}/{total}"
        );
    }

    #[test]
    fn huge_jumps_and_steps_saturate_instead_of_wrapping() {
        let mut c = SoftClock::new(HwClock::new(0, 0));
        for _ in 0..20 {
            c.hw_jump(10, i64::MAX / 4);
        }
        assert_eq!(c.read(20), i64::MAX);
        c.step(30, i64::MAX);
        assert_eq!(c.read(40), i64::MAX, "never wraps to a negative reading");
        let mut d = SoftClock::new(HwClock::new(0, 100_000));
        d.hw_jump(0, i64::MIN);
        d.step(0, i64::MIN);
        assert_eq!(d.read(0), i64::MIN);
        assert!(d.read(u64::MAX) < 0, "no overflow far in the future either");
    }
}
