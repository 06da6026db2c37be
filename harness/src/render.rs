//! Trace renderers.
