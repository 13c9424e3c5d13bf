//! Reading a folder's JSON files: absent is `None`, unreadable or malformed is an error naming
//! the file, and the values are read by dotted key with what was expected said once.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ConvertError;

/// The parsed JSON of `path`, or `None` when there is no such file.
pub(crate) fn read_json(path: &Path) -> Result<Option<Value>, ConvertError> {
    if !path.is_file() {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(|e| ConvertError::io(path, e))?;
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ConvertError::json(path, &e))
}

/// The parsed JSON of `path`, which must be an object (or absent: `None`).
pub(crate) fn read_json_object(
    path: &Path,
) -> Result<Option<serde_json::Map<String, Value>>, ConvertError> {
    match read_json(path)? {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(ConvertError::bad_key(
            path,
            "(top level)",
            "expected a JSON object",
        )),
    }
}

/// The text of `path`, or `None` when there is no such file.
pub(crate) fn read_text(path: &Path) -> Result<Option<String>, ConvertError> {
    if !path.is_file() {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(|e| ConvertError::io(path, e))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| ConvertError::Vocab {
            path: PathBuf::from(path),
            problem: format!("not UTF-8 at byte {}", e.utf8_error().valid_up_to()),
        })
}
