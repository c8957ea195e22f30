//! Rendering: the window. The only module that names macroquad. It draws the world and the
//! HUD, reads the keyboard and turns frames into fixed simulation steps; it never changes the
//! world except through the session (ticks, reloads, reset) and the keyboard direction.

mod draw;
mod map_texture;
mod palette;

use crate::session::Session;
use crate::watch::FileWatcher;
use macroquad::prelude::*;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// How the window runs.
#[derive(Clone, Debug, Default)]
pub struct WindowOptions {
    /// Save a PNG of the last frame here.
    pub screenshot: Option<PathBuf>,
    /// Quit after this many frames, one tick per frame (for tests and screenshots).
    pub frames: Option<u64>,
}

/// Why the window cannot open, in words a user can act on.
fn no_display_message() -> Option<String> {
    let has = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    if cfg!(target_os = "linux") && !has("DISPLAY") && !has("WAYLAND_DISPLAY") {
        return Some(
            "error: agentbox run needs a display, and none was found (DISPLAY is not set).\n\
             Run without a window: agentbox headless SCENE --ticks N --trace -\n\
             Or under a virtual display: xvfb-run -a agentbox run SCENE"
                .to_string(),
        );
    }
    None
}

/// Opens the window on a scene and runs until Esc, the window closing, or `--frames`.
pub fn run_window(scene: &Path, seed: Option<u64>, options: WindowOptions) -> Result<(), String> {
    if let Some(message) = no_display_message() {
        return Err(message);
    }
    let session = Session::open(scene, seed)?;
    let outcome: Rc<RefCell<Result<(), String>>> = Rc::new(RefCell::new(Ok(())));
    let result = Rc::clone(&outcome);
    let conf = Conf {
        window_title: format!("agentbox — {}", session.world().name),
        window_width: 1024,
        window_height: 768,
        high_dpi: true,
        window_resizable: true,
        ..Default::default()
    };
    macroquad::Window::from_config(conf, async move {
        *result.borrow_mut() = window_loop(session, options).await;
    });
    Rc::try_unwrap(outcome)
        .map(RefCell::into_inner)
        .unwrap_or(Ok(()))
}

/// Arrow keys / WASD as a direction.
fn keyboard_direction() -> ::glam::IVec2 {
    let axis = |neg: [KeyCode; 2], pos: [KeyCode; 2]| {
        let down = |keys: [KeyCode; 2]| keys.iter().any(|k| is_key_down(*k));
        down(pos) as i32 - down(neg) as i32
    };
    ::glam::IVec2::new(
        axis([KeyCode::Left, KeyCode::A], [KeyCode::Right, KeyCode::D]),
        axis([KeyCode::Up, KeyCode::W], [KeyCode::Down, KeyCode::S]),
    )
}

async fn window_loop(mut session: Session, options: WindowOptions) -> Result<(), String> {
    let mut watcher = FileWatcher::new().map_err(|e| format!("cannot watch files: {e}"))?;
    for problem in watcher.watch(&session.watched_files()) {
        eprintln!("{problem}");
    }
    let mut map = map_texture::MapTexture::default();
    let mut hud = draw::Hud::default();
    let mut paused = false;
    let mut carry = 0.0f64;
    let mut frame = 0u64;
    loop {
        if is_key_pressed(KeyCode::Escape) || is_quit_requested() {
            break;
        }
        if is_key_pressed(KeyCode::Space) {
            paused = !paused;
        }
        if is_key_pressed(KeyCode::R) {
            session.reset();
            hud.status("reset to the scene's start".into());
        }
        for path in watcher.changed() {
            if let Some(reload) = session.file_changed(&path) {
                eprintln!("{reload}");
                hud.status(reload.to_string());
                for problem in watcher.watch(&session.watched_files()) {
                    eprintln!("{problem}");
                }
            }
        }
        session.sim_mut().set_keyboard(keyboard_direction());
        if options.frames.is_some() {
            if !paused {
                session.tick();
            }
        } else if !paused {
            let dt = session.world().dt();
            carry += (get_frame_time() as f64).min(0.25);
            while carry >= dt {
                session.tick();
                carry -= dt;
            }
        }

        clear_background(Color::from_rgba(0x1e, 0x20, 0x26, 0xff));
        let layout = draw::Layout::fit(session.world(), screen_width(), screen_height());
        map.draw(session.world(), &layout);
        draw::agents(session.world(), &layout);
        hud.draw(&session, paused, get_fps());

        frame += 1;
        if options.frames.is_some_and(|n| frame >= n) {
            if let Some(path) = &options.screenshot {
                get_screen_data().export_png(&path.to_string_lossy());
            }
            break;
        }
        next_frame().await;
    }
    Ok(())
}
