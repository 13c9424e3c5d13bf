//! What the fuzz targets share: a walk over everything a parsed file exposes, a reader that
//! returns small chunks, and the agreement checks between the library's entry points.
//!
//! Every check here is an invariant the library promises for any input; a failed assertion is a
//! bug the fuzzer found.
#![forbid(unsafe_code)]

use std::io::{self, Read};

use ggufkit::{ArrayView, Gguf, ReadOptions, Rule, Value, ValueType};

/// Touches every value (every array element, nested arrays, strings, typed views) and every
/// tensor info and data byte; returns a checksum so nothing is optimised away.
pub fn walk(g: &Gguf<'_>) -> u64 {
    let mut sum = u64::from(g.version()) ^ u64::from(g.alignment()) ^ g.data_offset();
    sum ^= g.expected_len() ^ g.actual_len().unwrap_or(0);
    let _ = (g.architecture(), g.model_name(), g.context_length());
    let _ = (
        g.embedding_length(),
        g.block_count(),
        g.head_count(),
        g.head_count_kv(),
    );
    for (i, kv) in g.metadata().enumerate() {
        let again = g.kv_at(i).expect("kv_at agrees with metadata()");
        assert_eq!(again.offset, kv.offset);
        let key = kv.key();
        if kv.key.as_str().is_some() {
            // the last occurrence of a repeated key wins
            let found = g.get_kv(&key).expect("every key can be looked up");
            assert!(found.offset >= kv.offset);
        }
        let _ = (
            g.get_u64(&key),
            g.get_i64(&key),
            g.get_f64(&key),
            g.get_str(&key),
        );
        let _ = (
            g.get_bool(&key),
            g.get_f32(&key),
            g.get_u32(&key),
            g.get_array(&key),
        );
        sum = sum
            .wrapping_add(kv.raw.len() as u64)
            .wrapping_add(walk_value(&kv.value));
        assert_eq!(kv.value_type(), kv.value.value_type());
    }
    for (i, t) in g.tensors().enumerate() {
        let again = g.tensor_at(i).expect("tensor_at agrees with tensors()");
        assert_eq!(again.info_offset(), t.info_offset());
        if std::str::from_utf8(t.name_bytes()).is_ok() {
            // the first occurrence of a repeated name wins
            let found = g
                .tensor(&t.name())
                .expect("every tensor can be looked up by name");
            assert!(found.info_offset() <= t.info_offset());
        }
        assert_eq!(t.shape().len(), t.n_dims() as usize);
        assert!(t.n_dims() <= 4);
        sum = sum
            .wrapping_add(t.n_elements())
            .wrapping_add(t.size())
            .wrapping_add(t.row_size())
            .wrapping_add(t.offset())
            .wrapping_add(t.absolute_offset());
        let _ = (t.ne(), t.ggml_type().name(), t.endian(), t.name_bytes());
        if let Some(d) = t.data() {
            assert_eq!(d.len() as u64, t.size());
            sum = sum.wrapping_add(d.iter().map(|&b| u64::from(b)).sum::<u64>());
        }
    }
    let _ = (
        g.tensor_data_size(),
        g.parameter_count(),
        g.header_bytes().len(),
        g.as_bytes().len(),
    );
    sum
}

/// Every element of a value, nested arrays without recursion.
pub fn walk_value(v: &Value<'_>) -> u64 {
    let mut sum = 0u64;
    let mut stack = vec![*v];
    while let Some(v) = stack.pop() {
        let _ = (
            v.as_u64(),
            v.as_i64(),
            v.as_f64(),
            v.as_bool(),
            v.as_str(),
            v.value_type(),
        );
        match v {
            Value::String(s) => {
                sum = sum.wrapping_add(s.to_string_lossy().len() as u64);
            }
            Value::Array(a) => {
                let mut n = 0u64;
                for e in a.iter() {
                    assert_eq!(e.value_type(), a.element_type());
                    if let Value::Array(_) = e {
                        stack.push(e);
                    } else {
                        let _ = (e.as_u64(), e.as_f64(), e.as_str());
                    }
                    n += 1;
                }
                assert_eq!(n, a.len(), "array iteration ends early");
                let _ = a.get(a.len());
                let _ = a.get(u64::MAX);
                if a.element_type() != ValueType::Array && !a.is_empty() {
                    assert!(a.get(0).is_some() && a.get(a.len() - 1).is_some());
                }
                if let Some(strs) = a.strings() {
                    assert_eq!(strs.count() as u64, a.len());
                }
                sum = sum
                    .wrapping_add(n)
                    .wrapping_add(typed(&a))
                    .wrapping_add(a.raw_bytes().len() as u64);
            }
            _ => {}
        }
    }
    sum
}

fn typed(a: &ArrayView<'_>) -> u64 {
    fn one<T: ggufkit::value::Scalar>(a: &ArrayView<'_>) -> u64 {
        let Some(t) = a.typed::<T>() else { return 0 };
        assert_eq!(t.len() as u64, a.len());
        let _ = (t.as_slice(), t.get(t.len()), t.get(usize::MAX));
        if !t.is_empty() {
            assert!(t.get(t.len() - 1).is_some());
        }
        t.iter().count() as u64 + t.to_vec().len() as u64
    }
    one::<u8>(a)
        + one::<i8>(a)
        + one::<u16>(a)
        + one::<i16>(a)
        + one::<u32>(a)
        + one::<i32>(a)
        + one::<f32>(a)
        + one::<u64>(a)
        + one::<i64>(a)
        + one::<f64>(a)
}

