//! Logical clocks and ordered multicast (Tanenbaum & van Steen §6.2, seed `000`; seed `003`):
//! reusable Lamport and vector clocks ([`clocks`]), the clocks on every event with Fig. 6.9's
//! crystals ([`lamport`]), totally ordered multicast with the replicated bank account
//! ([`total`]), causally ordered multicast ([`causal`]), over a reliable link layer ([`link`]).

pub mod causal;
pub mod clocks;
pub mod lamport;
pub mod link;
pub(crate) mod registered;
pub mod total;
