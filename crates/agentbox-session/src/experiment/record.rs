//! The output of a study: a header line, then one JSON line per run. Reading a file back (to
//! resume it or to merge shards) checks the header and tolerates only a torn last line, the
//! trace of an interrupted write.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The first line of a study's file: what was run, on which build, with which scripts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always `"compare"`: says what the file is.
    pub agentbox: String,
    /// The program and platform that ran it; runs are comparable only on one build.
    pub build: String,
    /// The scene file as given, and the SHA-256 of its bytes.
    pub scene: String,
    pub scene_sha256: String,
    /// Ticks each run lasts.
    pub ticks: u64,
    /// The first and last seed, both included.
    pub seeds: [u64; 2],
    /// The variants in order; the baseline has no substitutions.
    pub variants: Vec<VariantSpec>,
    /// Every script and module the runs read, as first named, with the SHA-256 of its bytes.
    pub scripts: BTreeMap<String, String>,
    /// `K/N` for one shard of a study, `null` for the whole study (or a merge of its shards).
    pub shard: Option<String>,
}

/// A variant as the header records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantSpec {
    pub name: String,
    /// `[FROM, TO]` pairs as given.
    pub replace: Vec<[String; 2]>,
    /// For a sweep's point: each swept path and its value here (none for `compare`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, f64>,
}

/// What the build of this program is called in headers.
pub fn build_name() -> String {
    format!(
        "agentbox {} ({}-{}, {})",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH,
        std::env::consts::OS,
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    )
}

impl Header {
    /// Whether two headers describe the same study, shards aside.
    pub fn same_study(&self, other: &Header) -> bool {
        let strip = |h: &Header| Header {
            shard: None,
            ..h.clone()
        };
        strip(self) == strip(other)
    }

    /// Where a run goes in the study's order: by variant, then seed.
    pub fn order(&self, run: &RunLine) -> Option<(usize, u64)> {
        let v = self.variants.iter().position(|v| v.name == run.variant)?;
        Some((v, run.seed))
    }

    /// Runs the study has in all.
    pub fn total_runs(&self) -> u64 {
        self.variants.len() as u64 * (self.seeds[1] - self.seeds[0] + 1)
    }
}

/// One run's line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunLine {
    pub variant: String,
    pub seed: u64,
    pub ticks: u64,
    /// Each `expect.reach` entry (`AGENT->TARGET`): the first tick it held, or null.
    pub reach: BTreeMap<String, Option<u64>>,
    /// Contact events over the run.
    pub contacts: u64,
    /// Script errors (load errors, new runtime errors, failed metrics).
    pub errors: u64,
    /// Each metric's value at the end, or null if it failed.
    pub metrics: BTreeMap<String, Option<f64>>,
    /// A sweep's point: each swept path and its value (left out for `compare`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, f64>,
    /// Each of the scene's `monitors:` (and the scripts' `plot` names) at the end of the run,
    /// aggregated by its rule; null if it failed (left out when the scene has none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub monitors: BTreeMap<String, Option<f64>>,
}

/// A study file read back.
pub struct Recorded {
    pub header: Header,
    pub runs: Vec<RunLine>,
    /// The length of the file up to the end of its last whole line (a torn last line, from an
    /// interrupted write, lies beyond it).
    pub good_len: u64,
}

/// Reads a study file: `Ok(None)` if it is empty, an error naming the line if it is not one.
pub fn read(path: &Path) -> Result<Option<Recorded>, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("{}: error: cannot read: {e}", path.display()))?;
    // Only whole lines count; what follows the last newline is a write cut short.
    let good_len = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let whole = std::str::from_utf8(&bytes[..good_len])
        .map_err(|e| format!("{}: error: not a text file: {e}", path.display()))?;
    let mut lines = whole.lines().enumerate();
    let Some((_, first)) = lines.next() else {
        return Ok(None);
    };
    let header: Header = serde_json::from_str(first).map_err(|e| {
        format!(
            "{}:1: error: not the header of an `agentbox compare` file: {e}",
            path.display()
        )
    })?;
    let mut runs = Vec::new();
    for (i, line) in lines {
        let run: RunLine = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: error: not a run line: {e}", path.display(), i + 1))?;
        if header.order(&run).is_none() {
            return Err(format!(
                "{}:{}: error: variant `{}` is not in the header",
                path.display(),
                i + 1,
                run.variant
            ));
        }
        runs.push(run);
    }
    Ok(Some(Recorded {
        header,
        runs,
        good_len: good_len as u64,
    }))
}

/// One line of JSON (never fails for these types).
pub fn line<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}
