//! Text helpers for panels: the built-in font is monospaced, so wrapping by character count
//! is exact. It has only ASCII glyphs: [`ui_text`] spells common typographic characters
//! (dashes, arrows, curly quotes) in ASCII so text from scripts and messages never shows a
//! missing-glyph box for them.

use macroquad::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;

/// A text held back by [`text_last`], drawn when its scope ends: its bytes in
/// [`Held::text`], where it goes and how it looks.
struct HeldText {
    from: usize,
    to: usize,
    x: f32,
    y: f32,
    size: f32,
    color: Color,
}

/// The texts held back while a [`text_last`] scope runs, all their bytes in one string; kept
/// between scopes with their room, so holding a text allocates nothing once warm.
#[derive(Default)]
struct Held {
    /// Whether a scope runs (texts are held only then).
    on: bool,
    text: String,
    texts: Vec<HeldText>,
}

thread_local! {
    static HELD: RefCell<Held> = RefCell::new(Held::default());
}

/// Runs `draw` with every [`ui_text`] in it held back and drawn after it, together.
///
/// Macroquad batches consecutive shapes that share a texture into one GPU draw call. Where
/// text is macroquad's (a DPI scale other than 1: its font atlas, the shapes' white texture),
/// a box, its text, the next box... would start a new call each, and under software OpenGL
/// each call costs on the program's thread; inside the scope the shapes go first and all the
/// text after, in two calls. Where text is on the window's sheet (`sheet.rs`) the scope costs
/// nothing and keeps the same order, so the pixels are the same either way. A shape that must
/// cover earlier text calls [`draw_held`] first. Scopes do not nest: an inner one just runs.
pub fn text_last<R>(draw: impl FnOnce() -> R) -> R {
    let outer = HELD.with(|h| std::mem::replace(&mut h.borrow_mut().on, true));
    let result = draw();
    if !outer {
        draw_held();
        HELD.with(|h| h.borrow_mut().on = false);
    }
    result
}

/// Draws the text held back so far in this [`text_last`] scope, before a shape that covers it.
pub fn draw_held() {
    let (mut text, mut texts) = HELD.with(|h| {
        let mut h = h.borrow_mut();
        (std::mem::take(&mut h.text), std::mem::take(&mut h.texts))
    });
    for t in &texts {
        draw_now(&text[t.from..t.to], t.x, t.y, t.size, t.color);
    }
    text.clear();
    texts.clear();
    // Drawing holds nothing (`draw_now` never holds), so the room goes back as it was.
    HELD.with(|h| {
        let mut h = h.borrow_mut();
        if h.texts.is_empty() {
            h.text = text;
            h.texts = texts;
        }
    });
}

