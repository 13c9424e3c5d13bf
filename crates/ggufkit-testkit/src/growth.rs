//! Whether work grows linearly with its input, judged by timing it beside the same input at a
//! quarter of the size: a ratio, not a wall-clock limit, so that a slow or loaded machine slows
//! both sides alike and only work that grows faster than the input fails.
#![forbid(unsafe_code)]

use std::time::{Duration, Instant};

/// How many times longer the full input may take than the quarter: 4 for linear work, about
/// 4.6 for sorting, 16 for quadratic.
pub const GROWTH_LIMIT: u32 = 8;
/// Added to that bound, so that work of a few microseconds, whose timings are all noise, passes.
pub const TIMER_NOISE: Duration = Duration::from_millis(5);
/// Each side's time is the fastest of this many runs, the two sides taking turns, so that a pause
/// of the machine has to strike every run of one side to move the ratio.
pub const RUNS: usize = 3;

/// The fastest time of one piece of work on the full input and on the quarter.
#[derive(Clone, Copy, Debug)]
pub struct Growth {
    pub full: Duration,
    pub quarter: Duration,
}

impl Growth {
    /// How many times longer the full input took.
    pub fn ratio(&self) -> f64 {
        self.full.as_secs_f64() / self.quarter.as_secs_f64().max(1e-9)
    }

    /// True unless the full input took more than [`GROWTH_LIMIT`] times the quarter's time (and
    /// [`TIMER_NOISE`]).
    pub fn is_linear(&self) -> bool {
        self.full <= self.quarter * GROWTH_LIMIT + TIMER_NOISE
    }
}

/// Times `N` pieces of work, each returned by `work` for one input, on `full` and on `quarter`
/// (built like `full` at a quarter of its size), taking the fastest of [`RUNS`] runs.
pub fn measure<const N: usize>(
    full: &[u8],
    quarter: &[u8],
    mut work: impl FnMut(&[u8]) -> [Duration; N],
) -> [Growth; N] {
    let mut best = [[Duration::MAX; N]; 2];
    for _ in 0..RUNS {
        for (side, bytes) in [full, quarter].into_iter().enumerate() {
            for (slot, t) in best[side].iter_mut().zip(work(bytes)) {
                *slot = (*slot).min(t);
            }
        }
    }
    std::array::from_fn(|i| Growth {
        full: best[0][i],
        quarter: best[1][i],
    })
}

/// The time `f` takes.
pub fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}
