//! `--report FILE.html` on compare, sweep and merge: one self-contained page (inline CSS and
//! SVG, no script, no network) with the study's header, the summary table, the paired
//! differences from the baseline in the terminal's figures and in words, each measure's
//! distribution per variant (every run a dot naming its variant and seed, over its quartile
//! box), the one-line command that opens each run in the window, and for a sweep of two or
//! more parameters a heat map of each measure over the first two (means over the rest).
//!
//! Pure text from a header, the run lines and their summary: it must not run anything.

use super::record::{Header, RunLine};
use super::sessions::open_command;
use super::summary::{describe_diff, Stats, Summary};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Escapes text for HTML.
pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A number for a table cell: four significant digits, no trailing noise.
fn num(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    if v == v.round() && v.abs() < 1e9 {
        return format!("{v}");
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let text = format!("{v:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

fn stats_cell(s: &Option<Stats>) -> String {
    match s {
        None => "<td>—</td>".into(),
        Some(s) => format!(
            "<td>{} <span class=ci>[{}, {}]</span><br><span class=ci>median {} · n {}</span></td>",
            num(s.mean),
            num(s.low),
            num(s.high),
            num(s.median),
            s.n
        ),
    }
}

/// Reads one number of a run, if it has one.
type Getter = Box<dyn Fn(&RunLine) -> Option<f64>>;

/// One measure of a run: reach times (a miss counts as the tick limit), metrics, monitors.
struct Measure {
    title: String,
    get: Getter,
}

fn measures(runs: &[RunLine], ticks: u64) -> Vec<Measure> {
    let mut reach = std::collections::BTreeSet::new();
    let mut metrics = std::collections::BTreeSet::new();
    let mut monitors = std::collections::BTreeSet::new();
    for r in runs {
        reach.extend(r.reach.keys().cloned());
        metrics.extend(r.metrics.keys().cloned());
        monitors.extend(r.monitors.keys().cloned());
    }
    let mut out = Vec::new();
    for k in reach {
        let key = k.clone();
        out.push(Measure {
            title: format!("time to reach {k} (ticks; a miss counts as {ticks})"),
            get: Box::new(move |r| {
                r.reach
                    .get(&key)
                    .map(|t| t.map_or(ticks as f64, |t| t as f64))
            }),
        });
        let key = k.clone();
        out.push(Measure {
            title: format!("reached {k} (1 or 0)"),
            get: Box::new(move |r| r.reach.get(&key).map(|t| f64::from(u8::from(t.is_some())))),
        });
    }
    for m in metrics {
        let key = m.clone();
        out.push(Measure {
            title: format!("metric {m}"),
            get: Box::new(move |r| r.metrics.get(&key).copied().flatten()),
        });
    }
    for m in monitors {
        let key = m.clone();
        out.push(Measure {
            title: format!("monitor {m} (final)"),
            get: Box::new(move |r| r.monitors.get(&key).copied().flatten()),
        });
    }
    out.push(Measure {
        title: "contacts".into(),
        get: Box::new(|r| Some(r.contacts as f64)),
    });
    out
}

/// The summary table: a row per variant.
fn table(summary: &Summary, out: &mut String) {
    let first = summary.variants.first();
    let _ = write!(
        out,
        "<table><tr><th>variant</th><th>runs</th><th>errors</th><th>contacts</th>"
    );
    for r in first.map_or(&[][..], |v| &v.reach[..]) {
        let _ = write!(
            out,
            "<th>{} reached</th><th>{} time</th>",
            esc(&r.key),
            esc(&r.key)
        );
    }
    for m in first.map_or(&[][..], |v| &v.metrics[..]) {
        let _ = write!(out, "<th>{}</th>", esc(&m.name));
    }
    out.push_str("</tr>");
    for v in &summary.variants {
        // (A long sweep name breaks after each comma, so the table fits the page.)
        let base = summary.baseline.as_deref() == Some(v.name.as_str());
        let _ = write!(
            out,
            "<tr><td class=name>{}{}</td><td>{}</td><td>{}</td><td>{}</td>",
            breakable(&v.name),
            if base {
                " <span class=ci>(baseline)</span>"
            } else {
                ""
            },
            v.runs,
            v.errors,
            v.contacts
        );
        for r in &v.reach {
            let _ = write!(
                out,
                "<td>{}/{}</td>{}",
                r.reached,
                r.runs,
                stats_cell(&r.time)
            );
        }
        for m in &v.metrics {
            out.push_str(&stats_cell(&m.stats));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

/// A variant's name for HTML, breakable after each comma (a sweep point's `a=1,b=2`).
fn breakable(name: &str) -> String {
    esc(name).replace(',', ",<wbr>")
}

/// The paired differences from the baseline, in the terminal's figures (`+0.425 [0.275,
/// 0.575] (n 40)`) beside the sentence that says them in words.
fn differences(summary: &Summary, out: &mut String) {
    let Some(base) = &summary.baseline else {
        out.push_str(
            "<p class=ci>No baseline (every variant substitutes a script): no differences.</p>",
        );
        return;
    };
    let _ = write!(
        out,
        "<h2>Differences from the baseline</h2><p class=ci>Each variant minus {}, paired by seed: mean [95% bootstrap interval] (n pairs), as the terminal prints them.</p>         <div class=wide><table class=diff><tr><th>variant</th><th>measure</th><th>difference</th><th>in words</th></tr>",
        esc(base)
    );
    for v in summary.variants.iter().filter(|v| &v.name != base) {
        let name = breakable(&v.name);
        for r in &v.reach {
            let words = summary.reach_in_words(v, r).unwrap_or_default();
            let rows = [
                (format!("reached {}", r.key), &r.reached_diff),
                (format!("time to reach {}", r.key), &r.time_diff),
            ];
            for (i, (measure, diff)) in rows.iter().enumerate() {
                let figure = diff.as_ref().map_or("—".into(), describe_diff);
                let _ = write!(
                    out,
                    "<tr><td class=name>{name}</td><td class=name>{}</td><td class=fig>{}</td>",
                    esc(measure),
                    esc(&figure)
                );
                if i == 0 {
                    let _ = write!(out, "<td class=words rowspan=2>{}</td>", esc(&words));
                }
                out.push_str("</tr>");
            }
        }
        for m in &v.metrics {
            let words = summary.metric_in_words(v, m).unwrap_or_default();
            let figure = m.diff.as_ref().map_or("—".into(), describe_diff);
            let _ = write!(
                out,
                "<tr><td class=name>{name}</td><td class=name>metric {}</td><td class=fig>{}</td><td class=words>{}</td></tr>",
                esc(&m.name),
                esc(&figure),
                esc(&words)
            );
        }
    }
    out.push_str("</table></div>");
}

/// Every run with the one-line command that opens it in the window, paused at its first reach
/// or its end.
fn open_runs(header: &Header, runs: &[RunLine], out: &mut String) {
    let _ = write!(
        out,
        "<h2>Open a run in the window</h2><p class=ci>Each command makes that one run again (same scene, scripts and seed) and opens it paused at its first reach, with the reaching agent selected, or at its end. Run it from the folder the study ran in.</p>         <details><summary>{} runs</summary><div class=wide><table class=runs><tr><th>variant</th><th>seed</th><th>opens at</th><th>command</th></tr>",
        runs.len()
    );
    for run in runs {
        let focus = super::sessions::focus_of(run);
        let at = if focus.agent.is_some() {
            format!("tick {} (reached)", focus.tick)
        } else {
            format!("tick {} (end)", focus.tick)
        };
        let _ = write!(
            out,
            "<tr><td class=name>{}</td><td>{}</td><td>{at}</td><td class=cmd><code>{}</code></td></tr>",
            breakable(&run.variant),
            run.seed,
            esc(&open_command(header, &run.variant, run.seed).unwrap_or_default())
        );
    }
    out.push_str("</table></div></details>");
}

/// Sorted values' `q` quantile.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let at = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo as f64)
}

/// One measure's finite values per variant with the seed of each, sorted by value, in the
/// header's variant order.
fn values_by_variant(
    header: &Header,
    runs: &[RunLine],
    m: &Measure,
) -> Vec<(String, Vec<(f64, u64)>)> {
    header
        .variants
        .iter()
        .map(|v| {
            let mut xs: Vec<(f64, u64)> = runs
                .iter()
                .filter(|r| r.variant == v.name)
                .filter_map(|r| Some(((m.get)(r)?, r.seed)))
                .filter(|x| x.0.is_finite())
                .collect();
            xs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            (v.name.clone(), xs)
        })
        .collect()
}

/// A variant's name as the lines of a distribution's label: a sweep point's `a=1,b=2` one
/// parameter a line, so a long name stays readable.
fn label_lines(name: &str) -> Vec<&str> {
    name.split(',').collect()
}

/// The width of the label column for these names (monospace 12 px), within limits.
fn label_width(names: &[&str]) -> f64 {
    let longest = names
        .iter()
        .flat_map(|n| label_lines(n))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    (longest as f64 * 7.3 + 16.0).clamp(120.0, 360.0)
}

/// One measure's distribution per variant: a row each, dots over a quartile box.
fn distribution(header: &Header, runs: &[RunLine], m: &Measure, out: &mut String) {
    let rows = values_by_variant(header, runs, m);
    let all: Vec<f64> = rows.iter().flat_map(|r| r.1.iter().map(|x| x.0)).collect();
    if all.is_empty() {
        return;
    }
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let mut hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi <= lo {
        hi = lo + 1.0;
    }
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let lines = names
        .iter()
        .map(|n| label_lines(n).len())
        .max()
        .unwrap_or(1);
    let (label_w, plot_w) = (label_width(&names), 560.0);
    let row_h = (14.0 * lines as f64 + 8.0).max(22.0);
    let height = row_h * rows.len() as f64 + 30.0;
    let x = |v: f64| label_w + (v - lo) / (hi - lo) * plot_w;
    let _ = write!(
        out,
        "<figure><figcaption>{}</figcaption><svg width=\"{}\" height=\"{height}\" viewBox=\"0 0 {} {height}\">",
        esc(&m.title),
        label_w + plot_w + 20.0,
        label_w + plot_w + 20.0
    );
    for (i, (name, xs)) in rows.iter().enumerate() {
        let y = row_h * i as f64 + row_h / 2.0 + 4.0;
        let parts = label_lines(name);
        let first = y + 4.0 - 7.0 * (parts.len() as f64 - 1.0);
        let _ = write!(
            out,
            "<text text-anchor=\"end\" class=lab><title>{}</title>",
            esc(name)
        );
        for (k, part) in parts.iter().enumerate() {
            let _ = write!(
                out,
                "<tspan x=\"{}\" y=\"{:.1}\">{}{}</tspan>",
                label_w - 8.0,
                first + 14.0 * k as f64,
                esc(part),
                if k + 1 < parts.len() { "," } else { "" }
            );
        }
        out.push_str("</text>");
        if !xs.is_empty() {
            box_and_dots(header, name, xs, y, &x, out);
        }
    }
    let base = row_h * rows.len() as f64 + 12.0;
    let _ = write!(
        out,
        "<line x1=\"{label_w}\" x2=\"{}\" y1=\"{base}\" y2=\"{base}\" class=axis />\
         <text x=\"{label_w}\" y=\"{}\" class=lab>{}</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=lab>{}</text></svg></figure>",
        label_w + plot_w,
        base + 14.0,
        num(lo),
        label_w + plot_w,
        base + 14.0,
        num(hi)
    );
}

/// One variant's row of a distribution at height `y`: its quartile box, its median, and a dot
/// per run (`runs` its values and seeds, sorted by value, not empty; `x` places a value). A dot
/// names its variant and seed, its value, and the command that opens the run (hover it).
fn box_and_dots(
    header: &Header,
    variant: &str,
    runs: &[(f64, u64)],
    y: f64,
    x: &impl Fn(f64) -> f64,
    out: &mut String,
) {
    let xs: Vec<f64> = runs.iter().map(|r| r.0).collect();
    let xs = &xs[..];
    let (q1, q2, q3) = (quantile(xs, 0.25), quantile(xs, 0.5), quantile(xs, 0.75));
    let _ = write!(
        out,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" class=box />\
         <line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" class=med />",
        x(q1),
        y - 7.0,
        (x(q3) - x(q1)).max(1.0),
        14.0,
        x(q2),
        x(q2),
        y - 8.0,
        y + 8.0
    );
    for (j, (v, seed)) in runs.iter().enumerate() {
        // A small fixed jitter by rank keeps equal values visible without randomness.
        let dy = ((j % 5) as f64 - 2.0) * 2.0;
        let command = open_command(header, variant, *seed).unwrap_or_default();
        let _ = write!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" class=dot data-variant=\"{}\" data-seed=\"{seed}\"><title>{} seed {seed}: {}\n{}</title></circle>",
            x(*v),
            y + dy,
            esc(variant),
            esc(variant),
            num(*v),
            esc(&command)
        );
    }
}

/// Colour for a share between 0 and 1 (light yellow to dark blue).
fn colour(t: f64) -> String {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        lerp(255.0, 8.0),
        lerp(247.0, 64.0),
        lerp(188.0, 129.0)
    )
}

/// For a sweep of two or more parameters: each measure's mean over the first two axes.
fn heat_maps(header: &Header, runs: &[RunLine], measures: &[Measure], out: &mut String) {
    let Some(first) = header.variants.first() else {
        return;
    };
    let axes: Vec<&String> = first.params.keys().collect();
    if axes.len() < 2 {
        return;
    }
    let (ax, ay) = (axes[0].clone(), axes[1].clone());
    let values = |axis: &str| {
        let mut v: Vec<f64> = header
            .variants
            .iter()
            .filter_map(|v| v.params.get(axis).copied())
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let (xs, ys) = (values(&ax), values(&ay));
    let _ = write!(
        out,
        "<h2>Heat maps: {} across, {} down{}</h2>",
        esc(&ax),
        esc(&ay),
        if axes.len() > 2 {
            " (means over the other swept parameters)"
        } else {
            ""
        }
    );
    for m in measures {
        let means = cell_means(runs, m, (&ax, &xs), (&ay, &ys));
        if !means.is_empty() {
            heat_map(m, &xs, &ys, &means, out);
        }
    }
}

/// A measure's mean per heat-map cell, by (column, row): the runs whose values on the two
/// axes are `x.1[column]` and `y.1[row]`, averaged over their finite values.
fn cell_means(
    runs: &[RunLine],
    m: &Measure,
    x: (&str, &[f64]),
    y: (&str, &[f64]),
) -> BTreeMap<(usize, usize), f64> {
    let mut cells: BTreeMap<(usize, usize), (f64, usize)> = BTreeMap::new();
    for r in runs {
        let (Some(px), Some(py)) = (r.params.get(x.0), r.params.get(y.0)) else {
            continue;
        };
        let (Some(i), Some(j)) = (
            x.1.iter().position(|v| v == px),
            y.1.iter().position(|v| v == py),
        ) else {
            continue;
        };
        if let Some(v) = (m.get)(r).filter(|v| v.is_finite()) {
            let c = cells.entry((i, j)).or_insert((0.0, 0));
            c.0 += v;
            c.1 += 1;
        }
    }
    cells
        .iter()
        .map(|(k, (s, n))| (*k, s / *n as f64))
        .collect()
}

/// One measure's heat map: a cell per (column, row) mean, coloured from the lowest mean to
/// the highest, under the axes' values.
fn heat_map(
    m: &Measure,
    xs: &[f64],
    ys: &[f64],
    means: &BTreeMap<(usize, usize), f64>,
    out: &mut String,
) {
    let lo = means.values().copied().fold(f64::INFINITY, f64::min);
    let hi = means.values().copied().fold(f64::NEG_INFINITY, f64::max);
    let (cw, ch, left, top) = (64.0, 30.0, 70.0, 24.0);
    let w = left + cw * xs.len() as f64 + 10.0;
    let h = top + ch * ys.len() as f64 + 10.0;
    let _ = write!(
        out,
        "<figure><figcaption>{} (mean per cell; {} to {})</figcaption><svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">",
        esc(&m.title),
        num(lo),
        num(hi)
    );
    for (i, x) in xs.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"16\" text-anchor=\"middle\" class=lab>{}</text>",
            left + cw * (i as f64 + 0.5),
            num(*x)
        );
    }
    for (j, y) in ys.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" class=lab>{}</text>",
            left - 6.0,
            top + ch * (j as f64 + 0.5) + 4.0,
            num(*y)
        );
    }
    for ((i, j), v) in means {
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
        let ink = if t > 0.55 { "#fff" } else { "#000" };
        let (cx, cy) = (left + cw * *i as f64, top + ch * *j as f64);
        let _ = write!(
            out,
            "<rect x=\"{cx}\" y=\"{cy}\" width=\"{cw}\" height=\"{ch}\" fill=\"{}\" />\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{ink}\" class=cell>{}</text>",
            colour(t),
            cx + cw / 2.0,
            cy + ch / 2.0 + 4.0,
            num(*v)
        );
    }
    out.push_str("</svg></figure>");
}

