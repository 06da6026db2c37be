//! Totally ordered multicast with Lamport clocks and acknowledgements, replicating the bank
//! account of Fig. 6.11.
//!
//! **Algorithm** (Tanenbaum & van Steen §6.2.1, "Exemplo: Multicast totalmente ordenado",
//! seed `000`): every update is multicast stamped with the sender's Lamport clock (and,
//! conceptually, sent to the sender itself). A receiver puts it in a local queue ordered by
//! `(timestamp, sender)` — the process-id tie break makes the order total — and multicasts an
//! acknowledgement. A process delivers the message at the head of its queue to the application
//! once every other process has acknowledged it. Because channels are FIFO and an
//! acknowledgement carries a clock above the message's, a process holding every acknowledgement
//! of the head can no longer receive a message with a lower stamp: all queues end up equal and
//! every replica applies the same updates in the same order (state machine replication).
//!
//! **Workload**: the replicated account of Fig. 6.11: it starts at $1000 (`initial_cents`),
//! a customer deposits $100 at one replica while the bank adds 1% interest at another.
//! Deposits add dollars; interest adds `balance * percent / 100` cents (rounded down).
//!
//! **Fault model**: the text assumes FIFO channels without loss; the reliable link layer
//! ([`super::link`]: sequence numbers, acknowledgements, retransmission, duplicate suppression)
//! provides them over loss, duplication, reordering and partitions. Pauses and clock drift and
//! jumps only delay retransmissions. No crashes: a crashed replica forgets its queue, and
//! every delivery waits for its acknowledgement.
//!
//! **Promises**: `total_order` (no two replicas deliver two updates in opposite orders) and
//! `replica_agreement` (the replicas end with the same balance after the same set of updates:
//! with the order, the same sequence).
//!
//! **Variant `unordered`** (buggy): each replica applies an update as soon as it has it — its
//! own at once, the others' on receipt. Fig. 6.11: San Francisco ends at $1111, New York at
//! $1110.

use super::clocks::{LamportClock, LamportStamp};
use super::link::{Link, Mode, Wire};
use super::DeliveredSet;
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::{Ctx, NodeId, Observation, Process, SimRng};
use std::collections::{BTreeMap, BTreeSet};

/// An update of the account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Input {
    /// Deposit (negative: withdraw) whole dollars.
    Deposit {
        /// Amount, dollars.
        dollars: i64,
    },
    /// Add interest.
    Interest {
        /// Rate, percent.
        percent: i64,
    },
}

/// The multicast layer's messages (carried by the reliable link).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    /// An update, stamped with the sender's Lamport clock.
    Update {
        /// Application id of the update.
        id: String,
        /// Lamport timestamp.
        ts: u64,
        /// The operation.
        op: Input,
    },
    /// "I have update `(ts, origin)` in my queue."
    Ack {
        /// The update's timestamp.
        ts: u64,
        /// The update's sender.
        origin: NodeId,
        /// The acknowledger's Lamport clock.
        clock: u64,
    },
}

/// Messages on the wire.
pub type Msg = Wire<Body>;

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Resend what the link has not had acknowledged.
    Retransmit,
}

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Initial balance, cents (0: $1000.00, as in Fig. 6.11).
    #[serde(default)]
    pub initial_cents: i64,
    /// Retransmission period of the link layer, local ms (0: derived from the latencies).
    #[serde(default)]
    pub retry_ms: u64,
    /// Number of replicas of the run: not a scenario parameter, [`TotalSpec`]'s `prepare`
    /// sets it from the scenario.
    #[serde(skip)]
    pub nodes: usize,
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "the textbook algorithm over reliable FIFO links";
        Unordered = "unordered" (buggy), "apply updates on receipt: Fig. 6.11's replicas end at $1111 and $1110";
    }
}

/// Renders cents as dollars: `$1111.00`.
pub fn dollars(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let c = cents.unsigned_abs();
    format!("{sign}${}.{:02}", c / 100, c % 100)
}

/// The largest balance, either sign, a replica may reach, cents: a balance past it would
/// saturate, and replicas that diverged could end saturated alike, so a workload that could
/// take it there is refused ([`balance_bound`]).
pub const MAX_BALANCE_CENTS: u128 = i64::MAX as u128;

