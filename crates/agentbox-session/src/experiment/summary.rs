//! The summary of a study: per variant, each reach's catch rate and time to reach (runs that
//! never reach count as the tick limit: censored), each metric's n, mean, median and 95%
//! bootstrap interval, and the difference from the baseline paired by seed. Pure arithmetic
//! over run lines; the bootstrap draws from a fixed seed, so a summary is reproducible.

use super::record::{Header, RunLine};
use agentbox_core::world::rng;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Bootstrap resamples behind every interval.
pub const RESAMPLES: usize = 2000;
/// The seed of the bootstrap's random stream (every interval starts it afresh).
pub const BOOTSTRAP_SEED: u64 = 19;

/// A sample's centre and spread.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    /// The 95% percentile bootstrap interval of the mean.
    pub low: f64,
    pub high: f64,
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn median(xs: &[f64]) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// The `q` quantile of sorted values, interpolating between neighbours.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64)
}

/// n, mean, median and the 95% percentile bootstrap interval of the mean; `None` when empty.
pub fn stats(xs: &[f64]) -> Option<Stats> {
    if xs.is_empty() {
        return None;
    }
    let mut r = ChaCha8Rng::seed_from_u64(BOOTSTRAP_SEED);
    let last = xs.len() as i64 - 1;
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            (0..xs.len())
                .map(|_| xs[rng::int_in(&mut r, 0, last) as usize])
                .sum::<f64>()
                / xs.len() as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    Some(Stats {
        n: xs.len(),
        mean: mean(xs),
        median: median(xs),
        low: quantile(&means, 0.025),
        high: quantile(&means, 0.975),
    })
}

/// A reach's figures in one variant.
#[derive(Clone, Debug, PartialEq)]
pub struct ReachSummary {
    pub key: String,
    pub caught: usize,
    pub runs: usize,
    /// Time to reach, a run that never reached counting as the tick limit.
    pub time: Option<Stats>,
    /// Paired by seed with the baseline: caught (1 or 0) minus the baseline's, and time minus
    /// the baseline's.
    pub caught_diff: Option<Stats>,
    pub time_diff: Option<Stats>,
}

/// A metric's figures in one variant.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricSummary {
    pub name: String,
    /// Over the runs where it gave a number.
    pub stats: Option<Stats>,
    /// Paired by seed with the baseline, over seeds where both gave a number.
    pub diff: Option<Stats>,
}

/// One variant's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantSummary {
    pub name: String,
    pub runs: usize,
    pub errors: u64,
    pub contacts: u64,
    pub reach: Vec<ReachSummary>,
    pub metrics: Vec<MetricSummary>,
}

/// A whole study's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The variant differences are taken from, if the study has one.
    pub baseline: Option<String>,
    pub ticks: u64,
    /// Runs recorded, and runs the study has in all.
    pub runs: usize,
    pub expected: u64,
    pub variants: Vec<VariantSummary>,
}

/// Paired values: for each seed both sides have, `f(variant) - f(baseline)`.
fn paired(
    mine: &BTreeMap<u64, &RunLine>,
    base: Option<&BTreeMap<u64, &RunLine>>,
    f: impl Fn(&RunLine) -> Option<f64>,
) -> Option<Stats> {
    let base = base?;
    let diffs: Vec<f64> = mine
        .iter()
        .filter_map(|(seed, run)| Some(f(run)? - f(base.get(seed)?)?))
        .collect();
    stats(&diffs)
}

/// One `expect.reach` key over a variant's runs (by seed), with the paired differences from
/// the baseline's runs if there is one.
fn reach_summary(
    key: &str,
    mine: &BTreeMap<u64, &RunLine>,
    base: Option<&BTreeMap<u64, &RunLine>>,
) -> ReachSummary {
    let time = |r: &RunLine| {
        let t = r.reach.get(key)?;
        Some(t.unwrap_or(r.ticks) as f64)
    };
    let caught = |r: &RunLine| Some(f64::from(u8::from(r.reach.get(key)?.is_some())));
    let times: Vec<f64> = mine.values().filter_map(|r| time(r)).collect();
    ReachSummary {
        key: key.to_string(),
        caught: mine
            .values()
            .filter(|r| r.reach.get(key).is_some_and(Option::is_some))
            .count(),
        runs: times.len(),
        time: stats(&times),
        caught_diff: paired(mine, base, caught),
        time_diff: paired(mine, base, time),
    }
}

/// One metric over a variant's runs (by seed), with the paired differences from the
/// baseline's runs if there is one.
fn metric_summary(
    name: &str,
    mine: &BTreeMap<u64, &RunLine>,
    base: Option<&BTreeMap<u64, &RunLine>>,
) -> MetricSummary {
    let value = |r: &RunLine| r.metrics.get(name).copied().flatten();
    let values: Vec<f64> = mine.values().filter_map(|r| value(r)).collect();
    MetricSummary {
        name: name.to_string(),
        stats: stats(&values),
        diff: paired(mine, base, value),
    }
}

