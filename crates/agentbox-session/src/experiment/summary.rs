//! The summary of a study: per variant, each reach's rate (the share of runs that reached) and
//! time to reach (runs that never reach count as the tick limit: censored), each metric's n,
//! mean, median and 95% bootstrap interval, and the difference from the baseline paired by
//! seed, in figures and in words. Pure arithmetic over run lines; the bootstrap draws from a
//! fixed seed, so a summary is reproducible.

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
    /// Runs that reached.
    pub reached: usize,
    pub runs: usize,
    /// Time to reach, a run that never reached counting as the tick limit.
    pub time: Option<Stats>,
    /// Paired by seed with the baseline: reached (1 or 0) minus the baseline's, and time minus
    /// the baseline's.
    pub reached_diff: Option<Stats>,
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
    let reached = |r: &RunLine| Some(f64::from(u8::from(r.reach.get(key)?.is_some())));
    let times: Vec<f64> = mine.values().filter_map(|r| time(r)).collect();
    ReachSummary {
        key: key.to_string(),
        reached: mine
            .values()
            .filter(|r| r.reach.get(key).is_some_and(Option::is_some))
            .count(),
        runs: times.len(),
        time: stats(&times),
        reached_diff: paired(mine, base, reached),
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

/// A paired difference as the terminal and the report print it: `+0.425 [0.275, 0.575] (n 40)`.
pub fn describe_diff(s: &Stats) -> String {
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
                let _ = writeln!(
                    out,
                    "  reach {}: reached {}/{} ({:.1}%)",
                    r.key,
                    r.reached,
                    r.runs,
                    r.rate()
                );
                if let Some(t) = &r.time {
                    let _ = writeln!(
                        out,
                        "    time to reach (censored at {}): {}",
                        self.ticks,
                        describe(t)
                    );
                }
                if let (Some(c), Some(t)) = (&r.reached_diff, &r.time_diff) {
                    let _ = writeln!(
                        out,
                        "    vs baseline: reached {}, time {}",
                        describe_diff(c),
                        describe_diff(t)
                    );
                }
                if let Some(words) = self.reach_in_words(v, r) {
                    let _ = writeln!(out, "    in words: {words}");
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
                if let Some(words) = self.metric_in_words(v, m) {
                    let _ = writeln!(out, "    in words: {words}");
                }
            }
        }
        out
    }
}

impl ReachSummary {
    /// The share of runs that reached, in percent (0 with no runs).
    pub fn rate(&self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            100.0 * self.reached as f64 / self.runs as f64
        }
    }
}

/// What a plain sentence says when an interval holds zero.
pub const NO_CLEAR_DIFFERENCE: &str = "no clear difference over these seeds; try more";

