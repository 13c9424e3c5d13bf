//! The fast path of string arrays, the hot loop of vocabularies: strings stepped over with one
//! load, one test and one add each, their UTF-8 checked a run at a time; and the field-by-field
//! reading it must equal.
#![forbid(unsafe_code)]

use super::guess::header_end_guess;
use super::{PResult, Parser, Stop};
use crate::endian::Endian;
use crate::read::source::Source;
use crate::rules;
use crate::wire::u64_in;

/// Bytes of strings checked as UTF-8 at a time while they are in the cache.
const STRETCH: u64 = 256 * 1024;
/// Strings left in an array below which a second chain is not worth starting.
const PAIR_MIN: u64 = 1024;

impl<S: Source> Parser<'_, S> {
    /// The hot loop of vocabulary files: `count` strings at the cursor.
    ///
    /// UTF-8 is checked per run of strings, not per string: when every byte of the length fields
    /// in a run is ASCII, the run (lengths included) is valid UTF-8 exactly when each string is,
    /// because an ASCII byte is always a character boundary. So one validation pass covers a whole
    /// vocabulary; a run that fails is re-checked string by string to name the bad one.
    pub(super) fn string_elements(&mut self, count: u64, kv: u64) -> PResult<()> {
        let mut pos = self.cur.pos;
        let mut run_start = pos;
        let mut run_first = 0u64;
        let mut k = 0u64;
        // the lengths of a large array are kept, a byte each, so that walking it later does not
        // chase them through the header
        let record = self.value_index.begin_strings(pos, count);
        while k < count {
            // the fast loop over the bytes in memory, until a length field that is not ASCII,
            // the end of what is in memory, the last string, or a stretch's worth of bytes
            let bytes = self.cur.src.bytes();
            let lens = &mut self.value_index.lens;
            let limit = pos.saturating_add(STRETCH);
            let n = count - k;
            // two chains where a whole stretch of a long array is in memory (see `scan_pair`)
            let pair = record && n >= PAIR_MIN && limit <= bytes.len() as u64;
            let spare = &mut self.spare_lens;
            let (done, to) = match (self.cur.endian, record) {
                (Endian::Little, true) if pair => {
                    scan_pair::<false>(bytes, pos, n, limit, lens, spare)
                }
                (Endian::Big, true) if pair => scan_pair::<true>(bytes, pos, n, limit, lens, spare),
                (Endian::Little, false) => scan::<false, false>(bytes, pos, n, limit, lens),
                (Endian::Little, true) => scan::<false, true>(bytes, pos, n, limit, lens),
                (Endian::Big, false) => scan::<true, false>(bytes, pos, n, limit, lens),
                (Endian::Big, true) => scan::<true, true>(bytes, pos, n, limit, lens),
            };
            k += done;
            pos = to;
            if k == count {
                break;
            }
            if pos >= limit {
                // check the stretch while it is in the cache, and go on with a new run
                self.check_run(run_start, pos, run_first, kv)?;
                run_start = pos;
                run_first = k;
                continue;
            }
            // one string the fast loop stopped at: more bytes to read, or a length that is not
            // ASCII (which ends the run: that string is checked alone)
            let at = pos;
            let start = self.cur.pos;
            if let Some(mean) = (at - start).checked_div(k) {
                let end = at.saturating_add(mean.saturating_mul(count - k));
                self.cur.src.expect(header_end_guess(start, end, count));
            }
            let whole = match self.cur.src.available(at.saturating_add(8))? {
                true => (at + 8).checked_add(self.cur.u64_at(at)),
                false => None,
            };
            let len = match whole {
                Some(end) if self.cur.src.available(end)? => end - at - 8,
                // a cut: the strings before it are checked first, so that a bad one among them
                // is reported before the cut, as reading them one by one does
                _ => {
                    self.check_run(run_start, at, run_first, kv)?;
                    return Err(self.short_element(at, k, kv));
                }
            };
            pos = at + 8 + len;
            if record {
                self.value_index.lens.push(short_len(len));
            }
            let raw = &self.cur.src.bytes()[at as usize..at as usize + 8];
            if raw.iter().any(|&b| b >= 0x80) {
                self.check_run(run_start, at, run_first, kv)?;
                self.check_utf8(at + 8, len, &|_: &[u8]| {
                    format!("string {k} of the array in key-value pair {kv}")
                })?;
                run_start = pos;
                run_first = k + 1;
            }
            k += 1;
        }
        self.check_run(run_start, pos, run_first, kv)?;
        self.cur.pos = pos;
        Ok(())
    }

    /// Validates a run of strings `[start, end)` whose length fields are all ASCII; on failure
    /// finds and reports the first bad string.
    fn check_run(&mut self, start: u64, end: u64, first: u64, kv: u64) -> PResult<()> {
        if start >= end || simdutf8::basic::from_utf8(self.cur.slice(start, end - start)).is_ok() {
            return Ok(());
        }
        let mut at = start;
        let mut k = first;
        while at < end {
            let len = self.cur.u64_at(at);
            self.check_utf8(at + 8, len, &|_: &[u8]| {
                format!("string {k} of the array in key-value pair {kv}")
            })?;
            at += 8 + len;
            k += 1;
        }
        Ok(())
    }

    /// `truncated` inside string `k` (its length field at `at`) of the array in pair `kv`.
    fn short_element(&self, at: u64, k: u64, kv: u64) -> Stop {
        let pair = super::values::pair_name(self.cur.bytes(), self.key, kv);
        Stop::Rule(rules::truncated_element(at, self.cur.file_len(), k, &pair))
    }

    /// `count` strings at the cursor, one after the other: the reading [`Parser::string_elements`]
    /// must equal (its lengths are recorded the same way).
    pub(super) fn string_elements_one_by_one(&mut self, count: u64, kv: u64) -> PResult<()> {
        let record = self.value_index.begin_strings(self.cur.pos, count);
        for k in 0..count {
            let at = self.cur.pos;
            if !self.cur.src.available(at.saturating_add(8))? {
                return Err(self.short_element(at, k, kv));
            }
            let len = self.cur.u64_at(at);
            match (at + 8).checked_add(len) {
                Some(end) if self.cur.src.available(end)? => self.cur.pos = end,
                _ => return Err(self.short_element(at, k, kv)),
            }
            if record {
                self.value_index.lens.push(short_len(len));
            }
            self.check_utf8(at + 8, len, &|_: &[u8]| {
                format!("string {k} of the array in key-value pair {kv}")
            })?;
        }
        Ok(())
    }
}

