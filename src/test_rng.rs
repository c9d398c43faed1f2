//! The property tests' random source: xorshift64, seeded, so a failing case comes back.

/// A xorshift64 sequence from its seed.
pub(crate) struct Rng(pub u64);

impl Rng {
    /// The next number in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// `next(n)`: a number in `0..n` (`n` = 0 taken as 1), from the sequence of `seed`.
pub(crate) fn xorshift(seed: u64) -> impl FnMut(usize) -> usize {
    let mut rng = Rng(seed);
    move |n| rng.below(n.max(1))
}

/// A whole number from the environment (`SEED`, `ROUNDS`: a longer run by hand).
pub(crate) fn env_u64(key: &str) -> Option<u64> {
    std::env::var(key).ok().and_then(|s| s.parse().ok())
}