/// A percentage with at most one decimal: `100`, `57.5`.
fn percent(x: f64) -> String {
    let text = format!("{x:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}

/// Whether a 95% interval leaves zero out (a clear difference).
fn clear(s: &Stats) -> bool {
    s.low > 0.0 || s.high < 0.0
}

/// Who a reach key's target is in words: `the prey` for an agent or group, the point as is.
fn target_words(key: &str) -> String {
    let target = key.split_once("->").map_or(key, |(_, t)| t);
    if target.starts_with('[') {
        format!("the point {target}")
    } else {
        format!("the {target}")
    }
}

impl Summary {
    /// The baseline's figures, if the study has one and `v` is not it.
    fn baseline_of(&self, v: &VariantSummary) -> Option<&VariantSummary> {
        let name = self.baseline.as_deref()?;
        (v.name != name)
            .then(|| self.variants.iter().find(|b| b.name == name))
            .flatten()
    }

    /// A reach compared with the baseline in one sentence: "interceptor reaches the prey in
    /// 100% of 40 seeds against 57.5% (difference +42.5 points, 95% interval +27.5 to +57.5);
    /// its time to reach is 99.9 ticks shorter." (an interval holding zero says there is no
    /// clear difference).
    pub fn reach_in_words(&self, v: &VariantSummary, r: &ReachSummary) -> Option<String> {
        let base = self.baseline_of(v)?.reach.iter().find(|b| b.key == r.key)?;
        let (d, t) = (r.reached_diff.as_ref()?, r.time_diff.as_ref()?);
        let interval = format!(
            "difference {:+.1} points, 95% interval {:+.1} to {:+.1}",
            100.0 * d.mean,
            100.0 * d.low,
            100.0 * d.high
        );
        let mut words = format!(
            "{} reaches {} in {}% of {} seeds against {}%",
            v.name,
            target_words(&r.key),
            percent(r.rate()),
            r.runs,
            percent(base.rate())
        );
        if clear(d) {
            let _ = write!(words, " ({interval})");
        } else {
            let _ = write!(words, ": {NO_CLEAR_DIFFERENCE} ({interval})");
        }
        if clear(t) {
            let way = if t.mean < 0.0 { "shorter" } else { "longer" };
            let _ = write!(
                words,
                "; its time to reach is {:.1} ticks {way}.",
                t.mean.abs()
            );
        } else {
            let _ = write!(words, "; its time to reach: {NO_CLEAR_DIFFERENCE}.");
        }
        Some(words)
    }

    /// A metric compared with the baseline in one sentence: "interceptor's gap is 0.651 lower
    /// than chaser's (95% interval -0.922 to -0.410)."
    pub fn metric_in_words(&self, v: &VariantSummary, m: &MetricSummary) -> Option<String> {
        let base = self.baseline_of(v)?;
        let d = m.diff.as_ref()?;
        let interval = format!("95% interval {} to {}", num(d.low), num(d.high));
        Some(if clear(d) {
            let way = if d.mean < 0.0 { "lower" } else { "higher" };
            format!(
                "{}'s {} is {} {way} than {}'s ({interval}).",
                v.name,
                m.name,
                num(d.mean.abs()),
                base.name
            )
        } else {
            format!(
                "{}'s {} against {}'s: {NO_CLEAR_DIFFERENCE} (difference {}, {interval}).",
                v.name,
                m.name,
                base.name,
                num(d.mean)
            )
        })
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

    fn study(reach: impl Fn(&str, u64) -> Option<u64>) -> Summary {
        use super::super::record::VariantSpec;
        let variant = |name: &str, replace: Vec<[String; 2]>| VariantSpec {
            name: name.into(),
            replace,
            params: BTreeMap::new(),
        };
        let header = Header {
            agentbox: "compare".into(),
            build: String::new(),
            scene: "s.yaml".into(),
            scene_sha256: String::new(),
            ticks: 100,
            seeds: [1, 20],
            variants: vec![
                variant("chaser", Vec::new()),
                variant("interceptor", vec![["a.lua".into(), "b.lua".into()]]),
            ],
            scripts: BTreeMap::new(),
            shard: None,
        };
        let runs: Vec<RunLine> = ["chaser", "interceptor"]
            .iter()
            .flat_map(|v| (1..=20).map(move |seed| (*v, seed)))
            .map(|(v, seed)| RunLine {
                variant: v.into(),
                seed,
                ticks: 100,
                reach: BTreeMap::from([("hunter->prey".to_string(), reach(v, seed))]),
                contacts: 0,
                errors: 0,
                metrics: BTreeMap::new(),
                params: BTreeMap::new(),
                monitors: BTreeMap::new(),
            })
            .collect();
        summarise(&header, &runs)
    }

    #[test]
    fn each_comparison_is_said_in_words_and_an_interval_over_zero_is_no_clear_difference() {
        let clear = study(|v, seed| match v {
            "chaser" => (seed % 2 == 0).then_some(80),
            _ => Some(30),
        });
        let (v, r) = (&clear.variants[1], &clear.variants[1].reach[0]);
        let words = clear.reach_in_words(v, r).unwrap();
        assert!(
            words.starts_with("interceptor reaches the prey in 100% of 20 seeds against 50% (difference +50.0 points, 95% interval +"),
            "{words}"
        );
        assert!(
            words.ends_with("its time to reach is 60.0 ticks shorter."),
            "{words}"
        );
        assert!(
            clear.text().contains("vs baseline: reached +0.5 ["),
            "{}",
            clear.text()
        );
        assert!(clear.text().contains(&format!("in words: {words}")));
        assert_eq!(
            clear.reach_in_words(&clear.variants[0], &clear.variants[0].reach[0]),
            None
        );

        let same = study(|_, seed| (seed % 2 == 0).then_some(40 + seed));
        let (v, r) = (&same.variants[1], &same.variants[1].reach[0]);
        let words = same.reach_in_words(v, r).unwrap();
        assert!(
            words.contains("against 50%: no clear difference over these seeds; try more"),
            "{words}"
        );
        assert!(
            words.ends_with("its time to reach: no clear difference over these seeds; try more."),
            "{words}"
        );
    }
}
