//! Seeded random streams. There is no global generator: every consumer derives its own stream
//! from the scene seed, the agent id and a purpose, so adding an agent or a script call never
//! shifts another agent's numbers, and the same seed gives the same numbers on every machine.

use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The random stream for one agent and one purpose (for example `"lua"` or `"move"`).
pub fn stream(seed: u64, agent_id: &str, purpose: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(stream_key(seed, agent_id, purpose))
}

/// The number [`stream`] seeds its generator from: keeping it (8 bytes) instead of the
/// generator (about 300) lets a holder of many streams that are seldom drawn from make each
/// only when it is first drawn from, and get the same numbers.
pub fn stream_key(seed: u64, agent_id: &str, purpose: &str) -> u64 {
    // FNV-1a over the id and purpose, then mixed with the seed: stable across platforms.
    // The three parts are hashed in three plain loops: one iterator chained over them cost
    // about 200 instructions a key (a crowd spawned in one tick makes two keys an agent).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &byte in bytes {
            hash ^= byte as u64;
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    feed(agent_id.as_bytes());
    feed(&[0xff]);
    feed(purpose.as_bytes());
    seed ^ hash.rotate_left(17)
}

/// The stream [`stream_key`] gave `key` for.
pub fn stream_from_key(key: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(key)
}

/// A uniform float in `[0, 1)` from 53 random bits.
pub fn unit_f64(rng: &mut ChaCha8Rng) -> f64 {
    use rand_chacha::rand_core::Rng;
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform integer in `[lo, hi]` (inclusive); `lo` when `hi < lo`.
pub fn int_in(rng: &mut ChaCha8Rng, lo: i64, hi: i64) -> i64 {
    use rand_chacha::rand_core::Rng;
    if hi <= lo {
        return lo;
    }
    let span = (hi as i128 - lo as i128 + 1) as u128;
    // Lemire's multiply-shift; the bias is below 2^-64 for any span that fits in i64.
    let r = ((rng.next_u64() as u128 * span) >> 64) as i128;
    (lo as i128 + r) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_keys_stay_the_fnv_of_id_and_purpose() {
        // Every saved trace's random numbers hang on these keys: they may never change.
        assert_eq!(stream_key(1, "walker-17", "move"), 0x95e6_2485_6a34_b9a1);
        assert_eq!(stream_key(0, "", "lua"), 0x02c4_fdfa_2ff1_818e);
        assert_eq!(stream_key(42, "drone-2", "lua"), 0x236f_62b6_7b4f_f14b);
    }

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a1: Vec<i64> = (0..5)
            .scan(stream(7, "troll", "lua"), |r, _| Some(int_in(r, 1, 6)))
            .collect();
        let a2: Vec<i64> = (0..5)
            .scan(stream(7, "troll", "lua"), |r, _| Some(int_in(r, 1, 6)))
            .collect();
        let b: Vec<i64> = (0..5)
            .scan(stream(7, "player", "lua"), |r, _| Some(int_in(r, 1, 6)))
            .collect();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert!(a1.iter().all(|v| (1..=6).contains(v)));
    }

    #[test]
    fn unit_floats_stay_in_range() {
        let mut r = stream(0, "x", "y");
        for _ in 0..1000 {
            let v = unit_f64(&mut r);
            assert!((0.0..1.0).contains(&v));
        }
    }
}

/// An agent's movement stream (`stream(seed, id, "move")`), kept as its key until a
/// primitive first draws from it: most agents never draw, and a generator is about 300 bytes
/// an agent (twice over: the running world and the scene's start world). The numbers are the
/// same either way: the generator is made from the key at the first draw.
#[derive(Clone, Debug)]
pub struct AgentRng {
    key: u64,
    drawn: Option<Box<ChaCha8Rng>>,
}

impl AgentRng {
    /// Agent `agent_id`'s movement stream for the scene seed `seed`, not drawn from yet.
    pub fn new(seed: u64, agent_id: &str) -> Self {
        AgentRng {
            key: stream_key(seed, agent_id, "move"),
            drawn: None,
        }
    }

    /// The stream as it stands, for a primitive to draw from (and hand back with
    /// [`AgentRng::set`] when it drew).
    pub fn current(&self) -> ChaCha8Rng {
        match &self.drawn {
            Some(r) => (**r).clone(),
            None => stream_from_key(self.key),
        }
    }

    /// The stream after a primitive drew from [`AgentRng::current`].
    pub fn set(&mut self, rng: Box<ChaCha8Rng>) {
        self.drawn = Some(rng);
    }

    /// How far the stream has been drawn (0 before the first draw).
    pub fn word_pos(&self) -> u128 {
        self.drawn.as_ref().map_or(0, |r| r.get_word_pos())
    }
}
