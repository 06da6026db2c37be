//! Leader election algorithms (Tanenbaum & van Steen §6.5; seed `002` "Eleição de Líderes").
//!
//! Every process reports what it believes with `Observation::Leader`: `Some(l)` when it
//! believes `l` leads (itself included), `None` when it starts an election; algorithms with
//! terms report them, the others report term 0. The checkers are in
//! `sincro_checkers::election`.

pub mod bully;
pub(crate) mod registered_core;
pub mod ring_list;
pub mod terms;