/// An upper bound on the balance's magnitude over any order of `ops` from `initial_cents`,
/// cents (every deposit first, then every interest, at its rate's magnitude, each rounded up
/// by a cent); `None` past [`MAX_BALANCE_CENTS`].
pub fn balance_bound<'a>(
    initial_cents: i64,
    ops: impl IntoIterator<Item = &'a Input>,
) -> Option<u128> {
    let (mut deposits, mut rates) = (u128::from(initial_cents.unsigned_abs()), Vec::new());
    for op in ops {
        match op {
            Input::Deposit { dollars } => {
                deposits = deposits.checked_add(u128::from(dollars.unsigned_abs()) * 100)?;
            }
            Input::Interest { percent } => rates.push(u128::from(percent.unsigned_abs())),
        }
    }
    let mut bound = deposits;
    for rate in rates {
        bound = grow(bound, rate)?;
    }
    (bound <= MAX_BALANCE_CENTS).then_some(bound)
}

/// `bound` after an interest of `rate` percent (either sign), rounded up: `None` past
/// [`MAX_BALANCE_CENTS`].
fn grow(bound: u128, rate: u128) -> Option<u128> {
    let next = bound.checked_add(bound.checked_mul(rate)? / 100 + 1)?;
    (next <= MAX_BALANCE_CENTS).then_some(next)
}

/// Applies `op` to a balance (saturating; a scenario whose workload could saturate it is
/// refused, see [`balance_bound`]).
pub fn apply(balance: i64, op: &Input) -> i64 {
    let v = match op {
        Input::Deposit { dollars } => i128::from(balance) + i128::from(*dollars) * 100,
        Input::Interest { percent } => {
            let b = i128::from(balance);
            b + (b * i128::from(*percent)).div_euclid(100)
        }
    };
    v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// One replica.
#[derive(Debug)]
pub struct TotalOrder {
    variant: Variant,
    retry_ms: u64,
    clock: LamportClock,
    balance: i64,
    /// The updates applied, as a set ([`DeliveredSet`]).
    applied: DeliveredSet,
    sent: u64,
    link: Link<Body>,
    retransmitting: bool,
    queue: BTreeMap<LamportStamp, (String, Input)>,
    acks: BTreeMap<LamportStamp, BTreeSet<NodeId>>,
}

impl TotalOrder {
    /// Replica `id` of `n`.
    pub fn new(variant: Variant, id: NodeId, n: usize, initial_cents: i64, retry_ms: u64) -> Self {
        TotalOrder {
            variant,
            retry_ms: retry_ms.max(1),
            clock: LamportClock::new(id, 0),
            balance: initial_cents,
            applied: DeliveredSet::default(),
            sent: 0,
            link: Link::new(Mode::Fifo, n),
            retransmitting: false,
            queue: BTreeMap::new(),
            acks: BTreeMap::new(),
        }
    }

    fn send(&mut self, ctx: &mut Ctx<'_, Self>, to: NodeId, body: Body) {
        let wire = self.link.send(to, body);
        ctx.send(to, wire);
        if !self.retransmitting {
            self.retransmitting = true;
            ctx.set_timer_ms(self.retry_ms, Timer::Retransmit);
        }
    }

    fn multicast(&mut self, ctx: &mut Ctx<'_, Self>, body: Body) {
        let me = ctx.id();
        for to in 0..ctx.nodes() {
            if to != me {
                self.send(ctx, to, body.clone());
            }
        }
    }

    fn deliver(&mut self, ctx: &mut Ctx<'_, Self>, id: String, op: &Input) {
        self.balance = apply(self.balance, op);
        self.applied.add(&id);
        ctx.observe(Observation::Delivered { id });
        ctx.observe(Observation::State {
            value: self.state(),
        });
    }

    /// The replica's state as `replica_agreement` compares it: the balance, and the set of
    /// updates applied ([`DeliveredSet`]: a replica that skipped updates adding up to 0 ended
    /// with the others' balance and passed).
    fn state(&self) -> String {
        let mut value = dollars(self.balance);
        value.push_str(", ");
        self.applied.push_to(&mut value);
        value
    }

    /// A multicast update `(ts, origin)` is in hand: queue it and acknowledge it.
    fn enqueue(&mut self, ctx: &mut Ctx<'_, Self>, stamp: LamportStamp, id: String, op: Input) {
        let me = ctx.id();
        self.queue.insert(stamp, (id, op));
        let acks = self.acks.entry(stamp).or_default();
        acks.insert(stamp.pid);
        acks.insert(me);
        if stamp.pid != me {
            let clock = self.clock.tick().time;
            self.multicast(
                ctx,
                Body::Ack {
                    ts: stamp.time,
                    origin: stamp.pid,
                    clock,
                },
            );
        }
    }

    /// Delivers the head of the queue while every process has acknowledged it.
    fn deliver_ready(&mut self, ctx: &mut Ctx<'_, Self>) {
        while let Some((&head, _)) = self.queue.first_key_value() {
            if self.acks.get(&head).map_or(0, BTreeSet::len) < ctx.nodes() {
                return;
            }
            let (id, op) = self.queue.remove(&head).expect("the head exists");
            self.acks.remove(&head);
            self.deliver(ctx, id, &op);
        }
    }

    fn on_body(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, body: Body) {
        match body {
            Body::Update { id, ts, op } => {
                self.clock.receive(ts);
                match self.variant {
                    Variant::Unordered => self.deliver(ctx, id, &op),
                    Variant::Correct => {
                        let stamp = LamportStamp {
                            time: ts,
                            pid: from,
                        };
                        self.enqueue(ctx, stamp, id, op);
                    }
                }
            }
            Body::Ack { ts, origin, clock } => {
                self.clock.receive(clock);
                if self.variant == Variant::Correct {
                    let stamp = LamportStamp {
                        time: ts,
                        pid: origin,
                    };
                    self.acks.entry(stamp).or_default().insert(from);
                }
            }
        }
        self.deliver_ready(ctx);
    }
}

impl Process for TotalOrder {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        ctx.observe(Observation::State {
            value: self.state(),
        });
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        let (bodies, ack) = self.link.receive(from, msg);
        if let Some(ack) = ack {
            ctx.send(from, ack);
        }
        for body in bodies {
            self.on_body(ctx, from, body);
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        let Timer::Retransmit = timer;
        for (to, wire) in self.link.unacked() {
            ctx.send(to, wire);
        }
        self.retransmitting = self.link.pending();
        if self.retransmitting {
            ctx.set_timer_ms(self.retry_ms, Timer::Retransmit);
        }
    }

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, op: Input) {
        let me = ctx.id();
        self.sent += 1;
        let id = format!("n{me}.{}", self.sent);
        let stamp = self.clock.tick();
        self.multicast(
            ctx,
            Body::Update {
                id: id.clone(),
                ts: stamp.time,
                op: op.clone(),
            },
        );
        match self.variant {
            Variant::Unordered => self.deliver(ctx, id, &op),
            Variant::Correct => {
                self.enqueue(ctx, stamp, id, op);
                self.deliver_ready(ctx);
            }
        }
    }
}