pub(super) const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}\
h1{font-size:22px}h2{font-size:17px;margin-top:28px}table{border-collapse:collapse;margin:8px 0}\
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;vertical-align:top;white-space:nowrap}th{background:#f2f2f2}\
td.name{text-align:left;font-family:monospace;white-space:normal;overflow-wrap:anywhere;min-width:8em;max-width:24em}\
.wide{max-width:100%;overflow-x:auto}td.fig{font-family:monospace}td.words{text-align:left;white-space:normal;min-width:18em;max-width:40em}\
td.cmd{text-align:left;white-space:normal;overflow-wrap:anywhere;font-size:12px}summary{cursor:pointer;margin:6px 0}.ci{color:#777;font-size:12px}dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}\
dt{color:#666}dd{margin:0;font-family:monospace}figure{margin:12px 16px 12px 0;display:inline-block;vertical-align:top}figcaption{font-weight:600;margin-bottom:4px}\
.lab{font:12px monospace;fill:#333}.cell{font:12px monospace}.box{fill:#cfe3f5;stroke:#4a7fb0}.med{stroke:#1b4f80;stroke-width:2}\
.dot{fill:#d0502a;fill-opacity:.7}.axis{stroke:#999}pre{white-space:pre-wrap;overflow-wrap:anywhere}";

/// The page for a study.
pub fn html(header: &Header, runs: &[RunLine], summary: &Summary) -> String {
    let mut out = String::new();
    let kind = if header.variants.iter().any(|v| !v.params.is_empty()) {
        "sweep"
    } else {
        "compare"
    };
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>agentbox {kind}: {}</title><style>{STYLE}</style></head><body>\
         <h1>agentbox {kind}: {}</h1><dl><dt>scene</dt><dd>{}</dd><dt>scene sha256</dt><dd>{}</dd><dt>build</dt><dd>{}</dd>\
         <dt>seeds</dt><dd>{}..{}</dd><dt>ticks per run</dt><dd>{}</dd><dt>runs</dt><dd>{} of {}</dd></dl>",
        esc(&header.scene),
        esc(&header.scene),
        esc(&header.scene),
        esc(&header.scene_sha256),
        esc(&header.build),
        header.seeds[0],
        header.seeds[1],
        header.ticks,
        summary.runs,
        summary.expected
    );
    let measures = measures(runs, header.ticks);
    heat_maps(header, runs, &measures, &mut out);
    out.push_str("<h2>Summary</h2><p class=ci>Mean [95% bootstrap interval of the mean], median and n per variant; times count a miss as the tick limit.</p><div class=wide>");
    table(summary, &mut out);
    out.push_str("</div>");
    differences(summary, &mut out);
    out.push_str("<h2>Distributions per variant</h2><p class=ci>Every run is a dot (hover it: its variant, seed, value and the command that opens it); the box spans the quartiles, the dark line is the median.</p>");
    for m in &measures {
        distribution(header, runs, m, &mut out);
    }
    open_runs(header, runs, &mut out);
    out.push_str("</body></html>\n");
    out
}

/// Writes the page to `path`.
pub fn write(
    path: &Path,
    header: &Header,
    runs: &[RunLine],
    summary: &Summary,
) -> Result<(), super::StudyError> {
    std::fs::write(path, html(header, runs, summary)).map_err(|source| {
        super::StudyError::WriteReport {
            path: path.to_path_buf(),
            source,
        }
    })
}
