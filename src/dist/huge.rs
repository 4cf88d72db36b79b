//! Huge products by a distributed NTT.
