//! algorithms
