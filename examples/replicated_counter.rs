//! A user's algorithm that Sincro's registry does not know: a replicated counter.
//!
//! Every node counts increments; on each increment it sends its whole state to every other
//! node. The correct variant keeps one count per node (a G-counter, a CRDT): merging takes the
//! maximum of each entry, so replicas that have seen the same increments agree whatever the
//! order, loss being repaired by the periodic gossip. The buggy twin `last-writer-wins` keeps
//! one number and overwrites it with whatever arrives last: concurrent increments are lost,
//! and the replicas end in different states. The built-in `replica_agreement` checker judges
//! both (replicas report their state with [`Observation::State`]).
//!
//! Fault model: loss, duplication, reordering, partitions, crashes (counts in stable storage).
//!
//! `cargo run --example replicated_counter` runs both checks.

use serde::{Deserialize, Serialize};
use sincro::algorithms::spec::{Setup, Spec, Timed};
use sincro::algorithms::variants;
use sincro::harness::fault::{FaultClass, FaultModel};
use sincro::harness::{Ctx, NodeId, Observation, Process, SimRng};
use sincro::testing::check;

variants! {
    /// How a replica merges what it hears.
    pub enum Variant {
        Correct = "correct", "one count per node, merged by maximum (a G-counter)";
        LastWriterWins = "last-writer-wins" (buggy), "one number, overwritten by the last message: concurrent increments are lost";
    }
}

/// Messages: a replica's state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State(Vec<u64>);

/// Workload: add one.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// Increment the counter at this node.
    Increment,
}

/// One replica; its counts live in stable storage.
pub struct Replica(Variant);

impl Replica {
    fn value(counts: &[u64], v: Variant) -> u64 {
        match v {
            Variant::Correct => counts.iter().sum(),
            Variant::LastWriterWins => counts.first().copied().unwrap_or(0),
        }
    }
    fn report(&self, ctx: &mut Ctx<'_, Self>) {
        let value = Self::value(ctx.stable(), self.0);
        ctx.observe(Observation::State {
            value: value.to_string(),
        });
    }
}

impl Process for Replica {
    type Msg = State;
    type Timer = ();
    type Input = Input;
    type Stable = Vec<u64>;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        let n = ctx.nodes();
        ctx.stable_mut().resize(n, 0);
        // The state is reported from the start (and after a restart), not only when it
        // changes: a run whose every increment hit a crashed replica still has states to
        // compare (all zero), where it would otherwise leave `replica_agreement` nothing to
        // judge, and "could not judge" is never a pass.
        self.report(ctx);
        ctx.set_timer_ms(50, ());
    }
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, (): ()) {
        // gossip: repairs lost messages
        let state = State(ctx.stable().clone());
        ctx.broadcast(state);
        ctx.set_timer_ms(50, ());
    }
    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, Input::Increment: Input) {
        let me = ctx.id();
        match self.0 {
            Variant::Correct => ctx.stable_mut()[me] += 1,
            Variant::LastWriterWins => ctx.stable_mut()[0] += 1,
        }
        self.report(ctx);
        let state = State(ctx.stable().clone());
        ctx.broadcast(state);
    }
    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, State(theirs): State) {
        let before = ctx.stable().clone();
        let mine = ctx.stable_mut();
        match self.0 {
            Variant::Correct => mine
                .iter_mut()
                .zip(&theirs)
                .for_each(|(m, t)| *m = (*m).max(*t)),
            Variant::LastWriterWins => *mine = theirs,
        }
        if *ctx.stable() != before {
            self.report(ctx);
        }
    }
}

/// `demo.replicated-counter`.
#[derive(Clone, Copy, Debug)]
pub struct ReplicatedCounter;

impl Spec for ReplicatedCounter {
    type Node = Replica;
    type Params = ();
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "demo.replicated-counter"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["replica_agreement"]
    }
    fn fault_model(&self) -> FaultModel {
        use FaultClass::*;
        FaultModel {
            tolerates: vec![Loss, Duplication, Reordering, Partitions, Crashes],
            summary: "loss, duplication, reordering, partitions, crashes with restart",
            ..FaultModel::default()
        }
    }
    fn node(&self, variant: Variant, (): &(), _id: NodeId) -> Replica {
        Replica(variant)
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        let mut items: Vec<_> = (0..rng.range_u64(2, 3 * nodes as u64))
            .map(|_| Timed {
                at_ms: rng.range_u64(0, active_ms),
                node: rng.index(nodes),
                input: Input::Increment,
            })
            .collect();
        items.sort_by_key(|t| t.at_ms);
        items
    }
    /// Gossip every 50 ms repairs what was lost: two rounds after the faults stop.
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        2 * (50 + setup.max_latency_ms()) + 10
    }
}

fn main() {
    let ok = check(ReplicatedCounter).seeds(300).no_regressions().run();
    println!("{}", ok.expect("the G-counter's replicas agree"));
    let found = check(ReplicatedCounter)
        .variant(Variant::LastWriterWins)
        .seeds(300)
        .expect_violation("replica_agreement")
        .expect("last-writer-wins loses increments");
    println!(
        "last-writer-wins: seed {}: {}",
        found.seed, found.explanation
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_agree() {
        check(ReplicatedCounter)
            .seeds(100)
            .no_regressions()
            .run()
            .unwrap();
    }

    #[test]
    fn last_writer_wins_loses_increments() {
        let twin = check(ReplicatedCounter).variant(Variant::LastWriterWins);
        twin.expect_violation("replica_agreement").unwrap();
    }
}
