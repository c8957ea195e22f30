//! A small, seeded separable CMA-ES (Ros & Hansen 2008: the covariance kept diagonal) over
//! the unit cube, minimising. `agentbox tune` maps each coordinate onto a tunable's range.
//! The random stream is ChaCha8 from the given seed, so a search is the same on every
//! machine for the same objective values.
//!
//! Pure arithmetic: it asks for candidates and is told their costs; it runs nothing.

use agentbox_core::world::rng;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The state of a search in `n` dimensions.
pub struct Cma {
    n: usize,
    lambda: usize,
    weights: Vec<f64>,
    mueff: f64,
    cs: f64,
    ds: f64,
    cc: f64,
    c1: f64,
    cmu: f64,
    chi_n: f64,
    mean: Vec<f64>,
    sigma: f64,
    diag: Vec<f64>,
    ps: Vec<f64>,
    pc: Vec<f64>,
    generation: usize,
    rng: ChaCha8Rng,
}

impl Cma {
    /// A search from `start` (each coordinate in 0..=1) with step size `sigma`.
    pub fn new(start: &[f64], sigma: f64, seed: u64) -> Cma {
        let n = start.len().max(1);
        let nf = n as f64;
        let lambda = 4 + (3.0 * nf.ln()).floor() as usize;
        let mu = lambda / 2;
        let raw: Vec<f64> = (1..=mu)
            .map(|i| (mu as f64 + 0.5).ln() - (i as f64).ln())
            .collect();
        let total: f64 = raw.iter().sum();
        let weights: Vec<f64> = raw.iter().map(|w| w / total).collect();
        let mueff = 1.0 / weights.iter().map(|w| w * w).sum::<f64>();
        let cs = (mueff + 2.0) / (nf + mueff + 5.0);
        let ds = 1.0 + 2.0 * (((mueff - 1.0) / (nf + 1.0)).sqrt() - 1.0).max(0.0) + cs;
        let cc = (4.0 + mueff / nf) / (nf + 4.0 + 2.0 * mueff / nf);
        // The separable variant learns (n + 2) / 3 times faster.
        let speed = (nf + 2.0) / 3.0;
        let c1 = (speed * 2.0 / ((nf + 1.3).powi(2) + mueff)).min(0.9);
        let cmu = (speed * 2.0 * (mueff - 2.0 + 1.0 / mueff) / ((nf + 2.0).powi(2) + mueff))
            .clamp(0.0, 1.0 - c1);
        Cma {
            n,
            lambda,
            weights,
            mueff,
            cs,
            ds,
            cc,
            c1,
            cmu,
            chi_n: nf.sqrt() * (1.0 - 1.0 / (4.0 * nf) + 1.0 / (21.0 * nf * nf)),
            mean: start.to_vec(),
            sigma,
            diag: vec![1.0; n],
            ps: vec![0.0; n],
            pc: vec![0.0; n],
            generation: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Candidates per generation.
    pub fn lambda(&self) -> usize {
        self.lambda
    }

    /// Generations told so far.
    pub fn generation(&self) -> usize {
        self.generation
    }

    /// A standard normal draw (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u = rng::unit_f64(&mut self.rng).max(f64::MIN_POSITIVE);
        let v = rng::unit_f64(&mut self.rng);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// The next generation's candidates, each clamped into the unit cube.
    pub fn ask(&mut self) -> Vec<Vec<f64>> {
        (0..self.lambda)
            .map(|_| {
                (0..self.n)
                    .map(|i| {
                        let z = self.normal();
                        (self.mean[i] + self.sigma * self.diag[i].sqrt() * z).clamp(0.0, 1.0)
                    })
                    .collect()
            })
            .collect()
    }

    /// Learns from a generation: each candidate (as evaluated) and its cost (lower is better).
    pub fn tell(&mut self, candidates: &[Vec<f64>], costs: &[f64]) {
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        order.sort_by(|&a, &b| costs[a].total_cmp(&costs[b]).then(a.cmp(&b)));
        let steps: Vec<Vec<f64>> = order
            .iter()
            .take(self.weights.len())
            .map(|&k| {
                (0..self.n)
                    .map(|i| (candidates[k][i] - self.mean[i]) / self.sigma)
                    .collect()
            })
            .collect();
        let yw: Vec<f64> = (0..self.n)
            .map(|i| steps.iter().zip(&self.weights).map(|(y, w)| w * y[i]).sum())
            .collect();
        for (i, y) in yw.iter().enumerate() {
            self.mean[i] = (self.mean[i] + self.sigma * y).clamp(0.0, 1.0);
        }
        let cs = (self.cs * (2.0 - self.cs) * self.mueff).sqrt();
        for (i, y) in yw.iter().enumerate() {
            self.ps[i] = (1.0 - self.cs) * self.ps[i] + cs * y / self.diag[i].sqrt();
        }
        let ps_norm = self.ps.iter().map(|p| p * p).sum::<f64>().sqrt();
        self.generation += 1;
        let decay = 1.0 - (1.0 - self.cs).powi(2 * self.generation as i32);
        let hsig = ps_norm / decay.sqrt() / self.chi_n < 1.4 + 2.0 / (self.n as f64 + 1.0);
        let cc = (self.cc * (2.0 - self.cc) * self.mueff).sqrt();
        for (i, y) in yw.iter().enumerate() {
            self.pc[i] = (1.0 - self.cc) * self.pc[i] + if hsig { cc * y } else { 0.0 };
            let rank_mu: f64 = steps
                .iter()
                .zip(&self.weights)
                .map(|(s, w)| w * s[i] * s[i])
                .sum();
            self.diag[i] = ((1.0 - self.c1 - self.cmu) * self.diag[i]
                + self.c1 * self.pc[i] * self.pc[i]
                + self.cmu * rank_mu)
                .max(1e-12);
        }
        self.sigma *= ((self.cs / self.ds) * (ps_norm / self.chi_n - 1.0))
            .exp()
            .clamp(0.0, 2.0);
        self.sigma = self.sigma.clamp(1e-6, 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(seed: u64) -> (Vec<f64>, f64) {
        let target = [0.2, 0.7, 0.9, 0.4];
        let cost = |x: &[f64]| {
            x.iter()
                .zip(target)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>()
        };
        let mut cma = Cma::new(&[0.5; 4], 0.3, seed);
        let mut best = (vec![], f64::INFINITY);
        for _ in 0..40 {
            let xs = cma.ask();
            let costs: Vec<f64> = xs.iter().map(|x| cost(x)).collect();
            for (x, c) in xs.iter().zip(&costs) {
                if *c < best.1 {
                    best = (x.clone(), *c);
                }
            }
            cma.tell(&xs, &costs);
        }
        best
    }

    #[test]
    fn it_finds_a_bowls_bottom_the_same_way_for_a_seed() {
        let (x, cost) = search(7);
        assert!(cost < 1e-4, "{x:?} costs {cost}");
        assert_eq!(search(7), (x, cost));
        assert_ne!(search(8).0, search(7).0);
    }
}