/// A string length in a byte: 255 stands for 255 or more (read from the header when needed).
#[inline(always)]
fn short_len(len: u64) -> u8 {
    len.min(255) as u8
}

/// Steps over up to `n` strings from `pos`, stopping at `limit` or beyond, while each is wholly in
/// `bytes` and its length field is all ASCII; returns how many it stepped over and where it
/// stopped; with `RECORD`, pushes each length onto `lens` ([`short_len`]). The hot loop of
/// vocabularies: one load, one test and one add a string, the byte order fixed at compile time.
#[inline(always)]
fn scan<const BIG: bool, const RECORD: bool>(
    bytes: &[u8],
    mut pos: u64,
    n: u64,
    limit: u64,
    lens: &mut Vec<u8>,
) -> (u64, u64) {
    let have = bytes.len() as u64;
    let mut k = 0;
    while k < n && pos < limit {
        let Some(raw) = usize::try_from(pos)
            .ok()
            .and_then(|p| bytes.get(p..)?.first_chunk::<8>())
        else {
            break;
        };
        if u64::from_ne_bytes(*raw) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        let len = u64_in::<BIG>(*raw);
        // every byte below 0x80: len + 8 < 2^63
        match pos.checked_add(len + 8) {
            Some(end) if end <= have => pos = end,
            _ => break,
        }
        if RECORD {
            lens.push(short_len(len));
        }
        k += 1;
    }
    (k, pos)
}

/// [`scan`] of a recorded string array with two chains of loads instead of one.
///
/// Finding a string means reading the length of the one before: a chain of dependent loads, each
/// waiting for the last: most of the time it takes to open a vocabulary.
/// So a second chain starts from a guessed string boundary halfway to `limit` and both step in
/// turn, the processor overlapping their loads. The guess is only kept when the first chain lands
/// on it exactly: a chain from a true boundary steps over exactly the strings the first chain
/// would have, so nothing but time depends on the guess being right. `spare` holds the second
/// chain's lengths until then. Returns what [`scan`] would (the same strings and lengths), except
/// that the stop at `limit` may come at a later boundary, at most a stretch further.
#[inline(always)]
fn scan_pair<const BIG: bool>(
    bytes: &[u8],
    pos: u64,
    n: u64,
    limit: u64,
    lens: &mut Vec<u8>,
    spare: &mut Vec<u8>,
) -> (u64, u64) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let have = bytes.len() as u64;
    let word = |p: u64| -> Option<u64> {
        Some(u64_in::<BIG>(
            *bytes.get(usize::try_from(p).ok()?..)?.first_chunk::<8>()?,
        ))
    };
    let Some(guess) = guess_boundary::<BIG>(bytes, pos + (limit - pos) / 2) else {
        return scan::<BIG, true>(bytes, pos, n, limit, lens);
    };
    // both chains in turn while the first has not reached the guess, each pair of strings
    // keeping the total within the array's count
    let (mut a, mut b) = (pos, guess);
    let b_limit = guess.saturating_add(STRETCH);
    let mut pairs = 0u64;
    spare.clear();
    while a < guess && b < b_limit && pairs.saturating_mul(2) + 2 <= n {
        let (Some(la), Some(lb)) = (word(a), word(b)) else {
            break;
        };
        // a length field with a byte of 0x80 or more ends the run (see `scan`); it also
        // keeps both sums far from overflowing
        if (la | lb) & HIGH != 0 {
            break;
        }
        let (next_a, next_b) = (a + 8 + la, b + 8 + lb);
        if next_a > have || next_b > have {
            break;
        }
        lens.push(short_len(la));
        spare.push(short_len(lb));
        a = next_a;
        b = next_b;
        pairs += 1;
    }
    // the first chain alone the rest of the way to the guess
    let (more, at) = scan::<BIG, true>(bytes, a, n - 2 * pairs, guess, lens);
    let first = pairs + more;
    if at != guess {
        // the guess was not a boundary (or lies past the array): the first chain goes on alone
        let (rest, end) = scan::<BIG, true>(bytes, at, n - first, limit, lens);
        return (first + rest, end);
    }
    lens.extend_from_slice(spare);
    let done = first + pairs;
    let (rest, end) = scan::<BIG, true>(bytes, b, n - done, limit, lens);
    (done + rest, end)
}

