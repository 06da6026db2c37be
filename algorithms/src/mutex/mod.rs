//! Mutual exclusion algorithms (Tanenbaum & van Steen §6.3; seeds `001`, `002`, `003` §4.3).

pub mod centralized;
pub(crate) mod registered;
pub mod ricart_agrawala;
pub mod token_ring;
pub mod voting;
