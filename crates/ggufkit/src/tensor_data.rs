//! The bytes of a tensor, or the typed error when the file does not hold them: where every
//! whole-tensor computation (statistics, export, comparison) starts.
#![forbid(unsafe_code)]

use crate::error::{Error, Result};
use crate::quant;
use crate::read::TensorInfo;

/// The tensor's data, or [`Error::TensorDataMissing`] (a file cut short, a header read alone).
pub fn tensor_bytes<'a>(t: &TensorInfo<'a>) -> Result<&'a [u8]> {
    t.data().ok_or_else(|| Error::TensorDataMissing {
        tensor: t.name().into_owned(),
        offset: t.absolute_offset(),
    })
}

/// `Ok` when the tensor's type has a float form, else [`Error::TensorNotDequantizable`].
///
/// A type this build cannot size at all is [`Error::UnsupportedTensorType`].
pub(crate) fn check_dequantizable(t: &TensorInfo<'_>) -> Result<()> {
    let ty = t.ggml_type()?;
    if quant::can_dequantize(ty) {
        Ok(())
    } else {
        Err(Error::TensorNotDequantizable {
            tensor: t.name().into_owned(),
            ty,
        })
    }
}
