//! A lease-based primary, as a user of Sincro would write one: the algorithm, its description
//! for Sincro ([`LeasePrimary`]) and its own property ([`AtMostOnePrimary`]) in one file.
//!
//! **Algorithm.** A node that knows no primary asks every node for a lease of `lease_ms`
//! (round `r`, sent at local time `t0`). A node grants it when it has promised nothing to
//! anyone else, and promises, in stable storage, to grant no one else for `lease_ms` from
//! the moment it received the request. With grants from a majority (its own included) the
//! candidate acts as primary until `t0 + lease_ms × (1 − margin)` on its own clock, renewing
//! every tick. Two majorities share a node, and that node's promises do not overlap, so two
//! primaries never act at once.
//!
//! **Fault model.** Partitions, crashes with restart (promises and rounds are in stable
//! storage), loss, duplication, reordering, clock drift. Not pauses (a paused primary cannot
//! step down in time: the classic stop-the-world pause) nor clock jumps (a lease is a
//! duration on a clock).
//!
//! **Variant `no-step-down`** (buggy): the primary keeps acting when its lease runs out. Cut
//! off by a partition or by lost renewals, the old primary goes on beside the new one: split
//! brain, which [`AtMostOnePrimary`] catches.

use serde::{Deserialize, Serialize};
use sincro::algorithms::spec::{Setup, Spec, Timed};
use sincro::harness::fault::{FaultClass, FaultModel};
use sincro::harness::trace::{Event, EventKind};
use sincro::harness::{
    Checker, Ctx, Fault, Interest, NodeId, Observation, Process, PropertyClass, Violation,
};
use std::collections::BTreeMap;

sincro::algorithms::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "steps down when its lease runs out";
        NoStepDown = "no-step-down" (buggy), "keeps acting after its lease runs out: split brain";
    }
}

/// Parameters (`params` of a scenario).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Length of a lease, local ms.
    pub lease_ms: u64,
    /// Period of asks and renewals, local ms (node `i` waits `tick_ms + 7 i`).
    pub tick_ms: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            lease_ms: 100,
            tick_ms: 30,
        }
    }
}

/// Messages.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Msg {
    /// May I be primary (round `r`)?
    Ask(u64),
    /// Yes, for round `r`.
    Grant(u64),
}

/// Timers.
#[derive(Clone, Debug)]
pub enum Timer {
    /// Time to ask, or to renew.
    Tick,
    /// The lease may have run out.
    Expire,
}

/// What survives a crash.
#[derive(Clone, Debug, Default)]
pub struct Stable {
    /// Promised to this node until this local time, ns.
    promise: Option<(NodeId, i64)>,
    /// Last round asked.
    round: u64,
}

/// One node.
pub struct Node {
    variant: Variant,
    params: Params,
    /// Open rounds: when each was asked, and who granted it.
    asks: BTreeMap<u64, (i64, Vec<NodeId>)>,
    /// Acting as primary until this local time, ns.
    lease_end: Option<i64>,
}

const NS_PER_MS: i64 = 1_000_000;

impl Node {
    fn lease_ns(&self) -> i64 {
        self.params.lease_ms as i64 * NS_PER_MS
    }

    /// Promises `to` (when free, or already promised to it) until `lease_ms` from now.
    fn promise(&self, ctx: &mut Ctx<'_, Self>, to: NodeId) -> bool {
        let now = ctx.now();
        let free = match ctx.stable().promise {
            Some((holder, until)) => holder == to || until <= now,
            None => true,
        };
        if free {
            ctx.stable_mut().promise = Some((to, now + self.lease_ns()));
        }
        free
    }
}

impl Process for Node {
    type Msg = Msg;
    type Timer = Timer;
    type Input = ();
    type Stable = Stable;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        let tick = self.params.tick_ms + 7 * ctx.id() as u64;
        ctx.set_timer_ms(tick, Timer::Tick);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::Tick => {
                let me = ctx.id();
                if self.promise(ctx, me) {
                    let round = ctx.stable().round + 1;
                    ctx.stable_mut().round = round;
                    self.asks.insert(round, (ctx.now(), vec![me]));
                    self.asks.retain(|&r, _| r + 4 > round);
                    ctx.broadcast(Msg::Ask(round));
                }
                let tick = self.params.tick_ms + 7 * me as u64;
                ctx.set_timer_ms(tick, Timer::Tick);
            }
            Timer::Expire => match self.lease_end {
                Some(end) if end <= ctx.now() && self.variant == Variant::Correct => {
                    self.lease_end = None;
                    ctx.observe(Observation::user("primary_off", ()));
                }
                _ => {}
            },
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Ask(round) => {
                if self.promise(ctx, from) {
                    ctx.send(from, Msg::Grant(round));
                }
            }
            Msg::Grant(round) => {
                let lease_ns = self.lease_ns();
                let Some((t0, granted)) = self.asks.get_mut(&round) else {
                    return;
                };
                if !granted.contains(&from) {
                    granted.push(from);
                }
                let end = *t0 + lease_ns * 9 / 10;
                if 2 * granted.len() <= ctx.nodes() || end <= ctx.now() {
                    return;
                }
                if self.lease_end.is_none() {
                    ctx.observe(Observation::user("primary_on", ()));
                }
                if self.lease_end.is_none_or(|e| e < end) {
                    self.lease_end = Some(end);
                    ctx.set_timer_at(end, Timer::Expire);
                }
            }
        }
    }
}

/// `demo.lease-primary`: the algorithm's description for Sincro.
#[derive(Clone, Copy, Debug, Default)]
pub struct LeasePrimary;

