//! A typed way to write a scenario in Rust, so no test writes JSON text:
//!
//! ```
//! use sincro_harness::{Fault, Scenario};
//! use std::time::Duration;
//!
//! let ms = Duration::from_millis;
//! let sc = Scenario::builder("mutex.centralized")
//!     .variant("lease-timeout")
//!     .nodes(3)
//!     .seed(42)
//!     .latency_ms(1.0, 10.0)
//!     .fault_at(ms(100), Fault::Pause { node: 1 })
//!     .fault_at(ms(300), Fault::Resume { node: 1 })
//!     .input_at(ms(10), 1, serde_json::json!({"acquire": {"hold_ms": 20}}))
//!     .run_for(ms(1_000))
//!     .build()
//!     .unwrap();
//! assert_eq!(sc.faults.len(), 2);
//! // written scenario files leave out what is default
//! assert!(!sc.to_json().contains("limits"));
//! ```

use crate::fault::{Fault, TimedFault};
use crate::net::Latency;
use crate::scenario::{EngineKind, Expect, Scenario, ScenarioError, WorkloadItem};
use crate::NodeId;
use serde::Serialize;
use std::time::Duration;

/// Builds a [`Scenario`] step by step; [`ScenarioBuilder::build`] validates it. Start with
/// [`Scenario::builder`].
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build()`"]
pub struct ScenarioBuilder {
    sc: Scenario,
    error: Option<String>,
}

/// Whole milliseconds of `d`, saturating (a scenario counts in ms).
fn whole_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Scenario {
    /// A scenario of `algorithm`, variant `correct`, 3 nodes, seed 0, 1 s long, the default
    /// network (reliable FIFO links, latency uniform in 1–10 ms), perfect clocks, no fault and
    /// no workload until told otherwise.
    pub fn builder(algorithm: impl Into<String>) -> ScenarioBuilder {
        ScenarioBuilder {
            sc: Scenario {
                name: String::new(),
                description: String::new(),
                algorithm: algorithm.into(),
                variant: "correct".into(),
                params: serde_json::Value::Null,
                nodes: 3,
                seed: 0,
                engine: EngineKind::Native,
                duration_ms: 1_000,
                network: Default::default(),
                schedule: Default::default(),
                clocks: Default::default(),
                faults: Vec::new(),
                workload: Vec::new(),
                checks: Default::default(),
                limits: Default::default(),
                expect: None,
                engine_exceptions: Vec::new(),
            },
            error: None,
        }
    }
}

impl ScenarioBuilder {
    /// The variant, by name (`correct` by default).
    pub fn variant(mut self, name: impl Into<String>) -> Self {
        self.sc.variant = name.into();
        self
    }
    /// Number of nodes.
    pub fn nodes(mut self, n: usize) -> Self {
        self.sc.nodes = n;
        self
    }
    /// The seed of every random draw.
    pub fn seed(mut self, seed: u64) -> Self {
        self.sc.seed = seed;
        self
    }
    /// How long the run lasts (global time, whole ms).
    pub fn run_for(mut self, d: Duration) -> Self {
        self.sc.duration_ms = whole_ms(d);
        self
    }
    /// The engine.
    pub fn engine(mut self, engine: EngineKind) -> Self {
        self.sc.engine = engine;
        self
    }
    /// The algorithm's parameters, from any serializable value (its `Params` type).
    pub fn params(mut self, params: impl Serialize) -> Self {
        match serde_json::to_value(params) {
            Ok(v) => self.sc.params = v,
            Err(e) => self.error = Some(format!("params do not serialize: {e}")),
        }
        self
    }
    /// A name and a description (shown by snapshots and reports).
    pub fn named(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.sc.name = name.into();
        self.sc.description = description.into();
        self
    }
    /// Latency of every link, uniform in `[min_ms, max_ms]`.
    pub fn latency_ms(mut self, min_ms: f64, max_ms: f64) -> Self {
        self.sc.network.latency = Latency::Uniform { min_ms, max_ms };
        self
    }
    /// Latency of every link, any distribution.
    pub fn latency(mut self, latency: Latency) -> Self {
        self.sc.network.latency = latency;
        self
    }
    /// How concurrent deliveries are ordered inside the latency bounds (PCT priorities, POS;
    /// see [`crate::schedule`]).
    pub fn schedule(mut self, schedule: crate::schedule::Schedule) -> Self {
        self.sc.schedule = schedule;
        self
    }
    /// Loss, duplication and reordering probabilities of every link.
    pub fn links(mut self, loss: f64, duplicate: f64, reorder: f64) -> Self {
        let n = &mut self.sc.network;
        (n.loss, n.duplicate, n.reorder) = (loss, duplicate, reorder);
        self
    }
    /// Clocks: drift bound (ppm) and initial offset bound (ms), drawn per node from the seed.
    pub fn clocks(mut self, rho_ppm: f64, offset_ms_max: f64) -> Self {
        self.sc.clocks.rho_ppm = rho_ppm;
        self.sc.clocks.offset_ms_max = offset_ms_max;
        self
    }
    /// A fault at `at` (global time, whole ms).
    pub fn fault_at(mut self, at: Duration, fault: Fault) -> Self {
        self.sc.faults.push(TimedFault {
            at_ms: whole_ms(at),
            fault,
        });
        self
    }
    /// A workload input to `node` at `at`, from any serializable value (the node's `Input`).
    pub fn input_at(mut self, at: Duration, node: NodeId, input: impl Serialize) -> Self {
        match serde_json::to_value(input) {
            Ok(input) => self.sc.workload.push(WorkloadItem {
                at_ms: whole_ms(at),
                node,
                input: input.into(),
            }),
            Err(e) => self.error = Some(format!("an input does not serialize: {e}")),
        }
        self
    }
    /// Check only these properties (default: all the algorithm promises).
    pub fn properties<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Self {
        self.sc.checks.properties = Some(names.into_iter().map(str::to_string).collect());
        self
    }
    /// The liveness bound (default: the algorithm's own for this scenario).
    pub fn liveness_bound(mut self, d: Duration) -> Self {
        self.sc.checks.liveness_bound_ms = Some(whole_ms(d));
        self
    }
    /// The verdict the scenario must reach (corpus scenarios).
    pub fn expect(mut self, expect: Expect) -> Self {
        self.sc.expect = Some(expect);
        self
    }
    /// The scenario, validated; the error names the field.
    pub fn build(self) -> Result<Scenario, ScenarioError> {
        if let Some(e) = self.error {
            return Err(ScenarioError(e));
        }
        self.sc.validate()?;
        Ok(self.sc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builder_gives_what_the_json_says_and_its_file_reads_back() {
        let ms = Duration::from_millis;
        let built = Scenario::builder("mutex.centralized")
            .variant("lease-timeout")
            .nodes(4)
            .seed(7)
            .latency_ms(1.0, 10.0)
            .fault_at(ms(300), Fault::Pause { node: 2 })
            .input_at(ms(10), 1, serde_json::json!({"acquire": {"hold_ms": 20}}))
            .run_for(ms(2_000))
            .build()
            .unwrap();
        let parsed = Scenario::from_json(
            r#"{"algorithm": "mutex.centralized", "variant": "lease-timeout", "nodes": 4,
                "seed": 7, "duration_ms": 2000,
                "network": {"latency": {"uniform": {"min_ms": 1, "max_ms": 10}}},
                "faults": [{"at_ms": 300, "fault": {"pause": {"node": 2}}}],
                "workload": [{"at_ms": 10, "node": 1, "input": {"acquire": {"hold_ms": 20}}}]}"#,
        )
        .unwrap();
        assert_eq!(built, parsed);
        assert_eq!(Scenario::from_json(&built.to_json()).unwrap(), built);
        let text = built.to_json();
        for default in ["\"limits\"", "\"checks\"", "\"clocks\"", "\"engine\""] {
            assert!(!text.contains(default), "{default} is default: {text}");
        }
    }

    #[test]
    fn the_builder_validates() {
        let e = Scenario::builder("x").nodes(0).build().unwrap_err();
        assert!(e.0.contains("nodes must be at least 1"), "{e}");
        let e = Scenario::builder("x")
            .fault_at(Duration::from_millis(5), Fault::Crash { node: 9 })
            .build()
            .unwrap_err();
        assert!(e.0.contains("node 9"), "{e}");
    }
}
