//! The property tests' random source: xorshift64, seeded, so a failing case comes back.

/// `next(n)`: a number in `0..n` (`n` = 0 taken as 1), from the xorshift64 sequence of `seed`.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    }
}

/// A whole number from the environment (`SEED`, `ROUNDS`: a longer run by hand).
pub(crate) fn env_u64(key: &str) -> Option<u64> {
    std::env::var(key).ok().and_then(|s| s.parse().ok())
}