impl Spec for LeasePrimary {
    type Node = Node;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "demo.lease-primary"
    }
    fn summary(&self) -> &'static str {
        "a primary holds a majority lease and steps down when it runs out"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec![AT_MOST_ONE_PRIMARY]
    }
    fn fault_model(&self) -> FaultModel {
        use FaultClass::*;
        FaultModel {
            tolerates: vec![Partitions, Crashes, Loss, Duplication, Reordering, ClockDrift],
            summary: "partitions, crashes with restart, loss, duplication, reordering, drift; not pauses or clock jumps",
            ..FaultModel::default()
        }
    }
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        let p = &setup.params;
        if p.lease_ms == 0 || p.lease_ms > 3_600_000 || p.tick_ms == 0 || p.tick_ms >= p.lease_ms {
            return Err("params: need 0 < tick_ms < lease_ms <= 3600000".into());
        }
        Ok(())
    }
    fn node(&self, variant: Variant, params: &Params, _id: NodeId) -> Node {
        Node {
            variant,
            params: params.clone(),
            asks: BTreeMap::new(),
            lease_end: None,
        }
    }
    fn workload(&self, _: &mut sincro::harness::SimRng, _: usize, _: u64) -> Vec<Timed<()>> {
        Vec::new()
    }
    fn checker(
        &self,
        property: &str,
        _: &Setup<'_, Self>,
        _: u64,
    ) -> Result<Option<Box<dyn Checker>>, String> {
        Ok((property == AT_MOST_ONE_PRIMARY).then(|| Box::new(AtMostOnePrimary::default()) as _))
    }
}

/// The property [`AtMostOnePrimary`] checks.
pub const AT_MOST_ONE_PRIMARY: &str = "at_most_one_primary";

/// At no instant do two nodes act as primary (`primary_on` … `primary_off`, or a crash).
///
/// Nothing orders two nodes' events of one instant, so an instant is judged as a set, once
/// it closes: a `primary_off` (or a crash) of one node and a `primary_on` of another at one
/// instant are a hand-over, whichever line comes first; two nodes acting after an instant,
/// or one that is on and off within an instant while another acts across it, are a
/// violation. (Judged line by line, swapping two lines of one instant turned a hand-over
/// into a split brain.)
#[derive(Debug, Default)]
pub struct AtMostOnePrimary {
    /// The nodes acting as primary before the current instant, with the event where each
    /// began.
    acting: BTreeMap<NodeId, u64>,
    /// The current instant's time and its changes, in line order: `(node, event, on)`.
    instant: Option<u64>,
    changes: Vec<(NodeId, u64, bool)>,
}

impl AtMostOnePrimary {
    /// Applies the closing instant's changes (each node's in its own order) and judges it.
    fn close_instant(&mut self) -> Result<(), Violation> {
        let Some(t_ns) = self.instant.take() else {
            return Ok(());
        };
        let before = self.acting.clone();
        let mut momentary: Option<(NodeId, u64)> = None;
        for (node, id, on) in std::mem::take(&mut self.changes) {
            if on {
                self.acting.entry(node).or_insert(id);
            } else if let Some(since) = self.acting.remove(&node) {
                if !before.contains_key(&node) {
                    momentary.get_or_insert((node, since));
                }
            }
        }
        let violation = |a: (NodeId, u64), b: (NodeId, u64)| Violation {
            property: AT_MOST_ONE_PRIMARY.into(),
            class: PropertyClass::Safety,
            explanation: format!("node {} acts as primary while node {} still does", b.0, a.0),
            t_ns,
            events: vec![a.1, b.1],
        };
        let mut after = self.acting.iter().map(|(&n, &id)| (n, id));
        if let (Some(a), Some(b)) = (after.next(), after.next()) {
            // the one that began last is blamed
            return Err(if a.1 < b.1 {
                violation(a, b)
            } else {
                violation(b, a)
            });
        }
        if let Some(m) = momentary {
            // acting across the instant: before it and after it
            if let Some((&n, &id)) = self.acting.iter().find(|(n, _)| before.contains_key(n)) {
                return Err(violation((n, id), m));
            }
        }
        Ok(())
    }
}

impl Checker for AtMostOnePrimary {
    fn property(&self) -> &'static str {
        AT_MOST_ONE_PRIMARY
    }

    /// A trace with no `primary_on` judged nothing: `check` says so instead of PASS.
    fn evidence(&self) -> &'static [&'static str] {
        &["primary_on"]
    }

    /// It reads observations and faults (crashes, restarts): the engines need not pass it
    /// the sends, deliveries and timers that are most of a run.
    fn interest(&self) -> Interest {
        Interest::OBSERVE.or(Interest::FAULT)
    }

    /// The first event of a later instant closes an open one, whatever its kind; with none
    /// open, nothing waits for time. (`sincro check` and `sincro::testing::check` judge
    /// traces both ways, every event passed and only these, and fail a checker whose
    /// verdict differs.)
    fn wake_at_ns(&self) -> u64 {
        self.instant.map_or(u64::MAX, |t| t.saturating_add(1))
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if self.instant.is_some_and(|t| t != ev.t_ns) {
            self.close_instant()?;
        }
        let change = match &ev.kind {
            EventKind::Observe { obs } => match (obs.as_user(), ev.node) {
                (Some(("primary_on", _)), Some(n)) => Some((n, true)),
                (Some(("primary_off", _)), Some(n)) => Some((n, false)),
                _ => None,
            },
            // A restart of a running node reboots it (no `Crash` comes first): it forgets its
            // lease as a crashed one does.
            EventKind::Fault {
                fault: Fault::Crash { node: n } | Fault::Restart { node: n },
            } => Some((*n, false)),
            _ => None,
        };
        if let Some((node, on)) = change {
            self.instant = Some(ev.t_ns);
            self.changes.push((node, ev.id, on));
        }
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        self.close_instant()
    }
}
