//! Naming and shape rules for API input.
