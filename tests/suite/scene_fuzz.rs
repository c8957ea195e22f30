//! Whatever the bytes, loading a scene never panics: thousands of seeded mutations of the
//! shipped scenes (flipped bytes, cut files, spliced lines, tabs) must each give a scene or
//! located errors.

use crate::common;
use agentbox_core::scene;
use std::path::Path;

/// A small deterministic generator (SplitMix64) so failures reproduce.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Mix, original: &[u8]) -> Vec<u8> {
    let mut bytes = original.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bytes.len());
        match rng.below(6) {
            0 => bytes[at] = rng.next() as u8,
            1 => bytes.truncate(at),
            2 => bytes.insert(at, b"\t:-[]{}#'\"|>&*!%@`,?\n"[rng.below(21)]),
            3 => {
                let end = (at + rng.below(40)).min(bytes.len());
                bytes.drain(at..end);
            }
            4 => {
                let from = rng.below(bytes.len());
                let end = (from + rng.below(60)).min(bytes.len());
                let piece = bytes[from..end].to_vec();
                bytes.splice(at..at, piece);
            }
            _ => {
                let digits = ["-1", "99999999999", "1e309", "nan", "0", "-0.5"];
                let d = digits[rng.below(digits.len())].as_bytes();
                bytes.splice(at..at, d.iter().copied());
            }
        }
        if bytes.is_empty() {
            break;
        }
    }
    bytes
}

#[test]
fn mutated_scenes_never_panic_the_loader() {
    let mut rng = Mix(2026);
    let mut loaded = 0;
    let mut rejected = 0;
    for scene_file in ["scenes/chase.yaml", "scenes/maze.yaml"] {
        let path = common::root().join(scene_file);
        let original = std::fs::read(&path).unwrap();
        for _ in 0..1500 {
            let bytes = mutate(&mut rng, &original);
            let result = std::panic::catch_unwind(|| scene::parse(Path::new(&path), &bytes));
            match result {
                Ok(Ok(_)) => loaded += 1,
                Ok(Err(errors)) => {
                    rejected += 1;
                    assert!(
                        !errors.0.is_empty(),
                        "a rejection carries at least one error"
                    );
                    for e in &errors.0 {
                        assert!(e.line >= 1 && e.column >= 1, "{e}");
                    }
                }
                Err(_) => panic!(
                    "the loader panicked on:\n{}",
                    String::from_utf8_lossy(&bytes)
                ),
            }
        }
    }
    assert!(
        loaded > 0 && rejected > 0,
        "the mutations exercise both outcomes ({loaded} loaded, {rejected} rejected)"
    );
}
