//! Python `str` objects from text the library has already checked as UTF-8, made without
//! CPython decoding it a second time: most tokens of a vocabulary are not ASCII, and CPython's
//! UTF-8 decoder builds such a string by growing and re-encoding it, which was most of the time
//! of reading a vocabulary (see BENCHMARKS.md). ASCII goes through the ordinary constructor; other
//! text is widened to UCS-4 here and handed over with `PyUnicode_FromWideChar` (stable ABI), which
//! sizes the string once.

use libc::wchar_t;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// Makes `str` objects, reusing one buffer for the widened text.
#[derive(Default)]
pub struct StrMaker {
    wide: Vec<wchar_t>,
}

impl StrMaker {
    /// The `str` of `s`.
    pub fn make<'py>(&mut self, py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyAny>> {
        // wchar_t is UCS-4 on Linux and macOS; elsewhere (UTF-16 on Windows) CPython decodes
        if s.is_ascii() || std::mem::size_of::<wchar_t>() != 4 {
            return Ok(PyString::new(py, s).into_any());
        }
        // short text (every token of a vocabulary) is widened on the stack, longer text in the
        // reused buffer: no allocation per string
        let mut stack = [0 as wchar_t; 64];
        let wide: &[wchar_t] = if s.len() <= stack.len() {
            let mut n = 0;
            for c in s.chars() {
                // a char is at most 0x10FFFF, so it fits a 4-byte wchar_t of either sign
                stack[n] = c as u32 as wchar_t;
                n += 1;
            }
            &stack[..n]
        } else {
            self.wide.clear();
            self.wide.extend(s.chars().map(|c| c as u32 as wchar_t));
            &self.wide
        };
        let len = ffi::Py_ssize_t::try_from(wide.len())
            .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("string too long"))?;
        // SAFETY: `wide` holds `len` initialised UCS-4 code points (every one a Unicode scalar
        // value, from a `&str`), and CPython copies them before returning; the GIL is held
        // (`py`). The call returns a new reference or NULL with an exception set, which
        // `from_owned_ptr_or_err` turns into a `Bound` or a `PyErr`.
        unsafe {
            let p = ffi::PyUnicode_FromWideChar(wide.as_ptr(), len);
            Bound::from_owned_ptr_or_err(py, p)
        }
    }
}
