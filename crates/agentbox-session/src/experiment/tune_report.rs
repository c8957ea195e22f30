//! The HTML page of `agentbox tune --report`: the search's convergence (every evaluation and
//! the best so far), the best candidate against the scene's own values (the objective's
//! difference paired by seed, and the study's summary of both), and one scatter per tunable
//! of its value against the objective with their correlation. Self-contained (inline SVG).
//!
//! It only formats what the search found; it runs nothing.

use super::report::{esc, STYLE};
use super::tune::{Compared, Tuned};
use std::fmt::Write;
use std::path::Path;

const W: f64 = 560.0;
const H: f64 = 220.0;
const PAD: f64 = 40.0;

/// A scatter of (x, y) points with an optional polyline, axes labelled at their ends.
fn plot(points: &[(f64, f64)], line: &[(f64, f64)], x_name: &str, y_name: &str) -> String {
    let span = |vs: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = vs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        if hi > lo {
            (lo, hi)
        } else {
            (lo - 0.5, lo + 0.5)
        }
    };
    let (x0, x1) = span(&mut points.iter().map(|p| p.0));
    let (y0, y1) = span(&mut points.iter().map(|p| p.1));
    let sx = |x: f64| PAD + (x - x0) / (x1 - x0) * (W - 2.0 * PAD);
    let sy = |y: f64| H - PAD + (y - y0) / (y1 - y0) * -(H - 2.0 * PAD);
    let mut svg = format!("<svg width={W} height={H} viewBox='0 0 {W} {H}' role=img><rect x={PAD} y={PAD} width={} height={} fill=#fafafa stroke=#ccc />", W - 2.0 * PAD, H - 2.0 * PAD);
    for &(x, y) in points {
        let _ = write!(svg, "<circle cx={:.1} cy={:.1} r=3.5 fill=#4a7fc1 opacity=0.7><title>{x_name} {x}, {y_name} {y}</title></circle>", sx(x), sy(y));
    }
    if !line.is_empty() {
        let path: Vec<String> = line
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = write!(
            svg,
            "<polyline points='{}' fill=none stroke=#d2691e stroke-width=2 />",
            path.join(" ")
        );
    }
    let _ = write!(
        svg,
        "<text x={PAD} y={} font-size=11>{}</text><text x={} y={} font-size=11 text-anchor=end>{}</text>\
         <text x={} y={} font-size=12 text-anchor=middle>{}</text>\
         <text x=2 y={} font-size=11>{}</text><text x=2 y={} font-size=11>{}</text><text x=2 y=14 font-size=12>{}</text></svg>",
        H - PAD + 14.0, axis_label(x0), W - PAD, H - PAD + 14.0, axis_label(x1), W / 2.0, H - 6.0, esc(x_name),
        H - PAD, axis_label(y0), PAD + 4.0, axis_label(y1), esc(y_name)
    );
    svg
}

