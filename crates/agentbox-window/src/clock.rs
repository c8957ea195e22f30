//! The clock: pause, speed and the ticks the live run is owed. It decides how many ticks a
//! frame runs; it never runs them (the window does, through the history).

use macroquad::prelude::get_frame_time;

/// Simulation speeds the `[` and `]` keys step through.
const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];

/// At most this many ticks in one frame, so a slow frame never starts a spiral.
const MOST_TICKS_A_FRAME: u32 = 64;

pub struct Clock {
    pub paused: bool,
    /// Index into `SPEEDS`.
    speed: usize,
    /// Ticks owed to the simulation (fractional).
    carry: f64,
    /// One tick is asked for (`.` or N while paused).
    pub step_once: bool,
}

impl Default for Clock {
    fn default() -> Self {
        Clock {
            paused: false,
            speed: 2,
            carry: 0.0,
            step_once: false,
        }
    }
}

impl Clock {
    /// The simulation speed, as a multiple of real time.
    pub fn speed(&self) -> f64 {
        SPEEDS[self.speed]
    }

    pub fn slower(&mut self) {
        self.speed = self.speed.saturating_sub(1);
    }

    pub fn faster(&mut self) {
        self.speed = (self.speed + 1).min(SPEEDS.len() - 1);
    }

    /// The ticks this frame owes: by the clock, or one per frame (times the speed) when
    /// `fixed_frames` (`--frames` runs, so screenshots are reproducible). None while paused or
    /// looking at the past (the live run waits; Space branches), but a step asked for runs.
    pub fn ticks_due(&mut self, past: bool, fixed_frames: bool, dt: f64) -> u32 {
        if self.step_once {
            self.step_once = false;
            return 1;
        }
        if past || self.paused {
            self.carry = 0.0;
            return 0;
        }
        if fixed_frames {
            self.carry += self.speed();
        } else {
            self.carry += (get_frame_time() as f64).min(0.25) * self.speed() / dt;
        }
        let mut n = 0;
        while self.carry >= 1.0 && n < MOST_TICKS_A_FRAME {
            self.carry -= 1.0;
            n += 1;
        }
        self.carry = self.carry.min(1.0);
        n
    }
}
