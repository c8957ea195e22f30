//! MovingAI grid benchmark files (movingai.com, N. Sturtevant, "Benchmarks for Grid-Based
//! Pathfinding", 2012): `.map` files become cost grids, `.scen` files lists of queries with
//! their optimal lengths; and the independent checker that re-costs a returned path under the
//! benchmark's rules (8-connected, diagonal sqrt 2, no corner cutting).
//!
//! This module reads files (so it lives outside the pure `nav/`); it knows nothing of scenes,
//! scripts or windows. Bad input is an error naming the file and line, never a panic.

use crate::files::ReadError;
use glam::IVec2;
use std::path::{Path, PathBuf};

/// Why a `.map` or `.scen` file could not be used; its `Display` names the file (and line).
#[derive(Debug, thiserror::Error)]
pub enum MovingAiError {
    /// The file could not be read.
    #[error("{}: error: cannot read: {source}", .path.display())]
    Read { path: PathBuf, source: ReadError },
    /// The file is not UTF-8 text.
    #[error("{}: error: cannot read: stream did not contain valid UTF-8", .path.display())]
    NotText { path: PathBuf },
    /// A line that is not what the format says.
    #[error("{file}:{line}: error: {message}")]
    Malformed {
        file: String,
        line: usize,
        message: String,
    },
}

/// A MovingAI map: `.` and `G` are free (cost 1), every other character is blocked.
#[derive(Clone, Debug, PartialEq)]
pub struct Map {
    pub width: i32,
    pub height: i32,
    /// Row-major, `f32::INFINITY` where blocked.
    pub costs: Vec<f32>,
}

impl Map {
    pub fn free(&self, t: IVec2) -> bool {
        t.x >= 0
            && t.y >= 0
            && t.x < self.width
            && t.y < self.height
            && self.costs[(t.y * self.width + t.x) as usize].is_finite()
    }
}

/// One query of a `.scen` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// 1-based line in the file, for messages.
    pub line: usize,
    pub start: IVec2,
    pub goal: IVec2,
    pub optimal: f64,
}

/// Reads a `.map` or `.scen` file as text (bounded, regular files only: see `crate::files`).
fn read(path: &Path) -> Result<String, MovingAiError> {
    use crate::files::{Disk, FileKind, Files};
    let bytes = Disk
        .read(path, FileKind::MovingAi)
        .map_err(|source| MovingAiError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    String::from_utf8(bytes).map_err(|_| MovingAiError::NotText {
        path: path.to_path_buf(),
    })
}

/// Parses a `.map` file's text (`type octile`, `height H`, `width W`, `map`, then H rows).
pub fn parse_map(name: &str, text: &str) -> Result<Map, MovingAiError> {
    let err = |line: usize, message: String| MovingAiError::Malformed {
        file: name.to_string(),
        line,
        message,
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end()));
    let (mut width, mut height) = (None, None);
    loop {
        let Some((n, line)) = lines.next() else {
            return Err(err(1, "no `map` line: not a MovingAI map".into()));
        };
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("type"), _) => {}
            (Some("height"), Some(v)) => {
                height = Some(
                    v.parse::<i32>()
                        .map_err(|_| err(n, format!("bad height {v:?}")))?,
                )
            }
            (Some("width"), Some(v)) => {
                width = Some(
                    v.parse::<i32>()
                        .map_err(|_| err(n, format!("bad width {v:?}")))?,
                )
            }
            (Some("map"), None) => break,
            _ => return Err(err(n, format!("unexpected header line {line:?}"))),
        }
    }
    let (Some(width), Some(height)) = (width, height) else {
        return Err(err(1, "the header needs `height` and `width`".into()));
    };
    if !(1..=1 << 14).contains(&width) || !(1..=1 << 14).contains(&height) {
        return Err(err(1, format!("map size {width}x{height} is out of range")));
    }
    let mut costs = Vec::with_capacity((width * height) as usize);
    let mut rows = 0;
    for (n, line) in lines {
        if rows == height {
            if line.is_empty() {
                continue;
            }
            return Err(err(n, format!("more than {height} rows")));
        }
        if line.chars().count() != width as usize {
            return Err(err(
                n,
                format!(
                    "row has {} characters, expected {width}",
                    line.chars().count()
                ),
            ));
        }
        costs.extend(line.chars().map(|c| match c {
            '.' | 'G' => 1.0,
            _ => f32::INFINITY,
        }));
        rows += 1;
    }
    if rows != height {
        return Err(err(
            text.lines().count(),
            format!("{rows} rows, expected {height}"),
        ));
    }
    Ok(Map {
        width,
        height,
        costs,
    })
}

