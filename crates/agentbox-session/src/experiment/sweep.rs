//! `agentbox sweep`: a study whose variants are the points of a grid of scene numbers.
//! `--param PATH=A..B:STEP` gives one axis (values A + i·STEP up to B, inclusive, with a
//! tolerance of a millionth of a step); the points are every combination, the last axis
//! changing fastest. Each point is a variant of `compare` whose scene text has those numbers
//! rewritten in place (`scene::numbers`), so the runner, shards, resume, merge and the summary
//! are compare's own, and each line carries `"params":{PATH: value}`.
//!
//! It only turns axes into variants; it must not run anything itself.

use agentbox_core::scene::numbers;
use std::collections::BTreeMap;

/// At most this many points in one sweep.
const MAX_POINTS: usize = 100_000;

/// One axis: a path and its values in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub path: String,
    pub values: Vec<f64>,
}

/// Parses `PATH=A..B:STEP` (or `PATH=V` for one value).
pub fn parse_axis(text: &str) -> Result<Axis, String> {
    let bad = |why: &str| {
        format!("--param {text:?}: {why} (write PATH=A..B:STEP, such as hunter.space=1..8:0.5)")
    };
    let (path, range) = text.split_once('=').ok_or_else(|| bad("no `=`"))?;
    let path = path.trim();
    if path.is_empty() {
        return Err(bad("the path before `=` is empty"));
    }
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad(&format!("`{}` is not a number", s.trim())))
    };
    let values = match range.split_once("..") {
        None => vec![number(range)?],
        Some((a, rest)) => {
            let (b, step) = rest
                .split_once(':')
                .ok_or_else(|| bad("the range has no `:STEP`"))?;
            let (a, b, step) = (number(a)?, number(b)?, number(step)?);
            if step <= 0.0 {
                return Err(bad("STEP must be above 0"));
            }
            if b < a {
                return Err(bad("B is below A"));
            }
            let count = ((b - a) / step + 1e-6).floor() + 1.0;
            if count > MAX_POINTS as f64 {
                return Err(bad(&format!("more than {MAX_POINTS} values")));
            }
            (0..count as usize)
                .map(|i| tidy(a + i as f64 * step))
                .collect()
        }
    };
    Ok(Axis {
        path: path.to_string(),
        values,
    })
}

/// A value rounded to 12 significant digits, so `0.1 + 2 * 0.1` is written `0.3`.
fn tidy(v: f64) -> f64 {
    format!("{v:.11e}").parse().unwrap_or(v)
}

/// Every point of the grid, in order (the last axis fastest), each as (path, value) pairs.
pub fn points(axes: &[Axis]) -> Result<Vec<Vec<(String, f64)>>, String> {
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.path == a.path) {
            return Err(format!("--param {}: swept twice", a.path));
        }
    }
    let total = axes.iter().map(|a| a.values.len()).product::<usize>();
    if total > MAX_POINTS {
        return Err(format!(
            "the sweep has {total} points; at most {MAX_POINTS}"
        ));
    }
    let mut out = vec![Vec::new()];
    for axis in axes {
        out = out
            .into_iter()
            .flat_map(|point| {
                axis.values.iter().map(move |&v| {
                    let mut p = point.clone();
                    p.push((axis.path.clone(), v));
                    p
                })
            })
            .collect();
    }
    Ok(out)
}

/// A point's name in the summary and the lines: `PATH=V,PATH=V`.
pub fn name(point: &[(String, f64)]) -> String {
    point
        .iter()
        .map(|(p, v)| format!("{p}={}", numbers::format_number(*v)))
        .collect::<Vec<_>>()
        .join(",")
}

/// The scene text with a point's numbers written in, or an error naming the scene and path.
pub fn apply(scene: &str, text: &str, point: &[(String, f64)]) -> Result<String, String> {
    numbers::set_numbers(text, point).map_err(|e| format!("{scene}: error: --param {e}"))
}

/// The point as the header and lines record it.
pub fn record(point: &[(String, f64)]) -> BTreeMap<String, f64> {
    point.iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_include_both_ends_within_a_tolerance() {
        assert_eq!(
            parse_axis("a.b=0.1..0.5:0.1").unwrap().values,
            vec![0.1, 0.2, 0.3, 0.4, 0.5]
        );
        assert_eq!(
            parse_axis("x=1..2:0.4").unwrap().values,
            vec![1.0, 1.4, 1.8]
        );
        assert_eq!(parse_axis("x=3").unwrap().values, vec![3.0]);
        for bad in [
            "x",
            "=1..2:1",
            "x=1..2",
            "x=2..1:1",
            "x=1..2:0",
            "x=a..2:1",
            "x=1..1e9:1e-3",
        ] {
            assert!(parse_axis(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn points_are_every_combination_last_axis_fastest() {
        let axes = [
            parse_axis("a=1..2:1").unwrap(),
            parse_axis("b=5..6:1").unwrap(),
        ];
        let names: Vec<String> = points(&axes).unwrap().iter().map(|p| name(p)).collect();
        assert_eq!(names, ["a=1,b=5", "a=1,b=6", "a=2,b=5", "a=2,b=6"]);
        assert!(points(&[axes[0].clone(), axes[0].clone()]).is_err());
    }
}