/// `text` with the typographic characters the built-in font lacks spelled in ASCII
/// (`—` → `-`, `→` → `->`, `“` → `"`, ...); other text unchanged.
pub fn font_safe(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' => out.push('-'),
            '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{2032}' => out.push('\''),
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{2033}' => out.push('"'),
            '\u{2026}' => out.push_str("..."),
            '\u{2192}' => out.push_str("->"),
            '\u{2190}' => out.push_str("<-"),
            '\u{2264}' => out.push_str("<="),
            '\u{2265}' => out.push_str(">="),
            '\u{2260}' => out.push_str("!="),
            '\u{00d7}' => out.push('x'),
            '\u{00b7}' | '\u{2022}' => out.push('*'),
            '\u{00a0}' | '\u{2009}' | '\u{202f}' => out.push(' '),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Draws UI text at `size` logical pixels, rasterised at the screen's real resolution so it
/// stays crisp on high-DPI screens (identical to `draw_text` at a scale of 1).
pub fn ui_text(text: &str, x: f32, y: f32, size: f32, color: Color) {
    let held = HELD.with(|h| {
        let h = &mut *h.borrow_mut();
        if h.on {
            let from = h.text.len();
            h.text.push_str(text);
            let to = h.text.len();
            h.texts.push(HeldText {
                from,
                to,
                x,
                y,
                size,
                color,
            });
        }
        h.on
    });
    if !held {
        draw_now(text, x, y, size, color);
    }
}

/// Draws on the window's one texture (`sheet.rs`, the same pixels as macroquad's text, one
/// draw call with the shapes around it) where the screen's DPI scale is 1; with macroquad's
/// own text elsewhere.
fn draw_now(text: &str, x: f32, y: f32, size: f32, color: Color) {
    let dpi = screen_dpi_scale().max(0.25);
    let text = font_safe(text);
    if dpi == 1.0 && crate::sheet::text(&text, x, y, size.round() as u16, color) {
        return;
    }
    draw_text_ex(
        text,
        x,
        y,
        TextParams {
            font_size: (size * dpi).round() as u16,
            font_scale: 1.0 / dpi,
            color,
            ..Default::default()
        },
    );
}

/// The size of UI text drawn with [`ui_text`], in logical pixels.
pub fn measure(text: &str, size: f32) -> TextDimensions {
    let dpi = screen_dpi_scale().max(0.25);
    if dpi == 1.0 {
        if let Some(dimensions) = crate::sheet::measure(&font_safe(text), size.round() as u16) {
            return dimensions;
        }
    }
    measure_text(
        font_safe(text),
        None,
        (size * dpi).round() as u16,
        1.0 / dpi,
    )
}

/// Splits `text` into lines of at most `width` pixels at `size`.
pub fn wrap(text: &str, width: f32, size: u16) -> Vec<String> {
    let char_w = measure("M", size as f32).width.max(1.0);
    let per_line = ((width / char_w) as usize).max(8);
    let mut out = Vec::new();
    for raw in text.lines() {
        let chars: Vec<char> = raw.chars().collect();
        if chars.is_empty() {
            out.push(String::new());
        }
        for chunk in chars.chunks(per_line) {
            out.push(chunk.iter().collect());
        }
    }
    out
}

/// `lines` cut to what a panel of `room` pixels holds at `size`, the last line saying how many
/// were left out.
pub fn fit_lines(mut lines: Vec<String>, room: f32, size: u16) -> Vec<String> {
    let mut fits = 0;
    while fits < lines.len() && panel_height(fits + 1, size) <= room {
        fits += 1;
    }
    if fits < lines.len() {
        let cut = fits.saturating_sub(1);
        let left_out = lines.len() - cut;
        lines.truncate(cut);
        lines.push(format!(
            "... {left_out} more lines (drag the panel's edge wider)"
        ));
    }
    lines
}

/// The height [`panel`] takes for `lines` lines (and its title) at font `size`.
pub fn panel_height(lines: usize, size: u16) -> f32 {
    14.0 + (size as f32 + 3.0) * (lines as f32 + 1.0)
}

/// An opaque panel with a title and lines of text; returns the panel's height.
pub fn panel(x: f32, y: f32, width: f32, title: &str, lines: &[String], size: u16) -> f32 {
    let line_h = size as f32 + 3.0;
    let height = panel_height(lines.len(), size);
    // The panel covers what is under it, text held back included.
    draw_held();
    draw_rectangle(
        x,
        y,
        width,
        height,
        Color::from_rgba(0x14, 0x15, 0x1a, 0xff),
    );
    draw_rectangle_lines(
        x,
        y,
        width,
        height,
        1.0,
        Color::from_rgba(0x55, 0x58, 0x66, 0xff),
    );
    ui_text(
        title,
        x + 8.0,
        y + 6.0 + line_h,
        size as f32 + 2.0,
        Color::from_rgba(0xff, 0xd0, 0x60, 0xff),
    );
    for (i, line) in lines.iter().enumerate() {
        ui_text(
            line,
            x + 8.0,
            y + 8.0 + line_h * (i as f32 + 2.0),
            size as f32,
            Color::from_rgba(0xe6, 0xe6, 0xe6, 0xff),
        );
    }
    height
}

#[cfg(test)]
mod tests {
    use super::font_safe;

    #[test]
    fn typographic_characters_are_spelled_in_ascii() {
        assert_eq!(
            font_safe("agentbox \u{2014} keys \u{2192} \u{201c}go\u{201d} \u{2026} 3\u{00d7}"),
            "agentbox - keys -> \"go\" ... 3x"
        );
        assert!(matches!(
            font_safe("plain"),
            std::borrow::Cow::Borrowed("plain")
        ));
        assert_eq!(
            font_safe("caf\u{e9}"),
            "caf\u{e9}",
            "other letters are left alone"
        );
    }
}