/// Parses a `.scen` file's text (`version 1`, then tab-separated lines: bucket, map, width,
/// height, start x, start y, goal x, goal y, optimal length).
pub fn parse_scen(name: &str, text: &str) -> Result<Vec<Scenario>, MovingAiError> {
    let err = |line: usize, message: String| MovingAiError::Malformed {
        file: name.to_string(),
        line,
        message,
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim();
        if line.is_empty() || (n == 1 && line.starts_with("version")) {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() != 9 {
            return Err(err(
                n,
                format!(
                    "expected 9 fields (bucket map width height sx sy gx gy length), got {}",
                    fields.len()
                ),
            ));
        }
        let int = |k: usize| {
            fields[k].parse::<i32>().map_err(|_| {
                err(
                    n,
                    format!("field {} is not an integer: {:?}", k + 1, fields[k]),
                )
            })
        };
        let optimal = fields[8]
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| err(n, format!("bad optimal length {:?}", fields[8])))?;
        out.push(Scenario {
            line: n,
            start: IVec2::new(int(4)?, int(5)?),
            goal: IVec2::new(int(6)?, int(7)?),
            optimal,
        });
    }
    Ok(out)
}

pub fn load_map(path: &Path) -> Result<Map, MovingAiError> {
    parse_map(&path.display().to_string(), &read(path)?)
}

pub fn load_scen(path: &Path) -> Result<Vec<Scenario>, MovingAiError> {
    parse_scen(&path.display().to_string(), &read(path)?)
}

/// The length of a path under MovingAI's rules, computed from the map alone, or why the path
/// is not a legal one from `start` to `goal`.
pub fn recost(map: &Map, start: IVec2, goal: IVec2, path: &[IVec2]) -> Result<f64, String> {
    if path.first() != Some(&start) || path.last() != Some(&goal) {
        return Err("the path does not run from the start to the goal".into());
    }
    if let Some(t) = path.iter().find(|&&t| !map.free(t)) {
        return Err(format!("the path enters blocked cell [{}, {}]", t.x, t.y));
    }
    let mut length = 0.0;
    for pair in path.windows(2) {
        let d = pair[1] - pair[0];
        match (d.x.abs(), d.y.abs()) {
            (1, 0) | (0, 1) => length += 1.0,
            (1, 1) => {
                let a = pair[0];
                if !map.free(IVec2::new(a.x + d.x, a.y)) || !map.free(IVec2::new(a.x, a.y + d.y)) {
                    return Err(format!("the path cuts a corner at [{}, {}]", a.x, a.y));
                }
                length += std::f64::consts::SQRT_2;
            }
            _ => {
                return Err(format!(
                    "the path jumps from [{}, {}] to [{}, {}]",
                    pair[0].x, pair[0].y, pair[1].x, pair[1].y
                ))
            }
        }
    }
    Ok(length)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "type octile\nheight 3\nwidth 4\nmap\n....\n..@.\n.G.T\n";

    #[test]
    fn parses_maps_and_scenarios() {
        let m = parse_map("m", MAP).unwrap();
        assert_eq!((m.width, m.height), (4, 3));
        assert!(m.free(IVec2::new(1, 2)) && !m.free(IVec2::new(2, 1)) && !m.free(IVec2::new(3, 2)));
        let s = parse_scen("s", "version 1\n0\tm.map\t4\t3\t0\t0\t3\t0\t3.00000000\n").unwrap();
        assert_eq!(s[0].start, IVec2::new(0, 0));
        assert_eq!(s[0].goal, IVec2::new(3, 0));
        assert_eq!(s[0].optimal, 3.0);
        assert_eq!(s[0].line, 2);
    }

    #[test]
    fn bad_files_are_located_errors() {
        let e = parse_map("m", "type octile\nheight 2\nwidth 2\nmap\n..\n...\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m:6: error:"), "{e}");
        let e = parse_map("m", "hello").unwrap_err().to_string();
        assert!(e.contains("m:1: error"), "{e}");
        let e = parse_scen("s", "version 1\n0\tm\t1\t1\t0\t0\t0\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s:2: error:"), "{e}");
    }

    #[test]
    fn recost_follows_the_benchmark_rules() {
        let m = parse_map("m", MAP).unwrap();
        let p = |v: &[(i32, i32)]| v.iter().map(|&(x, y)| IVec2::new(x, y)).collect::<Vec<_>>();
        let ok = p(&[(0, 0), (0, 1), (0, 2), (1, 2)]);
        assert_eq!(recost(&m, IVec2::new(0, 0), IVec2::new(1, 2), &ok), Ok(3.0));
        let cut = p(&[(2, 0), (3, 1)]);
        assert!(recost(&m, IVec2::new(2, 0), IVec2::new(3, 1), &cut).is_err());
        let diag = p(&[(0, 0), (1, 1)]);
        let d = recost(&m, IVec2::new(0, 0), IVec2::new(1, 1), &diag).unwrap();
        assert!((d - std::f64::consts::SQRT_2).abs() < 1e-12);
        let jump = p(&[(0, 0), (2, 0)]);
        assert!(recost(&m, IVec2::new(0, 0), IVec2::new(2, 0), &jump).is_err());
    }
}
