//! Clips to share: `run --frames N --gif FILE` writes an animated GIF of the run (every frame,
//! or every K-th with `--gif-every K`), and F9 in the window records a clip beside the scene
//! (`SCENE.clip-N.gif`). Each GIF is decoded and its frames put together as a viewer shows
//! them, to check that it holds the frames it should and that they move.

use crate::common;
use common::*;
use std::ffi::OsStr;
use std::path::Path;

/// The frames of a GIF as a viewer shows them (each frame's rectangle drawn over the last,
/// transparent pixels keeping what was there): RGBA canvases, and the GIF's size.
fn shown_frames(path: &Path) -> (u16, u16, Vec<Vec<u8>>) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let file = std::fs::File::open(path).expect("the GIF was written");
    let mut decoder = options.read_info(file).expect("a GIF");
    let (w, h) = (decoder.width(), decoder.height());
    let mut canvas = vec![0u8; w as usize * h as usize * 4];
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().expect("GIF frames decode") {
        for y in 0..frame.height as usize {
            for x in 0..frame.width as usize {
                let src = (y * frame.width as usize + x) * 4;
                let px = &frame.buffer[src..src + 4];
                if px[3] == 0 {
                    continue;
                }
                let (cx, cy) = (frame.left as usize + x, frame.top as usize + y);
                let dst = (cy * w as usize + cx) * 4;
                canvas[dst..dst + 4].copy_from_slice(px);
            }
        }
        frames.push(canvas.clone());
    }
    (w, h, frames)
}

fn chase() -> std::path::PathBuf {
    common::root().join("scenes/chase.yaml")
}

#[test]
fn a_run_writes_a_gif_whose_frames_move() {
    let dir = scratch(&[]);
    let gif = dir.path().join("out.gif");
    let out = in_window(
        dir.path(),
        &[
            OsStr::new("run"),
            chase().as_os_str(),
            OsStr::new("--frames"),
            OsStr::new("90"),
            OsStr::new("--gif"),
            gif.as_os_str(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wrote 90 frames to"),
        "{}",
        stderr(&out)
    );
    let (w, h, frames) = shown_frames(&gif);
    assert_eq!(frames.len(), 90);
    assert!(w >= 640 && h >= 480, "the window's size: {w}x{h}");
    // The agents move: frames a second apart differ, and not only in a few pixels.
    let differing =
        |a: &[u8], b: &[u8]| a.chunks(4).zip(b.chunks(4)).filter(|(p, q)| p != q).count();
    assert!(differing(&frames[10], &frames[40]) > 50);
    assert!(differing(&frames[40], &frames[89]) > 50);
    // Not a black window: the map is drawn.
    let colours: std::collections::BTreeSet<&[u8]> = frames[89].chunks(4).collect();
    assert!(colours.len() > 5, "{} colours", colours.len());

    // Every third frame: 30 of them.
    let every = dir.path().join("every.gif");
    let out = in_window(
        dir.path(),
        &[
            OsStr::new("run"),
            chase().as_os_str(),
            OsStr::new("--frames"),
            OsStr::new("90"),
            OsStr::new("--gif"),
            every.as_os_str(),
            OsStr::new("--gif-every"),
            OsStr::new("3"),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(shown_frames(&every).2.len(), 30);
    assert!(std::fs::metadata(&every).unwrap().len() < std::fs::metadata(&gif).unwrap().len());
}

#[test]
fn f9_records_a_clip_beside_the_scene() {
    // A copy of the chase scene and its scripts (`../scripts/`), so the clip is written
    // beside the copy.
    let scene = std::fs::read_to_string(chase()).unwrap();
    let dir = scratch(&[("scenes/chase.yaml", &scene)]);
    std::fs::create_dir_all(dir.path().join("scripts")).unwrap();
    for name in ["hunter.lua", "evader.lua"] {
        let from = common::root().join("scripts").join(name);
        std::fs::copy(from, dir.path().join("scripts").join(name)).unwrap();
    }
    let input = "{\"frame\": 5, \"key\": \"F9\"}\n{\"frame\": 25, \"key\": \"F9\"}\n";
    let scene = dir.path().join("scenes/chase.yaml");
    let (err, _) = replay_in_window(dir.path(), &scene, 40, input, "clip");
    assert!(err.contains("clip: wrote 20 frames to"), "{err}");
    let clip = dir.path().join("scenes/chase.clip-1.gif");
    let (_, _, frames) = shown_frames(&clip);
    assert_eq!(frames.len(), 20);
    assert_ne!(frames[0], frames[19], "the clip moves");
}
