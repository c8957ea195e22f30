//! Clips to share: the window's frames written as an animated GIF, as they are drawn (`run
//! --gif FILE`, every frame or every k-th with `--gif-every K`, and the clip key, which writes
//! `SCENE.clip-N.gif`). Frames are streamed to the file, never kept: each is mapped onto one
//! fixed palette (a 6x7x6 colour cube, so no per-frame quantizer runs) and only the rectangle
//! that changed since the last frame is written, its unchanged pixels transparent, which the
//! GIF's LZW packs to almost nothing.
//!
//! It reads the framebuffer and writes the file; it changes nothing of the run.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Levels of red, green and blue in the palette's colour cube.
const LEVELS: [u16; 3] = [6, 7, 6];
/// The palette index that stands for "as in the last frame".
const SAME: u8 = 255;

/// The fixed palette: the colour cube (252 colours), then black up to 256 entries.
fn palette() -> Vec<u8> {
    let mut out = Vec::with_capacity(256 * 3);
    let level = |i: u16, n: u16| (i * 255 / (n - 1)) as u8;
    for r in 0..LEVELS[0] {
        for g in 0..LEVELS[1] {
            for b in 0..LEVELS[2] {
                out.extend([
                    level(r, LEVELS[0]),
                    level(g, LEVELS[1]),
                    level(b, LEVELS[2]),
                ]);
            }
        }
    }
    out.resize(256 * 3, 0);
    out
}

/// The palette index nearest (per channel) to an RGB colour.
fn index_of(r: u8, g: u8, b: u8) -> u8 {
    let q = |v: u8, n: u16| (v as u16 * (n - 1) + 127) / 255;
    let (r, g, b) = (q(r, LEVELS[0]), q(g, LEVELS[1]), q(b, LEVELS[2]));
    (r * LEVELS[1] * LEVELS[2] + g * LEVELS[2] + b) as u8
}

/// An animated GIF being written, one frame at a time.
pub struct GifWriter {
    encoder: gif::Encoder<BufWriter<File>>,
    path: PathBuf,
    width: u16,
    height: u16,
    /// Centiseconds each frame is shown.
    delay: u16,
    /// The last frame's palette indices, row 0 at the top.
    last: Vec<u8>,
    frames: usize,
}

impl GifWriter {
    /// Starts a GIF of `width` x `height` frames, each shown `delay` centiseconds, looping.
    pub fn create(path: &Path, width: u16, height: u16, delay: u16) -> Result<Self, String> {
        let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
        let file = File::create(path).map_err(|e| fail(&e))?;
        let mut encoder = gif::Encoder::new(BufWriter::new(file), width, height, &palette())
            .map_err(|e| fail(&e))?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| fail(&e))?;
        Ok(GifWriter {
            encoder,
            path: path.to_path_buf(),
            width,
            height,
            delay: delay.max(2),
            last: Vec::new(),
            frames: 0,
        })
    }

    /// Adds a frame of RGBA pixels, rows bottom-up as OpenGL reads them when `bottom_up`.
    pub fn push(&mut self, rgba: &[u8], bottom_up: bool) -> Result<(), String> {
        let (w, h) = (self.width as usize, self.height as usize);
        if rgba.len() != w * h * 4 {
            return Err(format!(
                "{}: a frame of {} bytes for {w}x{h} (the window was resized while recording)",
                self.path.display(),
                rgba.len()
            ));
        }
        let mut now = vec![0u8; w * h];
        for y in 0..h {
            let src = if bottom_up { h - 1 - y } else { y };
            let row = &rgba[src * w * 4..(src + 1) * w * 4];
            for (x, px) in row.chunks_exact(4).enumerate() {
                now[y * w + x] = index_of(px[0], px[1], px[2]);
            }
        }
        let frame = if self.last.is_empty() {
            gif::Frame {
                width: self.width,
                height: self.height,
                buffer: std::borrow::Cow::Borrowed(&now),
                ..Default::default()
            }
        } else {
            changed_part(&self.last, &now, w, h)
        };
        let mut frame = frame;
        frame.delay = self.delay;
        frame.dispose = gif::DisposalMethod::Keep;
        self.encoder
            .write_frame(&frame)
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))?;
        drop(frame);
        self.last = now;
        self.frames += 1;
        Ok(())
    }

    /// Finishes the file; how many frames it holds and where it is.
    pub fn finish(self) -> (usize, PathBuf) {
        // The encoder writes the GIF's trailer when dropped.
        drop(self.encoder);
        (self.frames, self.path)
    }
}

