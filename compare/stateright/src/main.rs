//! `mutex.ricart-agrawala` (correct and `no-tiebreak`) at n = 3, written as a stateright
//! [`Model`], to compare stateright's BFS with `sincro explore --untimed` on the same
//! configuration: the scenario files `ra3.json` and `ra3-no-tiebreak.json` next to this crate
//! (3 nodes, one `acquire` each: node 0 at 1 ms holding 3 ms, node 1 at 2 ms holding 4 ms,
//! node 2 at 12 ms holding 5 ms; links FIFO with a minimum latency of 5 ms).
//!
//! **The processes** are a port of `algorithms/src/mutex/ricart_agrawala.rs` (seed `000`
//! §6.3.4): Lamport-stamped requests to all, the lowest `(clock, id)` wins, deferred OKs sent
//! on leaving; `no-tiebreak` compares clocks only and answers OK on a tie. The fields only the
//! fault-tolerant variants use (`answered`, `unanswered`, `dead`) are left out.
//!
//! **The nondeterminism** is the one of sincro's explorer under untimed semantics
//! (`harness/src/engine/explore.rs`), ported rule by rule: a message is deliverable from
//! `sent + 5 ms` on, with no latest time, and only as the oldest in flight on its link (FIFO);
//! workload inputs happen at their time and timers at their deadline; nothing may be taken
//! later than the *horizon* (the earliest pending input or timer, or the scenario's end);
//! taking an event moves time to `max(now, earliest)`; at one instant an event waits for every
//! input or timer pushed before it and due by then (the native engine's queue order; messages
//! never block, as their window reaches past any instant). The state holds time, the
//! processes, and the pending messages and timers in push order (sincro's fingerprint holds
//! the same push order).
//!
//! **The property** is `mutual_exclusion` as an `always` over states: at most one node holds.
//! sincro's checker judges the events of one instant together and reports an overlap at the
//! next event; in this configuration no node can leave at the instant it entered (holds are
//! 3 to 5 ms), so the two judge the same runs. Liveness is not checked here.
//!
//! **States**: by default a state is what the processes hold (clock, request, deferred list)
//! plus the network; with `--history` each node also keeps the list of the events it took with
//! their times, which is what sincro fingerprints (its processes cannot be cloned or hashed,
//! so it hashes their event histories instead). With `--history` the unique state counts equal
//! sincro's without sleep sets (`--no-sleep-sets`; measured, see the README's "Compared with
//! stateright").

use stateright::{Checker, Model, Property};
use std::collections::BTreeSet;
use std::time::Instant;

const NS_PER_MS: u64 = 1_000_000;
/// The links' minimum latency (the scenarios' `exponential.min_ms`).
const MIN_LATENCY_NS: u64 = 5 * NS_PER_MS;
/// The scenarios' `duration_ms`.
const END_NS: u64 = 435 * NS_PER_MS;
/// Node count.
const N: usize = 3;

/// Which behaviour (the two variants of `mutex.ricart-agrawala`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Variant {
    Correct,
    NoTiebreak,
}

/// A message (the non-fault-tolerant subset of sincro's `Msg`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Msg {
    Request { clock: u64 },
    Ok { clock: u64 },
}

/// A process's request state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Req {
    Released,
    Wanted {
        /// `(clock, id)`.
        stamp: (u64, usize),
        hold_ms: u64,
        oks: BTreeSet<usize>,
    },
    Held,
}

/// What a node took, with the global time (the `--history` part of a state).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Event {
    Input(u64),
    Deliver(u64, usize, Msg),
    Timer(u64),
}

/// One Ricart–Agrawala process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Node {
    clock: u64,
    req: Req,
    /// Requests to answer on leaving: `(node, their clock)`.
    deferred: Vec<(usize, u64)>,
    /// Hold times of acquires that came while busy.
    backlog: Vec<u64>,
    history: Vec<Event>,
}

/// A pending message or timer, in the push order of the native engine's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pending {
    Msg {
        from: usize,
        to: usize,
        msg: Msg,
        earliest: u64,
    },
    /// `HoldDone` of `node` at global time `at`.
    Timer { node: usize, at: u64 },
}

/// The global state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    now: u64,
    nodes: Vec<Node>,
    pending: Vec<Pending>,
    inputs_done: Vec<bool>,
}

/// One choice, as sincro names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Action {
    /// Workload input `i`.
    Input(usize),
    /// The oldest message in flight from `.0` to `.1` is delivered.
    Deliver(usize, usize),
    /// The `HoldDone` timer of a node fires.
    Timer(usize),
}

/// The model: a variant, the workload `(at_ns, node, hold_ms)`, and whether states keep
/// histories.
struct Ra {
    variant: Variant,
    inputs: Vec<(u64, usize, u64)>,
    history: bool,
}

