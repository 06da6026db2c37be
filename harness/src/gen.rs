//! Scenario generation (swarm testing).