/// The rectangle of `now` that differs from `last` as a frame at its place, the pixels that
/// did not change transparent (a 1x1 transparent frame when nothing did).
fn changed_part<'a>(last: &[u8], now: &[u8], w: usize, h: usize) -> gif::Frame<'a> {
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        let (a, b) = (&last[y * w..(y + 1) * w], &now[y * w..(y + 1) * w]);
        if a == b {
            continue;
        }
        let first = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(0);
        let end = w - a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .position(|(p, q)| p != q)
            .unwrap_or(0);
        (x0, x1) = (x0.min(first), x1.max(end));
        (y0, y1) = (y0.min(y), y + 1);
    }
    if x0 >= x1 {
        return gif::Frame {
            width: 1,
            height: 1,
            buffer: std::borrow::Cow::Owned(vec![SAME]),
            transparent: Some(SAME),
            ..Default::default()
        };
    }
    let mut buffer = Vec::with_capacity((x1 - x0) * (y1 - y0));
    for y in y0..y1 {
        for x in x0..x1 {
            let (p, q) = (last[y * w + x], now[y * w + x]);
            buffer.push(if p == q { SAME } else { q });
        }
    }
    gif::Frame {
        left: x0 as u16,
        top: y0 as u16,
        width: (x1 - x0) as u16,
        height: (y1 - y0) as u16,
        buffer: std::borrow::Cow::Owned(buffer),
        transparent: Some(SAME),
        ..Default::default()
    }
}