/// Side effects of one callback, applied in program order (as sincro's ops).
enum Op {
    Send(usize, Msg),
    Timer(u64),
}

impl Ra {
    fn request(&self, node: &mut Node, me: usize, hold_ms: u64, ops: &mut Vec<Op>) {
        node.clock += 1;
        let clock = node.clock;
        node.req = Req::Wanted {
            stamp: (clock, me),
            hold_ms,
            oks: BTreeSet::new(),
        };
        for to in (0..N).filter(|&p| p != me) {
            ops.push(Op::Send(to, Msg::Request { clock }));
        }
        self.maybe_enter(node, ops);
    }

    fn maybe_enter(&self, node: &mut Node, ops: &mut Vec<Op>) {
        if let Req::Wanted { hold_ms, oks, .. } = &node.req {
            if oks.len() == N - 1 {
                let hold_ms = *hold_ms;
                node.req = Req::Held;
                ops.push(Op::Timer(hold_ms));
            }
        }
    }

    /// True when a request stamped `theirs` must wait.
    fn defer(&self, node: &Node, theirs: (u64, usize)) -> bool {
        match &node.req {
            Req::Released => false,
            Req::Held => true,
            Req::Wanted { stamp, .. } => match self.variant {
                Variant::Correct => *stamp < theirs,
                // The bug: a tie counts as "theirs is not higher", so both sides yield.
                Variant::NoTiebreak => stamp.0 < theirs.0,
            },
        }
    }

    fn on_input(&self, node: &mut Node, me: usize, hold_ms: u64, ops: &mut Vec<Op>) {
        if node.req == Req::Released {
            self.request(node, me, hold_ms, ops);
        } else {
            node.backlog.push(hold_ms);
        }
    }

    fn on_message(&self, node: &mut Node, from: usize, msg: Msg, ops: &mut Vec<Op>) {
        match msg {
            Msg::Request { clock: theirs } => {
                node.clock = node.clock.max(theirs) + 1;
                if self.defer(node, (theirs, from)) {
                    if !node.deferred.contains(&(from, theirs)) {
                        node.deferred.push((from, theirs));
                    }
                } else {
                    node.clock += 1;
                    ops.push(Op::Send(from, Msg::Ok { clock: node.clock }));
                }
            }
            Msg::Ok { clock } => {
                node.clock = node.clock.max(clock) + 1;
                if let Req::Wanted { oks, .. } = &mut node.req {
                    oks.insert(from);
                }
                self.maybe_enter(node, ops);
            }
        }
    }

    fn on_hold_done(&self, node: &mut Node, me: usize, ops: &mut Vec<Op>) {
        assert_eq!(node.req, Req::Held, "hold timer while not holding");
        node.req = Req::Released;
        node.clock += 1;
        let clock = node.clock;
        for (to, _) in std::mem::take(&mut node.deferred) {
            ops.push(Op::Send(to, Msg::Ok { clock }));
        }
        if !node.backlog.is_empty() {
            let hold_ms = node.backlog.remove(0);
            self.request(node, me, hold_ms, ops);
        }
    }

    /// The horizon: nothing is taken later than a pending input or timer, or the end.
    fn horizon(&self, s: &State) -> u64 {
        let mut h = END_NS;
        for (i, &(at, ..)) in self.inputs.iter().enumerate() {
            if !s.inputs_done[i] {
                h = h.min(at);
            }
        }
        for p in &s.pending {
            if let Pending::Timer { at, .. } = p {
                h = h.min(*at);
            }
        }
        h
    }

    /// When pending entry `k` would happen.
    fn instant(&self, s: &State, k: usize) -> u64 {
        match s.pending[k] {
            Pending::Msg { earliest, .. } => earliest.max(s.now),
            Pending::Timer { at, .. } => at.max(s.now),
        }
    }

    /// True when an input or a timer pushed before entry `k` (every input is pushed before
    /// anything else) is due by `t`: the native engine pops it first.
    fn blocked(&self, s: &State, k: usize, t: u64) -> bool {
        let input_due = self
            .inputs
            .iter()
            .enumerate()
            .any(|(i, &(at, ..))| !s.inputs_done[i] && at <= t);
        input_due
            || s.pending[..k]
                .iter()
                .any(|p| matches!(p, Pending::Timer { at, .. } if *at <= t))
    }
}

