//! Timing shared by the benches (`#[path]`-included: a bench is a crate of its own).

use std::time::Instant;

/// Median of `n` timed runs of `f` (after `warm` untimed runs), in microseconds.
pub fn median_us(warm: usize, n: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..warm {
        f();
    }
    median(
        (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect(),
    )
}

/// The middle of `v` once sorted (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Microseconds for a table: `12.3 µs`, or `45.6 ms` from 10 ms on.
pub fn us(x: f64) -> String {
    if x >= 10_000.0 { format!("{:.1} ms", x / 1000.0) } else { format!("{x:.1} µs") }
}
