//! `general.file_type` against the tensor mix (the quantize module's
//! [`file_type_mismatch`](crate::quantize::file_type_mismatch)), as the finding `model.file-type`.
#![forbid(unsafe_code)]

use super::{Finding, Severity};
use crate::quantize::file_type_mismatch;
use crate::Gguf;

pub(super) fn audit_file_type(g: &Gguf<'_>, out: &mut Vec<Finding>) {
    let Some(kv) = g.get_kv("general.file_type") else {
        return;
    };
    let Some(mismatch) = file_type_mismatch(g) else {
        return;
    };
    out.push(Finding::new(
        "model.file-type",
        Severity::Warning,
        "general.file_type",
        kv.offset,
        mismatch.to_string(),
    ));
}