/// Summarises the runs of a study (in any order).
pub fn summarise(header: &Header, runs: &[RunLine]) -> Summary {
    let by_variant: Vec<BTreeMap<u64, &RunLine>> = header
        .variants
        .iter()
        .map(|v| {
            runs.iter()
                .filter(|r| r.variant == v.name)
                .map(|r| (r.seed, r))
                .collect()
        })
        .collect();
    let baseline = header.variants.iter().position(|v| v.replace.is_empty());
    let reach_keys: Vec<String> = runs
        .iter()
        .flat_map(|r| r.reach.keys().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let metric_names: Vec<String> = runs
        .iter()
        .flat_map(|r| r.metrics.keys().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let variants = header
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mine = &by_variant[i];
            let base = baseline.filter(|&b| b != i).map(|b| &by_variant[b]);
            let reach = reach_keys
                .iter()
                .map(|key| reach_summary(key, mine, base))
                .collect();
            let metrics = metric_names
                .iter()
                .map(|name| metric_summary(name, mine, base))
                .collect();
            VariantSummary {
                name: v.name.clone(),
                runs: mine.len(),
                errors: mine.values().map(|r| r.errors).sum(),
                contacts: mine.values().map(|r| r.contacts).sum(),
                reach,
                metrics,
            }
        })
        .collect();
    Summary {
        baseline: baseline.map(|b| header.variants[b].name.clone()),
        ticks: header.ticks,
        runs: runs.len(),
        expected: header.total_runs(),
        variants,
    }
}

/// A number in a summary: integers plainly, others with up to 3 decimals.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}

fn describe(s: &Stats) -> String {
    format!(
        "n {}, mean {} [{}, {}], median {}",
        s.n,
        num(s.mean),
        num(s.low),
        num(s.high),
        num(s.median)
    )
}

fn describe_diff(s: &Stats) -> String {
    format!(
        "{:+} [{}, {}] (n {})",
        (s.mean * 1000.0).round() / 1000.0,
        num(s.low),
        num(s.high),
        s.n
    )
}

impl Summary {
    /// The summary as text, one variant after another.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} of {} runs, {} ticks each; intervals: 95% percentile bootstrap of the mean, {RESAMPLES} resamples, seed {BOOTSTRAP_SEED}",
            self.runs, self.expected, self.ticks
        );
        match &self.baseline {
            Some(b) => {
                let _ = writeln!(out, "baseline: {b} (differences are paired by seed)");
            }
            None => {
                let _ = writeln!(
                    out,
                    "no baseline (every variant substitutes a script): no differences"
                );
            }
        }
        for v in &self.variants {
            let _ = writeln!(
                out,
                "\n{}: {} runs, {} script errors, {} contacts",
                v.name, v.runs, v.errors, v.contacts
            );
            for r in &v.reach {
                let rate = if r.runs == 0 {
                    0.0
                } else {
                    100.0 * r.caught as f64 / r.runs as f64
                };
                let _ = writeln!(
                    out,
                    "  reach {}: caught {}/{} ({rate:.1}%)",
                    r.key, r.caught, r.runs
                );
                if let Some(t) = &r.time {
                    let _ = writeln!(
                        out,
                        "    time to reach (censored at {}): {}",
                        self.ticks,
                        describe(t)
                    );
                }
                if let (Some(c), Some(t)) = (&r.caught_diff, &r.time_diff) {
                    let _ = writeln!(
                        out,
                        "    vs baseline: caught {}, time {}",
                        describe_diff(c),
                        describe_diff(t)
                    );
                }
            }
            for m in &v.metrics {
                match &m.stats {
                    Some(s) => {
                        let _ = writeln!(out, "  metric {}: {}", m.name, describe(s));
                    }
                    None => {
                        let _ = writeln!(out, "  metric {}: no values", m.name);
                    }
                }
                if let Some(d) = &m.diff {
                    let _ = writeln!(out, "    vs baseline: {}", describe_diff(d));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_give_the_centre_and_an_interval_that_holds_the_mean() {
        let xs = [1.0, 2.0, 3.0, 4.0, 100.0];
        let s = stats(&xs).unwrap();
        assert_eq!((s.n, s.mean, s.median), (5, 22.0, 3.0));
        assert!(s.low < s.mean && s.mean < s.high, "{s:?}");
        assert!(s.low >= 1.0 && s.high <= 100.0, "{s:?}");
        assert_eq!(stats(&xs), Some(s), "the same seed gives the same interval");
        assert_eq!(stats(&[]), None);
        let one = stats(&[7.0]).unwrap();
        assert_eq!((one.low, one.high), (7.0, 7.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