impl Model for Ra {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        let node = Node {
            clock: 0,
            req: Req::Released,
            deferred: Vec::new(),
            backlog: Vec::new(),
            history: Vec::new(),
        };
        vec![State {
            now: 0,
            nodes: vec![node; N],
            pending: Vec::new(),
            inputs_done: vec![false; self.inputs.len()],
        }]
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        if self.violated(s) {
            return; // sincro ends a path at its violation
        }
        let horizon = self.horizon(s);
        for (i, &(at, ..)) in self.inputs.iter().enumerate() {
            // inputs are pushed in order, each blocks the later ones
            let earlier_pending = (0..i).any(|j| !s.inputs_done[j]);
            if !s.inputs_done[i] && at.max(s.now) <= horizon && !earlier_pending {
                actions.push(Action::Input(i));
            }
        }
        for k in 0..s.pending.len() {
            if let Pending::Msg { from, to, .. } = s.pending[k] {
                // FIFO link: only the oldest in flight
                let older = s.pending[..k].iter().any(
                    |p| matches!(p, Pending::Msg { from: f, to: t, .. } if *f == from && *t == to),
                );
                if older {
                    continue;
                }
            }
            let t = self.instant(s, k);
            if t <= horizon && !self.blocked(s, k, t) {
                actions.push(match s.pending[k] {
                    Pending::Msg { from, to, .. } => Action::Deliver(from, to),
                    Pending::Timer { node, .. } => Action::Timer(node),
                });
            }
        }
    }

    fn next_state(&self, s: &State, action: Action) -> Option<State> {
        let mut s = s.clone();
        let mut ops = Vec::new();
        let me;
        match action {
            Action::Input(i) => {
                let (at, node, hold_ms) = self.inputs[i];
                s.now = at.max(s.now);
                s.inputs_done[i] = true;
                me = node;
                let n = &mut s.nodes[me];
                if self.history {
                    n.history.push(Event::Input(s.now));
                }
                self.on_input(n, me, hold_ms, &mut ops);
            }
            Action::Deliver(..) | Action::Timer(_) => {
                let k = s
                    .pending
                    .iter()
                    .position(|p| match (*p, action) {
                        (Pending::Msg { from, to, .. }, Action::Deliver(f, t)) => {
                            from == f && to == t
                        }
                        (Pending::Timer { node, .. }, Action::Timer(n)) => node == n,
                        _ => false,
                    })
                    .expect("an enabled action names a pending entry");
                s.now = self.instant(&s, k);
                match s.pending.remove(k) {
                    Pending::Msg { from, to, msg, .. } => {
                        me = to;
                        let n = &mut s.nodes[me];
                        if self.history {
                            n.history.push(Event::Deliver(s.now, from, msg));
                        }
                        self.on_message(n, from, msg, &mut ops);
                    }
                    Pending::Timer { node, .. } => {
                        me = node;
                        let n = &mut s.nodes[me];
                        if self.history {
                            n.history.push(Event::Timer(s.now));
                        }
                        self.on_hold_done(n, me, &mut ops);
                    }
                }
            }
        }
        for op in ops {
            match op {
                Op::Send(to, msg) => s.pending.push(Pending::Msg {
                    from: me,
                    to,
                    msg,
                    earliest: s.now + MIN_LATENCY_NS,
                }),
                Op::Timer(hold_ms) => s.pending.push(Pending::Timer {
                    node: me,
                    at: s.now + hold_ms * NS_PER_MS,
                }),
            }
        }
        Some(s)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("mutual_exclusion", |m: &Ra, s: &State| {
            !m.violated(s)
        })]
    }
}

impl Ra {
    fn violated(&self, s: &State) -> bool {
        s.nodes.iter().filter(|n| n.req == Req::Held).count() > 1
    }
}

fn main() {
    let history = std::env::args().any(|a| a == "--history");
    // (at, node, hold_ms), as in ra3.json
    let inputs = vec![
        (NS_PER_MS, 0, 3),
        (2 * NS_PER_MS, 1, 4),
        (12 * NS_PER_MS, 2, 5),
    ];
    println!(
        "mutex.ricart-agrawala, n = {N}, 3 acquires (ra3.json), untimed, stateright BFS, 1 thread, states {}",
        if history {
            "with per-node event histories (as sincro fingerprints)"
        } else {
            "= process states + network"
        }
    );
    println!(
        "{:<12} {:>10} {:>10} {:>6} {:>8}  verdict",
        "variant", "unique", "generated", "depth", "wall s"
    );
    for variant in [Variant::Correct, Variant::NoTiebreak] {
        let model = Ra {
            variant,
            inputs: inputs.clone(),
            history,
        };
        let start = Instant::now();
        let checker = model.checker().spawn_bfs().join();
        let wall = start.elapsed().as_secs_f64();
        let verdict = match checker.discovery("mutual_exclusion") {
            Some(path) => {
                let actions = path.into_actions();
                format!(
                    "VIOLATION: mutual_exclusion after {} actions: {:?}",
                    actions.len(),
                    actions
                )
            }
            None => "no violation (whole space)".to_string(),
        };
        println!(
            "{:<12} {:>10} {:>10} {:>6} {:>8.2}  {}",
            format!("{variant:?}"),
            checker.unique_state_count(),
            checker.state_count(),
            checker.max_depth(),
            wall,
            verdict
        );
    }
}
