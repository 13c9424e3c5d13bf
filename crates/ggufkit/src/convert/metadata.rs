//! `general.*` as gguf-py's `metadata.py` derives them from the folder's name, its config and its
//! README's front matter.
#![forbid(unsafe_code)]