/// An axis end as a reader writes it: whole numbers without decimals, others with at most
/// three (`11`, `126.4`, `0.25`).
fn axis_label(v: f64) -> String {
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// Pearson's correlation of two samples, `None` when either does not vary.
fn correlation(xs: &[f64], ys: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let cov: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let vy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    (vx > 0.0 && vy > 0.0).then(|| cov / (vx * vy).sqrt())
}

/// The page.
pub fn html(tuned: &Tuned, compared: &Compared) -> String {
    let h = &tuned.header;
    let mut out = format!(
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>agentbox tune: {}</title><style>{STYLE}</style></head><body>\
         <h1>agentbox tune: {}</h1><dl><dt>objective</dt><dd><code>{}</code> ({})</dd><dt>tunables</dt><dd>{}</dd>\
         <dt>seeds</dt><dd>{}..{}</dd><dt>evaluations</dt><dd>{} (search seed {})</dd><dt>build</dt><dd>{}</dd></dl>",
        esc(&h.scene), esc(&h.scene), esc(&h.objective), esc(&h.goal), esc(&h.tunables.join(", ")),
        h.seeds[0], h.seeds[1], tuned.evaluations.len(), h.seed, esc(&h.build)
    );
    let maximize = h.goal == "maximize";
    let mut best_so_far = Vec::new();
    let mut best = f64::NAN;
    for e in &tuned.evaluations {
        if best.is_nan() || (maximize && e.objective > best) || (!maximize && e.objective < best) {
            best = e.objective;
        }
        best_so_far.push((e.eval as f64, best));
    }
    let points: Vec<(f64, f64)> = tuned
        .evaluations
        .iter()
        .map(|e| (e.eval as f64, e.objective))
        .collect();
    out.push_str("<h2>Convergence</h2><p class=ci>Every evaluation (dots; 0 is the scene's own values) and the best so far (line).</p>");
    out.push_str(&plot(&points, &best_so_far, "evaluation", "objective"));
    if let (Some(b), Some(current)) = (tuned.best(), tuned.evaluations.first()) {
        out.push_str("<h2>Best against the scene's own values</h2><table><tr><th>tunable</th><th>scene</th><th>best</th><th>range</th></tr>");
        for t in &tuned.tunables {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}..{}{}</td></tr>",
                esc(&t.name),
                current.values.get(&t.name).copied().unwrap_or(t.value),
                b.values.get(&t.name).copied().unwrap_or(f64::NAN),
                t.min,
                t.max,
                t.step.map(|s| format!(" step {s}")).unwrap_or_default()
            );
        }
        let _ = write!(
            out,
            "<tr><td>objective</td><td>{}</td><td><b>{}</b></td><td>evaluation {}</td></tr></table>",
            current.objective, b.objective, b.eval
        );
        match &compared.objective_diff {
            Some(d) => {
                let _ = write!(out, "<p>Objective, best minus scene, paired by seed (each seed's run scored alone): mean <b>{:+.4}</b> [95% interval {:+.4} .. {:+.4}], n = {}.</p>", d.mean, d.low, d.high, d.n);
            }
            None => out.push_str("<p>The objective could not be scored seed by seed.</p>"),
        }
        let _ = write!(out, "<pre>{}</pre>", esc(&compared.summary.text()));
    }
    out.push_str("<h2>How each tunable relates to the objective</h2><p class=ci>Every evaluation's value of the tunable against its objective; r is Pearson's correlation.</p>");
    let ys: Vec<f64> = tuned.evaluations.iter().map(|e| e.objective).collect();
    for t in &tuned.tunables {
        let xs: Vec<f64> = tuned
            .evaluations
            .iter()
            .map(|e| e.values.get(&t.name).copied().unwrap_or(t.value))
            .collect();
        let r = correlation(&xs, &ys)
            .map_or("r undefined (no spread)".into(), |r| format!("r = {r:+.2}"));
        let pts: Vec<(f64, f64)> = xs.iter().copied().zip(ys.iter().copied()).collect();
        let _ = write!(out, "<h3>{} <small>({r})</small></h3>", esc(&t.name));
        out.push_str(&plot(&pts, &[], &t.name, "objective"));
    }
    out.push_str("</body></html>\n");
    out
}

/// Writes the page to `path`.
pub fn write(path: &Path, tuned: &Tuned, compared: &Compared) -> Result<(), super::StudyError> {
    std::fs::write(path, html(tuned, compared)).map_err(|source| super::StudyError::WriteReport {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correlation_reads_the_direction() {
        assert!((correlation(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!(correlation(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap() < -0.99);
        assert_eq!(correlation(&[1.0, 1.0], &[1.0, 2.0]), None);
    }

    #[test]
    fn axis_labels_drop_needless_decimals() {
        let labels: Vec<String> = [11.0, 126.4, 0.25, 0.0, -0.0001, 1500.0]
            .map(axis_label)
            .into();
        assert_eq!(labels, ["11", "126.4", "0.25", "0", "0", "1500"]);
    }
}