/// The first `SCENE.clip-N.gif` beside the scene that does not exist yet (N from 1; named as
/// the session file is: `chase.yaml` gives `chase.clip-1.gif`).
pub fn next_clip_path(scene: &Path) -> PathBuf {
    (1..)
        .map(|n| scene.with_extension(format!("clip-{n}.gif")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| scene.with_extension("clip.gif"))
}

/// A GIF being recorded from the window: every `every`-th frame drawn.
pub struct Recorder {
    writer: Option<GifWriter>,
    path: PathBuf,
    every: u64,
    delay: u16,
    seen: u64,
}

impl Recorder {
    /// Records to `path` every `every`-th frame, each frame of the run lasting `frame_secs`.
    pub fn new(path: PathBuf, every: u64, frame_secs: f64) -> Self {
        let every = every.max(1);
        let delay = (frame_secs * every as f64 * 100.0)
            .round()
            .clamp(2.0, 65535.0) as u16;
        Recorder {
            writer: None,
            path,
            every,
            delay,
            seen: 0,
        }
    }

    /// Where it records.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// After a frame is drawn: captures it if it is one to keep.
    pub fn capture(&mut self) -> Result<(), String> {
        let keep = self.seen.is_multiple_of(self.every);
        self.seen += 1;
        if !keep {
            return Ok(());
        }
        let image = macroquad::texture::get_screen_data();
        if self.writer.is_none() {
            self.writer = Some(GifWriter::create(
                &self.path,
                image.width,
                image.height,
                self.delay,
            )?);
        }
        match &mut self.writer {
            Some(writer) => writer.push(&image.bytes, true),
            None => Ok(()),
        }
    }

    /// Ends the clip: its frame count (0 if none was captured, and then no file).
    pub fn finish(self) -> usize {
        self.writer.map_or(0, |w| w.finish().0)
    }
}

/// The window's clips: the run's (`--gif`) and the one the clip key records.
#[derive(Default)]
pub struct Clips {
    run: Option<Recorder>,
    key: Option<Recorder>,
}

impl Clips {
    /// Clips for a run that records itself to `gif` (if given) every `every`-th frame, a frame
    /// lasting `frame_secs`.
    pub fn new(gif: Option<PathBuf>, every: u64, frame_secs: f64) -> Self {
        Clips {
            run: gif.map(|path| Recorder::new(path, every, frame_secs)),
            key: None,
        }
    }

    /// The clip key: starts a clip to the next free `SCENE.clip-N.gif`, or ends the one
    /// recording; what to tell the user.
    pub fn toggle(&mut self, scene: &Path, frame_secs: f64) -> String {
        match self.key.take() {
            Some(recorder) => {
                let path = recorder.path().to_path_buf();
                let frames = recorder.finish();
                format!("clip: wrote {frames} frames to {}", path.display())
            }
            None => {
                let recorder = Recorder::new(next_clip_path(scene), 1, frame_secs);
                let said = format!(
                    "clip: recording to {} (the key again ends it)",
                    recorder.path().display()
                );
                self.key = Some(recorder);
                said
            }
        }
    }

    /// After a frame is drawn: each clip captures it if it keeps it. A clip that cannot be
    /// written is dropped, and the error returned.
    pub fn capture(&mut self) -> Result<(), String> {
        if let Some(key) = &mut self.key {
            if let Err(e) = key.capture() {
                self.key = None;
                return Err(e);
            }
        }
        match &mut self.run {
            Some(run) => run.capture().inspect_err(|_| self.run = None),
            None => Ok(()),
        }
    }

    /// Ends every clip: a line for each one written.
    pub fn finish(&mut self) -> Vec<String> {
        [self.key.take(), self.run.take()]
            .into_iter()
            .flatten()
            .map(|r| {
                let path = r.path().to_path_buf();
                format!("wrote {} frames to {}", r.finish(), path.display())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(w: usize, h: usize, rgb: [u8; 3]) -> Vec<u8> {
        (0..w * h)
            .flat_map(|_| [rgb[0], rgb[1], rgb[2], 255])
            .collect()
    }

    #[test]
    fn frames_are_written_as_the_changed_rectangle_and_read_back_whole() {
        let dir = std::env::temp_dir().join(format!("agentbox-clip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.gif");
        let mut writer = GifWriter::create(&path, 8, 4, 3).unwrap();
        let first = solid(8, 4, [0, 0, 0]);
        let mut second = first.clone();
        // One white pixel at (5, 1), top-down.
        second[(8 + 5) * 4..(8 + 5) * 4 + 3].copy_from_slice(&[255, 255, 255]);
        writer.push(&first, false).unwrap();
        writer.push(&second, false).unwrap();
        writer.push(&second, false).unwrap();
        assert_eq!(writer.finish().0, 3);
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(File::open(&path).unwrap()).unwrap();
        let mut frames = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            frames.push((
                frame.left,
                frame.top,
                frame.width,
                frame.height,
                frame.delay,
            ));
        }
        assert_eq!(frames, [(0, 0, 8, 4, 3), (5, 1, 1, 1, 3), (0, 0, 1, 1, 3)]);
        assert_eq!(index_of(255, 255, 255), 251);
        assert_eq!(&palette()[251 * 3..252 * 3], &[255, 255, 255]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_clip_is_named_after_the_scene_with_the_first_free_number() {
        let dir = std::env::temp_dir().join(format!("agentbox-clips-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let scene = dir.join("chase.yaml");
        assert_eq!(next_clip_path(&scene), dir.join("chase.clip-1.gif"));
        std::fs::write(dir.join("chase.clip-1.gif"), b"").unwrap();
        assert_eq!(next_clip_path(&scene), dir.join("chase.clip-2.gif"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