/// A likely string boundary at or after `from`: the first place where an 8-byte length field
/// holding less than 2^16 would start (six zero bytes where the high bytes go), which in text is
/// nearly always a real one. Searched for 4 KiB at most.
fn guess_boundary<const BIG: bool>(bytes: &[u8], from: u64) -> Option<u64> {
    let start = usize::try_from(from).ok()?;
    let window = bytes.get(start..start.checked_add(4096 + 16)?)?;
    let small = |i: usize| -> bool {
        u64_in::<BIG>(window[i..i + 8].try_into().unwrap_or([0xFF; 8])) < 1 << 16
    };
    let i = (0..4096).find(|&i| small(i))?;
    // little-endian: the zeros of a short length end just before its string, so the last place
    // of a run of candidates is the field; big-endian: they start it, so the first is
    let i = if BIG {
        i
    } else {
        (i..4096).find(|&j| !small(j + 1)).unwrap_or(i)
    };
    Some(from + i as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `scan_pair` steps over exactly what `scan` does, with the same lengths, wherever its guess
    /// lands: on a boundary, inside a string, inside a run of zeros that looks like a length
    /// field, past the array, or where no guess can be made; in both byte orders.
    #[test]
    fn scan_pair_agrees_with_scan() {
        let mut seed = 11u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        for case in 0..48 {
            let big = case % 2 == 1;
            let mut bytes = Vec::new();
            let count = 2_000 + next() % 40_000;
            for i in 0..count {
                let r = next();
                let len = match (case / 2) % 6 {
                    // text: short tokens
                    0 => r % 24,
                    // strings full of zeros, like length fields
                    1 => r % 40,
                    // some lengths of 128 bytes or more (a high bit in the field)
                    2 if i % 300 == 0 => 128 + r % 300,
                    // empty strings among short ones
                    3 => [0, 0, 1, 2, 9][(r % 5) as usize],
                    // long strings: a stretch holds few of them
                    4 => r % 5_000,
                    _ => r % 64,
                };
                let field = if big {
                    len.to_be_bytes()
                } else {
                    len.to_le_bytes()
                };
                bytes.extend(field);
                let fill = if (case / 2) % 6 == 1 {
                    0
                } else {
                    b'a' + (r % 26) as u8
                };
                bytes.extend(std::iter::repeat_n(fill, len as usize));
            }
            // what follows the array: binary floats, or nothing
            if case % 3 != 0 {
                bytes.extend((0..100_000).map(|_| next() as u8));
            }
            for (pos, n, limit) in [
                (0, count, STRETCH),
                (0, count / 3, STRETCH),
                (0, count, STRETCH / 3),
                (17 * 8, count, STRETCH),
            ] {
                if pos > 0 && (case / 2) % 6 != 3 {
                    continue; // a start that may fall inside a string: tried on one kind of array
                }
                let (mut one, mut two, mut spare) = (Vec::new(), Vec::new(), Vec::new());
                // the second chain may carry the stop past `limit`, to a later boundary (never
                // further than a stretch beyond): scan to that one
                let b = if big {
                    scan_pair::<true>(&bytes, pos, n, limit, &mut two, &mut spare)
                } else {
                    scan_pair::<false>(&bytes, pos, n, limit, &mut two, &mut spare)
                };
                let to = limit.max(b.1);
                assert!(to < limit + 2 * STRETCH);
                let a = if big {
                    scan::<true, true>(&bytes, pos, n, to, &mut one)
                } else {
                    scan::<false, true>(&bytes, pos, n, to, &mut one)
                };
                assert_eq!(a, b, "case {case}, from {pos}, {n} strings, limit {limit}");
                assert_eq!(one, two, "case {case}: the lengths");
            }
        }
    }
}
