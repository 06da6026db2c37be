//! Eventual leader detection Ω in a dynamic shared-memory system (seed 004): the algorithm
//! as a state machine over [`sincro_harness::shm`], and its registration
//! ([`omega::OmegaKhouriGreve`], a hand-written [`Algorithm`]: it does not run on the
//! message-passing engines, so it is not a [`Spec`](crate::spec::Spec)).

#[allow(clippy::module_inception)]
pub mod omega;

pub use omega::{draw, prepare, run_prepared, Draw, OmegaKhouriGreve, Params, Prepared};

use crate::Algorithm;

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[&OmegaKhouriGreve];