/// `order.total`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct TotalSpec;

impl Spec for TotalSpec {
    type Node = TotalOrder;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "order.total"
    }
    fn summary(&self) -> &'static str {
        "totally ordered multicast: Lamport-stamped updates queued by (ts, pid), delivered when acked by all; the replicated bank account"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.2.1 (Fig. 6.11, \"Multicast totalmente ordenado\")"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["total_order", "replica_agreement"]
    }
    fn fault_model(&self) -> FaultModel {
        super::reliable_link_model(
            "reliable FIFO links built over loss, duplication, reordering and partitions; pauses, drift and jumps; no crashes (every delivery needs every replica's ack)",
        )
    }
    /// The account starts at $1000.00 and the link retransmits every round trip, unless the
    /// params say otherwise.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_nodes(setup)?;
        let retry = super::retry_ms(setup, setup.params.retry_ms);
        let n = setup.nodes();
        let p = &mut setup.params;
        if p.initial_cents == 0 {
            p.initial_cents = 100_000;
        }
        let ops: Vec<Input> = setup.inputs().map(|t| t.input).collect();
        let p = &mut setup.params;
        if balance_bound(p.initial_cents, &ops).is_none() {
            return Err(format!(
                "params.initial_cents = {} and the workload's deposits and interest could take \
                 the balance past ±{MAX_BALANCE_CENTS} cents, where it would saturate and \
                 replicas that diverged could end alike; use smaller amounts or fewer \
                 interest inputs",
                p.initial_cents
            ));
        }
        p.retry_ms = retry;
        p.nodes = n;
        Ok(())
    }
    fn node(&self, variant: Variant, params: &Params, id: NodeId) -> TotalOrder {
        TotalOrder::new(
            variant,
            id,
            params.nodes,
            params.initial_cents,
            params.retry_ms,
        )
    }
    /// Deposits of $1–500 and 1–5 % interest, half and half, at random replicas and times.
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        let count = rng.range_u64(2, 3 * nodes as u64);
        // The deposits' total and the interests' growth, bounded as `prepare` bounds them: an
        // interest that could take the default balance past half the limit is drawn as a
        // deposit of as many dollars instead (only in workloads of hundreds of inputs), so a
        // generated scenario is never refused.
        let (mut deposits, mut rates): (u128, Vec<u128>) = (100_000, Vec::new());
        let bound =
            |deposits: u128, rates: &[u128]| rates.iter().try_fold(deposits, |b, &r| grow(b, r));
        let mut items: Vec<Timed<Input>> = (0..count)
            .map(|_| {
                let input = if rng.chance(0.5) {
                    let dollars = rng.range_u64(1, 500);
                    deposits += u128::from(dollars) * 100;
                    Input::Deposit {
                        dollars: dollars as i64,
                    }
                } else {
                    let percent = rng.range_u64(1, 5);
                    rates.push(u128::from(percent));
                    if bound(deposits, &rates).is_some_and(|b| b <= MAX_BALANCE_CENTS / 2) {
                        Input::Interest {
                            percent: percent as i64,
                        }
                    } else {
                        rates.pop();
                        deposits += u128::from(percent) * 100;
                        Input::Deposit {
                            dollars: percent as i64,
                        }
                    }
                };
                Timed {
                    at_ms: rng.range_u64(0, active_ms),
                    node: rng.index(nodes),
                    input,
                }
            })
            .collect();
        items.sort_by_key(|w| w.at_ms);
        items
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        super::reliable_bound_ms(setup, setup.params.retry_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly, first_failing_seed};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, EventKind, Scenario};

    /// 50 nodes, 24 multicasts in 40 ms, no fault (the shrunk form of a campaign's `--nodes-max
    /// 60` seed 13): every multicast is acknowledged by every node to every node, about
    /// 5,000 messages each, and the default 100,000 messages in flight are reached at 254 ms.
    /// A generated scenario of 50 nodes allows 500,000 (`Limits::for_nodes`), and the run
    /// passes.
    #[test]
    fn a_burst_at_fifty_nodes_needs_more_in_flight_than_the_default() {
        let inputs: Vec<String> = [
            (198, 46),
            (198, 37),
            (200, 13),
            (200, 16),
            (201, 40),
            (206, 2),
            (207, 33),
            (209, 47),
            (210, 29),
            (211, 32),
            (212, 15),
            (214, 33),
            (215, 25),
            (217, 10),
            (220, 14),
            (222, 41),
            (223, 34),
            (224, 16),
            (227, 33),
            (228, 19),
            (228, 40),
            (233, 46),
            (236, 1),
            (236, 20),
        ]
        .iter()
        .map(|(at, node)| {
            format!(
                r#"{{"at_ms": {at}, "node": {node}, "input": {{"deposit": {{"dollars": 5}}}}}}"#
            )
        })
        .collect();
        let mut sc = Scenario::from_json(&format!(
            r#"{{"algorithm": "order.total", "nodes": 50, "seed": 13, "duration_ms": 2000,
                "network": {{"latency": {{"constant": {{"ms": 18}}}}}},
                "workload": [{}]}}"#,
            inputs.join(",")
        ))
        .unwrap();
        let alg = find("order.total").unwrap();
        let out = alg.run(&sc, RunOptions::new(false)).unwrap();
        assert_eq!(out.verdict.label(), "limit_exceeded", "{}", out.verdict);
        sc.limits = sincro_harness::scenario::Limits::for_nodes(50);
        assert_eq!(sc.limits.max_in_flight, 500_000);
        let out = alg.run(&sc, RunOptions::new(false)).unwrap();
        assert_eq!(
            out.verdict,
            sincro_harness::Verdict::Pass,
            "{}",
            out.verdict
        );
    }

    #[test]
    fn money() {
        assert_eq!(dollars(111_100), "$1111.00");
        assert_eq!(dollars(-5), "-$0.05");
        let sf = apply(
            apply(100_000, &Input::Deposit { dollars: 100 }),
            &Input::Interest { percent: 1 },
        );
        let ny = apply(
            apply(100_000, &Input::Interest { percent: 1 }),
            &Input::Deposit { dollars: 100 },
        );
        assert_eq!((sf, ny), (111_100, 111_000));
        assert_eq!(apply(i64::MAX, &Input::Interest { percent: 100 }), i64::MAX);
    }

    /// Fig. 6.11: San Francisco (node 0) deposits $100 while New York (node 1) adds 1%. The
    /// run lasts past the 740 ms within which an update reaches every replica, so diverged
    /// replicas are judged.
    pub(crate) fn bank(variant: &str, properties: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "order.total", "variant": "{variant}", "nodes": 2, "seed": 611,
                "duration_ms": 800, "network": {{"latency": {{"constant": {{"ms": 10}}}}}},
                "checks": {{"properties": {properties}}},
                "workload": [{{"at_ms": 10, "node": 0, "input": {{"deposit": {{"dollars": 100}}}}}},
                             {{"at_ms": 10, "node": 1, "input": {{"interest": {{"percent": 1}}}}}}]}}"#
        ))
        .unwrap()
    }

    fn final_states(sc: &Scenario) -> (Vec<String>, String) {
        let out = find("order.total")
            .unwrap()
            .run(sc, RunOptions::default())
            .unwrap();
        let mut last = vec![String::new(); sc.nodes];
        for e in out.trace.unwrap().events() {
            if let EventKind::Observe {
                obs: Observation::State { value },
            } = &e.kind
            {
                last[e.node.unwrap()] = value.clone();
            }
        }
        (last, out.verdict.label())
    }

    #[test]
    fn fig_6_11_unordered_replicas_end_at_1111_and_1110() {
        let (s, v) = final_states(&bank("unordered", r#"["replica_agreement"]"#));
        let balances: Vec<&str> = s.iter().map(|s| s.split(',').next().unwrap()).collect();
        assert_eq!(balances, vec!["$1111.00", "$1110.00"]);
        // the same set of updates, in another order
        assert_eq!(
            s[0].split_once(", ").unwrap().1,
            s[1].split_once(", ").unwrap().1
        );
        assert_eq!(v, "violation:replica_agreement");
        let (_, v) = final_states(&bank(
            "unordered",
            r#"["total_order", "replica_agreement"]"#,
        ));
        assert_eq!(v, "violation:total_order");
    }

    #[test]
    fn fig_6_11_ordered_replicas_agree() {
        let (s, v) = final_states(&bank("correct", r#"["total_order", "replica_agreement"]"#));
        // equal stamps (1, 0) < (1, 1): the deposit first, everywhere
        assert_eq!(s[0], s[1]);
        assert!(s[0].starts_with("$1111.00, 2 delivered, set "), "{}", s[0]);
        assert_eq!(v, "pass");
    }

    /// A balance that could saturate is refused: both of Fig. 6.11's diverging replicas ended
    /// at the same saturated $92233720368547758.07 and the unordered variant passed.
    #[test]
    fn a_workload_that_could_saturate_the_balance_is_refused() {
        let alg = find("order.total").unwrap();
        let mut sc = bank("unordered", r#"["replica_agreement"]"#);
        sc.params = serde_json::json!({"initial_cents": 9_223_372_036_854_775_000_i64});
        let e = alg.run(&sc, RunOptions::new(false)).expect_err("refused").0;
        assert!(e.contains("saturate"), "{e}");
        // The largest start that the 1 % interest and the $100 deposit cannot saturate runs.
        let mut ops = [
            Input::Deposit { dollars: 100 },
            Input::Interest { percent: 1 },
        ];
        let fits = (i64::MAX / 102) as u128;
        assert!(balance_bound(fits as i64, &ops).is_some());
        assert!(balance_bound(i64::MAX / 100 * 100, &ops).is_none());
        ops[1] = Input::Interest { percent: i64::MIN };
        assert!(
            balance_bound(1, &ops).is_none(),
            "a rate of i64::MIN does not wrap"
        );
        sc.params = serde_json::json!({"initial_cents": -(fits as i64)});
        assert!(alg.run(&sc, RunOptions::new(false)).is_ok());
        // Generated workloads stay within the bound, even of a thousand replicas' inputs.
        for seed in 0..5 {
            let mut rng = SimRng::new(seed);
            let ops: Vec<Input> = TotalSpec
                .workload(&mut rng, 1_000, 10_000)
                .into_iter()
                .map(|t| t.input)
                .collect();
            assert!(ops.len() > 100);
            assert!(balance_bound(100_000, &ops).is_some(), "seed {seed}");
        }
    }

    #[test]
    fn replays_exactly() {
        assert_replays_exactly("order.total", &["correct", "unordered"], 3);
    }

    #[test]
    fn in_model_fuzzing_passes() {
        assert_in_model_passes("order.total", "correct", 200, EngineKind::Native);
        assert_in_model_passes("order.total", "correct", 10, EngineKind::Turmoil);
    }

    #[test]
    fn unordered_is_found() {
        assert!(first_failing_seed("order.total", "unordered", 200, EngineKind::Native).is_some());
    }
}
