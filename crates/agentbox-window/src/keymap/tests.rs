//! The keymap's own rules: each key means one thing, every key can be recorded, the help fits
//! its window, and no other module binds keys.

use super::docs::MODES;
use super::*;
use Action as A;

fn frame(pressed: &[KeyCode], ctrl: bool, shift: bool) -> FrameInput {
    FrameInput {
        pressed: pressed.to_vec(),
        ctrl,
        shift,
        ..Default::default()
    }
}

#[test]
fn keys_mean_their_rows_actions_in_the_mode() {
    let map = |keys: &[KeyCode], ctrl, shift| Actions::of(&frame(keys, ctrl, shift), Mode::Map).0;
    assert_eq!(map(&[K::Space], false, false), [A::PlayPause]);
    assert_eq!(map(&[K::S], true, false), [A::Save]);
    assert_eq!(map(&[K::S], false, true), [A::SaveInPaintMode]);
    assert_eq!(map(&[K::O], false, false), [A::Overlay(Overlay::Flow)]);
    assert_eq!(map(&[K::O], true, false), [A::OpenSessions]);
    assert_eq!(map(&[K::E], false, false), []);
    assert_eq!(
        map(&[K::Key3, K::Key1, K::Key3], true, false),
        [
            A::Overlay(Overlay::Crumbs),
            A::Overlay(Overlay::Routes),
            A::Overlay(Overlay::Crumbs)
        ],
        "in the order pressed, repeats kept"
    );
    let search = |keys: &[KeyCode], shift| Actions::of(&frame(keys, false, shift), Mode::Search).0;
    assert_eq!(search(&[K::Enter], false), [A::SearchStep]);
    assert_eq!(search(&[K::Enter], true), [A::SearchRun]);
    assert_eq!(
        search(&[K::Space, K::R], false),
        [],
        "the map's keys are not the mode's"
    );
    let help = FrameInput {
        chars: vec!['?'],
        ..Default::default()
    };
    assert_eq!(Actions::of(&help, Mode::Search).0, [A::Help]);
    assert_eq!(Actions::of(&help, Mode::Sessions).0, []);
}

#[test]
fn held_keys_drive_and_pressed_ones_do_not() {
    let mut input = frame(&[K::Left], false, false);
    assert_eq!(Actions::of(&input, Mode::Map).0, []);
    input.down = [K::Left, K::D]
        .iter()
        .map(|&k| crate::input::KeyCodeOrd(k as u16))
        .collect();
    assert_eq!(
        Actions::held(&input, Mode::Map).0,
        [A::Drive(Dir::Left), A::DriveByLetter(Dir::Right)]
    );
    input.ctrl = true;
    assert_eq!(
        Actions::held(&input, Mode::Message).0,
        [A::Drive(Dir::Left)]
    );
    assert_eq!(Actions::held(&input, Mode::Search).0, []);
}

/// One key, one meaning: within a mode no two bindings that can match the same frame ask
/// for different actions when pressed (or when held). A key may be both: S held drives
/// down, S pressed saves in paint mode, where the letters do not drive.
#[test]
fn no_key_is_bound_twice_in_a_mode() {
    let overlap =
        |a: Need, b: Need| !matches!((a, b), (Need::Held, Need::Free) | (Need::Free, Need::Held));
    for mode in MODES {
        let all: Vec<(Chord, Action)> = bindings(mode).collect();
        for (i, (a, x)) in all.iter().enumerate() {
            for (b, y) in &all[i + 1..] {
                let clash = a.key == b.key
                    && x.is_held() == y.is_held()
                    && overlap(a.ctrl, b.ctrl)
                    && overlap(a.shift, b.shift)
                    && x != y;
                assert!(!clash, "{mode:?}: {a:?} means {x:?} and {y:?}");
            }
        }
    }
}

/// Every key the table binds can be recorded and replayed (`input.rs` has a name for it).
#[test]
fn every_bound_key_has_a_name_in_recorded_files() {
    for (chord, action) in MODES.iter().flat_map(|&m| bindings(m)) {
        if let Key::Code(code) = chord.key {
            assert!(
                crate::input::recorded_name(code).is_some(),
                "{code:?} ({action:?}) has no name in input.rs's KEYS"
            );
        }
    }
}

#[test]
fn every_overlay_has_a_key() {
    for (overlay, ..) in crate::overlays::ALL {
        assert_ne!(overlay_key(overlay), "-", "{overlay:?}");
    }
}

#[test]
fn rows_name_their_keys_as_people_do() {
    let plain = |k: &str| k.to_string();
    let names: Vec<String> = TABLE.iter().map(|r| row_keys(r, &plain)).collect();
    for want in [
        "F1 or ?",
        "[ / ]",
        "wheel, + / -",
        "Ctrl+S / S",
        "arrows / WASD",
        "0-9 / O / Y",
        "Shift+Enter",
        "M / H / X",
    ] {
        assert!(names.iter().any(|n| n == want), "{want:?} in {names:?}");
    }
}

/// The help fits the left dock of a 1280x800 window at 13 px (its smallest text) in two
/// columns, its lines wrapped to a column's width.
#[test]
fn the_help_fits_a_1280_by_800_window_at_13_px() {
    let lines = crate::help::lines(&Default::default());
    let wanted = crate::layout::Wanted {
        left: Some("help"),
        help: true,
        legend: true,
        ..Default::default()
    };
    let layout = crate::layout::Docks::default().layout(1280.0, 800.0, wanted);
    let dock = layout.content(crate::layout::Side::Left).unwrap();
    let column = dock.w / 2.0 - 2.0 - 8.0 - 16.0;
    // The built-in font is 5.3 pixels a character at 12 (measured on a screenshot).
    let per_row = (column / (5.3 * 13.0 / 12.0)) as usize - 4;
    let rows: usize = lines.iter().map(|l| l.len().div_ceil(per_row).max(1)).sum();
    assert!(
        crate::text::panel_height(rows.div_ceil(2), 13) <= dock.h - 8.0,
        "{rows} help rows do not fit two columns of {} pixels",
        dock.h
    );
    assert!(layout.map.w >= 400.0, "the map keeps room beside the help");
}

/// No handler names a key: the keymap and the recorded-input names are the only places.
#[test]
fn only_the_keymap_binds_keys() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.clone()];
    let mut offenders = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name == "input.rs" || path.parent().unwrap().ends_with("keymap") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("KeyCode::") {
            offenders.push(path.display().to_string());
        }
    }
    assert!(
        offenders.is_empty(),
        "keys named outside keymap/: {offenders:?}"
    );
}
