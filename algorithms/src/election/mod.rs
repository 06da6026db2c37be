//! Leader election algorithms (Tanenbaum & van Steen §6.5; seeds `001`, `002`).

pub mod adhoc;
pub mod anel1;
pub mod anel2;
pub mod chang_roberts;
pub mod franklin;
pub(crate) mod registered_rings;
pub mod rings_common;
pub mod superpeer;
pub mod yoyo;