/// The three verdicts on a buffer, and their agreement: `from_bytes` succeeds iff `validate`
/// says valid, the strict error is validate's first error, validate is deterministic, and
/// permissive reading opens every valid file with the same header.
pub fn check_verdicts(data: &[u8]) {
    let report = ggufkit::validate_bytes(data);
    assert_eq!(report, ggufkit::validate_bytes(data), "validate is deterministic");
    let strict = Gguf::from_bytes(data);
    let permissive = Gguf::from_bytes_with(data, &ReadOptions::permissive());
    match &strict {
        Ok(g) => {
            assert!(
                report.valid(),
                "from_bytes opened an invalid file: {report:?}"
            );
            assert!(g.report().errors.is_empty());
            assert_eq!(g.report(), &report);
            let p = permissive
                .as_ref()
                .expect("permissive opens what strict opens");
            assert_eq!(p.header_bytes(), g.header_bytes());
            assert_eq!(p.report(), g.report());
        }
        Err(e) => {
            assert!(!report.valid(), "from_bytes failed on a valid file: {e}");
            let d = e.diagnostic().expect("a slice never fails to read");
            assert_eq!(
                Some(d),
                report.first_error(),
                "strict error is validate's first"
            );
        }
    }
    if let Ok(p) = &permissive {
        assert_eq!(p.report().errors, report.errors);
        assert_eq!(p.report().warnings, report.warnings);
    }
    let _ = report.ggml_compatible();
    for d in report.errors.iter().chain(&report.warnings) {
        assert!(!d.message.is_empty());
        assert_eq!(Rule::from_id(d.rule.id()), Some(d.rule));
    }
}

/// A reader that hands out its bytes in chunks whose sizes cycle through `sizes`.
pub struct Chunked<'a> {
    data: &'a [u8],
    pos: usize,
    sizes: Vec<usize>,
    k: usize,
}

impl<'a> Chunked<'a> {
    pub fn new(data: &'a [u8], sizes: Vec<usize>) -> Self {
        let sizes = if sizes.is_empty() { vec![1] } else { sizes };
        Chunked {
            data,
            pos: 0,
            sizes,
            k: 0,
        }
    }

    /// Bytes handed out so far.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.k % self.sizes.len()].max(1);
        self.k += 1;
        let n = want.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The stream reader over small chunks agrees with the slice parser, in both modes.
pub fn check_stream(data: &[u8], sizes: Vec<usize>) {
    for opts in [ReadOptions::default(), ReadOptions::permissive()] {
        let slice = Gguf::from_bytes_with(data, &opts);
        let stream = Gguf::read_header_with(Chunked::new(data, sizes.clone()), &opts);
        match (&slice, &stream) {
            (Ok(a), Ok((b, rest))) => {
                assert_eq!(a.header_bytes(), b.header_bytes());
                assert_eq!(a.data_offset(), b.data_offset());
                assert_eq!(a.expected_len(), b.expected_len());
                assert_eq!(
                    rest.position() as u64,
                    b.data_offset(),
                    "reader left at the data"
                );
                assert!(b.actual_len().is_none());
                assert!(b.tensors().all(|t| t.data().is_none()));
                // the header's findings are the same; the slice adds what it sees of the data
                for (x, y) in b.report().errors.iter().zip(&a.report().errors) {
                    assert_eq!(x, y);
                }
                walk(b);
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.rule(), b.rule(), "{a} / {b}");
                assert_eq!(a.offset(), b.offset(), "{a} / {b}");
            }
            (Err(a), Ok((b, _))) => {
                // only the data past the header can make the slice fail
                assert_eq!(a.rule(), Some(Rule::Truncated), "{a}");
                assert!(a.offset().unwrap_or(0) >= b.data_offset(), "{a}");
            }
            (Ok(_), Err(b)) => panic!("the slice parses but the stream fails: {b}"),
        }
    }
}

/// Asserts that two parsed files hold the same header and tensors: every pair bit for bit, every
/// tensor's name, type, shape, offset and data.
pub fn assert_same(a: &Gguf<'_>, b: &Gguf<'_>) {
    assert_eq!(a.version(), b.version());
    assert_eq!(a.endian(), b.endian());
    assert_eq!(a.alignment(), b.alignment());
    assert_eq!(a.data_offset(), b.data_offset());
    assert_eq!(a.expected_len(), b.expected_len());
    assert_eq!(a.kv_count(), b.kv_count());
    for (x, y) in a.metadata().zip(b.metadata()) {
        assert_eq!(x.raw, y.raw);
        assert_eq!(x.offset, y.offset);
    }
    assert_eq!(a.tensor_count(), b.tensor_count());
    for (x, y) in a.tensors().zip(b.tensors()) {
        assert_eq!(x.name_bytes(), y.name_bytes());
        assert_eq!(x.ggml_type(), y.ggml_type());
        assert_eq!(x.shape(), y.shape());
        assert_eq!(x.offset(), y.offset());
        assert_eq!(x.data(), y.data());
    }
}

/// Zeroes the padding of a parsed file's bytes (`bytes` starts at the GGUF): after the tensor
/// infos and after each tensor's data, up to where the next thing starts or `bytes` ends.
pub fn zero_padding(g: &Gguf<'_>, bytes: &mut [u8]) {
    let mut zero = |from: u64, to: u64| {
        let to = (to as usize).min(bytes.len());
        let from = (from as usize).min(to);
        bytes[from..to].fill(0);
    };
    if let Some(last) = g.tensors().last() {
        let infos_end = last.info_offset()
            + 8
            + last.name_bytes().len() as u64
            + 4
            + 8 * u64::from(last.n_dims())
            + 4
            + 8;
        zero(infos_end, g.data_offset());
    }
    let ts: Vec<_> = g.tensors().collect();
    for (i, t) in ts.iter().enumerate() {
        let end = t.absolute_offset() + t.size();
        let next = ts
            .get(i + 1)
            .map_or(g.expected_len(), |n| n.absolute_offset());
        zero(end, next);
    }
}
