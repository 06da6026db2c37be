//! Eventual leader detection Ω in a dynamic shared-memory system (seed 004): the algorithm
//! as a state machine over [`sincro_harness::shm`], and its registration.

#[allow(clippy::module_inception)]
pub mod omega;
pub mod registered;
