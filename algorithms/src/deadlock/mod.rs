//! Distributed deadlock detection (seed `003` §4.4): Chandy–Misra–Haas probes over a wait-for
//! graph built by a resource-locking workload.

pub mod cmh;
pub(crate) mod registered;
