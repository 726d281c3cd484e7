//! The passes over the typed tree that run between semantic analysis and lowering.

pub(crate) mod analysis;
pub(crate) mod hoist;
pub(crate) mod inline;
pub(crate) mod switches;
pub(crate) mod uniform;
