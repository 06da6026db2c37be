//! The sample selection shared by the client–server exchanges of `clock.cristian` and
//! `clock.ntp-peers` (Tanenbaum & van Steen §6.1.3, Fig. 6.6, seed `000`).
//!
//! A reply to a request stamped T1 (client clock), received at T2 and answered at T3 (server
//! clock), arriving at T4 (client clock), gives one [`Sample`]: the offset θ and the delay δ.
//! A [`Filter`] (NTP's clock filter) keeps the last few samples of one server or peer;
//! [`Filter::record`] is the whole step both algorithms take on a reply: discard a sample
//! slower than the largest plausible delay (the server was paused or a clock jumped during the
//! round trip), keep it, and give the correction to make now: the θ of the least δ, measured
//! on the raw clock so that the node's own earlier corrections do not corrupt older samples.
//! Applying it (step forward, slew back) is [`super::correct`].

use super::Corrects;
use sincro_harness::Ctx;
use std::collections::VecDeque;

/// One offset measurement of the client–server exchange (Fig. 6.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// δ = ((T2 − T1) + (T4 − T3)) / 2, ns.
    pub delay_ns: i64,
    /// θ = ((T2 − T1) + (T3 − T4)) / 2 plus the correction applied at T4: the offset of the
    /// raw clock, still valid after later corrections.
    pub raw_offset_ns: i64,
}

impl Sample {
    /// θ and δ from T1..T4 (T1, T4 on the client's clock, T2, T3 on the server's), with the
    /// client's applied correction at T4.
    pub fn new(t1: i64, t2: i64, t3: i64, t4: i64, applied_ns: i64) -> Sample {
        Sample {
            delay_ns: ((t2 - t1) + (t4 - t3)) / 2,
            raw_offset_ns: ((t2 - t1) + (t3 - t4)) / 2 + applied_ns,
        }
    }
}

/// NTP's clock filter: the last `keep` samples, and the offset of the one with the least
/// delay (the latest one on a tie).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    samples: VecDeque<Sample>,
}

impl Filter {
    /// Adds a sample (a negative delay, only possible when a clock jumped during the round
    /// trip, is dropped), keeping the last `keep`.
    pub fn push(&mut self, s: Sample, keep: usize) {
        if s.delay_ns < 0 {
            return;
        }
        self.samples.push_back(s);
        while self.samples.len() > keep.max(1) {
            self.samples.pop_front();
        }
    }

    /// The sample of least delay.
    pub fn best(&self) -> Option<Sample> {
        self.samples
            .iter()
            .rev()
            .min_by_key(|s| s.delay_ns)
            .copied()
    }

    /// The correction to make on a clock whose applied correction is now `applied_ns`: the θ
    /// of the least δ, as it stands on the corrected clock (`None` while the filter is empty).
    pub fn correction(&self, applied_ns: i64) -> Option<i64> {
        self.best().map(|best| best.raw_offset_ns - applied_ns)
    }

    /// Records the reply that arrives now to a request stamped `t1` (received at `t2`,
    /// answered at `t3` on the server's clock): a sample whose delay exceeds `max_delay_ns`
    /// is discarded (`None`); otherwise it is kept (see [`Filter::push`], the last `keep`) and
    /// the result is the [`Filter::correction`] to make now.
    pub fn record<P: Corrects>(
        &mut self,
        ctx: &Ctx<'_, P>,
        (t1, t2, t3): (i64, i64, i64),
        keep: usize,
        max_delay_ns: i64,
    ) -> Option<i64> {
        let t4 = ctx.now();
        let applied = ctx.stable().applied(t4);
        self.record_at(
            Sample::new(t1, t2, t3, t4, applied),
            applied,
            keep,
            max_delay_ns,
        )
    }

    /// [`Filter::record`] of a sample measured with `applied_ns` already applied.
    fn record_at(
        &mut self,
        sample: Sample,
        applied_ns: i64,
        keep: usize,
        max_delay_ns: i64,
    ) -> Option<i64> {
        if sample.delay_ns > max_delay_ns {
            return None;
        }
        self.push(sample, keep);
        self.correction(applied_ns)
    }
}

/// `max_delay_ms` of a parameter block in ns.
pub fn max_delay_ns(max_delay_ms: u64) -> i64 {
    (max_delay_ms * 1_000_000) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(delay_ns: i64, raw_offset_ns: i64) -> Sample {
        Sample {
            delay_ns,
            raw_offset_ns,
        }
    }

    #[test]
    fn theta_and_delta_of_fig_6_6() {
        // A's clock is 5 behind B's; 3 there, 1 of processing, 7 back.
        let s = Sample::new(100, 108, 109, 111, 0);
        assert_eq!(s.delay_ns, (8 + 2) / 2);
        assert_eq!(s.raw_offset_ns, (8 - 2) / 2);
        // the correction applied at T4 is added: θ on the raw clock
        assert_eq!(Sample::new(100, 108, 109, 111, 40).raw_offset_ns, 3 + 40);
    }

    #[test]
    fn the_filter_keeps_eight_and_picks_the_least_delay() {
        let mut f = Filter::default();
        for (d, o) in [(9, 1), (2, 7), (5, 3)] {
            f.push(s(d, o), 8);
        }
        assert_eq!(f.best().unwrap().raw_offset_ns, 7);
        for k in 0..8 {
            f.push(s(4, k), 8);
        }
        // the δ = 2 sample aged out; among equal delays the latest wins
        assert_eq!(f.best().unwrap().raw_offset_ns, 7);
        assert_eq!(f.samples.len(), 8);
    }

    #[test]
    fn negative_delays_are_dropped_and_keep_is_at_least_one() {
        let mut f = Filter::default();
        assert_eq!(f.best(), None);
        f.push(s(-1, 5), 0);
        assert_eq!(f.best(), None);
        f.push(s(3, 1), 0);
        f.push(s(4, 2), 0);
        assert_eq!(f.samples.len(), 1);
        assert_eq!(f.best(), Some(s(4, 2)));
    }

    #[test]
    fn record_discards_slow_samples_and_corrects_by_the_least_delay() {
        let mut f = Filter::default();
        // too slow: discarded, no correction
        assert_eq!(f.record_at(s(11, 100), 0, 8, 10), None);
        assert_eq!(f.best(), None);
        // at the limit: kept; the correction is θ minus what is already applied
        assert_eq!(f.record_at(s(10, 100), 30, 8, 10), Some(70));
        // a slower sample is kept but the least δ still decides
        assert_eq!(f.record_at(s(8, 50), 30, 8, 10), Some(20));
        assert_eq!(f.record_at(s(9, 0), 30, 8, 10), Some(20));
        // a negative δ (a clock jumped) is not kept, yet the best so far still corrects
        assert_eq!(f.record_at(s(-1, 999), 10, 8, 10), Some(40));
        assert_eq!(f.samples.len(), 3);
    }

    #[test]
    fn max_delay_in_ns() {
        assert_eq!(max_delay_ns(0), 0);
        assert_eq!(max_delay_ns(6), 6_000_000);
    }
}
