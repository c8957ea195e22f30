//! The process's CPU time per frame, for `--frame-stats`' CPU line and the bare macroquad peer
//! (`examples/bare_frame.rs`): user and system time of every thread of the process, so it
//! includes Mesa's software OpenGL rasterizing the frames on threads of its own, which the
//! wall clock of building a frame leaves out. It only reads the clock; the X server's own work
//! (another process) is not in it.

/// Frames left out at the start (fonts, textures and egui's first frame are made then).
pub const WARM_UP_FRAMES: u64 = 10;

/// The median wall-clock build time of the frames after [`WARM_UP_FRAMES`], `times` in frame
/// order (ms): the typical frame, which the mean over all frames is not when one-off work (the
/// first frame's shaders, glyphs and textures) or the machine's load makes a few frames long.
/// `--frame-stats` and the bare peer print it beside their mean.
pub fn median_after_warm_up(times: &[f64]) -> Option<f64> {
    let mut settled = times.get(WARM_UP_FRAMES as usize..)?.to_vec();
    if settled.is_empty() {
        return None;
    }
    settled.sort_by(f64::total_cmp);
    Some(settled[settled.len() / 2])
}

/// The CPU time this process has used so far, all threads, in ms; `None` where it cannot be
/// read.
#[cfg(unix)]
pub fn process_cpu_ms() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes one `rusage` through the pointer, which points at a zeroed
    // value of that type that lives across the call; RUSAGE_SELF is always a valid `who`.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    if !ok {
        return None;
    }
    // SAFETY: getrusage returned 0, so it filled the value (and it was zeroed before anyway).
    let usage = unsafe { usage.assume_init() };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
    Some(ms(usage.ru_utime) + ms(usage.ru_stime))
}

#[cfg(not(unix))]
pub fn process_cpu_ms() -> Option<f64> {
    None
}

/// The process's CPU time across a run of frames, from the start of the first frame after
/// [`WARM_UP_FRAMES`] to the start of the last frame: every frame between is whole, with its
/// drawing handed to OpenGL and the buffers swapped.
#[derive(Default)]
pub struct FrameCpu {
    first: Option<f64>,
    last: Option<(u64, f64)>,
}

impl FrameCpu {
    /// Notes the start of frame `n` (counted from 0).
    pub fn frame_starts(&mut self, n: u64) {
        if n < WARM_UP_FRAMES {
            return;
        }
        let Some(now) = process_cpu_ms() else {
            return;
        };
        if self.first.is_none() {
            self.first = Some(now);
        }
        self.last = Some((n - WARM_UP_FRAMES, now));
    }

    /// How many whole frames were measured and their mean CPU time in ms, if any were.
    pub fn per_frame(&self) -> Option<(u64, f64)> {
        let ((frames, last), first) = (self.last?, self.first?);
        (frames > 0).then(|| (frames, (last - first) / frames as f64))
    }

    /// The line `--frame-stats` and the bare peer print (`frame_bench` reads its mean): what
    /// was measured and how, in words.
    pub fn line(&self, what: &str, agents: usize) -> Option<String> {
        let (frames, mean) = self.per_frame()?;
        Some(format!(
            "cpu: {frames} frames (after {WARM_UP_FRAMES} warm-up frames), {agents} agents, {what}: process CPU time per frame (all threads, software OpenGL included) mean {mean:.2} ms"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_grows_with_work_and_frames_are_counted_after_the_warm_up() {
        let before = process_cpu_ms().expect("getrusage");
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(std::hint::black_box(i));
        }
        std::hint::black_box(x);
        assert!(process_cpu_ms().unwrap() > before);
        let mut cpu = FrameCpu::default();
        for n in 0..WARM_UP_FRAMES + 4 {
            cpu.frame_starts(n);
        }
        let (frames, mean) = cpu.per_frame().expect("frames measured");
        assert_eq!(
            frames, 3,
            "the frames between the first and the last start measured"
        );
        assert!(mean >= 0.0);
        let mut times = vec![100.0; WARM_UP_FRAMES as usize];
        times.extend([3.0, 1.0, 2.0]);
        assert_eq!(median_after_warm_up(&times), Some(2.0));
        assert_eq!(median_after_warm_up(&times[..5]), None);
        let line = cpu.line("whole frame", 2).unwrap();
        assert!(
            line.starts_with("cpu: 3 frames") && line.contains(" mean "),
            "{line}"
        );
    }
}
